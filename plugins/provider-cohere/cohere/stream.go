package cohere

import (
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/httpkit"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// wireUsage is a reply's usage: what is billed, and what the model read
// and wrote.
type wireUsage struct {
	BilledUnits *tokenCount `json:"billed_units"`
	Tokens      *tokenCount `json:"tokens"`
}

type tokenCount struct {
	InputTokens  float64 `json:"input_tokens"`
	OutputTokens float64 `json:"output_tokens"`
}

// usage prefers the billed units, which the prices are for.
func (u *wireUsage) usage() *provider.Usage {
	if u == nil {
		return nil
	}
	for _, n := range []*tokenCount{u.BilledUnits, u.Tokens} {
		if n != nil && (n.InputTokens > 0 || n.OutputTokens > 0) {
			return &provider.Usage{InputTokens: int64(n.InputTokens), OutputTokens: int64(n.OutputTokens)}
		}
	}
	return nil
}

// wireContent is a content item of a reply, or the delta of one.
type wireContent struct {
	Type     string  `json:"type"`
	Text     *string `json:"text"`
	Thinking *string `json:"thinking"`
}

// streamEvent is the data of one server-sent event.
type streamEvent struct {
	Type  string `json:"type"`
	Index int    `json:"index"`
	Delta struct {
		// Message holds objects in the events with deltas (message-start,
		// skipped, has lists in their place).
		Message struct {
			Content   *wireContent `json:"content"`
			ToolPlan  string       `json:"tool_plan"`
			ToolCalls *deltaCall   `json:"tool_calls"`
		} `json:"message"`
		FinishReason string     `json:"finish_reason"`
		Error        string     `json:"error"`
		Usage        *wireUsage `json:"usage"`
	} `json:"delta"`
	// Message is set on an error sent inside the stream.
	Message string `json:"message"`
}

// deltaCall is the tool call of a tool-call event.
type deltaCall struct {
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// call is a tool call being streamed.
type call struct {
	id, name string
	args     strings.Builder
}

type streamState struct {
	c     *client
	send  func(*provider.ChatEvent) error
	ev    streamEvent
	kinds map[int]string
	calls map[int]*call
	// made counts the tool calls reported.
	made int
}

// readStream reads a reply streamed as Cohere's server-sent events. The
// reply is complete at message-end.
func (c *client) readStream(x *httpkit.Exchange, send func(*provider.ChatEvent) error) error {
	st := &streamState{c: c, send: send, kinds: map[int]string{}, calls: map[int]*call{}}
	sse := httpkit.NewSSE(x)
	for {
		e, err := sse.Next()
		// message-start says nothing the reply needs.
		if e != nil && len(e.Data) > 0 && e.Name != "message-start" {
			done, herr := st.event(e.Data)
			if herr != nil {
				return herr
			}
			if done {
				return nil
			}
		}
		if err == nil {
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

// event handles one event and reports whether the reply is complete.
func (st *streamState) event(data []byte) (bool, error) {
	c := st.c
	st.ev = streamEvent{}
	if err := json.Unmarshal(data, &st.ev); err != nil {
		return false, c.http.Fail(sdk.ErrBadResponse, "malformed stream event from %s (%v): %s", c.http.BaseForHumans, err, httpkit.Quote(data))
	}
	ev := &st.ev
	d := &ev.Delta
	switch ev.Type {
	case "content-start", "content-delta":
		if ct := d.Message.Content; ct != nil {
			if ev.Type == "content-start" {
				st.kinds[ev.Index] = ct.Type
			}
			return false, st.content(ct, ev.Index)
		}
	case "tool-plan-delta":
		if d.Message.ToolPlan != "" {
			return false, st.send(&provider.ChatEvent{Text: d.Message.ToolPlan})
		}
	case "tool-call-start":
		tc := d.Message.ToolCalls
		if tc == nil {
			return false, c.http.Fail(sdk.ErrBadResponse, "tool-call-start without a tool call from %s: %s", c.http.BaseForHumans, httpkit.Quote(data))
		}
		cl := &call{id: tc.ID, name: tc.Function.Name}
		cl.args.WriteString(tc.Function.Arguments)
		st.calls[ev.Index] = cl
	case "tool-call-delta":
		cl := st.calls[ev.Index]
		if cl == nil {
			return false, c.http.Fail(sdk.ErrBadResponse, "tool-call-delta for call %d, which never started, from %s", ev.Index, c.http.BaseForHumans)
		}
		if tc := d.Message.ToolCalls; tc != nil {
			cl.args.WriteString(tc.Function.Arguments)
		}
	case "tool-call-end":
		cl := st.calls[ev.Index]
		if cl == nil {
			return false, c.http.Fail(sdk.ErrBadResponse, "tool-call-end for call %d, which never started, from %s", ev.Index, c.http.BaseForHumans)
		}
		delete(st.calls, ev.Index)
		return false, st.call(cl.id, cl.name, cl.args.String())
	case "message-end":
		return true, st.end(d.FinishReason, d.Error, d.Usage)
	case "":
		if ev.Message != "" {
			return false, c.http.Fail(sdk.ErrUnavailable, "error from %s: %s", c.http.BaseForHumans, httpkit.OneLine(ev.Message, 300))
		}
	}
	// message-start, content-end, citation-start/end and events added
	// later carry nothing to show.
	return false, nil
}

// content reports a piece of text or thinking.
func (st *streamState) content(ct *wireContent, index int) error {
	switch {
	case ct.Thinking != nil && *ct.Thinking != "":
		return st.send(&provider.ChatEvent{Reasoning: &provider.Reasoning{Text: *ct.Thinking}})
	case ct.Text != nil && *ct.Text != "":
		if st.kinds[index] == "thinking" {
			return st.send(&provider.ChatEvent{Reasoning: &provider.Reasoning{Text: *ct.Text}})
		}
		return st.send(&provider.ChatEvent{Text: *ct.Text})
	}
	return nil
}

// call reports a complete tool call.
func (st *streamState) call(id, name, args string) error {
	st.made++
	if id == "" {
		id = "call_" + strconv.Itoa(st.made)
	}
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	if name == "" {
		return st.c.http.Fail(sdk.ErrBadResponse, "a tool call without a name from %s", st.c.http.BaseForHumans)
	}
	return st.send(&provider.ChatEvent{ToolCall: &provider.ToolCall{ID: id, Name: name, Arguments: args}})
}

// end reports the usage and the finish reason, or the error the reply
// ended with.
func (st *streamState) end(reason, errMsg string, u *wireUsage) error {
	c := st.c
	switch reason {
	case "ERROR", "TIMEOUT":
		msg := httpkit.OneLine(errMsg, 300)
		if msg == "" {
			msg = "the model stopped with " + reason
		}
		return c.http.Fail(sdk.ErrUnavailable, "error from %s: %s", c.http.BaseForHumans, msg)
	}
	if usage := u.usage(); usage != nil {
		if err := st.send(&provider.ChatEvent{Usage: usage}); err != nil {
			return err
		}
	}
	return st.send(&provider.ChatEvent{FinishReason: finishReason(reason, st.made)})
}

// finishReason spells Cohere's finish reason as the kernel does.
func finishReason(reason string, calls int) string {
	switch reason {
	case "TOOL_CALL":
		return "tool_calls"
	case "MAX_TOKENS":
		return "length"
	}
	if calls > 0 {
		return "tool_calls"
	}
	switch reason {
	case "COMPLETE", "STOP_SEQUENCE", "":
		return "stop"
	}
	return strings.ToLower(reason)
}

// chatResponse is the reply of a request without stream.
type chatResponse struct {
	FinishReason string `json:"finish_reason"`
	Message      struct {
		Content   []wireContent `json:"content"`
		ToolPlan  string        `json:"tool_plan"`
		ToolCalls []wireCall    `json:"tool_calls"`
	} `json:"message"`
	Usage *wireUsage `json:"usage"`
}

// readWhole reads a reply that is one JSON document.
func (c *client) readWhole(x *httpkit.Exchange, send func(*provider.ChatEvent) error) error {
	data, err := x.ReadAll(maxBody)
	if err != nil {
		return err
	}
	var r chatResponse
	if err := json.Unmarshal(data, &r); err != nil {
		return c.http.Fail(sdk.ErrBadResponse, "malformed reply from %s (%v): %s", c.http.BaseForHumans, err, httpkit.Quote(data))
	}
	st := &streamState{c: c, send: send}
	for _, ct := range r.Message.Content {
		if ct.Type == "thinking" && ct.Thinking == nil {
			ct.Thinking = ct.Text
		}
		if err := st.content(&ct, -1); err != nil {
			return err
		}
	}
	if r.Message.ToolPlan != "" {
		if err := send(&provider.ChatEvent{Text: r.Message.ToolPlan}); err != nil {
			return err
		}
	}
	for _, tc := range r.Message.ToolCalls {
		if err := st.call(tc.ID, tc.Function.Name, tc.Function.Arguments); err != nil {
			return err
		}
	}
	return st.end(r.FinishReason, "", r.Usage)
}
