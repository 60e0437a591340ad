package fakellm

// This file is the fake of Cohere's v2 API: chat (streamed as Cohere's
// named server-sent events, or whole), embed, rerank and the model list,
// with Cohere's error bodies. Its unexported names start with "cohere".

import (
	"cmp"
	"encoding/json"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// Cohere is a fake of Cohere's API. The zero value is ready to use; it
// must not be copied after first use. Respond may be called from several
// goroutines at once.
//
// It serves POST /v2/chat, /v2/embed, /v2/rerank and GET /v1/models. A
// streamed reply is Cohere's event sequence: message-start; the
// Reply.Reasoning as a "thinking" content (content-start, about four
// content-delta, content-end); the Text as a "text" content, one
// content-delta per piece of SplitText(Text, Chunks) — or, when the reply
// also calls tools, as tool-plan-delta events; each tool call as
// tool-call-start (id and name), tool-call-delta (the arguments in
// pieces) and tool-call-end; and message-end with the finish_reason
// (COMPLETE, TOOL_CALL, MAX_TOKENS) and the usage (billed_units and
// tokens). Malformed, Truncate and StreamError break the stream after half
// of the text pieces; a stream error is a message-end with finish_reason
// ERROR. Requests are checked as Cohere checks them: roles, a tool
// message answers a call of the assistant message before it, every call is
// answered before the conversation goes on, tool arguments are a JSON
// string, tools are {"type":"function","function":{...}}, and embed needs
// an input_type.
type Cohere struct {
	// APIKey, if set, is required as "Authorization: Bearer <key>";
	// other requests get a 401 {"message":"invalid api token"}.
	APIKey string
	// Models are listed by GET /v1/models; names holding "embed" embed,
	// "rerank" rerank, the others chat. Default: command-a-03-2025,
	// embed-v4.0 and rerank-v3.5.
	Models []string
	// Respond decides each chat reply; nil answers CohereText.
	Respond func(*ChatRequest) Reply
	// RespondEmbed, when set, can make an embed or rerank request fail:
	// Status, ErrorMessage and RetryAfter of its Reply are used.
	RespondEmbed func(texts []string) Reply
	// EmbedDims is the size of vectors without output_dimension (default
	// 1536).
	EmbedDims int

	requests recorder[ChatRequest]
	embeds   recorder[[]string]
}

// CohereText is the answer when Cohere.Respond is nil.
const CohereText = "Hello from the fake Cohere server."

// StartCohere serves f on a loopback port until the test ends and returns
// the base URL, ending in "/v2".
func StartCohere(t testing.TB, f *Cohere) string {
	t.Helper()
	return start(t, f.Handler(), "/v2")
}

// Handler serves the API.
func (f *Cohere) Handler() http.Handler { return http.HandlerFunc(f.serveHTTP) }

// Requests returns the chat requests received so far, in order.
// Authorization is the header as received, ReasoningEffort the body's
// thinking.type.
func (f *Cohere) Requests() []ChatRequest { return f.requests.all() }

// EmbedRequests returns the texts of each embed call, in order.
func (f *Cohere) EmbedRequests() [][]string { return f.embeds.all() }

func (f *Cohere) models() []string {
	return orDefault(f.Models, "command-a-03-2025", "embed-v4.0", "rerank-v3.5")
}

func (f *Cohere) serveHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v2/chat":
		f.chat(w, r)
	case r.Method == http.MethodPost && r.URL.Path == "/v2/embed":
		f.embed(w, r)
	case r.Method == http.MethodPost && r.URL.Path == "/v2/rerank":
		f.rerank(w, r)
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		f.listModels(w, r)
	default:
		cohereError(w, http.StatusNotFound, "404 page not found")
	}
}

// cohereError answers with Cohere's error body.
func cohereError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"id": "fake-error-" + strconv.Itoa(status), "message": msg})
}

func cohereDefaultMessage(status int, model string) string {
	switch status {
	case http.StatusUnauthorized:
		return "invalid api token"
	case http.StatusForbidden:
		return "You do not have access to this resource."
	case http.StatusNotFound:
		return "model '" + model + "' not found, make sure the correct model ID was used and that you have access to the model."
	case http.StatusTooManyRequests:
		return "You are using a Trial key, which is limited to 20 API calls / minute."
	case http.StatusServiceUnavailable:
		return "Service Unavailable"
	}
	return statusText(status)
}

// cohereFailed answers the error reply asks for, and reports whether it
// did.
func cohereFailed(w http.ResponseWriter, reply *Reply, model string) bool {
	if reply.Status < 400 {
		return false
	}
	retryAfter(w, reply)
	cohereError(w, reply.Status, cmp.Or(reply.ErrorMessage, cohereDefaultMessage(reply.Status, model)))
	return true
}

func (f *Cohere) authorized(w http.ResponseWriter, r *http.Request) bool {
	if f.APIKey == "" || r.Header.Get("Authorization") == "Bearer "+f.APIKey {
		return true
	}
	cohereError(w, http.StatusUnauthorized, "invalid api token")
	return false
}

func (f *Cohere) listModels(w http.ResponseWriter, r *http.Request) {
	if !f.authorized(w, r) {
		return
	}
	type model struct {
		Name          string   `json:"name"`
		Endpoints     []string `json:"endpoints"`
		Finetuned     bool     `json:"finetuned"`
		ContextLength int      `json:"context_length"`
		Features      []string `json:"features"`
	}
	body := struct {
		Models        []model `json:"models"`
		NextPageToken *string `json:"next_page_token"`
	}{Models: []model{}}
	for _, name := range f.models() {
		m := model{Name: name, ContextLength: 256000, Endpoints: []string{"chat"}, Features: []string{"tools", "strict_tools", "json_mode"}}
		switch {
		case strings.Contains(name, "embed"):
			m.Endpoints, m.ContextLength, m.Features = []string{"embed"}, 128000, nil
		case strings.Contains(name, "rerank"):
			m.Endpoints, m.ContextLength, m.Features = []string{"rerank"}, 4096, nil
		case strings.Contains(name, "vision"):
			m.Features = append(m.Features, "vision")
		}
		body.Models = append(body.Models, m)
	}
	writeJSON(w, http.StatusOK, body)
}

func (f *Cohere) chat(w http.ResponseWriter, r *http.Request) {
	raw, ok := readBody(r)
	req := ChatRequest{Raw: raw, Authorization: r.Header.Get("Authorization"), Header: r.Header.Clone()}
	req.Model, _ = raw["model"].(string)
	req.Stream, _ = raw["stream"].(bool)
	req.Temperature = optionalNumber(raw, "temperature")
	req.TopP = optionalNumber(raw, "p")
	req.Messages = objects(raw["messages"])
	req.Tools = objects(raw["tools"])
	if th, ok := raw["thinking"].(map[string]any); ok {
		req.ReasoningEffort, _ = th["type"].(string)
	}
	seq := strconv.Itoa(f.requests.add(req))
	if !f.authorized(w, r) {
		return
	}
	if !ok {
		cohereError(w, http.StatusBadRequest, "invalid request: body is not valid JSON")
		return
	}
	if msg := cohereCheckChat(raw); msg != "" {
		cohereError(w, http.StatusBadRequest, "invalid request: "+msg)
		return
	}
	reply := Reply{Text: CohereText}
	switch {
	case f.Respond != nil:
		reply = ask(f.Respond, req)
	case !slices.Contains(f.models(), req.Model):
		cohereError(w, http.StatusNotFound, cohereDefaultMessage(http.StatusNotFound, req.Model))
		return
	}
	if cohereFailed(w, &reply, req.Model) {
		return
	}
	reply.ToolCalls = withIDs(reply.ToolCalls, "get_weather_fake")
	reason := "COMPLETE"
	switch {
	case reply.FinishReason == "length" || reply.FinishReason == "MAX_TOKENS":
		reason = "MAX_TOKENS"
	case len(reply.ToolCalls) > 0:
		reason = "TOOL_CALL"
	}
	id := "fake-cohere-" + seq
	if req.Stream {
		cohereStream(w, r, &req, &reply, id, reason)
	} else {
		cohereComplete(w, r, &req, &reply, id, reason)
	}
}

// cohereCheckChat returns what Cohere would refuse in a chat body.
func cohereCheckChat(raw map[string]any) string {
	if m, _ := raw["model"].(string); m == "" {
		return "model is required"
	}
	msgs, ok := raw["messages"].([]any)
	if !ok || len(msgs) == 0 {
		return "messages is required and must not be empty"
	}
	var pending []string
	for i, x := range msgs {
		m, _ := x.(map[string]any)
		at := "messages[" + strconv.Itoa(i) + "]"
		role, _ := m["role"].(string)
		if role != "tool" && len(pending) > 0 {
			return at + ": tool call ids " + strings.Join(pending, ", ") + " were not answered by tool messages"
		}
		switch role {
		case "system", "user":
			if !cohereContentOK(m["content"]) {
				return at + ": content must be a non-empty string or list of content items"
			}
		case "assistant":
			calls, _ := m["tool_calls"].([]any)
			if len(calls) == 0 && !cohereContentOK(m["content"]) {
				return at + ": an assistant message needs content or tool_calls"
			}
			for j, c := range calls {
				cm, _ := c.(map[string]any)
				fn, _ := cm["function"].(map[string]any)
				id, _ := cm["id"].(string)
				name, _ := fn["name"].(string)
				args, isString := fn["arguments"].(string)
				cat := at + ".tool_calls[" + strconv.Itoa(j) + "]"
				switch {
				case id == "" || name == "" || cm["type"] != "function":
					return cat + ": id, type function and function.name are required"
				case !isString || !json.Valid([]byte(args)):
					return cat + ".function.arguments must be a string holding JSON"
				}
				pending = append(pending, id)
			}
		case "tool":
			id, _ := m["tool_call_id"].(string)
			k := slices.Index(pending, id)
			if k < 0 {
				return at + ": tool_call_id " + strconv.Quote(id) + " answers no tool call of the assistant message before it"
			}
			pending = slices.Delete(pending, k, k+1)
			if !cohereContentOK(m["content"]) {
				return at + ": content must be a non-empty string or list of content items"
			}
		default:
			return at + ": role must be one of system, user, assistant, tool"
		}
	}
	if len(pending) > 0 {
		return "tool call ids " + strings.Join(pending, ", ") + " were not answered by tool messages"
	}
	for i, x := range objects(raw["tools"]) {
		fn, _ := x["function"].(map[string]any)
		name, _ := fn["name"].(string)
		if x["type"] != "function" || name == "" {
			return "tools[" + strconv.Itoa(i) + "]: type function and function.name are required"
		}
		if _, ok := fn["parameters"].(map[string]any); !ok {
			return "tools[" + strconv.Itoa(i) + "].function.parameters must be an object"
		}
	}
	return ""
}

func cohereContentOK(v any) bool {
	switch c := v.(type) {
	case string:
		return c != ""
	case []any:
		for _, it := range c {
			m, _ := it.(map[string]any)
			switch m["type"] {
			case "text", "thinking", "image_url", "document":
			default:
				return false
			}
		}
		return len(c) > 0
	}
	return false
}

// cohereAppendUsage appends the usage member of message-end or a reply.
func cohereAppendUsage(b []byte, u Usage) []byte {
	counts := `{"input_tokens":` + strconv.Itoa(u.PromptTokens) + `,"output_tokens":` + strconv.Itoa(u.CompletionTokens) + `}`
	return append(b, `"usage":{"billed_units":`+counts+`,"tokens":`+counts+`}`...)
}

type cohereStreamer struct{ emitter }

func (s *cohereStreamer) event(typ, data string) bool {
	s.buf = append(s.buf[:0], "event: "+typ+"\ndata: {\"type\":\""+typ+"\""...)
	s.buf = append(s.buf, data...)
	s.buf = append(s.buf, "}\n\n"...)
	return s.emit()
}

func cohereIndex(i int) string { return `,"index":` + strconv.Itoa(i) }

func cohereString(s string) string { return string(appendJSONString(nil, s)) }

func cohereStream(w http.ResponseWriter, r *http.Request, req *ChatRequest, reply *Reply, id, reason string) {
	s := &cohereStreamer{startStream(w, r, "text/event-stream", reply)}
	s.preamble = true
	if !s.event("message-start", `,"id":`+cohereString(id)+`,"delta":{"message":{"role":"assistant","content":[],"tool_plan":"","tool_calls":[],"citations":[]}}`) {
		return
	}
	index := 0
	if reply.Reasoning != "" {
		s.preamble = true
		s.event("content-start", cohereIndex(index)+`,"delta":{"message":{"content":{"type":"thinking","thinking":""}}}`)
		s.preamble = false
		for _, p := range reasoningPieces(reply.Reasoning) {
			if !s.event("content-delta", cohereIndex(index)+`,"delta":{"message":{"content":{"thinking":`+cohereString(p)+`}}}`) {
				return
			}
		}
		s.event("content-end", cohereIndex(index))
		index++
	}
	pieces := SplitText(reply.Text, reply.Chunks)
	if reply.Text == "" {
		pieces = nil
	}
	plan := len(reply.ToolCalls) > 0
	if len(pieces) > 0 && !plan {
		s.preamble = true
		s.event("content-start", cohereIndex(index)+`,"delta":{"message":{"content":{"type":"text","text":""}}}`)
	}
	s.preamble = false
	for i, p := range pieces {
		if i == len(pieces)/2 && i > 0 && s.breaks(reply,
			"event: content-delta\ndata: {\"type\":\"content-delta\",\"delta\":{\"mess\n\n",
			"event: message-end\ndata: {\"type\":\"message-end\",\"delta\":{\"finish_reason\":\"ERROR\",\"error\":"+cohereString(reply.StreamError)+"}}\n\n") {
			return
		}
		var ok bool
		if plan {
			ok = s.event("tool-plan-delta", `,"delta":{"message":{"tool_plan":`+cohereString(p)+`}}`)
		} else {
			ok = s.event("content-delta", cohereIndex(index)+`,"delta":{"message":{"content":{"text":`+cohereString(p)+`}}}`)
		}
		if !ok {
			return
		}
	}
	if len(pieces) > 0 && !plan {
		s.event("content-end", cohereIndex(index))
	}
	for i, tc := range reply.ToolCalls {
		s.event("tool-call-start", cohereIndex(i)+`,"delta":{"message":{"tool_calls":{"id":`+cohereString(tc.ID)+`,"type":"function","function":{"name":`+cohereString(tc.Name)+`,"arguments":""}}}}`)
		for _, a := range argumentPieces(tc.Arguments) {
			s.event("tool-call-delta", cohereIndex(i)+`,"delta":{"message":{"tool_calls":{"function":{"arguments":`+cohereString(a)+`}}}}`)
		}
		if !s.event("tool-call-end", cohereIndex(i)) {
			return
		}
	}
	end := cohereAppendUsage([]byte(`,"delta":{"finish_reason":"`+reason+`",`), usageOf(req, reply))
	s.event("message-end", string(end)+"}")
}

func cohereComplete(w http.ResponseWriter, r *http.Request, req *ChatRequest, reply *Reply, id, reason string) {
	type item struct {
		Type     string `json:"type"`
		Text     string `json:"text,omitempty"`
		Thinking string `json:"thinking,omitempty"`
	}
	type fn struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	type call struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function fn     `json:"function"`
	}
	msg := struct {
		Role      string `json:"role"`
		Content   []item `json:"content,omitempty"`
		ToolPlan  string `json:"tool_plan,omitempty"`
		ToolCalls []call `json:"tool_calls,omitempty"`
	}{Role: "assistant"}
	if reply.Reasoning != "" {
		msg.Content = append(msg.Content, item{Type: "thinking", Thinking: reply.Reasoning})
	}
	if len(reply.ToolCalls) > 0 {
		msg.ToolPlan = reply.Text
	} else if reply.Text != "" {
		msg.Content = append(msg.Content, item{Type: "text", Text: reply.Text})
	}
	for _, tc := range reply.ToolCalls {
		msg.ToolCalls = append(msg.ToolCalls, call{ID: tc.ID, Type: "function", Function: fn{tc.Name, tc.Arguments}})
	}
	m, _ := json.Marshal(msg)
	body := []byte(`{"id":` + cohereString(id) + `,"finish_reason":"` + reason + `","message":`)
	body = append(body, m...)
	body = append(body, ',')
	body = cohereAppendUsage(body, usageOf(req, reply))
	body = append(body, "}\n"...)
	if reply.Malformed {
		writeMalformed(w, string(body[:len(body)/2]))
		return
	}
	if reply.StreamError != "" {
		cohereError(w, http.StatusInternalServerError, reply.StreamError)
		return
	}
	if !wait(r.Context(), reply.Delay) {
		return
	}
	writeReply(w, "application/json", body, reply)
}

func (f *Cohere) embed(w http.ResponseWriter, r *http.Request) {
	raw, ok := readBody(r)
	texts, textsOK := stringList(raw["texts"])
	if ok && textsOK {
		f.embeds.add(texts)
	}
	if !f.authorized(w, r) {
		return
	}
	model, _ := raw["model"].(string)
	inputType, _ := raw["input_type"].(string)
	switch {
	case !ok:
		cohereError(w, http.StatusBadRequest, "invalid request: body is not valid JSON")
		return
	case !textsOK || len(texts) == 0 || len(texts) > 96:
		cohereError(w, http.StatusBadRequest, "invalid request: texts must be a list of 1 to 96 strings")
		return
	case !slices.Contains([]string{"search_document", "search_query", "classification", "clustering"}, inputType):
		cohereError(w, http.StatusBadRequest, "invalid request: input_type is required for embed models v3 and higher")
		return
	case !strings.Contains(model, "embed"):
		cohereError(w, http.StatusNotFound, cohereDefaultMessage(http.StatusNotFound, model))
		return
	}
	if f.RespondEmbed != nil {
		if reply := f.RespondEmbed(texts); cohereFailed(w, &reply, model) {
			return
		}
	}
	dims := cmp.Or(positiveInt(raw["output_dimension"]), f.EmbedDims, 1536)
	out := []byte(`{"id":"fake-embed","embeddings":{"float":[`)
	tokens := 0
	for i, t := range texts {
		if i > 0 {
			out = append(out, ',')
		}
		out = AppendVector(out, FakeVector(t, dims))
		tokens += (len(t) + 3) / 4
	}
	out = append(out, `]},"texts":[],"meta":{"api_version":{"version":"2"},"billed_units":{"input_tokens":`+strconv.Itoa(tokens)+`}}}`+"\n"...)
	writeBody(w, http.StatusOK, "application/json", out)
}

func (f *Cohere) rerank(w http.ResponseWriter, r *http.Request) {
	raw, ok := readBody(r)
	if !f.authorized(w, r) {
		return
	}
	model, _ := raw["model"].(string)
	query, queryOK := raw["query"].(string)
	docs, docsOK := stringList(raw["documents"])
	switch {
	case !ok:
		cohereError(w, http.StatusBadRequest, "invalid request: body is not valid JSON")
		return
	case !queryOK || !docsOK || len(docs) == 0:
		cohereError(w, http.StatusBadRequest, "invalid request: query must be a string and documents a non-empty list of strings")
		return
	case !strings.Contains(model, "rerank"):
		cohereError(w, http.StatusNotFound, cohereDefaultMessage(http.StatusNotFound, model))
		return
	}
	if f.RespondEmbed != nil {
		if reply := f.RespondEmbed(append([]string{query}, docs...)); cohereFailed(w, &reply, model) {
			return
		}
	}
	type result struct {
		Index          int     `json:"index"`
		RelevanceScore float64 `json:"relevance_score"`
	}
	results := make([]result, len(docs))
	for i, d := range docs {
		results[i] = result{i, FakeScore(query, d, 256)}
	}
	sort.SliceStable(results, func(i, j int) bool { return results[i].RelevanceScore > results[j].RelevanceScore })
	if n := positiveInt(raw["top_n"]); n > 0 && n < len(results) {
		results = results[:n]
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": "fake-rerank", "results": results, "meta": map[string]any{"billed_units": map[string]int{"search_units": 1}}})
}
