package fakellm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// sse is a streamed answer as a test sees it.
type sse struct {
	chunks []map[string]any // decoded data events, [DONE] excluded
	bad    []string         // data events that were not JSON
	done   bool             // [DONE] was the last event
}

func readSSE(t *testing.T, body io.Reader) sse {
	t.Helper()
	var out sse
	sc := bufio.NewScanner(body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("unexpected line %q", line)
		}
		if out.done {
			t.Fatalf("event after [DONE]: %q", line)
		}
		if data == "[DONE]" {
			out.done = true
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			out.bad = append(out.bad, data)
			continue
		}
		out.chunks = append(out.chunks, m)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// delta returns the delta and finish reason of a choice chunk.
func delta(t *testing.T, chunk map[string]any) (map[string]any, any) {
	t.Helper()
	choices := chunk["choices"].([]any)
	if len(choices) != 1 {
		t.Fatalf("chunk has %d choices: %v", len(choices), chunk)
	}
	c := choices[0].(map[string]any)
	return c["delta"].(map[string]any), c["finish_reason"]
}

// contents returns the content deltas of the choice chunks.
func (s sse) contents(t *testing.T) []string {
	var out []string
	for _, c := range s.chunks {
		if cs, _ := c["choices"].([]any); len(cs) == 0 {
			continue
		}
		d, _ := delta(t, c)
		if text, ok := d["content"].(string); ok {
			out = append(out, text)
		}
	}
	return out
}

func post(t *testing.T, base, key string, body any) *http.Response {
	t.Helper()
	return postCtx(t, context.Background(), base, key, body)
}

func postCtx(t *testing.T, ctx context.Context, base, key string, body any) *http.Response {
	t.Helper()
	data, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/chat/completions", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func streamBody(model string, usage bool) map[string]any {
	b := map[string]any{
		"model":    model,
		"stream":   true,
		"messages": []any{map[string]any{"role": "user", "content": "hi"}},
	}
	if usage {
		b["stream_options"] = map[string]any{"include_usage": true}
	}
	return b
}

func replying(r Reply) *OpenAI {
	return &OpenAI{Respond: func(*ChatRequest) Reply { return r }}
}

func TestSplitText(t *testing.T) {
	tests := []struct {
		text   string
		chunks int
		want   []string
	}{
		{"", 0, nil},
		{"one", 0, []string{"one"}},
		{"Hello world  foo", 0, []string{"Hello", " world", "  foo"}},
		{"  lead and trail \n", 0, []string{"  lead", " and", " trail \n"}},
		{"a b c d", 2, []string{"a b", " c d"}},
		{"a b c d e", 3, []string{"a", " b c", " d e"}},
		{"abcdef", 3, []string{"ab", "cd", "ef"}},
		{"héllo", 5, []string{"h", "é", "l", "l", "o"}},
		{"日本語 です", 4, []string{"日", "本語", " ", "です"}},
		{"ab", 4, []string{"", "a", "", "b"}},
		{"   ", 0, []string{"   "}},
	}
	for _, tt := range tests {
		got := SplitText(tt.text, tt.chunks)
		if !slices.Equal(got, tt.want) {
			t.Errorf("SplitText(%q, %d) = %q, want %q", tt.text, tt.chunks, got, tt.want)
		}
	}
}

func TestStreamedTextChunkCounts(t *testing.T) {
	long := strings.Repeat("word ", 500) + "end"
	tests := []struct {
		name       string
		reply      Reply
		wantDeltas int
	}{
		{"one delta per word", Reply{Text: "The quick brown fox"}, 4},
		{"grouped words", Reply{Text: "The quick brown fox jumps", Chunks: 2}, 2},
		{"exactly one", Reply{Text: "The quick brown fox", Chunks: 1}, 1},
		{"more chunks than words", Reply{Text: "Grüße aus Köln, 日本語!", Chunks: 17}, 17},
		{"two thousand", Reply{Text: long, Chunks: 2000}, 2000},
		{"escapes", Reply{Text: "quote\" back\\slash new\nline tab\t ctl\x01 \u2028x"}, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := replying(tt.reply)
			base := StartOpenAI(t, f)
			resp := post(t, base, "", streamBody("m1", true))
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
				t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			s := readSSE(t, resp.Body)
			if len(s.bad) > 0 || !s.done {
				t.Fatalf("bad events %q, done %v", s.bad, s.done)
			}
			got := s.contents(t)
			if len(got) != tt.wantDeltas {
				t.Fatalf("%d content deltas, want %d", len(got), tt.wantDeltas)
			}
			if strings.Join(got, "") != tt.reply.Text {
				t.Fatalf("text %q, want %q", strings.Join(got, ""), tt.reply.Text)
			}
			first, _ := delta(t, s.chunks[0])
			if first["role"] != "assistant" {
				t.Fatalf("first delta %v has no assistant role", first)
			}
			for _, c := range s.chunks {
				if c["object"] != "chat.completion.chunk" || c["model"] != "m1" || c["id"] == "" {
					t.Fatalf("bad envelope %v", c)
				}
			}
			// The last choice chunk has the finish reason, then comes usage.
			n := len(s.chunks)
			if _, fr := delta(t, s.chunks[n-2]); fr != "stop" {
				t.Fatalf("finish reason %v", fr)
			}
			for _, c := range s.chunks[:n-2] {
				if _, fr := delta(t, c); fr != nil {
					t.Fatalf("early finish reason in %v", c)
				}
			}
			u := s.chunks[n-1]
			if cs := u["choices"].([]any); len(cs) != 0 {
				t.Fatalf("usage chunk has choices: %v", u)
			}
			usage := u["usage"].(map[string]any)
			if usage["completion_tokens"].(float64) < 1 ||
				usage["total_tokens"] != usage["prompt_tokens"].(float64)+usage["completion_tokens"].(float64) {
				t.Fatalf("usage %v", usage)
			}
		})
	}
}

func TestUsage(t *testing.T) {
	tests := []struct {
		name         string
		includeUsage bool
		usage        *Usage
		want         map[string]any
	}{
		{"not asked", false, &Usage{PromptTokens: 1, CompletionTokens: 2}, nil},
		{"given", true, &Usage{PromptTokens: 11, CompletionTokens: 7}, map[string]any{"prompt_tokens": 11.0, "completion_tokens": 7.0, "total_tokens": 18.0}},
		{"derived", true, nil, map[string]any{"prompt_tokens": 2.0, "completion_tokens": 3.0, "total_tokens": 5.0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := StartOpenAI(t, replying(Reply{Text: "twelve bytes", Usage: tt.usage}))
			s := readSSE(t, post(t, base, "", streamBody("m", tt.includeUsage)).Body)
			var got map[string]any
			for _, c := range s.chunks {
				if u, ok := c["usage"].(map[string]any); ok {
					if got != nil {
						t.Fatal("two usage chunks")
					}
					got = u
				}
			}
			if tt.want == nil && got != nil || tt.want != nil && !equalJSON(got, tt.want) {
				t.Fatalf("usage %v, want %v", got, tt.want)
			}
		})
	}
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

func TestReasoningThenText(t *testing.T) {
	base := StartOpenAI(t, replying(Reply{Reasoning: "Let me think about this carefully.", Text: "Answer."}))
	s := readSSE(t, post(t, base, "", streamBody("m", false)).Body)
	var reasoning []string
	sawText := false
	for _, c := range s.chunks {
		d, _ := delta(t, c)
		if r, ok := d["reasoning_content"].(string); ok {
			if sawText {
				t.Fatal("reasoning after text")
			}
			reasoning = append(reasoning, r)
		}
		if text, _ := d["content"].(string); text != "" {
			sawText = true
		}
	}
	if len(reasoning) != 4 || strings.Join(reasoning, "") != "Let me think about this carefully." {
		t.Fatalf("reasoning deltas %q", reasoning)
	}
	if got := s.contents(t); strings.Join(got, "") != "Answer." {
		t.Fatalf("text %q", got)
	}
}

func TestToolCallDeltasReassemble(t *testing.T) {
	calls := []ToolCall{
		{ID: "call_a", Name: "get_weather", Arguments: `{"city":"Zürich","unit":"celsius"}`},
		{ID: "call_b", Name: "get_time", Arguments: `{"tz":"Europe/Zurich"}`},
		{Name: "no_args", Arguments: ""},
	}
	base := StartOpenAI(t, replying(Reply{Text: "Checking.", ToolCalls: calls}))
	s := readSSE(t, post(t, base, "", streamBody("m", false)).Body)
	type acc struct {
		id, typ, name, args string
		argDeltas           int
	}
	got := map[int]*acc{}
	var order []int
	var finish any
	for _, c := range s.chunks {
		d, fr := delta(t, c)
		if fr != nil {
			finish = fr
		}
		tcs, _ := d["tool_calls"].([]any)
		for _, x := range tcs {
			tc := x.(map[string]any)
			i := int(tc["index"].(float64))
			order = append(order, i)
			a := got[i]
			if a == nil {
				a = &acc{}
				got[i] = a
				if tc["id"] == nil || tc["type"] != "function" {
					t.Fatalf("first delta of call %d lacks id or type: %v", i, tc)
				}
			} else {
				a.argDeltas++
				if tc["id"] != nil {
					t.Fatalf("id repeated in %v", tc)
				}
			}
			if id, ok := tc["id"].(string); ok {
				a.id = id
			}
			if typ, ok := tc["type"].(string); ok {
				a.typ = typ
			}
			fn := tc["function"].(map[string]any)
			if name, ok := fn["name"].(string); ok {
				a.name += name
			}
			a.args += fn["arguments"].(string)
		}
	}
	if finish != "tool_calls" {
		t.Fatalf("finish %v", finish)
	}
	want := []acc{
		{"call_a", "function", "get_weather", calls[0].Arguments, 0},
		{"call_b", "function", "get_time", calls[1].Arguments, 0},
		{"call_fake_2", "function", "no_args", "", 0},
	}
	for i, w := range want {
		a := got[i]
		if a == nil || a.id != w.id || a.typ != w.typ || a.name != w.name || a.args != w.args || a.argDeltas < 3 {
			t.Fatalf("call %d = %+v, want %+v with >= 3 argument deltas", i, a, w)
		}
	}
	// Interleaved: call 1 gets deltas before call 0 is complete.
	first1 := slices.Index(order, 1)
	if first1 < 0 || !slices.Contains(order[first1:], 0) {
		t.Fatalf("tool call deltas are not interleaved: %v", order)
	}
}

func TestBrokenStreams(t *testing.T) {
	text := "one two three four five six"
	tests := []struct {
		name  string
		reply Reply
		check func(t *testing.T, s sse)
	}{
		{"malformed", Reply{Text: text, Malformed: true}, func(t *testing.T, s sse) {
			if len(s.bad) != 1 || s.bad[0] != `{"choices":[{` || s.done {
				t.Fatalf("bad %q done %v", s.bad, s.done)
			}
		}},
		{"truncated", Reply{Text: text, Truncate: true}, func(t *testing.T, s sse) {
			if len(s.bad) != 0 || s.done {
				t.Fatalf("bad %q done %v", s.bad, s.done)
			}
			for _, c := range s.chunks {
				if _, fr := delta(t, c); fr != nil {
					t.Fatal("finish reason in a truncated stream")
				}
			}
		}},
		{"stream error", Reply{Text: text, StreamError: "boom"}, func(t *testing.T, s sse) {
			last := s.chunks[len(s.chunks)-1]
			e, _ := last["error"].(map[string]any)
			if e["message"] != "boom" || e["type"] != "server_error" || s.done {
				t.Fatalf("last chunk %v done %v", last, s.done)
			}
			s.chunks = s.chunks[:len(s.chunks)-1]
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := StartOpenAI(t, replying(tt.reply))
			s := readSSE(t, post(t, base, "", streamBody("m", true)).Body)
			tt.check(t, s)
			if got := strings.Join(s.contents(t), ""); got != "one two three" {
				t.Fatalf("content before the break %q", got)
			}
		})
	}
}

func TestAuthorization(t *testing.T) {
	f := &OpenAI{APIKey: "sk-secret"}
	base := StartOpenAI(t, f)
	tests := []struct {
		key        string
		wantStatus int
	}{
		{"", 401},
		{"sk-wrong", 401},
		{"sk-secret", 200},
	}
	for _, tt := range tests {
		resp := post(t, base, tt.key, map[string]any{"model": "gpt-4o-mini", "messages": []any{}})
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != tt.wantStatus {
			t.Fatalf("key %q: status %d, want %d: %s", tt.key, resp.StatusCode, tt.wantStatus, body)
		}
		if tt.wantStatus == 401 {
			var e struct {
				Error struct{ Message, Type, Code string }
			}
			if err := json.Unmarshal(body, &e); err != nil || e.Error.Code != "invalid_api_key" ||
				e.Error.Type != "invalid_request_error" || e.Error.Message == "" || strings.Contains(string(body), "sk-") {
				t.Fatalf("401 body %s", body)
			}
		}
	}
	got := f.Requests()
	if len(got) != 3 || got[0].Authorization != "" || got[1].Authorization != "Bearer sk-wrong" || got[2].Authorization != "Bearer sk-secret" {
		t.Fatalf("recorded %+v", got)
	}
	req, _ := http.NewRequest(http.MethodGet, base+"/models", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Fatalf("models without key: %d", resp.StatusCode)
	}
}

func TestErrorStatuses(t *testing.T) {
	tests := []struct {
		reply    Reply
		wantType string
		wantCode any
		wantMsg  string
	}{
		{Reply{Status: 400}, "invalid_request_error", nil, "Invalid request."},
		{Reply{Status: 401}, "invalid_request_error", "invalid_api_key", "Incorrect API key provided."},
		{Reply{Status: 404}, "invalid_request_error", "model_not_found", "The model 'gpt-x' does not exist or you do not have access to it."},
		{Reply{Status: 429, RetryAfter: "20"}, "requests", "rate_limit_exceeded", "Rate limit reached for requests. Please try again later."},
		{Reply{Status: 500, ErrorMessage: "custom"}, "server_error", nil, "custom"},
		{Reply{Status: 502}, "server_error", nil, "Bad Gateway."},
	}
	for _, tt := range tests {
		base := StartOpenAI(t, replying(tt.reply))
		resp := post(t, base, "", streamBody("gpt-x", true))
		var e map[string]map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != tt.reply.Status || resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("status %d content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		if e["error"]["type"] != tt.wantType || e["error"]["code"] != tt.wantCode || e["error"]["message"] != tt.wantMsg {
			t.Fatalf("status %d: error %v", tt.reply.Status, e)
		}
		if got := resp.Header.Get("Retry-After"); got != tt.reply.RetryAfter {
			t.Fatalf("Retry-After %q", got)
		}
	}
}

func TestDefaultServer(t *testing.T) {
	f := &OpenAI{}
	base := StartOpenAI(t, f)

	resp := post(t, base, "", map[string]any{"model": "nope", "messages": []any{}})
	var e map[string]map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&e)
	if resp.StatusCode != 404 || e["error"]["code"] != "model_not_found" ||
		e["error"]["message"] != "The model 'nope' does not exist or you do not have access to it." {
		t.Fatalf("unknown model: %d %v", resp.StatusCode, e)
	}

	resp = post(t, base, "", streamBody("gpt-4.1", false))
	if got := strings.Join(readSSE(t, resp.Body).contents(t), ""); got != DefaultText {
		t.Fatalf("default text %q", got)
	}

	for _, path := range []string{"/models", "/v1/models"} {
		r, err := http.Get(strings.TrimSuffix(base, "/v1") + path)
		if err != nil {
			t.Fatal(err)
		}
		var list struct {
			Object string
			Data   []struct{ ID, Object string }
		}
		_ = json.NewDecoder(r.Body).Decode(&list)
		r.Body.Close()
		if r.StatusCode != 200 || list.Object != "list" || len(list.Data) != 2 || list.Data[0].ID != "gpt-4o-mini" || list.Data[1].ID != "gpt-4.1" {
			t.Fatalf("GET %s: %d %+v", path, r.StatusCode, list)
		}
	}

	for _, probe := range []struct{ method, path string }{{"GET", "/v1/chat/completions"}, {"POST", "/v1/audio/speech"}, {"GET", "/v1/embeddings"}, {"GET", "/"}} {
		req, _ := http.NewRequest(probe.method, strings.TrimSuffix(base, "/v1")+probe.path, nil)
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var e map[string]map[string]any
		_ = json.NewDecoder(r.Body).Decode(&e)
		r.Body.Close()
		if r.StatusCode != 404 || e["error"]["type"] != "invalid_request_error" {
			t.Fatalf("%s %s: %d %v", probe.method, probe.path, r.StatusCode, e)
		}
	}
}

func TestNonStreamed(t *testing.T) {
	base := StartOpenAI(t, replying(Reply{
		Text:      "Sunny.",
		Reasoning: "Look it up.",
		ToolCalls: []ToolCall{{ID: "c1", Name: "weather", Arguments: `{"city":"Bern"}`}},
		Usage:     &Usage{PromptTokens: 5, CompletionTokens: 6},
	}))
	resp := post(t, base, "", map[string]any{"model": "m", "messages": []any{}})
	if resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("content type %q", resp.Header.Get("Content-Type"))
	}
	var c struct {
		Object  string
		Model   string
		Choices []struct {
			Message struct {
				Role             string
				Content          *string
				ReasoningContent string `json:"reasoning_content"`
				ToolCalls        []struct {
					ID, Type string
					Function struct{ Name, Arguments string }
				} `json:"tool_calls"`
			}
			FinishReason string `json:"finish_reason"`
		}
		Usage struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
			TotalTokens      int `json:"total_tokens"`
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
		t.Fatal(err)
	}
	m := c.Choices[0].Message
	if c.Object != "chat.completion" || c.Model != "m" || m.Role != "assistant" || m.Content == nil || *m.Content != "Sunny." ||
		m.ReasoningContent != "Look it up." || len(m.ToolCalls) != 1 || m.ToolCalls[0].ID != "c1" ||
		m.ToolCalls[0].Type != "function" || m.ToolCalls[0].Function.Arguments != `{"city":"Bern"}` ||
		c.Choices[0].FinishReason != "tool_calls" || c.Usage.TotalTokens != 11 {
		t.Fatalf("completion %+v", c)
	}
}

func TestRequestsAreRecorded(t *testing.T) {
	f := replying(Reply{Text: "ok"})
	base := StartOpenAI(t, f)
	body := map[string]any{
		"model":            "m",
		"stream":           true,
		"stream_options":   map[string]any{"include_usage": true},
		"temperature":      0.0,
		"top_p":            0.5,
		"reasoning_effort": "high",
		"messages":         []any{map[string]any{"role": "system", "content": "be brief"}, map[string]any{"role": "user", "content": "hi"}},
		"tools":            []any{map[string]any{"type": "function", "function": map[string]any{"name": "f"}}},
	}
	readSSE(t, post(t, base, "k", body).Body)
	reqs := f.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.Model != "m" || !r.Stream || !r.IncludeUsage || r.Temperature == nil || *r.Temperature != 0 || r.TopP == nil || *r.TopP != 0.5 ||
		r.ReasoningEffort != "high" || len(r.Messages) != 2 || r.Messages[1]["content"] != "hi" || len(r.Tools) != 1 ||
		r.Authorization != "Bearer k" || r.Raw["model"] != "m" {
		t.Fatalf("recorded %+v", r)
	}
}

func TestDelayStopsWhenTheClientGoes(t *testing.T) {
	base := StartOpenAI(t, replying(Reply{Text: "a b c d", Delay: time.Hour}))
	ctx, cancel := context.WithCancel(context.Background())
	resp := postCtx(t, ctx, base, "", streamBody("m", false))
	br := bufio.NewReader(resp.Body)
	start := time.Now()
	line, err := br.ReadString('\n')
	if err != nil || !strings.Contains(line, `"content":"a"`) {
		t.Fatalf("first event %q %v", line, err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatal("the first event was delayed")
	}
	cancel()
	// StartOpenAI's cleanup waits for the handler; it returns because the
	// delay respects the request's context.
}

func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{"", "plain", "q\"b\\s/", "\x00\x1f\n\r\t", "ünï 日本 🙂", "bad \xff utf8", "\u2028\u2029", "<&>"} {
		var back string
		enc := appendJSONString(nil, s)
		if err := json.Unmarshal(enc, &back); err != nil {
			t.Fatalf("%q encodes to invalid JSON %s: %v", s, enc, err)
		}
		want, _ := json.Marshal(s)
		var wantBack string
		_ = json.Unmarshal(want, &wantBack)
		if back != wantBack {
			t.Fatalf("%q round-trips to %q, want %q", s, back, wantBack)
		}
	}
}

func TestTwoThousandChunksAreFast(t *testing.T) {
	base := StartOpenAI(t, replying(Reply{Text: strings.Repeat("x", 8000), Chunks: 2000}))
	start := time.Now()
	resp := post(t, base, "", streamBody("m", true))
	n, _ := io.Copy(io.Discard, resp.Body)
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("2000 chunks (%d bytes) took %v", n, d)
	}
}

func BenchmarkStream2000Chunks(b *testing.B) {
	f := replying(Reply{Text: strings.Repeat("token ", 2000), Chunks: 2000})
	base := StartOpenAI(b, f)
	data, _ := json.Marshal(streamBody("m", true))
	b.ReportAllocs()
	for b.Loop() {
		resp, err := http.Post(base+"/chat/completions", "application/json", bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

func TestFakeVectorIsStableUnitLength(t *testing.T) {
	a, b := FakeVector("hello", 384), FakeVector("hello", 384)
	c := FakeVector("hellp", 384)
	var norm float64
	same := true
	for i := range a {
		norm += float64(a[i]) * float64(a[i])
		if a[i] != b[i] {
			t.Fatal("the same text gave different vectors")
		}
		if a[i] != c[i] {
			same = false
		}
	}
	if same || norm < 0.999 || norm > 1.001 || len(a) != 384 {
		t.Fatalf("norm %v, distinct %v, len %d", norm, !same, len(a))
	}
}

// postTo posts body (JSON-encoded unless it is a string) to url.
func postTo(t *testing.T, url, key string, body any) (*http.Response, []byte) {
	t.Helper()
	data, ok := body.(string)
	if !ok {
		raw, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		data = string(raw)
	}
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Test", "yes")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read %s: %v", url, err)
	}
	return resp, out
}

func TestEmbeddings(t *testing.T) {
	tests := []struct {
		name      string
		path      string
		embedDims int
		body      map[string]any
		inputs    []string
		dims      int
		base64    bool
	}{
		{"default size", "/v1/embeddings", 0, map[string]any{"model": "e", "input": []any{"alpha", "beta", "gamma"}}, []string{"alpha", "beta", "gamma"}, 384, false},
		{"without /v1", "/embeddings", 0, map[string]any{"model": "e", "input": []any{"x"}}, []string{"x"}, 384, false},
		{"one string", "/v1/embeddings", 0, map[string]any{"model": "e", "input": "solo"}, []string{"solo"}, 384, false},
		{"EmbedDims", "/v1/embeddings", 16, map[string]any{"model": "e", "input": []any{"a", "b"}}, []string{"a", "b"}, 16, false},
		{"dimensions wins", "/v1/embeddings", 16, map[string]any{"model": "e", "input": []any{"a"}, "dimensions": 64}, []string{"a"}, 64, false},
		{"Voyage's output_dimension", "/v1/embeddings", 0, map[string]any{"model": "e", "input": []any{"a"}, "output_dimension": 256}, []string{"a"}, 256, false},
		{"base64", "/v1/embeddings", 0, map[string]any{"model": "e", "input": []any{"a", "Grüße"}, "encoding_format": "base64"}, []string{"a", "Grüße"}, 384, true},
		{"escapes in the model", "/v1/embeddings", 8, map[string]any{"model": "e\"\n", "input": []any{""}}, []string{""}, 8, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &OpenAI{APIKey: "k", EmbedDims: tt.embedDims}
			base := StartOpenAI(t, f)
			resp, data := postTo(t, strings.TrimSuffix(base, "/v1")+tt.path, "k", tt.body)
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("status %d %q: %s", resp.StatusCode, resp.Header.Get("Content-Type"), data)
			}
			var got struct {
				Object string
				Model  string
				Data   []struct {
					Object    string
					Index     int
					Embedding json.RawMessage
				}
				Usage struct {
					PromptTokens int `json:"prompt_tokens"`
					TotalTokens  int `json:"total_tokens"`
				}
			}
			if err := json.Unmarshal(data, &got); err != nil {
				t.Fatalf("%v: %.200s", err, data)
			}
			if got.Object != "list" || got.Model != tt.body["model"] || len(got.Data) != len(tt.inputs) ||
				got.Usage.PromptTokens != got.Usage.TotalTokens {
				t.Fatalf("reply %.300s", data)
			}
			for i, d := range got.Data {
				var vec []float32
				if tt.base64 {
					var s string
					if err := json.Unmarshal(d.Embedding, &s); err != nil {
						t.Fatal(err)
					}
					raw, err := base64.StdEncoding.DecodeString(s)
					if err != nil {
						t.Fatal(err)
					}
					for j := 0; j+4 <= len(raw); j += 4 {
						vec = append(vec, math.Float32frombits(binary.LittleEndian.Uint32(raw[j:])))
					}
				} else if err := json.Unmarshal(d.Embedding, &vec); err != nil {
					t.Fatal(err)
				}
				if d.Index != i || d.Object != "embedding" || !slices.Equal(vec, FakeVector(tt.inputs[i], tt.dims)) {
					t.Fatalf("item %d: index %d, %d values, not FakeVector(%q, %d)", i, d.Index, len(vec), tt.inputs[i], tt.dims)
				}
			}
			calls := f.EmbedRequests()
			if len(calls) != 1 || calls[0].Model != tt.body["model"] || !slices.Equal(calls[0].Inputs, tt.inputs) ||
				calls[0].Raw["model"] != tt.body["model"] || calls[0].Header.Get("X-Test") != "yes" {
				t.Fatalf("recorded %+v", calls)
			}
		})
	}
}

func TestRerank(t *testing.T) {
	docs := []string{"the cat sat", "dogs bark", "a cat naps", "stock prices", "kittens"}
	tests := []struct {
		name      string
		path      string
		embedDims int
		body      map[string]any
		topN      int
	}{
		{"all", "/v1/rerank", 0, map[string]any{"model": "r", "query": "cats", "documents": docs}, 0},
		{"top_n", "/rerank", 0, map[string]any{"model": "r", "query": "cats", "documents": docs, "top_n": 2}, 2},
		{"Voyage's top_k", "/v1/rerank", 0, map[string]any{"model": "r", "query": "cats", "documents": docs, "top_k": 3}, 3},
		{"documents as objects", "/v1/rerank", 32, map[string]any{"model": "r", "query": "cats", "documents": []any{
			map[string]any{"text": docs[0]}, map[string]any{"text": docs[1]}, map[string]any{"text": docs[2]},
			map[string]any{"text": docs[3]}, map[string]any{"text": docs[4]}}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &OpenAI{EmbedDims: tt.embedDims}
			base := StartOpenAI(t, f)
			resp, data := postTo(t, strings.TrimSuffix(base, "/v1")+tt.path, "", tt.body)
			if resp.StatusCode != 200 {
				t.Fatalf("status %d: %s", resp.StatusCode, data)
			}
			var got struct {
				Model   string
				Results []struct {
					Index          int
					RelevanceScore float64 `json:"relevance_score"`
				}
			}
			if err := json.Unmarshal(data, &got); err != nil {
				t.Fatal(err)
			}
			dims := cmpOr(tt.embedDims, DefaultEmbedDims)
			want := len(docs)
			if tt.topN > 0 {
				want = tt.topN
			}
			if got.Model != "r" || len(got.Results) != want {
				t.Fatalf("reply %s", data)
			}
			seen := map[int]bool{}
			for i, r := range got.Results {
				if r.RelevanceScore != FakeScore("cats", docs[r.Index], dims) || seen[r.Index] {
					t.Fatalf("result %d: %+v", i, r)
				}
				seen[r.Index] = true
				if i > 0 && r.RelevanceScore > got.Results[i-1].RelevanceScore {
					t.Fatalf("not sorted: %s", data)
				}
			}
			// The best are kept.
			all := make([]float64, len(docs))
			for i, d := range docs {
				all[i] = FakeScore("cats", d, dims)
			}
			slices.Sort(all)
			if got.Results[0].RelevanceScore != all[len(all)-1] {
				t.Fatalf("the best score %v is missing from %s", all[len(all)-1], data)
			}
			calls := f.RerankRequests()
			if len(calls) != 1 || calls[0].Model != "r" || calls[0].Query != "cats" || !slices.Equal(calls[0].Documents, docs) ||
				calls[0].TopN != tt.topN || calls[0].Raw["query"] != "cats" || calls[0].Header.Get("X-Test") != "yes" {
				t.Fatalf("recorded %+v", calls)
			}
		})
	}
}

func cmpOr(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

func TestFakeScoreIsCosine(t *testing.T) {
	if s := FakeScore("same", "same", 384); math.Abs(s-1) > 1e-6 {
		t.Fatalf("a text scores %v against itself", s)
	}
	if s := FakeScore("one", "other", 384); s >= 0.5 || s <= -0.5 {
		t.Fatalf("unrelated texts score %v", s)
	}
}

func TestEmbedAndRerankErrors(t *testing.T) {
	good := map[string]any{"model": "m", "input": []any{"a"}, "query": "q", "documents": []any{"d"}}
	tests := []struct {
		name       string
		key        string
		body       any
		reply      Reply
		wantStatus int
		wantMsg    string
		retryAfter string
	}{
		{"wrong key", "nope", good, Reply{}, 401, "Incorrect API key", ""},
		{"not JSON", "k", "{nope", Reply{}, 400, "could not parse the JSON body", ""},
		{"no model", "k", map[string]any{"input": []any{"a"}, "query": "q", "documents": []any{"d"}}, Reply{}, 400, "model parameter", ""},
		{"bad list", "k", map[string]any{"model": "m", "input": []any{1}, "query": "q", "documents": []any{true}}, Reply{}, 400, "array of strings", ""},
		{"empty list", "k", map[string]any{"model": "m", "input": []any{}, "query": "q", "documents": []any{}}, Reply{}, 400, "non-empty", ""},
		{"rate limited", "k", good, Reply{Status: 429, RetryAfter: "7"}, 429, "Rate limit reached", "7"},
		{"overloaded", "k", good, Reply{Status: 503, ErrorMessage: "busy", RetryAfter: "2"}, 503, "busy", "2"},
		{"server error", "k", good, Reply{StreamError: "exploded"}, 500, "exploded", ""},
	}
	for _, tt := range tests {
		for _, path := range []string{"/embeddings", "/rerank"} {
			t.Run(tt.name+path, func(t *testing.T) {
				var seen int
				respond := func() Reply { seen++; return tt.reply }
				f := &OpenAI{APIKey: "k",
					RespondEmbed:  func(*EmbedCall) Reply { return respond() },
					RespondRerank: func(*RerankCall) Reply { return respond() },
				}
				base := StartOpenAI(t, f)
				resp, data := postTo(t, base+path, tt.key, tt.body)
				var e struct {
					Error struct{ Message, Type string }
				}
				_ = json.Unmarshal(data, &e)
				if resp.StatusCode != tt.wantStatus || !strings.Contains(e.Error.Message, tt.wantMsg) ||
					resp.Header.Get("Retry-After") != tt.retryAfter {
					t.Fatalf("status %d, Retry-After %q: %s", resp.StatusCode, resp.Header.Get("Retry-After"), data)
				}
				if len(f.EmbedRequests())+len(f.RerankRequests()) != 1 {
					t.Fatal("the request was not recorded")
				}
			})
		}
	}
}

func TestBrokenEmbedAndRerankBodies(t *testing.T) {
	body := map[string]any{"model": "m", "input": []any{"a", "b"}, "query": "q", "documents": []any{"d", "e"}}
	for _, path := range []string{"/embeddings", "/rerank"} {
		t.Run("malformed"+path, func(t *testing.T) {
			f := &OpenAI{
				RespondEmbed:  func(*EmbedCall) Reply { return Reply{Malformed: true} },
				RespondRerank: func(*RerankCall) Reply { return Reply{Malformed: true} },
			}
			resp, data := postTo(t, StartOpenAI(t, f)+path, "", body)
			if resp.StatusCode != 200 || json.Valid(data) {
				t.Fatalf("status %d, body %s", resp.StatusCode, data)
			}
		})
		t.Run("truncated"+path, func(t *testing.T) {
			f := &OpenAI{
				RespondEmbed:  func(*EmbedCall) Reply { return Reply{Truncate: true} },
				RespondRerank: func(*RerankCall) Reply { return Reply{Truncate: true} },
			}
			resp, err := http.Post(StartOpenAI(t, f)+path, "application/json", strings.NewReader(`{"model":"m","input":["a","b"],"query":"q","documents":["d","e"]}`))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			data, err := io.ReadAll(resp.Body)
			if resp.StatusCode != 200 || !errors.Is(err, io.ErrUnexpectedEOF) || int64(len(data)) >= resp.ContentLength {
				t.Fatalf("status %d, %d of %d bytes, err %v", resp.StatusCode, len(data), resp.ContentLength, err)
			}
		})
	}
}

func TestEmbedDelayStopsWhenTheClientGoes(t *testing.T) {
	arrived := make(chan struct{})
	f := &OpenAI{RespondEmbed: func(*EmbedCall) Reply {
		close(arrived)
		return Reply{Delay: time.Hour}
	}}
	base := StartOpenAI(t, f)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/embeddings", strings.NewReader(`{"model":"m","input":"a"}`))
	done := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	<-arrived
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	// StartOpenAI's cleanup waits for the handler, which returns because
	// the delay respects the request's context.
}

func TestAppendVectorRoundTrips(t *testing.T) {
	var values []float32
	for _, text := range []string{"a", "b", "Grüße", "a longer text"} {
		values = append(values, FakeVector(text, 384)...)
	}
	values = append(values, 0, float32(math.Copysign(0, -1)), 1, -1, 0.1, 1e-13, 9.9999e-14, 123456789, 999999999.9, 1e9, 3.4028235e38,
		1.4e-45, math.SmallestNonzeroFloat32, math.MaxFloat32, 0.3, 2.5e-5)
	rnd := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		f := math.Float32frombits(rnd.Uint32())
		if !math.IsNaN(float64(f)) && !math.IsInf(float64(f), 0) {
			values = append(values, f)
		}
	}
	for range 100000 {
		values = append(values, float32(rnd.Float64()*2-1))
	}
	enc := AppendVector(nil, values)
	var back []float32
	if err := json.Unmarshal(enc, &back); err != nil {
		t.Fatal(err)
	}
	for i, v := range values {
		if math.Float32bits(back[i]) != math.Float32bits(v) {
			s := appendFloat32(nil, v)
			t.Fatalf("%v (%#x) encodes as %s and reads back as %v", v, math.Float32bits(v), s, back[i])
		}
	}
	if got := string(AppendVector(nil, []float32{0.5, -0.0123456789, 100, 12.25, 0.0000123, 1e-7, 4e8})); got != "[0.5,-0.0123456791,100,12.25,0.0000123,100000001e-15,400000000]" {
		t.Fatalf("AppendVector = %s", got)
	}
}

func BenchmarkEmbed64x384(b *testing.B) {
	base := StartOpenAI(b, &OpenAI{})
	inputs := make([]any, 64)
	for i := range inputs {
		inputs[i] = "input number " + strconv.Itoa(i)
	}
	data, _ := json.Marshal(map[string]any{"model": "m", "input": inputs, "encoding_format": "float"})
	b.ReportAllocs()
	for b.Loop() {
		resp, err := http.Post(base+"/embeddings", "application/json", bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}
