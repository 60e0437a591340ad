package bedrock

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// converse is what the Converse and ConverseStream inputs share.
type converse struct {
	system     []types.SystemContentBlock
	messages   []types.Message
	inference  *types.InferenceConfiguration
	tools      *types.ToolConfiguration
	additional document.Interface
}

// buildConverse turns a chat request into the parts of a Converse input.
func (c *client) buildConverse(req *provider.ChatRequest) (*converse, error) {
	out := &converse{}
	for i, m := range req.Messages {
		switch m.Role {
		case provider.RoleSystem:
			if t := m.Text(); strings.TrimSpace(t) != "" {
				out.system = append(out.system, &types.SystemContentBlockMemberText{Value: t})
			}
		case provider.RoleUser, provider.RoleAssistant, provider.RoleTool:
			role := types.ConversationRoleUser
			if m.Role == provider.RoleAssistant {
				role = types.ConversationRoleAssistant
			}
			blocks, err := c.blocks(m)
			if err != nil {
				return nil, c.fail(sdk.ErrInvalidArgument, "message %d: %v", i+1, err)
			}
			if len(blocks) == 0 {
				continue
			}
			// Converse wants user and assistant turns to alternate: the
			// results of several tool calls, and a question after them, go
			// in one user message.
			if n := len(out.messages); n > 0 && out.messages[n-1].Role == role {
				out.messages[n-1].Content = append(out.messages[n-1].Content, blocks...)
				continue
			}
			out.messages = append(out.messages, types.Message{Role: role, Content: blocks})
		default:
			return nil, c.fail(sdk.ErrInvalidArgument, "message %d has role %q", i+1, m.Role)
		}
	}
	if req.Temperature != nil || req.TopP != nil || req.MaxOutputTokens > 0 {
		ic := &types.InferenceConfiguration{}
		if req.Temperature != nil {
			ic.Temperature = aws.Float32(float32(*req.Temperature))
		}
		if req.TopP != nil {
			ic.TopP = aws.Float32(float32(*req.TopP))
		}
		if req.MaxOutputTokens > 0 {
			ic.MaxTokens = aws.Int32(int32(min(req.MaxOutputTokens, 1<<31-1)))
		}
		out.inference = ic
	}
	if len(req.Tools) > 0 {
		tc := &types.ToolConfiguration{}
		for _, t := range req.Tools {
			schema := map[string]any{}
			if len(t.Parameters) > 0 {
				if err := json.Unmarshal(t.Parameters, &schema); err != nil {
					return nil, c.fail(sdk.ErrInvalidArgument, "tool %q: its parameters are not a JSON object: %v", t.Name, err)
				}
			}
			if len(schema) == 0 {
				schema = map[string]any{"type": "object", "properties": map[string]any{}}
			}
			spec := types.ToolSpecification{Name: aws.String(t.Name), InputSchema: &types.ToolInputSchemaMemberJson{Value: document.NewLazyDocument(schema)}}
			if t.Description != "" {
				spec.Description = aws.String(t.Description)
			}
			tc.Tools = append(tc.Tools, &types.ToolMemberToolSpec{Value: spec})
		}
		out.tools = tc
	}
	if fields := reasoningFields(req.Model, req.ReasoningEffort); fields != nil {
		out.additional = document.NewLazyDocument(fields)
	}
	return out, nil
}

// reasoningFields are the additionalModelRequestFields that carry a
// reasoning effort to the model's own API: output_config.effort for
// Anthropic's models (as their Messages API takes it), reasoning_effort
// for the others that reason (OpenAI's open-weight models, DeepSeek).
func reasoningFields(model, effort string) map[string]any {
	if effort == "" {
		return nil
	}
	if strings.Contains(model, "anthropic.") {
		return map[string]any{"output_config": map[string]any{"effort": effort}}
	}
	return map[string]any{"reasoning_effort": effort}
}

// blocks converts the parts of one message.
func (c *client) blocks(m provider.Message) ([]types.ContentBlock, error) {
	var out []types.ContentBlock
	for _, p := range m.Parts {
		switch {
		case p.ToolResult != nil:
			r := p.ToolResult
			content := r.Content
			if content == "" {
				// Converse rejects an empty text block.
				content = "(no output)"
			}
			tr := types.ToolResultBlock{
				ToolUseId: aws.String(r.CallID),
				Content:   []types.ToolResultContentBlock{&types.ToolResultContentBlockMemberText{Value: content}},
			}
			if r.IsError {
				tr.Status = types.ToolResultStatusError
			}
			out = append(out, &types.ContentBlockMemberToolResult{Value: tr})
		case p.ToolCall != nil:
			args := map[string]any{}
			if s := strings.TrimSpace(p.ToolCall.Arguments); s != "" {
				if err := json.Unmarshal([]byte(s), &args); err != nil {
					return nil, fmt.Errorf("the arguments of tool call %q are not a JSON object", p.ToolCall.Name)
				}
			}
			out = append(out, &types.ContentBlockMemberToolUse{Value: types.ToolUseBlock{
				ToolUseId: aws.String(p.ToolCall.ID), Name: aws.String(p.ToolCall.Name), Input: document.NewLazyDocument(args),
			}})
		case p.Reasoning != nil:
			if m.Role != provider.RoleAssistant {
				continue
			}
			r := p.Reasoning
			switch {
			case r.Redacted != "":
				data, err := base64.StdEncoding.DecodeString(r.Redacted)
				if err != nil {
					continue // not Bedrock's: another provider's opaque block
				}
				out = append(out, &types.ContentBlockMemberReasoningContent{Value: &types.ReasoningContentBlockMemberRedactedContent{Value: data}})
			case r.Signature != "" && r.Text != "":
				out = append(out, &types.ContentBlockMemberReasoningContent{Value: &types.ReasoningContentBlockMemberReasoningText{
					Value: types.ReasoningTextBlock{Text: aws.String(r.Text), Signature: aws.String(r.Signature)},
				}})
			}
			// Unsigned thinking (from another provider) cannot be replayed:
			// the model would reject it.
		case p.ImageURL != "":
			img, err := imageBlock(p.ImageURL)
			if err != nil {
				return nil, err
			}
			out = append(out, &types.ContentBlockMemberImage{Value: img})
		default:
			if strings.TrimSpace(p.Text) == "" {
				continue // Converse rejects blank text blocks
			}
			out = append(out, &types.ContentBlockMemberText{Value: p.Text})
		}
	}
	return out, nil
}

// imageBlock decodes a data: URL; Converse takes image bytes (or S3), not
// web addresses.
func imageBlock(u string) (types.ImageBlock, error) {
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		return types.ImageBlock{}, fmt.Errorf("Bedrock takes images as data, not as a web address (%s): download it first", shorten(u))
	}
	meta, data, ok := strings.Cut(rest, ",")
	if !ok || !strings.HasSuffix(meta, ";base64") {
		return types.ImageBlock{}, fmt.Errorf("an image data: URL is not base64")
	}
	mime := strings.TrimSuffix(meta, ";base64")
	var format types.ImageFormat
	switch mime {
	case "image/png":
		format = types.ImageFormatPng
	case "image/jpeg", "image/jpg":
		format = types.ImageFormatJpeg
	case "image/gif":
		format = types.ImageFormatGif
	case "image/webp":
		format = types.ImageFormatWebp
	default:
		return types.ImageBlock{}, fmt.Errorf("Bedrock takes PNG, JPEG, GIF and WebP images, not %s", strconv.Quote(mime))
	}
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return types.ImageBlock{}, fmt.Errorf("an image data: URL is not valid base64")
	}
	return types.ImageBlock{Format: format, Source: &types.ImageSourceMemberBytes{Value: raw}}, nil
}

func shorten(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}
