package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/httpkit"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// wireUsage counts tokens. Some servers write the counts as floats (3.0,
// 1e1), hence float64.
type wireUsage struct {
	PromptTokens     float64 `json:"prompt_tokens"`
	CompletionTokens float64 `json:"completion_tokens"`
	// The cached part of the prompt, and the reasoning part of the
	// completion (both counted in the totals above).
	PromptTokensDetails *struct {
		CachedTokens float64 `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens float64 `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

func (u *wireUsage) usage() *provider.Usage {
	out := &provider.Usage{InputTokens: int64(u.PromptTokens), OutputTokens: int64(u.CompletionTokens)}
	if d := u.PromptTokensDetails; d != nil {
		out.CachedTokens = int64(d.CachedTokens)
	}
	if d := u.CompletionTokensDetails; d != nil {
		out.ReasoningTokens = int64(d.ReasoningTokens)
	}
	return out
}

// toolAcc collects the deltas of one tool call.
type toolAcc struct {
	index    int
	id, name string
	args     []byte
}

// streamState turns stream chunks into events.
type streamState struct {
	c      *client
	send   func(*provider.ChatEvent) error
	parser chunkParser
	// tools are the calls being assembled, sorted by index.
	tools     []*toolAcc
	toolsSent int
	usage     *provider.Usage
	finish    string
}

// streamEnd turns the error that ended the reading of a stream into the
// reply's: a cancellation as the exchange reports it, an over-long line
// or a stream cut short as a bad response. complete, when not nil, ends a
// reply whose end was seen before the stream was cut.
func (c *client) streamEnd(x *httpkit.Exchange, err error, complete func() error) error {
	switch {
	case x.Context().Err() != nil:
		return x.ReadError(err)
	case errors.Is(err, httpkit.ErrLineTooLong):
		return c.fail(sdk.ErrBadResponse, "bad stream from %s: %v", c.http.BaseForHumans, err)
	case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF):
		if complete != nil {
			return complete()
		}
		return c.fail(sdk.ErrBadResponse, "stream ended before the reply was complete (from %s)", c.http.BaseForHumans)
	}
	return x.ReadError(err)
}

// readStream reads a server-sent-event reply.
func (c *client) readStream(x *httpkit.Exchange, send func(*provider.ChatEvent) error) error {
	st := &streamState{c: c, send: send}
	lr := httpkit.NewLineReader(x)
	for {
		line, err := lr.Next()
		if len(line) > 0 {
			done, lerr := st.line(line)
			if lerr != nil {
				return lerr
			}
			if done {
				if eerr := st.end(); eerr != nil {
					return eerr
				}
				if err == nil {
					x.Drain()
				}
				return nil
			}
		}
		if err == nil {
			continue
		}
		var complete func() error // a reply whose finish reason came before the cut
		if st.finish != "" {
			complete = st.end
		}
		return c.streamEnd(x, err, complete)
	}
}

// line handles one line and reports whether it was the final [DONE].
func (st *streamState) line(line []byte) (bool, error) {
	switch line[0] {
	case ':': // a comment, used as keep-alive
		return false, nil
	case '{': // a bare JSON object, as some servers send errors
		return false, st.data(line, line)
	}
	payload, ok := bytes.CutPrefix(line, []byte("data:"))
	if !ok {
		return false, nil // event:, id:, retry: and unknown fields
	}
	payload = bytes.TrimSpace(payload)
	if len(payload) == 0 {
		return false, nil
	}
	if string(payload) == "[DONE]" {
		return true, nil
	}
	return false, st.data(payload, line)
}

// data handles one JSON chunk.
func (st *streamState) data(payload, line []byte) error {
	p := &st.parser
	if err := p.parse(payload); err != nil {
		return st.c.fail(sdk.ErrBadResponse, "malformed stream chunk from %s (%v): %s", st.c.http.BaseForHumans, err, httpkit.Quote(line))
	}
	ch := &p.chunk
	if ch.errorRaw != nil {
		return st.c.replyError(ch.errorRaw)
	}
	for i := range ch.choices {
		choice := &ch.choices[i]
		if choice.index != 0 {
			continue
		}
		reasoning := choice.reasoningContent
		if reasoning == "" {
			reasoning = choice.reasoning
		}
		if reasoning != "" {
			if err := st.send(&provider.ChatEvent{Reasoning: &provider.Reasoning{Text: reasoning}}); err != nil {
				return err
			}
		}
		if choice.content != "" {
			if err := st.send(&provider.ChatEvent{Text: choice.content}); err != nil {
				return err
			}
		}
		for j := range choice.tools {
			st.addTool(&choice.tools[j])
		}
		if choice.finishReason != "" {
			st.finish = choice.finishReason
			if err := st.flushTools(); err != nil {
				return err
			}
		}
	}
	if ch.usage != nil {
		st.usage = ch.usage
	}
	return nil
}

// addTool merges one tool call delta into its call.
func (st *streamState) addTool(d *toolDelta) {
	var acc *toolAcc
	if d.hasIndex {
		pos := len(st.tools)
		for i, t := range st.tools {
			if t.index == d.index {
				acc = t
				break
			}
			if t.index > d.index {
				pos = i
				break
			}
		}
		if acc == nil {
			acc = &toolAcc{index: d.index}
			st.tools = append(st.tools, nil)
			copy(st.tools[pos+1:], st.tools[pos:])
			st.tools[pos] = acc
		}
	} else {
		// Without an index, a new id starts a new call.
		n := len(st.tools)
		if n == 0 || (d.id != "" && st.tools[n-1].id != "" && st.tools[n-1].id != d.id) {
			next := st.toolsSent
			if n > 0 {
				next = st.tools[n-1].index + 1
			}
			acc = &toolAcc{index: next}
			st.tools = append(st.tools, acc)
		} else {
			acc = st.tools[n-1]
		}
	}
	if acc.id == "" {
		acc.id = d.id
	}
	// Some servers repeat the name in every delta; others may split it.
	if d.name != "" && d.name != acc.name {
		acc.name += d.name
	}
	acc.args = append(acc.args, d.arguments...)
}

// flushTools sends the assembled tool calls in index order.
func (st *streamState) flushTools() error {
	for _, t := range st.tools {
		id := t.id
		if id == "" {
			id = "call_" + strconv.Itoa(t.index)
		}
		args := string(t.args)
		if len(bytes.TrimSpace(t.args)) == 0 {
			args = "{}"
		}
		if err := st.send(&provider.ChatEvent{ToolCall: &provider.ToolCall{ID: id, Name: t.name, Arguments: args}}); err != nil {
			return err
		}
		st.toolsSent++
	}
	st.tools = st.tools[:0]
	return nil
}

// end sends what is left once the reply is complete: tool calls not yet
// sent, the usage, then the finish reason.
func (st *streamState) end() error {
	if err := st.flushTools(); err != nil {
		return err
	}
	if st.usage != nil {
		if err := st.send(&provider.ChatEvent{Usage: st.usage}); err != nil {
			return err
		}
	}
	return st.send(&provider.ChatEvent{FinishReason: finishReason(st.finish, st.toolsSent)})
}

func finishReason(reason string, toolCalls int) string {
	switch {
	case reason != "":
		return reason
	case toolCalls > 0:
		return "tool_calls"
	}
	return "stop"
}

// readCompletion reads a non-streamed reply and reports it as events.
func (c *client) readCompletion(x *httpkit.Exchange, send func(*provider.ChatEvent) error) error {
	data, err := x.ReadAll(maxBody)
	if err != nil {
		return err
	}
	var resp struct {
		Choices []struct {
			Message struct {
				Content          json.RawMessage `json:"content"`
				ReasoningContent string          `json:"reasoning_content"`
				Reasoning        json.RawMessage `json:"reasoning"`
				ToolCalls        []struct {
					ID       string `json:"id"`
					Function struct {
						Name      string `json:"name"`
						Arguments string `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage *wireUsage      `json:"usage"`
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(data, &resp); err != nil {
		return c.fail(sdk.ErrBadResponse, "malformed reply from %s (%v): %s", c.http.BaseForHumans, err, httpkit.Quote(data))
	}
	if len(resp.Error) > 0 && string(resp.Error) != "null" {
		return c.replyError(resp.Error)
	}
	if len(resp.Choices) == 0 {
		return c.fail(sdk.ErrBadResponse, "the reply from %s has no choices: %s", c.http.BaseForHumans, httpkit.Quote(data))
	}
	choice := &resp.Choices[0]
	m := &choice.Message
	reasoning := m.ReasoningContent
	if reasoning == "" && len(m.Reasoning) > 0 && m.Reasoning[0] == '"' {
		_ = json.Unmarshal(m.Reasoning, &reasoning)
	}
	if reasoning != "" {
		if err := send(&provider.ChatEvent{Reasoning: &provider.Reasoning{Text: reasoning}}); err != nil {
			return err
		}
	}
	if text := contentText(m.Content); text != "" {
		if err := send(&provider.ChatEvent{Text: text}); err != nil {
			return err
		}
	}
	for i, tc := range m.ToolCalls {
		id, args := tc.ID, tc.Function.Arguments
		if id == "" {
			id = "call_" + strconv.Itoa(i)
		}
		if len(bytes.TrimSpace([]byte(args))) == 0 {
			args = "{}"
		}
		if err := send(&provider.ChatEvent{ToolCall: &provider.ToolCall{ID: id, Name: tc.Function.Name, Arguments: args}}); err != nil {
			return err
		}
	}
	if u := resp.Usage; u != nil {
		if err := send(&provider.ChatEvent{Usage: u.usage()}); err != nil {
			return err
		}
	}
	return send(&provider.ChatEvent{FinishReason: finishReason(choice.FinishReason, len(m.ToolCalls))})
}

// contentText reads a message content: a string, null, or an array of
// parts whose text parts are joined.
func contentText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '"':
		var s string
		_ = json.Unmarshal(raw, &s)
		return s
	case '[':
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		_ = json.Unmarshal(raw, &parts)
		var b bytes.Buffer
		for _, p := range parts {
			if p.Type == "" || p.Type == "text" || p.Type == "output_text" {
				b.WriteString(p.Text)
			}
		}
		return b.String()
	}
	return ""
}
