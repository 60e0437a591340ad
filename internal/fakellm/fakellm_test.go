package fakellm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
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
		{"not asked", false, &Usage{1, 2}, nil},
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

	for _, probe := range []struct{ method, path string }{{"GET", "/v1/chat/completions"}, {"POST", "/v1/embeddings"}, {"GET", "/"}} {
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
		Usage:     &Usage{5, 6},
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
