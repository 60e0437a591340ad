package fakellm

import (
	"cmp"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// This file is the fake of Anthropic's Messages API (the "claude" client
// type): POST /v1/messages, streamed as Anthropic's named server-sent events
// or answered as one message, and GET /v1/models. It shares Reply,
// ChatRequest and the text splitting with the OpenAI fake.

// AnthropicText is the answer when Anthropic.Respond is nil.
const AnthropicText = "Hello from the fake Anthropic server."

// AnthropicSignature is the signature of a thinking block when
// Reply.ReasoningSignature is empty.
const AnthropicSignature = "ZmFrZWxsbS10aGlua2luZy1zaWduYXR1cmU="

// Anthropic is a fake Anthropic Messages API. The zero value is ready to
// use; it must not be copied after first use. Respond may be called from
// several goroutines at once.
//
// Like the real API it rejects, with a 400 and Anthropic's error body, a
// request without the anthropic-version header or max_tokens, and a
// conversation the real API refuses: roles that do not alternate, empty
// text blocks, duplicate tool_use ids in one message, a tool_use without its
// tool_result in the next message (or the reverse), tool_result blocks after
// other content.
type Anthropic struct {
	// APIKey, if set, is required in the x-api-key header; other requests
	// get a 401 authentication_error.
	APIKey string
	// Models are listed by GET /v1/models. Default: claude-sonnet-4-5 and
	// claude-opus-4-1.
	Models []string
	// Respond decides each reply. When nil, the server answers
	// AnthropicText and rejects models missing from Models with a 404
	// not_found_error.
	Respond func(*ChatRequest) Reply

	requests recorder[ChatRequest]
}

// Handler serves POST /v1/messages and /messages, GET /v1/models and
// /models. Anything else gets a 404 not_found_error.
func (f *Anthropic) Handler() http.Handler { return http.HandlerFunc(f.serveHTTP) }

// Requests returns a copy of the message requests received so far, in
// order. Authorization holds the x-api-key header; Messages the body's
// messages; ReasoningEffort is output_config.effort.
func (f *Anthropic) Requests() []ChatRequest { return f.requests.all() }

// StartAnthropic serves f on a loopback port until the test ends and
// returns the base URL, ending in "/v1". Replies still being streamed when
// the test ends are cut off.
func StartAnthropic(t testing.TB, f *Anthropic) string {
	t.Helper()
	return start(t, f.Handler(), "/v1")
}

func (f *Anthropic) models() []string {
	return orDefault(f.Models, "claude-sonnet-4-5", "claude-opus-4-1")
}

func (f *Anthropic) serveHTTP(w http.ResponseWriter, r *http.Request) {
	path := trimVersion(r.URL.Path, "/v1/")
	switch {
	case path == "/messages" && r.Method == http.MethodPost:
		f.messages(w, r)
	case path == "/models" && r.Method == http.MethodGet:
		f.listModels(w, r)
	default:
		writeAnthropicError(w, http.StatusNotFound, "not_found_error", "Not Found", "")
	}
}

// anthropicErrorType is the error type the API reports with status.
func anthropicErrorType(status int) string {
	switch status {
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		return "invalid_request_error"
	case http.StatusUnauthorized:
		return "authentication_error"
	case http.StatusPaymentRequired:
		return "billing_error"
	case http.StatusForbidden:
		return "permission_error"
	case http.StatusNotFound:
		return "not_found_error"
	case http.StatusRequestEntityTooLarge:
		return "request_too_large"
	case http.StatusTooManyRequests:
		return "rate_limit_error"
	case http.StatusGatewayTimeout:
		return "timeout_error"
	case 529:
		return "overloaded_error"
	}
	if status >= 500 {
		return "api_error"
	}
	return "invalid_request_error"
}

// anthropicErrorMessage is the message the API sends with status.
func anthropicErrorMessage(status int, model string) string {
	switch status {
	case http.StatusBadRequest:
		return "Invalid request."
	case http.StatusUnauthorized:
		return "invalid x-api-key"
	case http.StatusForbidden:
		return "Your API key does not have permission to use the specified resource."
	case http.StatusNotFound:
		return "model: " + model
	case http.StatusRequestEntityTooLarge:
		return "Request exceeds the maximum allowed number of bytes."
	case http.StatusTooManyRequests:
		return "Number of request tokens has exceeded your per-minute rate limit."
	case http.StatusInternalServerError:
		return "Internal server error"
	case 529:
		return "Overloaded"
	}
	return statusText(status)
}

// anthropicErrorBody is {"type":"error","error":{...},"request_id":...}.
func anthropicErrorBody(typ, msg, requestID string) []byte {
	b := make([]byte, 0, 96+len(msg))
	b = append(b, `{"type":"error","error":{"type":`...)
	b = appendJSONString(b, typ)
	b = append(b, `,"message":`...)
	b = appendJSONString(b, msg)
	b = append(b, '}')
	if requestID != "" {
		b = append(b, `,"request_id":`...)
		b = appendJSONString(b, requestID)
	}
	return append(b, '}')
}

func writeAnthropicError(w http.ResponseWriter, status int, typ, msg, requestID string) {
	writeBody(w, status, "application/json", append(anthropicErrorBody(typ, msg, requestID), '\n'))
}

// authorized answers 401 and returns false when a key is required and the
// request does not carry it.
func (f *Anthropic) authorized(w http.ResponseWriter, key string) bool {
	if f.APIKey == "" || key == f.APIKey {
		return true
	}
	msg := "invalid x-api-key"
	if key == "" {
		msg = "x-api-key header is required"
	}
	writeAnthropicError(w, http.StatusUnauthorized, "authentication_error", msg, "")
	return false
}

// anthropicVersioned answers 400 and returns false when the request has no
// anthropic-version header.
func anthropicVersioned(w http.ResponseWriter, r *http.Request) bool {
	if r.Header.Get("anthropic-version") != "" {
		return true
	}
	writeAnthropicError(w, http.StatusBadRequest, "invalid_request_error", "anthropic-version: header is required", "")
	return false
}

func (f *Anthropic) listModels(w http.ResponseWriter, r *http.Request) {
	if !f.authorized(w, r.Header.Get("x-api-key")) || !anthropicVersioned(w, r) {
		return
	}
	type model struct {
		Type        string `json:"type"`
		ID          string `json:"id"`
		DisplayName string `json:"display_name"`
		CreatedAt   string `json:"created_at"`
	}
	body := struct {
		Data    []model `json:"data"`
		HasMore bool    `json:"has_more"`
		FirstID *string `json:"first_id"`
		LastID  *string `json:"last_id"`
	}{Data: []model{}}
	for _, id := range f.models() {
		body.Data = append(body.Data, model{Type: "model", ID: id, DisplayName: anthropicDisplayName(id), CreatedAt: "2025-09-29T00:00:00Z"})
	}
	if n := len(body.Data); n > 0 {
		body.FirstID, body.LastID = &body.Data[0].ID, &body.Data[n-1].ID
	}
	writeJSON(w, http.StatusOK, body)
}

// anthropicDisplayName turns "claude-sonnet-4-5" into "Claude Sonnet 4.5".
func anthropicDisplayName(id string) string {
	var words []string
	for _, w := range strings.Split(id, "-") {
		if w == "" {
			continue
		}
		n := len(words)
		if n > 0 && anthropicDigits(w) && anthropicDigits(strings.ReplaceAll(words[n-1], ".", "")) {
			words[n-1] += "." + w
			continue
		}
		words = append(words, strings.ToUpper(w[:1])+w[1:])
	}
	return strings.Join(words, " ")
}

func anthropicDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func (f *Anthropic) messages(w http.ResponseWriter, r *http.Request) {
	raw, ok := readBody(r)
	req := ChatRequest{Raw: raw, Authorization: r.Header.Get("x-api-key"), Header: r.Header.Clone()}
	req.fillAnthropic()
	seq := strconv.Itoa(f.requests.add(req))
	requestID := "req_fake" + seq

	if !f.authorized(w, req.Authorization) || !anthropicVersioned(w, r) {
		return
	}
	invalid := func(msg string) {
		writeAnthropicError(w, http.StatusBadRequest, "invalid_request_error", msg, requestID)
	}
	if !ok {
		invalid("There was an error parsing the body of your request as JSON.")
		return
	}
	if msg := checkAnthropicRequest(req.Raw); msg != "" {
		invalid(msg)
		return
	}
	reply := Reply{Text: AnthropicText}
	switch {
	case f.Respond != nil:
		reply = ask(f.Respond, req)
	case !slices.Contains(f.models(), req.Model):
		writeAnthropicError(w, http.StatusNotFound, "not_found_error", "model: "+req.Model, requestID)
		return
	}
	if reply.Status >= 400 {
		retryAfter(w, &reply)
		msg := cmp.Or(reply.ErrorMessage, anthropicErrorMessage(reply.Status, req.Model))
		writeAnthropicError(w, reply.Status, anthropicErrorType(reply.Status), msg, requestID)
		return
	}
	reply.ToolCalls = withIDs(reply.ToolCalls, "toolu_fake_")
	if reply.ReasoningSignature == "" {
		reply.ReasoningSignature = AnthropicSignature
	}
	reply.FinishReason = endTurnStopReason(reply.FinishReason, len(reply.ToolCalls) > 0)
	id := "msg_fake" + seq
	if req.Stream {
		streamAnthropic(w, r, &req, &reply, id)
	} else {
		completeAnthropic(w, r, &req, &reply, id)
	}
}

// endTurnStopReason spells a finish reason the way Anthropic's Messages
// API and Bedrock's Converse do: end_turn, tool_use, max_tokens; others
// pass unchanged.
func endTurnStopReason(reason string, tools bool) string {
	switch reason {
	case "":
		if tools {
			return "tool_use"
		}
		return "end_turn"
	case "stop":
		return "end_turn"
	case "tool_calls":
		return "tool_use"
	case "length":
		return "max_tokens"
	}
	return reason
}

// fillAnthropic copies the known fields of a Messages API body into the
// request.
func (c *ChatRequest) fillAnthropic() {
	raw := c.Raw
	c.Model, _ = raw["model"].(string)
	c.Stream, _ = raw["stream"].(bool)
	c.Temperature = optionalNumber(raw, "temperature")
	c.TopP = optionalNumber(raw, "top_p")
	if oc, ok := raw["output_config"].(map[string]any); ok {
		c.ReasoningEffort, _ = oc["effort"].(string)
	}
	c.Messages = objects(raw["messages"])
	c.Tools = objects(raw["tools"])
}

// checkAnthropicRequest returns the message of the 400 the real API would
// answer to body, or "".
func checkAnthropicRequest(body map[string]any) string {
	if m, _ := body["model"].(string); m == "" {
		return "model: Field required"
	}
	if n, ok := body["max_tokens"].(float64); !ok {
		return "max_tokens: Field required"
	} else if n < 1 || n != float64(int64(n)) {
		return "max_tokens: Input should be a valid positive integer"
	}
	if s, ok := body["system"]; ok {
		if _, isString := s.(string); !isString {
			if _, isList := s.([]any); !isList {
				return "system: Input should be a valid string or list of text blocks"
			}
		}
	}
	list, ok := body["messages"].([]any)
	if !ok {
		return "messages: Field required"
	}
	if len(list) == 0 {
		return "messages: at least one message is required"
	}
	var prevUses []string // tool_use ids of the previous assistant message
	prevRole := ""
	for i, raw := range list {
		where := "messages." + strconv.Itoa(i)
		m, ok := raw.(map[string]any)
		if !ok {
			return where + ": Input should be an object"
		}
		role, _ := m["role"].(string)
		if role != "user" && role != "assistant" {
			return where + ".role: Input should be 'user' or 'assistant'"
		}
		if i == 0 && role != "user" {
			return `messages: first message must use the "user" role`
		}
		if role == prevRole {
			return `messages: roles must alternate between "user" and "assistant", but found multiple "` + role + `" roles in a row`
		}
		var blocks []map[string]any
		switch c := m["content"].(type) {
		case string:
			if strings.TrimSpace(c) == "" && i < len(list)-1 {
				return where + ": all messages must have non-empty content except for the optional final assistant message"
			}
		case []any:
			if len(c) == 0 && i < len(list)-1 {
				return where + ": all messages must have non-empty content except for the optional final assistant message"
			}
			for _, b := range c {
				bm, ok := b.(map[string]any)
				if !ok {
					return where + ".content: Input should be a list of content blocks"
				}
				blocks = append(blocks, bm)
			}
		default:
			return where + ".content: Field required"
		}
		if msg := checkAnthropicBlocks(where, role, blocks, prevUses); msg != "" {
			return msg
		}
		prevUses = prevUses[:0]
		if role == "assistant" {
			for _, b := range blocks {
				if b["type"] == "tool_use" {
					id, _ := b["id"].(string)
					prevUses = append(prevUses, id)
				}
			}
		}
		prevRole = role
	}
	if len(prevUses) > 0 {
		return "messages." + strconv.Itoa(len(list)-1) + ": `tool_use` ids were found without `tool_result` blocks immediately after: " +
			strings.Join(prevUses, ", ") + ". Each `tool_use` block must have a corresponding `tool_result` block in the next message."
	}
	return ""
}

// checkAnthropicBlocks checks the content blocks of one message; uses are
// the tool_use ids of the previous message.
func checkAnthropicBlocks(where, role string, blocks []map[string]any, uses []string) string {
	seen := map[string]bool{}
	answered := map[string]bool{}
	otherSeen := false
	for j, b := range blocks {
		at := where + ".content." + strconv.Itoa(j)
		typ, _ := b["type"].(string)
		if typ != "tool_result" {
			otherSeen = true
		}
		switch typ {
		case "text":
			text, ok := b["text"].(string)
			switch {
			case !ok:
				return at + ".text: Field required"
			case text == "":
				return "messages: text content blocks must be non-empty"
			case strings.TrimSpace(text) == "":
				return "messages: text content blocks must contain non-whitespace text"
			}
		case "image":
			src, _ := b["source"].(map[string]any)
			switch src["type"] {
			case "base64":
				if s, _ := src["data"].(string); s == "" {
					return at + ".source.data: Field required"
				}
				if s, _ := src["media_type"].(string); s == "" {
					return at + ".source.media_type: Field required"
				}
			case "url":
				if s, _ := src["url"].(string); s == "" {
					return at + ".source.url: Field required"
				}
			default:
				return at + ".source: Input tag does not match any of the expected tags: 'base64', 'url'"
			}
		case "thinking", "redacted_thinking", "tool_use":
			if role != "assistant" {
				return at + ": `" + typ + "` blocks can only be in `assistant` messages"
			}
			switch typ {
			case "thinking":
				if s, _ := b["signature"].(string); s == "" {
					return at + ".signature: Field required"
				}
			case "redacted_thinking":
				if s, _ := b["data"].(string); s == "" {
					return at + ".data: Field required"
				}
			case "tool_use":
				id, _ := b["id"].(string)
				if name, _ := b["name"].(string); id == "" || name == "" {
					return at + ": tool_use blocks need an id and a name"
				}
				if _, ok := b["input"].(map[string]any); !ok {
					return at + ".input: Input should be a valid dictionary"
				}
				if seen[id] {
					return at + ": `tool_use` ids must be unique"
				}
				seen[id] = true
			}
		case "tool_result":
			if role != "user" {
				return at + ": `tool_result` blocks can only be in `user` messages"
			}
			if otherSeen {
				return at + ": tool_result blocks must come first in the content of a user message, before any other content"
			}
			id, _ := b["tool_use_id"].(string)
			known := false
			for _, u := range uses {
				known = known || u == id
			}
			if !known {
				return at + ": unexpected `tool_use_id` found in `tool_result` blocks: " + id +
					". Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
			}
			answered[id] = true
		default:
			return at + ".type: Input tag '" + typ + "' does not match any of the expected tags"
		}
	}
	var missing []string
	for _, u := range uses {
		if !answered[u] {
			missing = append(missing, u)
		}
	}
	if len(missing) > 0 {
		return where + ": `tool_use` ids were found without `tool_result` blocks immediately after: " +
			strings.Join(missing, ", ") + ". Each `tool_use` block must have a corresponding `tool_result` block in the next message."
	}
	return ""
}

// anthropicStreamer writes the named events of one streamed reply.
type anthropicStreamer struct{ emitter }

// event starts an event of type typ: its event line and the opening of its
// data, up to and including the "type" member.
func (s *anthropicStreamer) event(typ string) {
	s.buf = append(s.buf[:0], "event: "...)
	s.buf = append(s.buf, typ...)
	s.buf = append(s.buf, "\ndata: {\"type\":\""...)
	s.buf = append(s.buf, typ...)
	s.buf = append(s.buf, '"')
}

// end closes the data object and emits the event. It reports false once
// the client has gone.
func (s *anthropicStreamer) end() bool {
	s.buf = append(s.buf, "}\n\n"...)
	return s.emit()
}

func (s *anthropicStreamer) index(i int) {
	s.buf = append(s.buf, `,"index":`...)
	s.buf = strconv.AppendInt(s.buf, int64(i), 10)
}

// blockStart sends content_block_start; block is the content_block object.
func (s *anthropicStreamer) blockStart(i int, block string) bool {
	s.event("content_block_start")
	s.index(i)
	s.buf = append(s.buf, `,"content_block":`...)
	s.buf = append(s.buf, block...)
	return s.end()
}

// delta sends a content_block_delta whose delta has type typ and one
// string member.
func (s *anthropicStreamer) delta(i int, typ, member, value string) bool {
	s.preamble = false
	s.event("content_block_delta")
	s.index(i)
	s.buf = append(s.buf, `,"delta":{"type":"`...)
	s.buf = append(s.buf, typ...)
	s.buf = append(s.buf, `","`...)
	s.buf = append(s.buf, member...)
	s.buf = append(s.buf, `":`...)
	s.buf = appendJSONString(s.buf, value)
	s.buf = append(s.buf, '}')
	return s.end()
}

func (s *anthropicStreamer) blockStop(i int) bool {
	s.event("content_block_stop")
	s.index(i)
	return s.end()
}

// streamAnthropic answers a streamed request with Anthropic's events.
func streamAnthropic(w http.ResponseWriter, r *http.Request, req *ChatRequest, reply *Reply, id string) {
	s := &anthropicStreamer{startStream(w, r, "text/event-stream; charset=utf-8", reply)}
	s.preamble = true
	usage := usageOf(req, reply)

	s.event("message_start")
	s.buf = append(s.buf, `,"message":{"id":`...)
	s.buf = appendJSONString(s.buf, id)
	s.buf = append(s.buf, `,"type":"message","role":"assistant","model":`...)
	s.buf = appendJSONString(s.buf, req.Model)
	s.buf = append(s.buf, `,"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":`...)
	s.buf = strconv.AppendInt(s.buf, int64(usage.PromptTokens), 10)
	s.buf = append(s.buf, `,"cache_creation_input_tokens":0,"cache_read_input_tokens":`...)
	s.buf = strconv.AppendInt(s.buf, int64(usage.CachedTokens), 10)
	s.buf = append(s.buf, `,"output_tokens":1}}`...)
	if !s.end() {
		return
	}
	s.event("ping")
	if !s.end() {
		return
	}

	block := 0
	if reply.Reasoning != "" {
		if !s.blockStart(block, `{"type":"thinking","thinking":""}`) {
			return
		}
		for _, piece := range reasoningPieces(reply.Reasoning) {
			if !s.delta(block, "thinking_delta", "thinking", piece) {
				return
			}
		}
		if !s.delta(block, "signature_delta", "signature", reply.ReasoningSignature) || !s.blockStop(block) {
			return
		}
		block++
	}
	if reply.RedactedReasoning != "" {
		start := appendJSONString([]byte(`{"type":"redacted_thinking","data":`), reply.RedactedReasoning)
		if !s.blockStart(block, string(append(start, '}'))) || !s.blockStop(block) {
			return
		}
		block++
	}

	pieces := SplitText(reply.Text, reply.Chunks)
	half := len(pieces) / 2
	for i := 0; i <= len(pieces); i++ {
		if i == half && s.breaks(reply,
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":"+strconv.Itoa(block)+",\"delta\":{\n\n",
			"event: error\ndata: "+string(anthropicErrorBody("overloaded_error", reply.StreamError, ""))+"\n\n") {
			return
		}
		if i == len(pieces) {
			break
		}
		if i == 0 && !s.blockStart(block, `{"type":"text","text":""}`) {
			return
		}
		if !s.delta(block, "text_delta", "text", pieces[i]) {
			return
		}
		if i == len(pieces)-1 {
			if !s.blockStop(block) {
				return
			}
			block++
		}
	}

	for i := range reply.ToolCalls {
		tc := &reply.ToolCalls[i]
		start := append([]byte(`{"type":"tool_use","id":`), appendJSONString(nil, tc.ID)...)
		start = append(start, `,"name":`...)
		start = appendJSONString(start, tc.Name)
		start = append(start, `,"input":{}}`...)
		if !s.blockStart(block, string(start)) {
			return
		}
		for _, piece := range argumentPieces(tc.Arguments) {
			if !s.delta(block, "input_json_delta", "partial_json", piece) {
				return
			}
		}
		if !s.blockStop(block) {
			return
		}
		block++
	}

	s.event("message_delta")
	s.buf = append(s.buf, `,"delta":{"stop_reason":`...)
	s.buf = appendJSONString(s.buf, reply.FinishReason)
	s.buf = append(s.buf, `,"stop_sequence":null},"usage":{"output_tokens":`...)
	s.buf = strconv.AppendInt(s.buf, int64(usage.CompletionTokens), 10)
	s.buf = append(s.buf, '}')
	if !s.end() {
		return
	}
	s.event("message_stop")
	s.end()
}

// completeAnthropic answers a request without stream as one message.
func completeAnthropic(w http.ResponseWriter, r *http.Request, req *ChatRequest, reply *Reply, id string) {
	if !wait(r.Context(), reply.Delay) {
		return
	}
	if reply.StreamError != "" {
		writeAnthropicError(w, http.StatusInternalServerError, "api_error", reply.StreamError, "")
		return
	}
	if reply.Malformed {
		writeMalformed(w, `{"id":"`+id+`","type":"message","content":[{`)
		return
	}
	type block struct {
		Type      string          `json:"type"`
		Thinking  *string         `json:"thinking,omitempty"`
		Signature string          `json:"signature,omitempty"`
		Data      string          `json:"data,omitempty"`
		Text      *string         `json:"text,omitempty"`
		ID        string          `json:"id,omitempty"`
		Name      string          `json:"name,omitempty"`
		Input     json.RawMessage `json:"input,omitempty"`
	}
	type usage struct {
		InputTokens              int `json:"input_tokens"`
		CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
		CacheReadInputTokens     int `json:"cache_read_input_tokens"`
		OutputTokens             int `json:"output_tokens"`
	}
	type message struct {
		ID           string  `json:"id"`
		Type         string  `json:"type"`
		Role         string  `json:"role"`
		Model        string  `json:"model"`
		Content      []block `json:"content"`
		StopReason   string  `json:"stop_reason"`
		StopSequence *string `json:"stop_sequence"`
		Usage        usage   `json:"usage"`
	}
	u := usageOf(req, reply)
	msg := message{ID: id, Type: "message", Role: "assistant", Model: req.Model, Content: []block{},
		StopReason: reply.FinishReason, Usage: usage{InputTokens: u.PromptTokens, CacheReadInputTokens: u.CachedTokens, OutputTokens: u.CompletionTokens}}
	if reply.Reasoning != "" {
		msg.Content = append(msg.Content, block{Type: "thinking", Thinking: &reply.Reasoning, Signature: reply.ReasoningSignature})
	}
	if reply.RedactedReasoning != "" {
		msg.Content = append(msg.Content, block{Type: "redacted_thinking", Data: reply.RedactedReasoning})
	}
	if reply.Text != "" {
		msg.Content = append(msg.Content, block{Type: "text", Text: &reply.Text})
	}
	for _, tc := range reply.ToolCalls {
		input := json.RawMessage(`{}`)
		if strings.TrimSpace(tc.Arguments) != "" && json.Valid([]byte(tc.Arguments)) {
			input = json.RawMessage(tc.Arguments)
		}
		msg.Content = append(msg.Content, block{Type: "tool_use", ID: tc.ID, Name: tc.Name, Input: input})
	}
	data, err := json.Marshal(msg)
	if err != nil {
		writeAnthropicError(w, http.StatusInternalServerError, "api_error", err.Error(), "")
		return
	}
	writeReply(w, "application/json", append(data, '\n'), reply)
}
