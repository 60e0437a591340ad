package fakellm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// anthEvent is one server-sent event of the Anthropic fake.
type anthEvent struct {
	name string
	data map[string]any
	raw  string
}

// anthStream is a streamed answer as a test sees it.
type anthStream struct {
	events []anthEvent
	bad    []string // data that was not JSON
}

func readAnthropicSSE(t *testing.T, body io.Reader) anthStream {
	t.Helper()
	var out anthStream
	sc := bufio.NewScanner(body)
	sc.Buffer(nil, 1<<20)
	name, data := "", ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if data == "" {
				t.Fatalf("blank line without data after event %q", name)
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(data), &m); err != nil {
				out.bad = append(out.bad, data)
			} else {
				if m["type"] != name {
					t.Fatalf("event %q carries type %v", name, m["type"])
				}
				out.events = append(out.events, anthEvent{name: name, data: m, raw: data})
			}
			name, data = "", ""
		case strings.HasPrefix(line, "event: "):
			name = line[len("event: "):]
		case strings.HasPrefix(line, "data: "):
			if name == "" || data != "" {
				t.Fatalf("data line %q out of place", line)
			}
			data = line[len("data: "):]
		default:
			t.Fatalf("unexpected line %q", line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if name != "" || data != "" {
		out.bad = append(out.bad, data)
	}
	return out
}

// names lists the event names, runs of one name collapsed to "name*".
func (s anthStream) names() string {
	var out []string
	for i, e := range s.events {
		if i > 0 && s.events[i-1].name == e.name {
			if !strings.HasSuffix(out[len(out)-1], "*") {
				out[len(out)-1] += "*"
			}
			continue
		}
		out = append(out, e.name)
	}
	return strings.Join(out, " ")
}

// deltas returns the string member of the deltas of type typ, in order.
func (s anthStream) deltas(typ, member string) []string {
	var out []string
	for _, e := range s.events {
		if e.name != "content_block_delta" {
			continue
		}
		d := e.data["delta"].(map[string]any)
		if d["type"] == typ {
			out = append(out, d[member].(string))
		}
	}
	return out
}

func anthropicPost(t *testing.T, ctx context.Context, base string, header map[string]string, body any) *http.Response {
	t.Helper()
	data, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/messages", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("content-type", "application/json")
	req.Header.Set("anthropic-version", "2023-06-01")
	for k, v := range header {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func anthropicBody(model string, stream bool) map[string]any {
	return map[string]any{
		"model":      model,
		"max_tokens": 1024,
		"stream":     stream,
		"messages":   []any{map[string]any{"role": "user", "content": "hi"}},
	}
}

func anthropicReplying(r Reply) *Anthropic {
	return &Anthropic{Respond: func(*ChatRequest) Reply { return r }}
}

// anthropicErrorOf decodes an error answer and returns its type and
// message.
func anthropicErrorOf(t *testing.T, resp *http.Response) (string, string) {
	t.Helper()
	var body struct {
		Type  string `json:"type"`
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || body.Type != "error" {
		t.Fatalf("error body: %v %+v", err, body)
	}
	return body.Error.Type, body.Error.Message
}

func TestAnthropicStreamedReply(t *testing.T) {
	reply := Reply{
		Reasoning:          "First think, then answer.",
		ReasoningSignature: "c2lnbmF0dXJl",
		RedactedReasoning:  "EmwKAhgBEgy3va3pzix/LafPsn4a",
		Text:               "The answer is 42, really.",
		Chunks:             3,
		ToolCalls: []ToolCall{
			{ID: "toolu_1", Name: "get_weather", Arguments: `{"city":"Zürich","days":[1,2,3]}`},
			{Name: "now", Arguments: ""},
		},
		Usage: &Usage{PromptTokens: 12, CompletionTokens: 34},
	}
	base := StartAnthropic(t, anthropicReplying(reply))
	resp := anthropicPost(t, context.Background(), base, nil, anthropicBody("claude-x", true))
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	s := readAnthropicSSE(t, resp.Body)
	if len(s.bad) > 0 {
		t.Fatalf("bad events %q", s.bad)
	}
	want := "message_start ping " +
		"content_block_start content_block_delta* content_block_stop " + // thinking
		"content_block_start content_block_stop " + // redacted thinking
		"content_block_start content_block_delta* content_block_stop " + // text
		"content_block_start content_block_delta* content_block_stop " + // tool 1
		"content_block_start content_block_delta* content_block_stop " + // tool 2
		"message_delta message_stop"
	if got := s.names(); got != want {
		t.Fatalf("events\n%s\nwant\n%s", got, want)
	}
	start := s.events[0].data["message"].(map[string]any)
	if start["role"] != "assistant" || start["model"] != "claude-x" || start["id"] == "" ||
		start["usage"].(map[string]any)["input_tokens"] != 12.0 {
		t.Fatalf("message_start %v", start)
	}

	// Blocks are numbered in order and started with their type.
	var starts []string
	for _, e := range s.events {
		if e.name == "content_block_start" {
			starts = append(starts, e.raw)
		}
	}
	wantStarts := []string{
		`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}`,
		`{"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4a"}}`,
		`{"type":"content_block_start","index":2,"content_block":{"type":"text","text":""}}`,
		`{"type":"content_block_start","index":3,"content_block":{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}}`,
		`{"type":"content_block_start","index":4,"content_block":{"type":"tool_use","id":"toolu_fake_1","name":"now","input":{}}}`,
	}
	if strings.Join(starts, "\n") != strings.Join(wantStarts, "\n") {
		t.Fatalf("block starts\n%s\nwant\n%s", strings.Join(starts, "\n"), strings.Join(wantStarts, "\n"))
	}

	thinking := s.deltas("thinking_delta", "thinking")
	if strings.Join(thinking, "") != reply.Reasoning || len(thinking) < 2 {
		t.Fatalf("thinking deltas %q", thinking)
	}
	if sig := s.deltas("signature_delta", "signature"); len(sig) != 1 || sig[0] != "c2lnbmF0dXJl" {
		t.Fatalf("signature deltas %q", sig)
	}
	if text := s.deltas("text_delta", "text"); strings.Join(text, "|") != strings.Join(SplitText(reply.Text, 3), "|") {
		t.Fatalf("text deltas %q", text)
	}
	// The input JSON of each call comes in at least three pieces that
	// join to the arguments.
	var perBlock = map[float64][]string{}
	for _, e := range s.events {
		if d, _ := e.data["delta"].(map[string]any); d != nil && d["type"] == "input_json_delta" {
			i := e.data["index"].(float64)
			perBlock[i] = append(perBlock[i], d["partial_json"].(string))
		}
	}
	if p := perBlock[3]; len(p) < 3 || strings.Join(p, "") != reply.ToolCalls[0].Arguments {
		t.Fatalf("tool 1 input pieces %q", p)
	}
	if p := perBlock[4]; len(p) < 3 || strings.Join(p, "") != "" {
		t.Fatalf("tool 2 input pieces %q", p)
	}
	md := s.events[len(s.events)-2].data
	if md["delta"].(map[string]any)["stop_reason"] != "tool_use" || md["usage"].(map[string]any)["output_tokens"] != 34.0 {
		t.Fatalf("message_delta %v", md)
	}
}

func TestAnthropicStopReasons(t *testing.T) {
	tests := []struct {
		reply Reply
		want  string
	}{
		{Reply{Text: "hi"}, "end_turn"},
		{Reply{Text: "hi", FinishReason: "stop"}, "end_turn"},
		{Reply{Text: "hi", FinishReason: "length"}, "max_tokens"},
		{Reply{Text: "hi", FinishReason: "max_tokens"}, "max_tokens"},
		{Reply{ToolCalls: []ToolCall{{Name: "f"}}}, "tool_use"},
		{Reply{Text: "no", FinishReason: "refusal"}, "refusal"},
	}
	for _, tt := range tests {
		base := StartAnthropic(t, anthropicReplying(tt.reply))
		s := readAnthropicSSE(t, anthropicPost(t, context.Background(), base, nil, anthropicBody("m", true)).Body)
		md := s.events[len(s.events)-2]
		if md.name != "message_delta" || md.data["delta"].(map[string]any)["stop_reason"] != tt.want {
			t.Fatalf("%+v: %s", tt.reply, md.raw)
		}
		var msg map[string]any
		resp := anthropicPost(t, context.Background(), base, nil, anthropicBody("m", false))
		if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil || msg["stop_reason"] != tt.want {
			t.Fatalf("%+v: non-streamed %v %v", tt.reply, msg, err)
		}
	}
}

func TestAnthropicChunkCounts(t *testing.T) {
	for _, tt := range []struct {
		text   string
		chunks int
	}{
		{"one two three four five", 0},
		{"one two three four five", 2},
		{"Grüße 世界 🙂", 9},
		{"", 0},
	} {
		base := StartAnthropic(t, anthropicReplying(Reply{Text: tt.text, Chunks: tt.chunks}))
		s := readAnthropicSSE(t, anthropicPost(t, context.Background(), base, nil, anthropicBody("m", true)).Body)
		got := s.deltas("text_delta", "text")
		want := SplitText(tt.text, tt.chunks)
		if strings.Join(got, "|") != strings.Join(want, "|") || len(got) != len(want) {
			t.Fatalf("%q/%d: deltas %q, want %q", tt.text, tt.chunks, got, want)
		}
		if tt.text == "" && strings.Contains(s.names(), "content_block_start") {
			t.Fatalf("a text block for an empty text: %s", s.names())
		}
	}
}

func TestAnthropicBrokenStreams(t *testing.T) {
	text := "one two three four five six"
	tests := []struct {
		name  string
		reply Reply
		check func(t *testing.T, s anthStream)
	}{
		{"malformed", Reply{Text: text, Malformed: true}, func(t *testing.T, s anthStream) {
			if len(s.bad) != 1 || len(s.deltas("text_delta", "text")) != 3 {
				t.Fatalf("bad %q, %s", s.bad, s.names())
			}
		}},
		{"truncated", Reply{Text: text, Truncate: true}, func(t *testing.T, s anthStream) {
			if len(s.bad) != 0 || len(s.deltas("text_delta", "text")) != 3 || strings.Contains(s.names(), "message_stop") {
				t.Fatalf("bad %q, %s", s.bad, s.names())
			}
		}},
		{"stream error", Reply{Text: text, StreamError: "Overloaded"}, func(t *testing.T, s anthStream) {
			last := s.events[len(s.events)-1]
			if last.name != "error" || last.raw != `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}` ||
				len(s.deltas("text_delta", "text")) != 3 {
				t.Fatalf("last %q, %s", last.raw, s.names())
			}
		}},
		{"stream error before any text", Reply{ToolCalls: []ToolCall{{Name: "f"}}, StreamError: "boom"}, func(t *testing.T, s anthStream) {
			if got := s.names(); got != "message_start ping error" {
				t.Fatalf("events %s", got)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := StartAnthropic(t, anthropicReplying(tt.reply))
			resp := anthropicPost(t, context.Background(), base, nil, anthropicBody("m", true))
			tt.check(t, readAnthropicSSE(t, resp.Body))
		})
	}
}

func TestAnthropicBrokenNonStreamed(t *testing.T) {
	tests := []struct {
		reply  Reply
		status int
		check  func([]byte) bool
	}{
		{Reply{Text: "x", StreamError: "kaput"}, 500, func(b []byte) bool {
			return strings.Contains(string(b), `"type":"api_error","message":"kaput"`)
		}},
		{Reply{Text: "x", Malformed: true}, 200, func(b []byte) bool { return !json.Valid(b) }},
		{Reply{Text: "a longer text to cut in half", Truncate: true}, 200, func(b []byte) bool { return !json.Valid(b) && len(b) > 10 }},
	}
	for _, tt := range tests {
		base := StartAnthropic(t, anthropicReplying(tt.reply))
		resp := anthropicPost(t, context.Background(), base, nil, anthropicBody("m", false))
		data, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != tt.status || !tt.check(data) {
			t.Fatalf("%+v: %d %s", tt.reply, resp.StatusCode, data)
		}
	}
}

func TestAnthropicNonStreamed(t *testing.T) {
	base := StartAnthropic(t, anthropicReplying(Reply{
		Reasoning:         "hmm",
		RedactedReasoning: "opaque",
		Text:              "Sunny.",
		ToolCalls:         []ToolCall{{ID: "toolu_9", Name: "log", Arguments: `{"ok": true}`}, {ID: "toolu_10", Name: "now"}},
		Usage:             &Usage{PromptTokens: 8, CompletionTokens: 5},
	}))
	resp := anthropicPost(t, context.Background(), base, nil, anthropicBody("claude-y", false))
	var msg map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
		t.Fatal(err)
	}
	content, _ := json.Marshal(msg["content"])
	want := `[{"signature":"` + AnthropicSignature + `","thinking":"hmm","type":"thinking"},` +
		`{"data":"opaque","type":"redacted_thinking"},{"text":"Sunny.","type":"text"},` +
		`{"id":"toolu_9","input":{"ok":true},"name":"log","type":"tool_use"},{"id":"toolu_10","input":{},"name":"now","type":"tool_use"}]`
	if string(content) != want {
		t.Fatalf("content\n%s\nwant\n%s", content, want)
	}
	if msg["type"] != "message" || msg["role"] != "assistant" || msg["model"] != "claude-y" || msg["stop_reason"] != "tool_use" {
		t.Fatalf("message %v", msg)
	}
	if u := msg["usage"].(map[string]any); u["input_tokens"] != 8.0 || u["output_tokens"] != 5.0 {
		t.Fatalf("usage %v", u)
	}
}

func TestAnthropicAuthAndVersion(t *testing.T) {
	f := &Anthropic{APIKey: "sk-ant-good"}
	base := StartAnthropic(t, f)
	tests := []struct {
		name    string
		header  map[string]string
		status  int
		errType string
		message string
	}{
		{"no key", nil, 401, "authentication_error", "x-api-key header is required"},
		{"wrong key", map[string]string{"x-api-key": "sk-ant-bad"}, 401, "authentication_error", "invalid x-api-key"},
		{"bearer is not enough", map[string]string{"Authorization": "Bearer sk-ant-good"}, 401, "authentication_error", "x-api-key header is required"},
		{"no version", map[string]string{"x-api-key": "sk-ant-good", "anthropic-version": ""}, 400, "invalid_request_error", "anthropic-version: header is required"},
		{"good", map[string]string{"x-api-key": "sk-ant-good"}, 200, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := anthropicPost(t, context.Background(), base, tt.header, anthropicBody("claude-sonnet-4-5", false))
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.status)
			}
			if tt.status == 200 {
				var msg struct {
					Content []struct{ Text string } `json:"content"`
				}
				if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil || len(msg.Content) != 1 || msg.Content[0].Text != AnthropicText {
					t.Fatalf("reply %+v %v", msg, err)
				}
				return
			}
			if typ, msg := anthropicErrorOf(t, resp); typ != tt.errType || msg != tt.message {
				t.Fatalf("error %s %q", typ, msg)
			}
		})
	}
	reqs := f.Requests()
	if len(reqs) != len(tests) || reqs[1].Authorization != "sk-ant-bad" || reqs[4].Header.Get("anthropic-version") != "2023-06-01" {
		t.Fatalf("recorded %d requests: %+v", len(reqs), reqs)
	}
}

func TestAnthropicErrorStatuses(t *testing.T) {
	tests := []struct {
		status     int
		errType    string
		retryAfter string
	}{
		{400, "invalid_request_error", ""},
		{401, "authentication_error", ""},
		{403, "permission_error", ""},
		{404, "not_found_error", ""},
		{413, "request_too_large", ""},
		{429, "rate_limit_error", "17"},
		{500, "api_error", ""},
		{503, "api_error", "3"},
		{529, "overloaded_error", "5"},
	}
	for _, tt := range tests {
		base := StartAnthropic(t, anthropicReplying(Reply{Status: tt.status, RetryAfter: tt.retryAfter}))
		for _, stream := range []bool{true, false} {
			resp := anthropicPost(t, context.Background(), base, nil, anthropicBody("claude-z", stream))
			if resp.StatusCode != tt.status || resp.Header.Get("Retry-After") != tt.retryAfter {
				t.Fatalf("%d: status %d retry-after %q", tt.status, resp.StatusCode, resp.Header.Get("Retry-After"))
			}
			typ, msg := anthropicErrorOf(t, resp)
			if typ != tt.errType || msg == "" {
				t.Fatalf("%d: error %s %q", tt.status, typ, msg)
			}
			if tt.status == 404 && msg != "model: claude-z" {
				t.Fatalf("404 message %q", msg)
			}
		}
	}
	base := StartAnthropic(t, anthropicReplying(Reply{Status: 429, ErrorMessage: "slow down"}))
	if _, msg := anthropicErrorOf(t, anthropicPost(t, context.Background(), base, nil, anthropicBody("m", true))); msg != "slow down" {
		t.Fatalf("message %q", msg)
	}
}

func TestAnthropicDefaultServer(t *testing.T) {
	f := &Anthropic{}
	base := StartAnthropic(t, f)
	resp := anthropicPost(t, context.Background(), base, nil, anthropicBody("claude-opus-4-1", true))
	s := readAnthropicSSE(t, resp.Body)
	if got := strings.Join(s.deltas("text_delta", "text"), ""); got != AnthropicText {
		t.Fatalf("text %q", got)
	}
	resp = anthropicPost(t, context.Background(), base, nil, anthropicBody("gpt-4o", true))
	if typ, msg := anthropicErrorOf(t, resp); resp.StatusCode != 404 || typ != "not_found_error" || msg != "model: gpt-4o" {
		t.Fatalf("unknown model: %d %s %q", resp.StatusCode, typ, msg)
	}

	for _, path := range []string{"/v1/models", "/models"} {
		req, _ := http.NewRequest(http.MethodGet, strings.TrimSuffix(base, "/v1")+path, nil)
		req.Header.Set("anthropic-version", "2023-06-01")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want := `{"data":[{"type":"model","id":"claude-sonnet-4-5","display_name":"Claude Sonnet 4.5","created_at":"2025-09-29T00:00:00Z"},` +
			`{"type":"model","id":"claude-opus-4-1","display_name":"Claude Opus 4.1","created_at":"2025-09-29T00:00:00Z"}],` +
			`"has_more":false,"first_id":"claude-sonnet-4-5","last_id":"claude-opus-4-1"}` + "\n"
		if string(data) != want {
			t.Fatalf("%s: %s", path, data)
		}
	}
	resp, err := http.Get(base + "/complete")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if typ, _ := anthropicErrorOf(t, resp); resp.StatusCode != 404 || typ != "not_found_error" {
		t.Fatalf("unknown path: %d %s", resp.StatusCode, typ)
	}
}

func TestAnthropicRejectsWhatTheAPIRejects(t *testing.T) {
	user := func(content any) map[string]any { return map[string]any{"role": "user", "content": content} }
	asst := func(content any) map[string]any { return map[string]any{"role": "assistant", "content": content} }
	text := func(s string) map[string]any { return map[string]any{"type": "text", "text": s} }
	use := func(id string) map[string]any {
		return map[string]any{"type": "tool_use", "id": id, "name": "f", "input": map[string]any{}}
	}
	result := func(id string) map[string]any {
		return map[string]any{"type": "tool_result", "tool_use_id": id, "content": "ok"}
	}
	list := func(blocks ...any) []any { return blocks }
	tests := []struct {
		name     string
		messages []any
		body     map[string]any // replaces the whole body when set
		want     string         // part of the message; "" means accepted
	}{
		{"plain", list(user("hi")), nil, ""},
		{"tool round trip", list(user("hi"), asst(list(text("let me see"), use("a"), use("b"))), user(list(result("a"), result("b"), text("and?")))), nil, ""},
		{"final assistant prefill may be empty", list(user("hi"), asst("")), nil, ""},
		{"no max_tokens", nil, map[string]any{"model": "m", "messages": list(user("hi"))}, "max_tokens: Field required"},
		{"no messages", []any{}, nil, "at least one message"},
		{"assistant first", list(asst("hi"), user("x")), nil, `first message must use the "user" role`},
		{"roles repeat", list(user("a"), user("b")), nil, "roles must alternate"},
		{"empty text block", list(user(list(text("")))), nil, "text content blocks must be non-empty"},
		{"whitespace text block", list(user(list(text(" \n")))), nil, "non-whitespace text"},
		{"duplicate tool_use ids", list(user("hi"), asst(list(use("a"), use("a"))), user(list(result("a")))), nil, "`tool_use` ids must be unique"},
		{"unanswered tool_use", list(user("hi"), asst(list(use("a"), use("b"))), user(list(result("a")))), nil, "without `tool_result` blocks immediately after: b"},
		{"tool_use at the end", list(user("hi"), asst(list(use("a")))), nil, "without `tool_result` blocks immediately after: a"},
		{"unexpected tool_result", list(user("hi"), asst(list(use("a"))), user(list(result("a"), result("z")))), nil, "unexpected `tool_use_id` found in `tool_result` blocks: z"},
		{"tool_result after text", list(user("hi"), asst(list(use("a"))), user(list(text("x"), result("a")))), nil, "tool_result blocks must come first"},
		{"thinking without signature", list(user("hi"), asst(list(map[string]any{"type": "thinking", "thinking": "t"})), user("x")), nil, "signature: Field required"},
		{"thinking in a user message", list(user(list(map[string]any{"type": "thinking", "thinking": "t", "signature": "s"}))), nil, "can only be in `assistant` messages"},
		{"tool input not an object", list(user("hi"), asst(list(map[string]any{"type": "tool_use", "id": "a", "name": "f", "input": "{}"})), user(list(result("a")))), nil, "valid dictionary"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := StartAnthropic(t, anthropicReplying(Reply{Text: "fine"}))
			body := tt.body
			if body == nil {
				body = anthropicBody("m", false)
				body["messages"] = tt.messages
			}
			resp := anthropicPost(t, context.Background(), base, nil, body)
			if tt.want == "" {
				if resp.StatusCode != 200 {
					data, _ := io.ReadAll(resp.Body)
					t.Fatalf("rejected: %s", data)
				}
				return
			}
			typ, msg := anthropicErrorOf(t, resp)
			if resp.StatusCode != 400 || typ != "invalid_request_error" || !strings.Contains(msg, tt.want) {
				t.Fatalf("%d %s %q, want a 400 saying %q", resp.StatusCode, typ, msg, tt.want)
			}
		})
	}
}

func TestAnthropicRequestsAreRecorded(t *testing.T) {
	f := anthropicReplying(Reply{Text: "ok"})
	base := StartAnthropic(t, f)
	body := anthropicBody("claude-q", true)
	body["temperature"] = 0.0
	body["top_p"] = 0.5
	body["output_config"] = map[string]any{"effort": "high"}
	body["tools"] = []any{map[string]any{"name": "f", "input_schema": map[string]any{"type": "object"}}}
	resp := anthropicPost(t, context.Background(), base, map[string]string{"x-api-key": "k", "anthropic-beta": "b1"}, body)
	_, _ = io.Copy(io.Discard, resp.Body)
	r := f.Requests()[0]
	if r.Model != "claude-q" || !r.Stream || r.Temperature == nil || *r.Temperature != 0 || r.TopP == nil || *r.TopP != 0.5 ||
		r.ReasoningEffort != "high" || len(r.Messages) != 1 || r.Messages[0]["content"] != "hi" || len(r.Tools) != 1 ||
		r.Authorization != "k" || r.Header.Get("anthropic-beta") != "b1" || r.Raw["max_tokens"] != 1024.0 {
		t.Fatalf("recorded %+v", r)
	}
}

func TestAnthropicDelayStopsWhenTheClientGoes(t *testing.T) {
	base := StartAnthropic(t, anthropicReplying(Reply{Text: "a b c d", Delay: time.Hour}))
	ctx, cancel := context.WithCancel(context.Background())
	resp := anthropicPost(t, ctx, base, nil, anthropicBody("m", true))
	br := bufio.NewReader(resp.Body)
	line, err := br.ReadString('\n')
	if err != nil || line != "event: message_start\n" {
		t.Fatalf("first line %q %v", line, err)
	}
	cancel()
	// StartAnthropic's cleanup waits for the handler; it returns because
	// the delay respects the request's context.
}

// 2000 chunks arrive whole; how fast is BenchmarkAnthropicStream2000Chunks'
// business (a timed bound here failed on a loaded machine).
func TestAnthropicTwoThousandChunks(t *testing.T) {
	base := StartAnthropic(t, anthropicReplying(Reply{Text: strings.Repeat("x", 8000), Chunks: 2000}))
	resp := anthropicPost(t, context.Background(), base, nil, anthropicBody("m", true))
	s := readAnthropicSSE(t, resp.Body)
	if n := len(s.deltas("text_delta", "text")); n != 2000 {
		t.Fatalf("%d text deltas", n)
	}
}

func BenchmarkAnthropicStream2000Chunks(b *testing.B) {
	base := StartAnthropic(b, anthropicReplying(Reply{Text: strings.Repeat("token ", 2000), Chunks: 2000}))
	data, _ := json.Marshal(anthropicBody("m", true))
	b.ReportAllocs()
	for b.Loop() {
		req, _ := http.NewRequest(http.MethodPost, base+"/messages", bytes.NewReader(data))
		req.Header.Set("anthropic-version", "2023-06-01")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}
