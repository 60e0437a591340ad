package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/httpkit"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// wireUsage counts tokens. Input is split between fresh, cache-writing and
// cache-reading tokens; Coyote reports their sum as the input, and the
// cache-reading ones as the cached part.
type wireUsage struct {
	InputTokens              float64 `json:"input_tokens"`
	CacheCreationInputTokens float64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     float64 `json:"cache_read_input_tokens"`
	OutputTokens             float64 `json:"output_tokens"`
}

func (u *wireUsage) input() int64 {
	return int64(u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens)
}

// wireBlock is a content block: of a reply, or as content_block_start
// announces it.
type wireBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
}

type wireDelta struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	Thinking    string `json:"thinking"`
	Signature   string `json:"signature"`
	PartialJSON string `json:"partial_json"`
	StopReason  string `json:"stop_reason"`
}

// wireEvent is the data of one stream event; which members are set depends
// on its type.
type wireEvent struct {
	Type    string `json:"type"`
	Index   int    `json:"index"`
	Message *struct {
		Usage *wireUsage `json:"usage"`
	} `json:"message"`
	ContentBlock *wireBlock `json:"content_block"`
	Delta        *wireDelta `json:"delta"`
	Usage        *wireUsage `json:"usage"`
	Error        *wireError `json:"error"`
}

// maxBlocks bounds the index of a content block.
const maxBlocks = 4096

// block is a content block being streamed.
type block struct {
	typ      string
	id, name string
	// buf collects a tool call's input JSON or a thinking block's
	// signature.
	buf []byte
}

// streamState turns stream events into chat events.
type streamState struct {
	c         *Client
	send      func(*provider.ChatEvent) error
	blocks    []*block
	usage     provider.Usage
	haveUsage bool
	stop      string
	toolCalls int
	done      bool
}

func isJSON(contentType string) bool {
	return strings.HasPrefix(strings.TrimSpace(strings.ToLower(contentType)), "application/json")
}

// readStream reads a server-sent-event reply: "event:" and "data:" lines,
// each event ended by a blank line (a bare JSON line, as proxies send
// errors, is an event too: httpkit.SSE reads both).
func (c *Client) readStream(x *httpkit.Exchange, send func(*provider.ChatEvent) error) error {
	st := &streamState{c: c, send: send}
	sse := httpkit.NewSSE(x)
	for {
		ev, err := sse.Next()
		if err == nil {
			if err := st.event(ev.Name, ev.Data); err != nil {
				return err
			}
			if st.done {
				x.Drain()
				return st.end()
			}
			continue
		}
		switch {
		case x.Context().Err() != nil:
			return x.ReadError(err)
		case errors.Is(err, httpkit.ErrLineTooLong):
			return c.http.Fail(sdk.ErrBadResponse, "bad stream from %s: %v", c.http.BaseForHumans, err)
		case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF):
			return c.http.Fail(sdk.ErrBadResponse, "stream ended before the reply was complete (from %s)", c.http.BaseForHumans)
		}
		return x.ReadError(err)
	}
}

// event handles one event; name is its "event:" field, which the "type" of
// its data overrides.
func (st *streamState) event(name string, data []byte) error {
	var ev wireEvent
	var err error
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		err = errors.New("an event's data must be a JSON object")
	} else if err = json.Unmarshal(data, &ev); errors.As(err, new(*json.UnmarshalTypeError)) {
		// A member of an unexpected type is ignored; the rest is read.
		err = nil
	}
	if err != nil {
		line := append([]byte("data: "), data...)
		return st.c.http.Fail(sdk.ErrBadResponse, "malformed stream event from %s (%v): %s", st.c.http.BaseForHumans, err, httpkit.Quote(line))
	}
	typ := ev.Type
	if typ == "" {
		typ = name
	}
	switch typ {
	case "message_start":
		if ev.Message != nil && ev.Message.Usage != nil {
			st.usage.InputTokens = ev.Message.Usage.input()
			st.usage.CachedTokens = int64(ev.Message.Usage.CacheReadInputTokens)
			st.usage.OutputTokens = int64(ev.Message.Usage.OutputTokens)
			st.haveUsage = true
		}
	case "content_block_start":
		return st.blockStart(ev.Index, ev.ContentBlock)
	case "content_block_delta":
		return st.blockDelta(ev.Index, ev.Delta)
	case "content_block_stop":
		return st.blockStop(ev.Index)
	case "message_delta":
		if ev.Delta != nil && ev.Delta.StopReason != "" {
			st.stop = ev.Delta.StopReason
		}
		if u := ev.Usage; u != nil {
			if in := u.input(); in > 0 {
				st.usage.InputTokens = in
				st.usage.CachedTokens = int64(u.CacheReadInputTokens)
			}
			st.usage.OutputTokens = int64(u.OutputTokens)
			st.haveUsage = true
		}
	case "message_stop":
		st.done = true
	case "error":
		if ev.Error == nil {
			ev.Error = &wireError{}
		}
		return st.c.replyError(ev.Error)
	}
	// ping, and event types added after this plugin was written.
	return nil
}

// block returns the block at index i, creating it (of type typ) if it was
// never started.
func (st *streamState) block(i int, typ string) (*block, error) {
	if i < 0 || i >= maxBlocks {
		return nil, st.c.http.Fail(sdk.ErrBadResponse, "bad stream from %s: content block index %d", st.c.http.BaseForHumans, i)
	}
	for len(st.blocks) <= i {
		st.blocks = append(st.blocks, nil)
	}
	if st.blocks[i] == nil {
		st.blocks[i] = &block{typ: typ}
	}
	return st.blocks[i], nil
}

func (st *streamState) blockStart(i int, cb *wireBlock) error {
	if cb == nil {
		cb = &wireBlock{}
	}
	b, err := st.block(i, cb.Type)
	if err != nil {
		return err
	}
	*b = block{typ: cb.Type, id: cb.ID, name: cb.Name}
	switch cb.Type {
	case "text":
		if cb.Text != "" {
			return st.send(&provider.ChatEvent{Text: cb.Text})
		}
	case "thinking":
		b.buf = append(b.buf, cb.Signature...)
		if cb.Thinking != "" {
			return st.send(&provider.ChatEvent{Reasoning: &provider.Reasoning{Text: cb.Thinking}})
		}
	case "redacted_thinking":
		return st.send(&provider.ChatEvent{Reasoning: &provider.Reasoning{Redacted: cb.Data}})
	case "tool_use":
		// The input usually comes as deltas after an empty {}.
		if in := bytes.TrimSpace(cb.Input); len(in) > 0 && string(in) != "{}" && string(in) != "null" {
			b.buf = append(b.buf, in...)
		}
	}
	return nil
}

func (st *streamState) blockDelta(i int, d *wireDelta) error {
	if d == nil {
		return nil
	}
	switch d.Type {
	case "text_delta":
		if d.Text != "" {
			return st.send(&provider.ChatEvent{Text: d.Text})
		}
	case "thinking_delta":
		if d.Thinking != "" {
			return st.send(&provider.ChatEvent{Reasoning: &provider.Reasoning{Text: d.Thinking}})
		}
	case "signature_delta":
		b, err := st.block(i, "thinking")
		if err != nil {
			return err
		}
		b.buf = append(b.buf, d.Signature...)
	case "input_json_delta":
		b, err := st.block(i, "tool_use")
		if err != nil {
			return err
		}
		b.buf = append(b.buf, d.PartialJSON...)
	}
	return nil
}

func (st *streamState) blockStop(i int) error {
	if i < 0 || i >= len(st.blocks) || st.blocks[i] == nil {
		return nil
	}
	b := st.blocks[i]
	st.blocks[i] = nil
	switch b.typ {
	case "thinking":
		if len(b.buf) > 0 {
			return st.send(&provider.ChatEvent{Reasoning: &provider.Reasoning{Signature: string(b.buf)}})
		}
	case "tool_use":
		st.toolCalls++
		return st.send(&provider.ChatEvent{ToolCall: toolCall(b.id, b.name, b.buf)})
	}
	return nil
}

// toolCall builds a complete tool call; empty input is "{}".
func toolCall(id, name string, input []byte) *provider.ToolCall {
	args := string(bytes.TrimSpace(input))
	if args == "" || args == "null" {
		args = "{}"
	}
	return &provider.ToolCall{ID: id, Name: name, Arguments: args}
}

// end sends the usage and the finish reason once the reply is complete.
func (st *streamState) end() error {
	if st.haveUsage {
		u := st.usage
		if err := st.send(&provider.ChatEvent{Usage: &u}); err != nil {
			return err
		}
	}
	return st.send(&provider.ChatEvent{FinishReason: finishReason(st.stop, st.toolCalls)})
}

// finishReason maps Anthropic's stop_reason onto Coyote's words.
func finishReason(stop string, toolCalls int) string {
	switch stop {
	case "end_turn", "stop_sequence":
		return "stop"
	case "tool_use":
		return "tool_calls"
	case "max_tokens":
		return "length"
	case "":
		if toolCalls > 0 {
			return "tool_calls"
		}
		return "stop"
	}
	return stop
}

// readMessage reads a non-streamed reply and reports it as the events a
// stream would have produced.
func (c *Client) readMessage(x *httpkit.Exchange, send func(*provider.ChatEvent) error) error {
	data, err := x.ReadAll(maxBody)
	if err != nil {
		return err
	}
	var resp struct {
		Type       string      `json:"type"`
		Content    []wireBlock `json:"content"`
		StopReason string      `json:"stop_reason"`
		Usage      *wireUsage  `json:"usage"`
		Error      *wireError  `json:"error"`
	}
	if err := json.Unmarshal(data, &resp); err != nil {
		return c.http.Fail(sdk.ErrBadResponse, "malformed reply from %s (%v): %s", c.http.BaseForHumans, err, httpkit.Quote(data))
	}
	if resp.Error != nil || resp.Type == "error" {
		if resp.Error == nil {
			resp.Error = &wireError{}
		}
		return c.replyError(resp.Error)
	}
	if resp.Type != "message" && resp.Content == nil {
		return c.http.Fail(sdk.ErrBadResponse, "the reply from %s is not a message: %s", c.http.BaseForHumans, httpkit.Quote(data))
	}
	toolCalls := 0
	for i := range resp.Content {
		b := &resp.Content[i]
		var events []provider.ChatEvent
		switch b.Type {
		case "text":
			if b.Text != "" {
				events = append(events, provider.ChatEvent{Text: b.Text})
			}
		case "thinking":
			if b.Thinking != "" {
				events = append(events, provider.ChatEvent{Reasoning: &provider.Reasoning{Text: b.Thinking}})
			}
			if b.Signature != "" {
				events = append(events, provider.ChatEvent{Reasoning: &provider.Reasoning{Signature: b.Signature}})
			}
		case "redacted_thinking":
			events = append(events, provider.ChatEvent{Reasoning: &provider.Reasoning{Redacted: b.Data}})
		case "tool_use":
			toolCalls++
			var compact bytes.Buffer
			input := []byte(b.Input)
			if json.Compact(&compact, input) == nil {
				input = compact.Bytes()
			}
			events = append(events, provider.ChatEvent{ToolCall: toolCall(b.ID, b.Name, input)})
		}
		for k := range events {
			if err := send(&events[k]); err != nil {
				return err
			}
		}
	}
	if u := resp.Usage; u != nil {
		if err := send(&provider.ChatEvent{Usage: &provider.Usage{InputTokens: u.input(), CachedTokens: int64(u.CacheReadInputTokens), OutputTokens: int64(u.OutputTokens)}}); err != nil {
			return err
		}
	}
	return send(&provider.ChatEvent{FinishReason: finishReason(resp.StopReason, toolCalls)})
}
