package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/httpkit"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// response is a GenerateContentResponse: a whole reply, or one chunk of a
// streamed one. Only the fields the provider uses are decoded.
type response struct {
	Candidates []struct {
		Content struct {
			Parts []struct {
				Text             string `json:"text"`
				Thought          bool   `json:"thought"`
				ThoughtSignature string `json:"thoughtSignature"`
				FunctionCall     *struct {
					ID   string          `json:"id"`
					Name string          `json:"name"`
					Args json.RawMessage `json:"args"`
				} `json:"functionCall"`
			} `json:"parts"`
		} `json:"content"`
		FinishReason string `json:"finishReason"`
		Index        int    `json:"index"`
	} `json:"candidates"`
	UsageMetadata *struct {
		PromptTokenCount        int64 `json:"promptTokenCount"`
		CachedContentTokenCount int64 `json:"cachedContentTokenCount"`
		ToolUsePromptTokenCount int64 `json:"toolUsePromptTokenCount"`
		CandidatesTokenCount    int64 `json:"candidatesTokenCount"`
		ThoughtsTokenCount      int64 `json:"thoughtsTokenCount"`
	} `json:"usageMetadata"`
	PromptFeedback *struct {
		BlockReason        string `json:"blockReason"`
		BlockReasonMessage string `json:"blockReasonMessage"`
	} `json:"promptFeedback"`
	Error json.RawMessage `json:"error"`
}

// streamState turns responses into events.
type streamState struct {
	c    *Client
	send func(*provider.ChatEvent) error
	// resp is reused for every chunk.
	resp  response
	usage *provider.Usage
	// finish is the finishReason as Gemini spelled it; empty until the
	// reply is complete.
	finish string
	// calls counts the function calls of the reply, for their ids.
	calls int
	// candidates counts the responses that carried a candidate.
	candidates int
}

// readStream reads a reply streamed as server-sent events, each data line
// one response. The stream has no end marker: it is complete when a
// finishReason arrived and the body ended.
func (st *streamState) readStream(x *httpkit.Exchange) error {
	c := st.c
	lr := httpkit.NewLineReader(x)
	for {
		line, err := lr.Next()
		if len(line) > 0 {
			if lerr := st.line(line); lerr != nil {
				return lerr
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
			if st.finish != "" {
				return st.end()
			}
			return c.http.Fail(sdk.ErrBadResponse, "stream ended before the reply was complete (from %s)", c.http.BaseForHumans)
		}
		return x.ReadError(err)
	}
}

// line handles one line of the stream.
func (st *streamState) line(line []byte) error {
	switch line[0] {
	case ':': // a comment, used as keep-alive
		return nil
	case '{', '[': // bare JSON, as an error may come
		return st.whole(line)
	}
	payload, ok := bytes.CutPrefix(line, []byte("data:"))
	if !ok {
		return nil // event:, id:, retry: and unknown fields
	}
	payload = bytes.TrimSpace(payload)
	if len(payload) == 0 {
		return nil
	}
	st.resp = response{}
	if err := json.Unmarshal(payload, &st.resp); err != nil {
		return st.c.http.Fail(sdk.ErrBadResponse, "malformed stream chunk from %s (%v): %s", st.c.http.BaseForHumans, err, httpkit.Quote(line))
	}
	return st.response(&st.resp)
}

// readWhole reads a reply that is one JSON document: the answer to
// generateContent, or a stream answered as a JSON array of responses.
func (st *streamState) readWhole(x *httpkit.Exchange) error {
	data, err := x.ReadAll(maxBody)
	if err != nil {
		return err
	}
	if err := st.whole(data); err != nil {
		return err
	}
	if st.finish == "" {
		if st.candidates == 0 {
			return st.c.http.Fail(sdk.ErrBadResponse, "the reply from %s has no candidates: %s", st.c.http.BaseForHumans, httpkit.Quote(data))
		}
		// A complete document without a finishReason is complete all the same.
		st.finish = "STOP"
	}
	return st.end()
}

// whole handles a JSON document holding a response or an array of them.
func (st *streamState) whole(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '[' {
		var list []json.RawMessage
		if err := json.Unmarshal(data, &list); err != nil {
			return st.c.http.Fail(sdk.ErrBadResponse, "malformed reply from %s (%v): %s", st.c.http.BaseForHumans, err, httpkit.Quote(data))
		}
		for _, item := range list {
			if err := st.whole(item); err != nil {
				return err
			}
		}
		return nil
	}
	st.resp = response{}
	if err := json.Unmarshal(data, &st.resp); err != nil {
		return st.c.http.Fail(sdk.ErrBadResponse, "malformed reply from %s (%v): %s", st.c.http.BaseForHumans, err, httpkit.Quote(data))
	}
	return st.response(&st.resp)
}

// response reports what one response says: thoughts, text and function
// calls at once, usage and the finish reason kept for the end.
func (st *streamState) response(r *response) error {
	if len(r.Error) > 0 && string(r.Error) != "null" {
		return st.c.replyError(r.Error)
	}
	if u := r.UsageMetadata; u != nil {
		st.usage = &provider.Usage{
			InputTokens:     u.PromptTokenCount + u.ToolUsePromptTokenCount,
			CachedTokens:    u.CachedContentTokenCount,
			OutputTokens:    u.CandidatesTokenCount + u.ThoughtsTokenCount,
			ReasoningTokens: u.ThoughtsTokenCount,
		}
	}
	if len(r.Candidates) == 0 {
		if pf := r.PromptFeedback; pf != nil && pf.BlockReason != "" {
			msg := "the prompt was blocked (" + pf.BlockReason + ")"
			if pf.BlockReasonMessage != "" {
				msg += ": " + httpkit.OneLine(pf.BlockReasonMessage, 200)
			}
			return st.c.http.Fail(sdk.ErrInvalidArgument, "%s", msg)
		}
		return nil
	}
	for i := range r.Candidates {
		cand := &r.Candidates[i]
		if cand.Index != 0 {
			continue // only the first candidate is asked for
		}
		st.candidates++
		for j := range cand.Content.Parts {
			p := &cand.Content.Parts[j]
			var err error
			switch {
			case p.FunctionCall != nil:
				err = st.call(p.FunctionCall.ID, p.FunctionCall.Name, p.FunctionCall.Args, p.ThoughtSignature)
			case p.Thought:
				if p.Text != "" {
					err = st.send(&provider.ChatEvent{Reasoning: &provider.Reasoning{Text: p.Text}})
				}
				if err == nil && p.ThoughtSignature != "" {
					err = st.send(&provider.ChatEvent{Reasoning: &provider.Reasoning{Signature: p.ThoughtSignature}})
				}
			case p.Text != "":
				err = st.send(&provider.ChatEvent{Text: p.Text})
			}
			if err != nil {
				return err
			}
		}
		if cand.FinishReason != "" {
			st.finish = cand.FinishReason
		}
	}
	return nil
}

// call reports one function call. Gemini gives calls no id (or, rarely,
// one): the id is "<name>-<n>", n counting the calls of the reply.
func (st *streamState) call(id, name string, args json.RawMessage, signature string) error {
	st.calls++
	if id == "" {
		id = name + "-" + strconv.Itoa(st.calls)
	}
	text := "{}"
	if trimmed := bytes.TrimSpace(args); len(trimmed) > 0 && string(trimmed) != "null" {
		var b bytes.Buffer
		if json.Compact(&b, trimmed) == nil {
			text = b.String()
		} else {
			text = string(trimmed)
		}
	}
	return st.send(&provider.ChatEvent{ToolCall: &provider.ToolCall{ID: id, Name: name, Arguments: text, Signature: signature}})
}

// end reports the usage, then the finish reason.
func (st *streamState) end() error {
	if st.usage != nil {
		if err := st.send(&provider.ChatEvent{Usage: st.usage}); err != nil {
			return err
		}
	}
	return st.send(&provider.ChatEvent{FinishReason: finishReason(st.finish, st.calls)})
}

// finishReason maps Gemini's finishReason onto Coyote's words.
func finishReason(reason string, calls int) string {
	switch reason {
	case "STOP":
		if calls > 0 {
			return "tool_calls"
		}
		return "stop"
	case "MAX_TOKENS":
		return "length"
	}
	return strings.ToLower(reason)
}
