package fakellm

// This file is the fake of the ChatGPT backend's Codex endpoint: the
// Responses API as a ChatGPT subscription login uses it (POST
// /backend-api/codex/responses, always streamed, store false), with its
// headers, its event stream and its usage-limit error. Its unexported
// names start with "codex".

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Codex is a fake of the ChatGPT backend's Codex Responses endpoint. The
// zero value is ready to use; it must not be copied after first use.
// Respond may be called from several goroutines at once.
//
// It serves POST /backend-api/codex/responses. It checks what the backend
// checks: a bearer token (Valid, when set, decides which), the
// chatgpt-account-id header (AccountID, when set), the OpenAI-Beta,
// originator and session_id headers; a body with model, instructions,
// input items, store false and stream true, no sampling settings or output
// limit; input items of the Responses API (message, function_call,
// function_call_output answering a call made before it, reasoning with
// its encrypted_content and a summary, none with an id), tools of
// {"type":"function","name":...,"parameters":{...}}.
//
// The reply is the Responses event stream: response.created,
// response.in_progress; the Reply.Reasoning as a reasoning item
// (output_item.added, reasoning_summary_part.added, about four
// reasoning_summary_text.delta, ...done, output_item.done with its
// encrypted_content when the request's include asks for it); the Text as a
// message item, one response.output_text.delta per piece of
// SplitText(Text, Chunks); each tool call as a function_call item
// (output_item.added, function_call_arguments.delta in pieces, .done,
// output_item.done); and response.completed with the usage (or
// response.incomplete when FinishReason is "length"). StreamError ends the
// stream with response.failed (or an error event, see ErrorEvent) after
// half of the text, Malformed with a
// broken event, Truncate with nothing. A Reply with Status 429 and
// LimitResetsAt is the plan's usage limit (usage_limit_reached with
// plan_type and resets_at); other statuses get {"error":{...}}.
type Codex struct {
	// Valid, when set, decides whether a bearer token is accepted; others
	// get a 401.
	Valid func(token string) bool
	// AccountID, when set, is required as the chatgpt-account-id header.
	AccountID string
	// Respond decides each reply; nil answers CodexText.
	Respond func(*ChatRequest) Reply
	// StreamErrorCode is the code of a Reply's StreamError (default
	// server_error); ErrorEvent sends it as an "error" event rather than
	// in response.failed.
	StreamErrorCode string
	ErrorEvent      bool

	requests recorder[ChatRequest]
}

// CodexText is the answer when Codex.Respond is nil.
const CodexText = "Hello from the fake ChatGPT backend."

// CodexPath is where the fake serves the Responses API, below its root.
const CodexPath = "/backend-api/codex"

// StartCodex serves f on a loopback port until the test ends and returns
// its base URL, ending in CodexPath (an api_base for it).
func StartCodex(t testing.TB, f *Codex) string {
	t.Helper()
	return start(t, f.Handler(), CodexPath)
}

// Handler serves the endpoint.
func (f *Codex) Handler() http.Handler { return http.HandlerFunc(f.serveHTTP) }

// Requests returns the requests received so far, in order: Messages are
// the input items, ReasoningEffort is reasoning.effort, Raw the body.
func (f *Codex) Requests() []ChatRequest { return f.requests.all() }

// CodexEncrypted is the encrypted_content the fake gives a reasoning item
// whose Reply has no ReasoningSignature.
func CodexEncrypted(reasoning string) string {
	return "gAAAA" + base64.RawURLEncoding.EncodeToString([]byte(reasoning))
}

func (f *Codex) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != CodexPath+"/responses" {
		codexError(w, http.StatusNotFound, "not_found", "Not Found")
		return
	}
	raw, ok := readBody(r)
	req := ChatRequest{Raw: raw, Authorization: r.Header.Get("Authorization"), Header: r.Header.Clone()}
	req.Model, _ = raw["model"].(string)
	req.Stream, _ = raw["stream"].(bool)
	req.Temperature = optionalNumber(raw, "temperature")
	req.TopP = optionalNumber(raw, "top_p")
	req.Messages = objects(raw["input"])
	req.Tools = objects(raw["tools"])
	if rs, ok := raw["reasoning"].(map[string]any); ok {
		req.ReasoningEffort, _ = rs["effort"].(string)
	}
	seq := f.requests.add(req)
	token, bearer := strings.CutPrefix(req.Authorization, "Bearer ")
	if !bearer || token == "" || (f.Valid != nil && !f.Valid(token)) {
		codexError(w, http.StatusUnauthorized, "token_expired", "Provided authentication token is expired. Please try signing in again.")
		return
	}
	if f.AccountID != "" && r.Header.Get("chatgpt-account-id") != f.AccountID {
		codexError(w, http.StatusForbidden, "account_mismatch", "the chatgpt-account-id header does not name the token's account")
		return
	}
	if msg := codexCheckHeaders(r.Header); msg != "" {
		codexError(w, http.StatusBadRequest, "invalid_request_error", msg)
		return
	}
	if !ok {
		codexError(w, http.StatusBadRequest, "invalid_request_error", "the body is not a JSON object")
		return
	}
	if msg := codexCheckBody(raw); msg != "" {
		codexError(w, http.StatusBadRequest, "invalid_request_error", msg)
		return
	}
	reply := Reply{Text: CodexText}
	if f.Respond != nil {
		reply = ask(f.Respond, req)
	}
	if reply.Status >= 400 {
		retryAfter(w, &reply)
		if reply.Status == http.StatusTooManyRequests && !reply.LimitResetsAt.IsZero() {
			writeJSON(w, reply.Status, map[string]any{"error": map[string]any{
				"type": "usage_limit_reached", "message": "The usage limit has been reached", "plan_type": "plus",
				"resets_at": reply.LimitResetsAt.Unix(), "resets_in_seconds": int(time.Until(reply.LimitResetsAt).Seconds()),
			}})
			return
		}
		codexError(w, reply.Status, codexErrorCode(reply.Status), cmp.Or(reply.ErrorMessage, statusText(reply.Status)))
		return
	}
	reply.ToolCalls = withIDs(reply.ToolCalls, "call_fake")
	include, _ := stringList(raw["include"])
	f.stream(w, r, &req, &reply, "resp_fake"+strconv.Itoa(seq), slices.Contains(include, "reasoning.encrypted_content"))
}

// codexError answers with the backend's error body.
func codexError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "code": code}})
}

func codexErrorCode(status int) string {
	switch {
	case status == http.StatusUnauthorized:
		return "invalid_api_key"
	case status == http.StatusForbidden:
		return "permission_denied"
	case status == http.StatusNotFound:
		return "model_not_found"
	case status == http.StatusTooManyRequests:
		return "rate_limit_exceeded"
	case status >= 500:
		return "server_error"
	}
	return "invalid_request_error"
}

// codexCheckHeaders returns what the backend would refuse in the headers.
func codexCheckHeaders(h http.Header) string {
	switch {
	case h.Get("OpenAI-Beta") != "responses=experimental":
		return "OpenAI-Beta must be responses=experimental"
	case h.Get("originator") == "":
		return "the originator header is required"
	case h.Get("session_id") == "":
		return "the session_id header is required"
	}
	return ""
}

// codexCheckBody returns what the backend would refuse in a body.
func codexCheckBody(raw map[string]any) string {
	if m, _ := raw["model"].(string); m == "" {
		return "model is required"
	}
	if s, _ := raw["instructions"].(string); s == "" {
		return "Instructions are required"
	}
	if raw["store"] != false {
		return "Store must be set to false"
	}
	if raw["stream"] != true {
		return "Stream must be set to true"
	}
	for _, k := range []string{"temperature", "top_p", "max_output_tokens", "messages"} {
		if _, ok := raw[k]; ok {
			return "Unsupported parameter: " + k
		}
	}
	if rs, ok := raw["reasoning"].(map[string]any); ok {
		if e, set := rs["effort"]; set && !slices.Contains([]any{"minimal", "low", "medium", "high", "xhigh", "none"}, e) {
			return "reasoning.effort must be one of minimal, low, medium, high"
		}
	}
	items, ok := raw["input"].([]any)
	if !ok || len(items) == 0 {
		return "input must be a non-empty array of items"
	}
	calls := map[string]bool{}
	for i, x := range items {
		it, _ := x.(map[string]any)
		at := "input[" + strconv.Itoa(i) + "]"
		if _, ok := it["id"]; ok {
			return at + ": Item with id is not found. Items are not persisted when `store` is set to false."
		}
		switch it["type"] {
		case "message":
			if msg := codexCheckMessage(at, it); msg != "" {
				return msg
			}
		case "function_call":
			id, _ := it["call_id"].(string)
			name, _ := it["name"].(string)
			args, isString := it["arguments"].(string)
			if id == "" || name == "" || !isString || !json.Valid([]byte(args)) {
				return at + ": a function_call needs call_id, name and arguments (a string holding JSON)"
			}
			calls[id] = true
		case "function_call_output":
			id, _ := it["call_id"].(string)
			if !calls[id] {
				return at + ": No tool call found for function call output with call_id " + id + "."
			}
			if _, ok := it["output"].(string); !ok {
				return at + ": output must be a string"
			}
		case "reasoning":
			enc, _ := it["encrypted_content"].(string)
			if _, ok := it["summary"].([]any); !ok || !strings.HasPrefix(enc, "gAAAA") {
				return at + ": a reasoning item needs a summary array and the encrypted_content it was given"
			}
		default:
			return at + ": unknown item type"
		}
	}
	for i, t := range objects(raw["tools"]) {
		name, _ := t["name"].(string)
		if t["type"] != "function" || name == "" {
			return "tools[" + strconv.Itoa(i) + "]: type function and name are required"
		}
		if _, ok := t["parameters"].(map[string]any); !ok {
			return "tools[" + strconv.Itoa(i) + "].parameters must be an object"
		}
	}
	return ""
}

func codexCheckMessage(at string, it map[string]any) string {
	role, _ := it["role"].(string)
	want := map[string][]string{
		"user":      {"input_text", "input_image"},
		"developer": {"input_text"},
		"assistant": {"output_text", "refusal"},
	}[role]
	if want == nil {
		return at + ": role must be user, developer or assistant"
	}
	parts := objects(it["content"])
	if len(parts) == 0 {
		return at + ": content must be a non-empty array"
	}
	for j, p := range parts {
		typ, _ := p["type"].(string)
		if !slices.Contains(want, typ) {
			return at + ".content[" + strconv.Itoa(j) + "]: a " + role + " message cannot hold " + strconv.Quote(typ)
		}
	}
	return ""
}

// codexStreamer writes the events of one reply.
type codexStreamer struct {
	emitter
	seq int
}

// event sends one event of type typ whose other members are fields (a
// JSON object's members, without braces, or "").
func (s *codexStreamer) event(typ, fields string) bool {
	s.buf = append(s.buf[:0], "event: "...)
	s.buf = append(s.buf, typ...)
	s.buf = append(s.buf, "\ndata: {\"type\":\""...)
	s.buf = append(s.buf, typ...)
	s.buf = append(s.buf, `","sequence_number":`...)
	s.buf = strconv.AppendInt(s.buf, int64(s.seq), 10)
	s.seq++
	if fields != "" {
		s.buf = append(s.buf, ',')
		s.buf = append(s.buf, fields...)
	}
	s.buf = append(s.buf, "}\n\n"...)
	return s.emit()
}

func codexJSON(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}

func codexString(s string) string { return string(appendJSONString(nil, s)) }

func (f *Codex) stream(w http.ResponseWriter, r *http.Request, req *ChatRequest, reply *Reply, id string, encrypted bool) {
	s := &codexStreamer{emitter: startStream(w, r, "text/event-stream; charset=utf-8", reply)}
	code := cmp.Or(f.StreamErrorCode, "server_error")
	failure := "event: response.failed\ndata: {\"type\":\"response.failed\",\"response\":{\"id\":\"" + id + "\",\"status\":\"failed\",\"error\":{\"code\":" + codexString(code) + ",\"message\":" + codexString(reply.StreamError) + "}}}\n\n"
	if f.ErrorEvent {
		failure = "event: error\ndata: {\"type\":\"error\",\"code\":" + codexString(code) + ",\"message\":" + codexString(reply.StreamError) + ",\"param\":null}\n\n"
	}
	s.preamble = true
	resp := map[string]any{"id": id, "object": "response", "model": req.Model, "status": "in_progress", "output": []any{}}
	if !s.event("response.created", `"response":`+codexJSON(resp)) || !s.event("response.in_progress", `"response":`+codexJSON(resp)) {
		return
	}
	var output []any
	index := 0
	at := func() string { return `"output_index":` + strconv.Itoa(index) }
	if reply.Reasoning != "" {
		item := map[string]any{"id": "rs_" + id, "type": "reasoning", "summary": []any{}}
		s.event("response.output_item.added", at()+`,"item":`+codexJSON(item))
		s.event("response.reasoning_summary_part.added", `"item_id":"rs_`+id+`",`+at()+`,"summary_index":0,"part":{"type":"summary_text","text":""}`)
		s.preamble = false
		for _, p := range reasoningPieces(reply.Reasoning) {
			if !s.event("response.reasoning_summary_text.delta", `"item_id":"rs_`+id+`",`+at()+`,"summary_index":0,"delta":`+codexString(p)) {
				return
			}
		}
		s.event("response.reasoning_summary_text.done", `"item_id":"rs_`+id+`",`+at()+`,"summary_index":0,"text":`+codexString(reply.Reasoning))
		item["summary"] = []any{map[string]any{"type": "summary_text", "text": reply.Reasoning}}
		if encrypted {
			item["encrypted_content"] = cmp.Or(reply.ReasoningSignature, CodexEncrypted(reply.Reasoning))
		}
		s.event("response.output_item.done", at()+`,"item":`+codexJSON(item))
		output = append(output, item)
		index++
	}
	pieces := SplitText(reply.Text, reply.Chunks)
	if reply.Text == "" {
		pieces = nil
	}
	if len(pieces) > 0 {
		msgID := "msg_" + id
		item := map[string]any{"id": msgID, "type": "message", "role": "assistant", "status": "in_progress", "content": []any{}}
		s.preamble = true
		s.event("response.output_item.added", at()+`,"item":`+codexJSON(item))
		s.event("response.content_part.added", `"item_id":"`+msgID+`",`+at()+`,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}`)
		s.preamble = false
		for i, p := range pieces {
			if i == len(pieces)/2 && i > 0 && s.breaks(reply,
				"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delt\n\n",
				failure) {
				return
			}
			if !s.event("response.output_text.delta", `"item_id":"`+msgID+`",`+at()+`,"content_index":0,"delta":`+codexString(p)) {
				return
			}
		}
		part := map[string]any{"type": "output_text", "text": reply.Text, "annotations": []any{}}
		s.event("response.output_text.done", `"item_id":"`+msgID+`",`+at()+`,"content_index":0,"text":`+codexString(reply.Text))
		s.event("response.content_part.done", `"item_id":"`+msgID+`",`+at()+`,"content_index":0,"part":`+codexJSON(part))
		item["status"], item["content"] = "completed", []any{part}
		s.event("response.output_item.done", at()+`,"item":`+codexJSON(item))
		output = append(output, item)
		index++
	}
	for i, tc := range reply.ToolCalls {
		fcID := "fc_" + id + "_" + strconv.Itoa(i)
		item := map[string]any{"id": fcID, "type": "function_call", "status": "in_progress", "call_id": tc.ID, "name": tc.Name, "arguments": ""}
		s.event("response.output_item.added", at()+`,"item":`+codexJSON(item))
		for _, a := range argumentPieces(tc.Arguments) {
			if !s.event("response.function_call_arguments.delta", `"item_id":"`+fcID+`",`+at()+`,"delta":`+codexString(a)) {
				return
			}
		}
		s.event("response.function_call_arguments.done", `"item_id":"`+fcID+`",`+at()+`,"arguments":`+codexString(tc.Arguments))
		item["status"], item["arguments"] = "completed", tc.Arguments
		s.event("response.output_item.done", at()+`,"item":`+codexJSON(item))
		output = append(output, item)
		index++
	}
	u := usageOf(req, reply)
	resp["output"] = output
	resp["usage"] = map[string]any{
		"input_tokens": u.PromptTokens, "input_tokens_details": map[string]int{"cached_tokens": u.CachedTokens},
		"output_tokens": u.CompletionTokens, "output_tokens_details": map[string]int{"reasoning_tokens": u.ReasoningTokens},
		"total_tokens": u.PromptTokens + u.CompletionTokens,
	}
	if reply.FinishReason == "length" {
		resp["status"], resp["incomplete_details"] = "incomplete", map[string]string{"reason": "max_output_tokens"}
		s.event("response.incomplete", `"response":`+codexJSON(resp))
		return
	}
	resp["status"] = "completed"
	s.event("response.completed", `"response":`+codexJSON(resp))
}
