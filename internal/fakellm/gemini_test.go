package fakellm_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/coyote-cli/coyote/internal/fakellm"
)

const geminiKey = "AIza-test-key"

// geminiPost sends body to {base}{path} with the test key and returns the
// response.
func geminiPost(t testing.TB, ctx context.Context, base, path, key, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("x-goog-api-key", key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// geminiHello is a minimal generateContent body.
const geminiHello = `{"contents":[{"role":"user","parts":[{"text":"hello there"}]}]}`

// geminiEvents reads a server-sent-event body: the decoded chunks, and the
// data lines that were not JSON.
func geminiEvents(t testing.TB, body io.Reader) (chunks []map[string]any, bad []string) {
	t.Helper()
	sc := bufio.NewScanner(body)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("unexpected line %q", line)
		}
		if data == "[DONE]" {
			t.Fatal("Gemini sends no [DONE]")
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			bad = append(bad, data)
			continue
		}
		chunks = append(chunks, m)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return chunks, bad
}

// geminiCandidate returns candidates[0] of a response.
func geminiCandidate(t testing.TB, resp map[string]any) map[string]any {
	t.Helper()
	cands, _ := resp["candidates"].([]any)
	if len(cands) != 1 {
		t.Fatalf("%d candidates in %v", len(cands), resp)
	}
	return cands[0].(map[string]any)
}

// geminiParts returns the parts of candidates[0] and its finish reason.
func geminiParts(t testing.TB, resp map[string]any) ([]map[string]any, string) {
	t.Helper()
	c := geminiCandidate(t, resp)
	content := c["content"].(map[string]any)
	if content["role"] != "model" {
		t.Fatalf("role %v", content["role"])
	}
	var parts []map[string]any
	for _, p := range content["parts"].([]any) {
		parts = append(parts, p.(map[string]any))
	}
	reason, _ := c["finishReason"].(string)
	return parts, reason
}

func geminiJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func geminiReplyWith(r fakellm.Reply) *fakellm.Gemini {
	return &fakellm.Gemini{Respond: func(*fakellm.ChatRequest) fakellm.Reply { return r }}
}

func TestGeminiStreamedText(t *testing.T) {
	tests := []struct {
		name  string
		reply fakellm.Reply
	}{
		{"a word per chunk", fakellm.Reply{Text: "The quick brown fox jumps."}},
		{"split by runes", fakellm.Reply{Text: "Grüße, 世界!", Chunks: 9}},
		{"two thousand chunks", fakellm.Reply{Text: strings.Repeat("token ", 2000), Chunks: 2000}},
		{"escapes", fakellm.Reply{Text: "a\nb \"c\" \\d\te\u2028"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := fakellm.StartGemini(t, geminiReplyWith(tt.reply))
			resp := geminiPost(t, context.Background(), base, "/models/gemini-2.5-flash:streamGenerateContent?alt=sse", "", geminiHello)
			defer resp.Body.Close()
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
				t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			chunks, bad := geminiEvents(t, resp.Body)
			if len(bad) > 0 {
				t.Fatalf("bad chunks %q", bad)
			}
			want := fakellm.SplitText(tt.reply.Text, tt.reply.Chunks)
			if len(chunks) != len(want) {
				t.Fatalf("%d chunks, want %d", len(chunks), len(want))
			}
			for i, c := range chunks {
				parts, reason := geminiParts(t, c)
				if len(parts) != 1 || parts[0]["text"] != want[i] || parts[0]["thought"] != nil {
					t.Fatalf("chunk %d parts %v, want text %q", i, parts, want[i])
				}
				usage := c["usageMetadata"].(map[string]any)
				last := i == len(chunks)-1
				if (reason != "") != last || (last && reason != "STOP") {
					t.Fatalf("chunk %d finish reason %q", i, reason)
				}
				if usage["promptTokenCount"].(float64) != 4 || (usage["candidatesTokenCount"] != nil) != last {
					t.Fatalf("chunk %d usage %v", i, usage)
				}
				if c["modelVersion"] != "gemini-2.5-flash" || c["responseId"] == "" {
					t.Fatalf("chunk %d envelope %v", i, c)
				}
			}
		})
	}
}

func TestGeminiReasoningAndFunctionCalls(t *testing.T) {
	tests := []struct {
		name string
		sig  string
		want string
	}{
		{"default signature", "", "ZmFrZWxsbS10aG91Z2h0LXNpZ25hdHVyZQ=="},
		{"given signature", "c2lnLTQy", "c2lnLTQy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.want == "ZmFrZWxsbS10aG91Z2h0LXNpZ25hdHVyZQ==" && base64.StdEncoding.EncodeToString([]byte("fakellm-thought-signature")) != tt.want {
				t.Fatal("the default signature is not what the documentation says")
			}
			base := fakellm.StartGemini(t, geminiReplyWith(fakellm.Reply{
				Reasoning:          "Two tools are needed here.",
				ReasoningSignature: tt.sig,
				Text:               "Checking.",
				ToolCalls: []fakellm.ToolCall{
					{Name: "get_weather", Arguments: "{\"city\": \"Zürich\",\n \"days\": [1, 2]}"},
					{Name: "now"},
				},
			}))
			resp := geminiPost(t, context.Background(), base, "/models/gemini-2.5-pro:streamGenerateContent?alt=sse", "", geminiHello)
			defer resp.Body.Close()
			chunks, bad := geminiEvents(t, resp.Body)
			if len(bad) > 0 || len(chunks) != 4+1+1 {
				t.Fatalf("%d chunks, bad %q", len(chunks), bad)
			}
			var thought string
			for i, c := range chunks[:4] {
				parts, reason := geminiParts(t, c)
				if len(parts) != 1 || parts[0]["thought"] != true || reason != "" {
					t.Fatalf("thought chunk %d: %v", i, parts)
				}
				thought += parts[0]["text"].(string)
				sig, _ := parts[0]["thoughtSignature"].(string)
				if (i == 3) != (sig != "") || (i == 3 && sig != tt.want) {
					t.Fatalf("thought chunk %d signature %q", i, sig)
				}
			}
			if thought != "Two tools are needed here." {
				t.Fatalf("thought %q", thought)
			}
			parts, _ := geminiParts(t, chunks[4])
			if len(parts) != 1 || parts[0]["text"] != "Checking." {
				t.Fatalf("text chunk %v", parts)
			}
			parts, reason := geminiParts(t, chunks[5])
			if reason != "STOP" {
				t.Fatalf("finish reason %q", reason)
			}
			got := geminiJSON(t, parts)
			want := `[{"functionCall":{"args":{"city":"Zürich","days":[1,2]},"name":"get_weather"},"thoughtSignature":"` + tt.want + `"},` +
				`{"functionCall":{"args":{},"name":"now"}}]`
			if got != want {
				t.Fatalf("function call parts\n%s\nwant\n%s", got, want)
			}
			usage := chunks[5]["usageMetadata"].(map[string]any)
			// Four bytes a token: 26 bytes of thinking, 4+9 of prompt, the
			// text, names and arguments of the answer.
			answer := float64(len("Checking.")+len("get_weather")+len("{\"city\": \"Zürich\",\n \"days\": [1, 2]}")+len("now")+3) / 4
			if usage["thoughtsTokenCount"].(float64) != 7 || usage["candidatesTokenCount"].(float64) != float64(int(answer)) ||
				usage["totalTokenCount"].(float64) != 4+float64(int(answer))+7 {
				t.Fatalf("usage %v", usage)
			}
		})
	}
}

func TestGeminiNonStreamed(t *testing.T) {
	tests := []struct {
		name  string
		reply fakellm.Reply
		parts string
		why   string
	}{
		{"text", fakellm.Reply{Text: "Sunny.", Usage: &fakellm.Usage{PromptTokens: 9, CompletionTokens: 2}},
			`[{"text":"Sunny."}]`, "STOP"},
		{"everything", fakellm.Reply{Reasoning: "hm", ReasoningSignature: "c2ln", Text: "ok", ToolCalls: []fakellm.ToolCall{{Name: "f", Arguments: `{"a":1}`}}},
			`[{"text":"hm","thought":true,"thoughtSignature":"c2ln"},{"text":"ok"},{"functionCall":{"args":{"a":1},"name":"f"},"thoughtSignature":"c2ln"}]`, "STOP"},
		{"cut short", fakellm.Reply{Text: "par", FinishReason: "length"}, `[{"text":"par"}]`, "MAX_TOKENS"},
		{"blocked", fakellm.Reply{FinishReason: "safety"}, `[{"text":""}]`, "SAFETY"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := fakellm.StartGemini(t, geminiReplyWith(tt.reply))
			resp := geminiPost(t, context.Background(), base, "/models/gemini-2.5-flash:generateContent", "", geminiHello)
			defer resp.Body.Close()
			var body map[string]any
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != 200 {
				t.Fatalf("status %d: %v", resp.StatusCode, err)
			}
			parts, reason := geminiParts(t, body)
			if got := geminiJSON(t, parts); got != tt.parts || reason != tt.why {
				t.Fatalf("parts %s finish %q", got, reason)
			}
			if u := tt.reply.Usage; u != nil {
				if got := geminiJSON(t, body["usageMetadata"]); got != `{"candidatesTokenCount":2,"promptTokenCount":9,"totalTokenCount":11}` {
					t.Fatalf("usage %s", got)
				}
			}
		})
	}
}

func TestGeminiFinishReasonStreamed(t *testing.T) {
	for give, want := range map[string]string{"": "STOP", "tool_calls": "STOP", "length": "MAX_TOKENS", "MAX_TOKENS": "MAX_TOKENS", "recitation": "RECITATION"} {
		base := fakellm.StartGemini(t, geminiReplyWith(fakellm.Reply{Text: "a b", FinishReason: give}))
		resp := geminiPost(t, context.Background(), base, "/models/m:streamGenerateContent?alt=sse", "", geminiHello)
		chunks, _ := geminiEvents(t, resp.Body)
		resp.Body.Close()
		if _, reason := geminiParts(t, chunks[len(chunks)-1]); reason != want {
			t.Fatalf("%q: finish reason %q, want %q", give, reason, want)
		}
	}
}

func TestGeminiKeysAndModels(t *testing.T) {
	f := &fakellm.Gemini{APIKey: geminiKey}
	base := fakellm.StartGemini(t, f)
	tests := []struct {
		name, path, key string
		status          int
		want            string
	}{
		{"no key", "/models/gemini-2.5-flash:generateContent", "", 403, "PERMISSION_DENIED"},
		{"wrong key", "/models/gemini-2.5-flash:generateContent", "AIza-wrong", 400, "API_KEY_INVALID"},
		{"key in the query", "/models/gemini-2.5-flash:generateContent?key=" + geminiKey, "", 200, fakellm.DefaultText},
		{"right key", "/models/gemini-2.5-pro:generateContent", geminiKey, 200, fakellm.DefaultText},
		{"unknown model", "/models/gemini-9:generateContent", geminiKey, 404, "models/gemini-9 is not found for API version v1beta"},
		{"embedding model", "/models/text-embedding-004:generateContent", geminiKey, 404, "not supported for generateContent"},
		{"unknown method", "/models/gemini-2.5-pro:predict", geminiKey, 404, "NOT_FOUND"},
		{"stream without alt=sse", "/models/gemini-2.5-pro:streamGenerateContent", geminiKey, 400, "alt=sse"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := geminiPost(t, context.Background(), base, tt.path, tt.key, geminiHello)
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.status || !strings.Contains(string(data), tt.want) {
				t.Fatalf("status %d body %s", resp.StatusCode, data)
			}
			if tt.status >= 400 {
				var body struct {
					Error struct {
						Code    int
						Message string
						Status  string
					}
				}
				if err := json.Unmarshal(data, &body); err != nil || body.Error.Code != tt.status || body.Error.Message == "" || body.Error.Status == "" {
					t.Fatalf("error body %s (%v)", data, err)
				}
			}
		})
	}
	reqs := f.Requests()
	if len(reqs) != len(tests)-1 { // all but the unknown method
		t.Fatalf("%d requests recorded", len(reqs))
	}
	if reqs[1].Authorization != "AIza-wrong" || reqs[2].Authorization != geminiKey || reqs[3].Header.Get("x-goog-api-key") != geminiKey {
		t.Fatalf("keys recorded %q %q", reqs[1].Authorization, reqs[2].Authorization)
	}
}

func TestGeminiRequestsRecorded(t *testing.T) {
	f := &fakellm.Gemini{}
	base := fakellm.StartGemini(t, f)
	body := `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],
		"systemInstruction":{"parts":[{"text":"be brief"}]},
		"tools":[{"functionDeclarations":[{"name":"now","description":"the time"}]}],
		"generationConfig":{"temperature":0.5,"topP":0.9,"maxOutputTokens":64,"thinkingConfig":{"thinkingLevel":"low","includeThoughts":true}}}`
	resp := geminiPost(t, context.Background(), base, "/models/gemini-2.5-flash:streamGenerateContent?alt=sse", geminiKey, body)
	chunks, _ := geminiEvents(t, resp.Body)
	resp.Body.Close()
	var text string
	for _, c := range chunks {
		parts, _ := geminiParts(t, c)
		text += parts[0]["text"].(string)
	}
	if text != fakellm.DefaultText {
		t.Fatalf("text %q", text)
	}
	reqs := f.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.Model != "gemini-2.5-flash" || !r.Stream || *r.Temperature != 0.5 || *r.TopP != 0.9 || r.ReasoningEffort != "low" ||
		r.Authorization != geminiKey || r.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("request %+v", r)
	}
	if got := geminiJSON(t, r.Messages); got != `[{"parts":[{"text":"hi"}],"role":"user"}]` {
		t.Fatalf("messages %s", got)
	}
	if got := geminiJSON(t, r.Tools); got != `[{"functionDeclarations":[{"description":"the time","name":"now"}]}]` {
		t.Fatalf("tools %s", got)
	}
	if r.Raw["systemInstruction"] == nil {
		t.Fatalf("raw %v", r.Raw)
	}
}

func TestGeminiRequestChecks(t *testing.T) {
	user := func(parts string) string { return `{"role":"user","parts":[` + parts + `]}` }
	model := func(parts string) string { return `{"role":"model","parts":[` + parts + `]}` }
	call := `{"functionCall":{"name":"f","args":{}}}`
	answer := `{"functionResponse":{"name":"f","response":{"result":1}}}`
	tests := []struct {
		name string
		body string
		want string // "" for a request the API accepts
	}{
		{"no contents", `{}`, "contents is not specified"},
		{"bad role", `{"contents":[{"role":"assistant","parts":[{"text":"x"}]}]}`, "valid role"},
		{"no parts", `{"contents":[{"role":"user","parts":[]}]}`, "must not be empty"},
		{"empty text", `{"contents":[` + user(`{"text":""}`) + `]}`, "empty text parameter"},
		{"empty signed text", `{"contents":[` + user(`{"text":"q"}`) + `,` + model(`{"text":"","thoughtSignature":"c2ln"}`) + `,` + user(`{"text":"q"}`) + `]}`, ""},
		{"two data fields", `{"contents":[` + user(`{"text":"a","inlineData":{"mimeType":"image/png","data":"AAAA"}}`) + `]}`, "already set"},
		{"inline data not base64", `{"contents":[` + user(`{"inlineData":{"mimeType":"image/png","data":"%%"}}`) + `]}`, "Base64"},
		{"inline data", `{"contents":[` + user(`{"inlineData":{"mimeType":"image/png","data":"AAAA"}}`) + `]}`, ""},
		{"file data without uri", `{"contents":[` + user(`{"fileData":{"mimeType":"image/png"}}`) + `]}`, "file_uri"},
		{"call answered", `{"contents":[` + user(`{"text":"q"}`) + `,` + model(call+`,`+call) + `,` + user(answer+`,`+answer+`,{"text":"and?"}`) + `]}`, ""},
		{"call answered short", `{"contents":[` + user(`{"text":"q"}`) + `,` + model(call+`,`+call) + `,` + user(answer) + `]}`, "number of function response parts"},
		{"call answered by the model", `{"contents":[` + user(`{"text":"q"}`) + `,` + model(call) + `,` + model(`{"text":"x"}`) + `]}`, "number of function response parts"},
		{"response without call", `{"contents":[` + user(answer) + `]}`, "immediately after a function call turn"},
		{"call args not an object", `{"contents":[` + user(`{"text":"q"}`) + `,` + model(`{"functionCall":{"name":"f","args":"x"}}`) + `]}`, "args"},
		{"response not an object", `{"contents":[` + user(`{"text":"q"}`) + `,` + model(call) + `,` + user(`{"functionResponse":{"name":"f","response":"x"}}`) + `]}`, "response must be an object"},
		{"empty system instruction", `{"contents":[` + user(`{"text":"q"}`) + `],"systemInstruction":{"parts":[]}}`, "system_instruction"},
		{"bad function name", `{"contents":[` + user(`{"text":"q"}`) + `],"tools":[{"functionDeclarations":[{"name":"9lives"}]}]}`, "Invalid function name"},
		{"additionalProperties", `{"contents":[` + user(`{"text":"q"}`) + `],"tools":[{"functionDeclarations":[{"name":"f","parameters":{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string"}},"additionalProperties":false}}}}]}]}`,
			`Unknown name "additionalProperties" at 'tools[0].function_declarations[0].parameters.properties[a].value'`},
		{"$schema", `{"contents":[` + user(`{"text":"q"}`) + `],"tools":[{"functionDeclarations":[{"name":"f","parameters":{"$schema":"x","type":"object","properties":{"a":{"type":"string"}}}}]}]}`, `Unknown name "$schema"`},
		{"object without properties", `{"contents":[` + user(`{"text":"q"}`) + `],"tools":[{"functionDeclarations":[{"name":"f","parameters":{"type":"object","properties":{}}}]}]}`, "non-empty for OBJECT"},
		{"a fine schema", `{"contents":[` + user(`{"text":"q"}`) + `],"tools":[{"functionDeclarations":[{"name":"f.x-1","parameters":{"type":"object","properties":{"a":{"type":"array","items":{"type":"string","enum":["x"]}},"b":{"anyOf":[{"type":"string"},{"type":"integer"}]}},"required":["a"]}}]}]}`, ""},
		{"not JSON", `{"contents":`, "Invalid JSON payload"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := fakellm.StartGemini(t, geminiReplyWith(fakellm.Reply{Text: "ok"}))
			resp := geminiPost(t, context.Background(), base, "/models/m:generateContent", "", tt.body)
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if tt.want == "" {
				if resp.StatusCode != 200 {
					t.Fatalf("status %d: %s", resp.StatusCode, data)
				}
				return
			}
			var body struct {
				Error struct{ Message, Status string }
			}
			_ = json.Unmarshal(data, &body)
			if resp.StatusCode != 400 || !strings.Contains(body.Error.Message, tt.want) || body.Error.Status != "INVALID_ARGUMENT" {
				t.Fatalf("status %d: %s, want 400 with %q", resp.StatusCode, data, tt.want)
			}
		})
	}
}

func TestGeminiErrorStatuses(t *testing.T) {
	tests := []struct {
		reply  fakellm.Reply
		status string
		msg    string
		retry  string
	}{
		{fakellm.Reply{Status: 400}, "INVALID_ARGUMENT", "Request contains an invalid argument.", ""},
		{fakellm.Reply{Status: 401}, "UNAUTHENTICATED", "Request had invalid authentication credentials.", ""},
		{fakellm.Reply{Status: 403, ErrorMessage: "no access"}, "PERMISSION_DENIED", "no access", ""},
		{fakellm.Reply{Status: 404}, "NOT_FOUND", "models/gemini-2.5-flash is not found", ""},
		{fakellm.Reply{Status: 429, RetryAfter: "17"}, "RESOURCE_EXHAUSTED", "You exceeded your current quota", "17"},
		{fakellm.Reply{Status: 500}, "INTERNAL", "An internal error has occurred.", ""},
		{fakellm.Reply{Status: 503, RetryAfter: "3"}, "UNAVAILABLE", "The model is overloaded.", "3"},
	}
	for _, tt := range tests {
		for _, path := range []string{":generateContent", ":streamGenerateContent?alt=sse"} {
			base := fakellm.StartGemini(t, geminiReplyWith(tt.reply))
			resp := geminiPost(t, context.Background(), base, "/models/gemini-2.5-flash"+path, "", geminiHello)
			var body struct {
				Error struct {
					Code    int
					Message string
					Status  string
					Details []map[string]any
				}
			}
			err := json.NewDecoder(resp.Body).Decode(&body)
			resp.Body.Close()
			e := body.Error
			if err != nil || resp.StatusCode != tt.reply.Status || e.Code != tt.reply.Status || e.Status != tt.status ||
				!strings.HasPrefix(e.Message, tt.msg) || resp.Header.Get("Retry-After") != tt.retry {
				t.Fatalf("status %d: got %d %+v retry %q (%v)", tt.reply.Status, resp.StatusCode, e, resp.Header.Get("Retry-After"), err)
			}
			if tt.reply.Status == 429 && (len(e.Details) != 1 || e.Details[0]["retryDelay"] != "17s") {
				t.Fatalf("429 details %v", e.Details)
			}
		}
	}
}

func TestGeminiBrokenStreams(t *testing.T) {
	text := "one two three four five six"
	tests := []struct {
		name  string
		reply fakellm.Reply
		good  int
		bad   string
		err   string
	}{
		{"malformed", fakellm.Reply{Text: text, Malformed: true}, 3, `{"candidates":[{`, ""},
		{"truncated", fakellm.Reply{Text: text, Truncate: true}, 3, "", ""},
		{"stream error", fakellm.Reply{Text: text, StreamError: "boom"}, 3, "", `{"error":{"code":503,"message":"boom","status":"UNAVAILABLE"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := fakellm.StartGemini(t, geminiReplyWith(tt.reply))
			resp := geminiPost(t, context.Background(), base, "/models/m:streamGenerateContent?alt=sse", "", geminiHello)
			chunks, bad := geminiEvents(t, resp.Body)
			resp.Body.Close()
			if tt.err != "" {
				last := chunks[len(chunks)-1]
				chunks = chunks[:len(chunks)-1]
				if got := geminiJSON(t, last); got != tt.err {
					t.Fatalf("error chunk %s", got)
				}
			}
			if len(chunks) != tt.good || strings.Join(bad, "|") != tt.bad {
				t.Fatalf("%d good chunks, bad %q", len(chunks), bad)
			}
			for _, c := range chunks {
				if _, reason := geminiParts(t, c); reason != "" {
					t.Fatalf("a broken stream finished: %v", c)
				}
			}
		})
	}
	// Not streamed: the error as a 503, a malformed or a cut body.
	for _, tt := range []struct {
		reply  fakellm.Reply
		status int
	}{
		{fakellm.Reply{Text: text, StreamError: "boom"}, 503},
		{fakellm.Reply{Text: text, Malformed: true}, 200},
		{fakellm.Reply{Text: text, Truncate: true}, 200},
	} {
		base := fakellm.StartGemini(t, geminiReplyWith(tt.reply))
		resp := geminiPost(t, context.Background(), base, "/models/m:generateContent", "", geminiHello)
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var v any
		if resp.StatusCode != tt.status || (tt.status == 200) == json.Valid(data) {
			t.Fatalf("%+v: status %d body %s (valid JSON %v)", tt.reply, resp.StatusCode, data, v)
		}
	}
}

func TestGeminiDelayFirstChunkAtOnce(t *testing.T) {
	base := fakellm.StartGemini(t, geminiReplyWith(fakellm.Reply{Text: "first second", Delay: time.Hour}))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp := geminiPost(t, ctx, base, "/models/m:streamGenerateContent?alt=sse", "", geminiHello)
	defer resp.Body.Close()
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || !strings.Contains(line, `"text":"first"`) {
		t.Fatalf("first line %q: %v", line, err)
	}
	// The second chunk waits an hour; cancelling ends the wait, and the
	// server's cleanup at the end of the test must not hang either.
}

func TestGeminiListModels(t *testing.T) {
	get := func(t *testing.T, base, query, key string) (int, map[string]any) {
		req, _ := http.NewRequest(http.MethodGet, base+"/models"+query, nil)
		if key != "" {
			req.Header.Set("x-goog-api-key", key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, body
	}
	base := fakellm.StartGemini(t, &fakellm.Gemini{APIKey: geminiKey})
	status, body := get(t, base, "", geminiKey)
	models := body["models"].([]any)
	if status != 200 || len(models) != 3 || body["nextPageToken"] != nil {
		t.Fatalf("status %d body %v", status, body)
	}
	for _, m := range models {
		m := m.(map[string]any)
		methods := geminiJSON(t, m["supportedGenerationMethods"])
		emb := strings.Contains(m["name"].(string), "embedding")
		if !strings.HasPrefix(m["name"].(string), "models/") || emb != strings.Contains(methods, "embedContent") || emb == strings.Contains(methods, "generateContent") {
			t.Fatalf("model %v", m)
		}
	}
	if status, _ := get(t, base, "", ""); status != 403 {
		t.Fatalf("no key: %d", status)
	}

	names := make([]string, 120)
	for i := range names {
		names[i] = fmt.Sprintf("gemini-test-%03d", i)
	}
	base = fakellm.StartGemini(t, &fakellm.Gemini{Models: names})
	var got []string
	query := "?pageSize=50"
	for pages := 0; ; pages++ {
		if pages > 3 {
			t.Fatal("too many pages")
		}
		_, body := get(t, base, query, "")
		for _, m := range body["models"].([]any) {
			got = append(got, strings.TrimPrefix(m.(map[string]any)["name"].(string), "models/"))
		}
		tok, _ := body["nextPageToken"].(string)
		if tok == "" {
			break
		}
		query = "?pageSize=50&pageToken=" + tok
	}
	if !reflect.DeepEqual(got, names) {
		t.Fatalf("paged names %v", got)
	}
}

func geminiEmbedBody(model string, texts []string, task string, dims int) string {
	type part struct {
		Text string `json:"text"`
	}
	type request struct {
		Model   string `json:"model"`
		Content struct {
			Parts []part `json:"parts"`
		} `json:"content"`
		TaskType             string `json:"taskType,omitempty"`
		OutputDimensionality int    `json:"outputDimensionality,omitempty"`
	}
	var body struct {
		Requests []request `json:"requests"`
	}
	for _, t := range texts {
		r := request{Model: "models/" + model, TaskType: task, OutputDimensionality: dims}
		r.Content.Parts = []part{{Text: t}}
		body.Requests = append(body.Requests, r)
	}
	b, _ := json.Marshal(body)
	return string(b)
}

func TestGeminiEmbed(t *testing.T) {
	f := &fakellm.Gemini{EmbedDims: 16}
	base := fakellm.StartGemini(t, f)
	tests := []struct {
		name   string
		model  string
		body   string
		status int
		dims   int
		texts  []string
		want   string
	}{
		{"default dims", "text-embedding-004", geminiEmbedBody("text-embedding-004", []string{"a", "b", "Grüße"}, "", 0), 200, 16, []string{"a", "b", "Grüße"}, ""},
		{"output dimensionality", "text-embedding-004", geminiEmbedBody("text-embedding-004", []string{"q"}, "RETRIEVAL_QUERY", 8), 200, 8, []string{"q"}, ""},
		{"document", "text-embedding-004", geminiEmbedBody("text-embedding-004", []string{"d"}, "RETRIEVAL_DOCUMENT", 0), 200, 16, []string{"d"}, ""},
		{"bad task type", "text-embedding-004", geminiEmbedBody("text-embedding-004", []string{"d"}, "QUERY", 0), 400, 0, []string{"d"}, "task_type"},
		{"model differs from the URL", "text-embedding-004", geminiEmbedBody("other", []string{"d"}, "", 0), 400, 0, []string{"d"}, "as in the URL"},
		{"chat model", "gemini-2.5-flash", geminiEmbedBody("gemini-2.5-flash", []string{"d"}, "", 0), 404, 0, []string{"d"}, "not supported for batchEmbedContents"},
		{"too many", "text-embedding-004", geminiEmbedBody("text-embedding-004", make([]string, 101), "", 0), 400, 0, make([]string, 101), "at most 100"},
		{"none", "text-embedding-004", `{"requests":[]}`, 400, 0, []string{}, "not specified"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := geminiPost(t, context.Background(), base, "/models/"+tt.model+":batchEmbedContents", "", tt.body)
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.status || !bytes.Contains(data, []byte(tt.want)) {
				t.Fatalf("status %d body %.300s", resp.StatusCode, data)
			}
			if got := f.EmbedRequests(); len(got) != i+1 || !reflect.DeepEqual(got[i], tt.texts) {
				t.Fatalf("recorded %v", got)
			}
			if tt.status != 200 {
				return
			}
			var body struct {
				Embeddings []struct{ Values []float32 }
			}
			if err := json.Unmarshal(data, &body); err != nil || len(body.Embeddings) != len(tt.texts) {
				t.Fatalf("body %.300s: %v", data, err)
			}
			for j, e := range body.Embeddings {
				if !reflect.DeepEqual(e.Values, fakellm.FakeVector(tt.texts[j], tt.dims)) {
					t.Fatalf("vector %d = %v", j, e.Values)
				}
			}
		})
	}
}

func BenchmarkGeminiStream2000Chunks(b *testing.B) {
	base := fakellm.StartGemini(b, geminiReplyWith(fakellm.Reply{Text: strings.Repeat("token ", 2000), Chunks: 2000}))
	for b.Loop() {
		resp := geminiPost(b, context.Background(), base, "/models/m:streamGenerateContent?alt=sse", "", geminiHello)
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if n < 2000*100 {
			b.Fatalf("%d bytes", n)
		}
	}
}

func BenchmarkGeminiBatchEmbed64x384(b *testing.B) {
	base := fakellm.StartGemini(b, &fakellm.Gemini{EmbedDims: 384})
	texts := make([]string, 64)
	for i := range texts {
		texts[i] = fmt.Sprintf("document number %d about something", i)
	}
	body := geminiEmbedBody("text-embedding-004", texts, "RETRIEVAL_DOCUMENT", 0)
	for b.Loop() {
		resp := geminiPost(b, context.Background(), base, "/models/text-embedding-004:batchEmbedContents", "", body)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
}
