package openai

// This file reads a Responses API reply: its typed server-sent events
// (response.output_text.delta, response.function_call_arguments.delta,
// response.completed, ...) become the plugin's chat events, and its
// errors, the ChatGPT plan's usage limit among them, one-line errors.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/httpkit"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// chatResponses sends the conversation to {api_base}/responses.
func (c *client) chatResponses(ctx context.Context, req *provider.ChatRequest, send func(*provider.ChatEvent) error) error {
	body, session, err := c.responsesBody(req)
	if err != nil {
		return err
	}
	var set func(http.Header)
	if session != "" {
		set = func(h http.Header) { h.Set("session_id", session) }
	}
	x, err := c.sendWith(ctx, http.MethodPost, "/responses", body, "text/event-stream", req.Patches, set)
	if err != nil {
		return err
	}
	defer x.Close()
	if x.Resp.StatusCode/100 != 2 {
		return c.responsesStatusError(x, req.Model)
	}
	return c.readResponses(x, send)
}

// respEvent is one event of the stream; each type fills some fields.
type respEvent struct {
	Type         string `json:"type"`
	Delta        string `json:"delta"`
	ItemID       string `json:"item_id"`
	SummaryIndex int    `json:"summary_index"`
	// Item is the item of response.output_item.added and .done.
	Item *respOutputItem `json:"item"`
	// Response is the response of response.completed, .incomplete and
	// .failed.
	Response *respResponse `json:"response"`
	// Code and Message are an "error" event's.
	Code    json.RawMessage `json:"code"`
	Message string          `json:"message"`
}

// respOutputItem is an item of the reply: a message, a reasoning item or
// a function call.
type respOutputItem struct {
	Type             string `json:"type"`
	ID               string `json:"id"`
	CallID           string `json:"call_id"`
	Name             string `json:"name"`
	Arguments        string `json:"arguments"`
	EncryptedContent string `json:"encrypted_content"`
}

type respResponse struct {
	Status            string `json:"status"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Usage *struct {
		InputTokens        float64 `json:"input_tokens"`
		OutputTokens       float64 `json:"output_tokens"`
		InputTokensDetails *struct {
			CachedTokens float64 `json:"cached_tokens"`
		} `json:"input_tokens_details"`
		OutputTokensDetails *struct {
			ReasoningTokens float64 `json:"reasoning_tokens"`
		} `json:"output_tokens_details"`
	} `json:"usage"`
}

// respCall is a function call being streamed.
type respCall struct {
	callID, name string
	args         strings.Builder
	sent         bool
}

// respState turns the events of one reply into chat events.
type respState struct {
	c    *client
	send func(*provider.ChatEvent) error
	// calls are the function calls by item id, in the order they started.
	calls []*respCall
	byID  map[string]*respCall
	// thought is set once the reasoning item being streamed showed text.
	thought bool
	done    bool
}

// readResponses reads the event stream of a reply.
func (c *client) readResponses(x *httpkit.Exchange, send func(*provider.ChatEvent) error) error {
	st := &respState{c: c, send: send}
	sse := httpkit.NewSSE(x)
	var ev respEvent
	for {
		e, err := sse.Next()
		if e != nil && len(e.Data) > 0 {
			ev = respEvent{}
			if jerr := json.Unmarshal(e.Data, &ev); jerr != nil {
				return c.fail(sdk.ErrBadResponse, "malformed event from %s (%v): %s", c.http.BaseForHumans, jerr, httpkit.Quote(e.Data))
			}
			if herr := st.event(&ev, e.Data); herr != nil {
				return herr
			}
			if st.done {
				x.Drain()
				return nil
			}
		}
		if err == nil {
			continue
		}
		return c.streamEnd(x, err, nil)
	}
}

// event handles one event.
func (st *respState) event(ev *respEvent, raw []byte) error {
	switch ev.Type {
	case "response.output_text.delta", "response.refusal.delta":
		if ev.Delta == "" {
			return nil
		}
		return st.send(&provider.ChatEvent{Text: ev.Delta})
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		if ev.Delta == "" {
			return nil
		}
		st.thought = true
		return st.send(&provider.ChatEvent{Reasoning: &provider.Reasoning{Text: ev.Delta}})
	case "response.reasoning_summary_part.added":
		// A new part of the summary is a new paragraph.
		if ev.SummaryIndex > 0 && st.thought {
			return st.send(&provider.ChatEvent{Reasoning: &provider.Reasoning{Text: "\n\n"}})
		}
	case "response.output_item.added":
		if it := ev.Item; it != nil && it.Type == "function_call" {
			call := &respCall{callID: it.CallID, name: it.Name}
			call.args.WriteString(it.Arguments)
			st.addCall(it.ID, call)
		}
	case "response.function_call_arguments.delta":
		if call := st.byID[ev.ItemID]; call != nil {
			call.args.WriteString(ev.Delta)
		}
	case "response.output_item.done":
		return st.itemDone(ev.Item)
	case "response.completed", "response.incomplete":
		return st.end(ev.Response)
	case "response.failed":
		r := ev.Response
		if r == nil || r.Error == nil {
			return st.c.fail(sdk.ErrUnavailable, "%s: the reply failed", st.c.http.BaseForHumans)
		}
		return st.c.streamError(r.Error.Code, r.Error.Message)
	case "error":
		return st.c.streamError(rawText(ev.Code), ev.Message)
	case "":
		// A bare JSON line: a proxy's or gateway's error object.
		var bare struct {
			Error json.RawMessage `json:"error"`
		}
		if json.Unmarshal(raw, &bare) == nil && len(bare.Error) > 0 && string(bare.Error) != "null" {
			return st.c.replyError(bare.Error)
		}
	}
	return nil
}

func (st *respState) addCall(id string, call *respCall) {
	if st.byID == nil {
		st.byID = map[string]*respCall{}
	}
	if id == "" {
		id = "#" + strconv.Itoa(len(st.calls))
	}
	st.byID[id] = call
	st.calls = append(st.calls, call)
}

// itemDone handles a finished item: a function call is complete (the item
// holds its whole arguments), a reasoning item has its encrypted content,
// the signature that lets it be sent back.
func (st *respState) itemDone(it *respOutputItem) error {
	if it == nil {
		return nil
	}
	switch it.Type {
	case "function_call":
		call := st.byID[it.ID]
		if call == nil {
			call = &respCall{}
			st.addCall(it.ID, call)
		}
		if it.CallID != "" {
			call.callID = it.CallID
		}
		if it.Name != "" {
			call.name = it.Name
		}
		if it.Arguments != "" {
			call.args.Reset()
			call.args.WriteString(it.Arguments)
		}
		return st.sendCall(call)
	case "reasoning":
		st.thought = false
		if it.EncryptedContent == "" {
			return nil
		}
		return st.send(&provider.ChatEvent{Reasoning: &provider.Reasoning{Signature: it.EncryptedContent}})
	}
	return nil
}

func (st *respState) sendCall(call *respCall) error {
	if call.sent {
		return nil
	}
	call.sent = true
	id := call.callID
	if id == "" {
		id = "call_" + strconv.Itoa(len(st.calls)-1)
	}
	args := call.args.String()
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	return st.send(&provider.ChatEvent{ToolCall: &provider.ToolCall{ID: id, Name: call.name, Arguments: args}})
}

// end reports the end of the reply: calls not yet reported, the usage,
// the finish reason.
func (st *respState) end(r *respResponse) error {
	st.done = true
	for _, call := range st.calls {
		if err := st.sendCall(call); err != nil {
			return err
		}
	}
	reason := "stop"
	if len(st.calls) > 0 {
		reason = "tool_calls"
	}
	if r != nil {
		if u := r.Usage; u != nil {
			usage := &provider.Usage{InputTokens: int64(u.InputTokens), OutputTokens: int64(u.OutputTokens)}
			if d := u.InputTokensDetails; d != nil {
				usage.CachedTokens = int64(d.CachedTokens)
			}
			if d := u.OutputTokensDetails; d != nil {
				usage.ReasoningTokens = int64(d.ReasoningTokens)
			}
			if err := st.send(&provider.ChatEvent{Usage: usage}); err != nil {
				return err
			}
		}
		if r.Status == "incomplete" {
			reason = "length"
			if d := r.IncompleteDetails; d != nil && d.Reason != "" && d.Reason != "max_output_tokens" {
				reason = d.Reason
			}
		}
	}
	return st.send(&provider.ChatEvent{FinishReason: reason})
}

// streamError is an error the stream reported (an "error" event, a failed
// response).
func (c *client) streamError(code, msg string) error {
	var kind error
	switch code {
	case "usage_limit_reached":
		kind = sdk.ErrFailedPrecondition // not a moment's wait: not retried
	case "usage_not_included":
		kind = sdk.ErrPermissionDenied
	default:
		if kind = kindForCode(code, code); kind == nil {
			kind = sdk.ErrUnavailable
		}
	}
	msg = httpkit.OneLine(msg, 300)
	if msg == "" {
		msg = "the server reported an error"
	}
	if code != "" {
		msg += " (" + httpkit.OneLine(code, 80) + ")"
	}
	err := c.fail(kind, "error from %s: %s", c.http.BaseForHumans, msg)
	if kind == sdk.ErrRateLimited {
		if d, ok := tryAgainIn(msg); ok {
			err = sdk.WithRetryAfter(err, d)
		}
	}
	return err
}

// tryAgainIn reads the wait a rate-limit message asks for ("Please try
// again in 11.054s", "... in 250ms"): a stream has no Retry-After header.
func tryAgainIn(msg string) (time.Duration, bool) {
	_, rest, ok := strings.Cut(strings.ToLower(msg), "try again in ")
	if !ok {
		return 0, false
	}
	end := strings.IndexFunc(rest, func(r rune) bool { return (r < '0' || r > '9') && r != '.' && r != 'm' && r != 's' })
	if end >= 0 {
		rest = rest[:end]
	}
	d, err := time.ParseDuration(strings.TrimSuffix(rest, "."))
	if err != nil || d <= 0 {
		return 0, false
	}
	return d.Round(time.Millisecond), true
}

// codexLimit is the error body of the ChatGPT backend when the plan's
// usage is used up, or the plan does not include it.
type codexLimit struct {
	Error struct {
		Type            string  `json:"type"`
		Message         string  `json:"message"`
		PlanType        string  `json:"plan_type"`
		ResetsAt        float64 `json:"resets_at"`
		ResetsInSeconds float64 `json:"resets_in_seconds"`
	} `json:"error"`
}

// now is the clock of the usage limit's reset time; tests replace it.
var now = time.Now

// responsesStatusError turns a non-2xx answer into an error: the ChatGPT
// plan's limits as a sentence with the time they reset, anything else as
// chat completions' errors are.
func (c *client) responsesStatusError(x *httpkit.Exchange, model string) error {
	data, _ := io.ReadAll(io.LimitReader(x, 1<<20))
	if c.chatgpt {
		var lim codexLimit
		if json.Unmarshal(data, &lim) == nil {
			switch lim.Error.Type {
			case "usage_limit_reached":
				return c.fail(sdk.ErrFailedPrecondition, "%s", usageLimitLine(&lim, now()))
			case "usage_not_included":
				return c.fail(sdk.ErrPermissionDenied, "your ChatGPT plan does not include Codex: upgrade it, or use an API key (remove auth: oauth)")
			}
		}
	}
	err := c.statusErrorFrom(x.Resp, data, model, "")
	if c.chatgpt && c.accountID == "" && (errors.Is(err, sdk.ErrPermissionDenied) || errors.Is(err, sdk.ErrInvalidArgument)) {
		// The backend wants the account; the token did not say which.
		err = &httpkit.Error{Msg: err.Error() + " (the login's token names no ChatGPT account: set chatgpt_account_id on the client)", Kind: err}
	}
	return err
}

// usageLimitLine says that the plan's usage limit is reached, and when it
// resets, in local time.
func usageLimitLine(lim *codexLimit, t time.Time) string {
	e := &lim.Error
	plan := "your ChatGPT plan"
	if p := httpkit.OneLine(e.PlanType, 40); p != "" {
		plan = "your ChatGPT " + p + " plan"
	}
	msg := "you have reached the usage limit of " + plan
	var reset time.Time
	switch {
	case e.ResetsAt > 0:
		reset = time.Unix(int64(e.ResetsAt), 0)
	case e.ResetsInSeconds > 0:
		reset = t.Add(time.Duration(e.ResetsInSeconds) * time.Second)
	}
	if reset.IsZero() {
		return msg + "; try again later"
	}
	reset = reset.In(t.Location())
	in := reset.Sub(t).Round(time.Minute)
	if in < time.Minute {
		in = time.Minute
	}
	layout := "15:04 MST"
	if reset.Format(time.DateOnly) != t.Format(time.DateOnly) {
		layout = "Mon 2 Jan 15:04 MST"
	}
	return fmt.Sprintf("%s; it resets at %s (in %s)", msg, reset.Format(layout), strings.TrimSuffix(in.String(), "0s"))
}
