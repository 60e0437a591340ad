package bedrock

import (
	"context"
	"encoding/base64"
	"strings"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// Chat sends the conversation to Converse, or ConverseStream when the
// request streams, and reports the reply as events.
func (p *Provider) Chat(ctx context.Context, req *provider.ChatRequest, send func(*provider.ChatEvent) error) error {
	c, err := p.clients.Get(req.Client)
	if err != nil {
		return err
	}
	if req.Model == "" {
		return c.fail(sdk.ErrInvalidArgument, "no model given")
	}
	conv, err := c.buildConverse(req)
	if err != nil {
		return err
	}
	rt, err := c.runtime(ctx)
	if err != nil {
		return err
	}
	var idle atomic.Bool
	err = c.chat(withIdleFlag(ctx, &idle), rt, req, conv, send)
	if err != nil && idle.Load() && ctx.Err() == nil {
		return c.fail(sdk.ErrUnavailable, "%s: %v", c.endpoint, errIdle)
	}
	return err
}

func (c *client) chat(ctx context.Context, rt *bedrockruntime.Client, req *provider.ChatRequest, conv *converse, send func(*provider.ChatEvent) error) error {
	opt := func(o *bedrockruntime.Options) { o.APIOptions = append(o.APIOptions, withPatches(req.Patches)) }
	if !req.Stream {
		out, err := rt.Converse(ctx, &bedrockruntime.ConverseInput{
			ModelId: aws.String(req.Model), Messages: conv.messages, System: conv.system,
			InferenceConfig: conv.inference, ToolConfig: conv.tools, AdditionalModelRequestFields: conv.additional,
		}, opt)
		if err != nil {
			return c.apiError(ctx, err, req.Model)
		}
		return c.reportMessage(out, send)
	}
	out, err := rt.ConverseStream(ctx, &bedrockruntime.ConverseStreamInput{
		ModelId: aws.String(req.Model), Messages: conv.messages, System: conv.system,
		InferenceConfig: conv.inference, ToolConfig: conv.tools, AdditionalModelRequestFields: conv.additional,
	}, opt)
	if err != nil {
		return c.apiError(ctx, err, req.Model)
	}
	stream := out.GetStream()
	defer stream.Close()
	return c.readStream(ctx, stream, send)
}

// finishReason maps Bedrock's stop reasons onto Coyote's.
func finishReason(r types.StopReason) string {
	switch r {
	case types.StopReasonEndTurn, types.StopReasonStopSequence, "":
		return "stop"
	case types.StopReasonToolUse:
		return "tool_calls"
	case types.StopReasonMaxTokens, types.StopReasonModelContextWindowExceeded:
		return "length"
	case types.StopReasonGuardrailIntervened, types.StopReasonContentFiltered:
		return "content_filter"
	}
	return string(r)
}

func usageOf(u *types.TokenUsage) *provider.Usage {
	if u == nil {
		return nil
	}
	in := int64(aws.ToInt32(u.InputTokens)) + int64(aws.ToInt32(u.CacheReadInputTokens)) + int64(aws.ToInt32(u.CacheWriteInputTokens))
	return &provider.Usage{InputTokens: in, OutputTokens: int64(aws.ToInt32(u.OutputTokens))}
}

// reportMessage sends the events of a whole (non-streamed) reply.
func (c *client) reportMessage(out *bedrockruntime.ConverseOutput, send func(*provider.ChatEvent) error) error {
	msg, ok := out.Output.(*types.ConverseOutputMemberMessage)
	if !ok {
		return c.fail(sdk.ErrBadResponse, "the reply from %s holds no message", c.endpoint)
	}
	tools := false
	for _, b := range msg.Value.Content {
		var ev *provider.ChatEvent
		switch b := b.(type) {
		case *types.ContentBlockMemberText:
			if b.Value != "" {
				ev = &provider.ChatEvent{Text: b.Value}
			}
		case *types.ContentBlockMemberReasoningContent:
			switch r := b.Value.(type) {
			case *types.ReasoningContentBlockMemberReasoningText:
				if t := aws.ToString(r.Value.Text); t != "" {
					if err := send(&provider.ChatEvent{Reasoning: &provider.Reasoning{Text: t}}); err != nil {
						return err
					}
				}
				if s := aws.ToString(r.Value.Signature); s != "" {
					ev = &provider.ChatEvent{Reasoning: &provider.Reasoning{Signature: s}}
				}
			case *types.ReasoningContentBlockMemberRedactedContent:
				ev = &provider.ChatEvent{Reasoning: &provider.Reasoning{Redacted: base64.StdEncoding.EncodeToString(r.Value)}}
			}
		case *types.ContentBlockMemberToolUse:
			args := "{}"
			if b.Value.Input != nil {
				data, err := b.Value.Input.MarshalSmithyDocument()
				if err != nil {
					return c.fail(sdk.ErrBadResponse, "the input of tool call %q is not JSON: %v", aws.ToString(b.Value.Name), err)
				}
				args = string(data)
			}
			tools = true
			ev = &provider.ChatEvent{ToolCall: &provider.ToolCall{ID: aws.ToString(b.Value.ToolUseId), Name: aws.ToString(b.Value.Name), Arguments: args}}
		}
		if ev != nil {
			if err := send(ev); err != nil {
				return err
			}
		}
	}
	if u := usageOf(out.Usage); u != nil {
		if err := send(&provider.ChatEvent{Usage: u}); err != nil {
			return err
		}
	}
	reason := finishReason(out.StopReason)
	if tools && reason == "stop" {
		reason = "tool_calls"
	}
	return send(&provider.ChatEvent{FinishReason: reason})
}

// toolBlock is a tool call being streamed.
type toolBlock struct {
	id, name string
	input    strings.Builder
}

// readStream sends the events of a ConverseStream reply as they come.
// The finish reason comes last: Bedrock sends the usage (metadata) after
// messageStop.
func (c *client) readStream(ctx context.Context, stream *bedrockruntime.ConverseStreamEventStream, send func(*provider.ChatEvent) error) error {
	tools := map[int32]*toolBlock{}
	finish := ""
	sawTool := false
	events := stream.Events()
	for {
		var ev types.ConverseStreamOutput
		var ok bool
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev, ok = <-events:
		}
		if !ok {
			break
		}
		var out *provider.ChatEvent
		switch e := ev.(type) {
		case *types.ConverseStreamOutputMemberContentBlockStart:
			if tu, ok := e.Value.Start.(*types.ContentBlockStartMemberToolUse); ok {
				tools[aws.ToInt32(e.Value.ContentBlockIndex)] = &toolBlock{id: aws.ToString(tu.Value.ToolUseId), name: aws.ToString(tu.Value.Name)}
			}
		case *types.ConverseStreamOutputMemberContentBlockDelta:
			switch d := e.Value.Delta.(type) {
			case *types.ContentBlockDeltaMemberText:
				if d.Value != "" {
					out = &provider.ChatEvent{Text: d.Value}
				}
			case *types.ContentBlockDeltaMemberToolUse:
				tb := tools[aws.ToInt32(e.Value.ContentBlockIndex)]
				if tb == nil {
					return c.fail(sdk.ErrBadResponse, "the stream from %s sent tool input for block %d, which started no tool call", c.endpoint, aws.ToInt32(e.Value.ContentBlockIndex))
				}
				tb.input.WriteString(aws.ToString(d.Value.Input))
			case *types.ContentBlockDeltaMemberReasoningContent:
				switch r := d.Value.(type) {
				case *types.ReasoningContentBlockDeltaMemberText:
					if r.Value != "" {
						out = &provider.ChatEvent{Reasoning: &provider.Reasoning{Text: r.Value}}
					}
				case *types.ReasoningContentBlockDeltaMemberSignature:
					out = &provider.ChatEvent{Reasoning: &provider.Reasoning{Signature: r.Value}}
				case *types.ReasoningContentBlockDeltaMemberRedactedContent:
					out = &provider.ChatEvent{Reasoning: &provider.Reasoning{Redacted: base64.StdEncoding.EncodeToString(r.Value)}}
				}
			}
		case *types.ConverseStreamOutputMemberContentBlockStop:
			idx := aws.ToInt32(e.Value.ContentBlockIndex)
			if tb := tools[idx]; tb != nil {
				delete(tools, idx)
				args := strings.TrimSpace(tb.input.String())
				if args == "" {
					args = "{}"
				}
				sawTool = true
				out = &provider.ChatEvent{ToolCall: &provider.ToolCall{ID: tb.id, Name: tb.name, Arguments: args}}
			}
		case *types.ConverseStreamOutputMemberMessageStop:
			finish = finishReason(e.Value.StopReason)
		case *types.ConverseStreamOutputMemberMetadata:
			if u := usageOf(e.Value.Usage); u != nil {
				out = &provider.ChatEvent{Usage: u}
			}
		}
		if out != nil {
			if err := send(out); err != nil {
				return err
			}
		}
	}
	if err := stream.Err(); err != nil {
		return c.apiError(ctx, err, "")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if finish == "" {
		return c.fail(sdk.ErrBadResponse, "the stream from %s ended before the reply did", c.endpoint)
	}
	if sawTool && finish == "stop" {
		finish = "tool_calls"
	}
	return send(&provider.ChatEvent{FinishReason: finish})
}
