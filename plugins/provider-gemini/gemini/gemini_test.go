package gemini_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coyote-cli/coyote/internal/fakellm"
	"github.com/coyote-cli/coyote/plugins/provider-gemini/gemini"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/plugintest"
	"github.com/coyote-cli/coyote/sdk/provider"
	"github.com/coyote-cli/coyote/sdk/provider/providertest"
)

const testKey = "AIzaSy-test-SECRET-0123456789"

// plugin is the gemini plugin with the defaults of these tests.
var plugin = providertest.Plugin{Info: sdk.Info{Name: "gemini"}, New: func() provider.Provider { return gemini.New() },
	Type: gemini.Type, Model: "gemini-2.5-flash"}

// fake starts a fake server answering every chat request with r.
func fake(t testing.TB, r fakellm.Reply) (*fakellm.Gemini, string) {
	f := &fakellm.Gemini{Respond: func(*fakellm.ChatRequest) fakellm.Reply { return r }}
	return f, fakellm.StartGemini(t, f)
}

// exchange is one HTTP request as the server received it.
type exchange struct {
	method, url string
	header      http.Header
	body        []byte
}

// recorder serves h and remembers every request.
type recorder struct {
	mu   sync.Mutex
	seen []exchange
}

func (r *recorder) requests() []exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]exchange(nil), r.seen...)
}

// recorded serves the fake through a recorder and returns its base URL.
func recorded(t testing.TB, h http.Handler) (string, *recorder) {
	rec := &recorder{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		rec.mu.Lock()
		rec.seen = append(rec.seen, exchange{req.Method, req.URL.String(), req.Header.Clone(), body})
		rec.mu.Unlock()
		req.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, req)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1beta", rec
}

func TestStreamedText(t *testing.T) {
	long := strings.Repeat("lorem ipsum ", 1500)
	tests := []struct {
		name  string
		reply fakellm.Reply
	}{
		{"a word per chunk", fakellm.Reply{Text: "The quick brown fox jumps over the lazy dog."}},
		{"unicode split by runes", fakellm.Reply{Text: "Grüße, 世界! 🙂 ok", Chunks: 12}},
		{"two thousand chunks", fakellm.Reply{Text: long, Chunks: 2000}},
		{"escapes", fakellm.Reply{Text: "line\nbreak \"quoted\" back\\slash\ttab\u2028"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, base := fake(t, tt.reply)
			p := plugin.Serve(t, base, provider.ClientConfig{})
			r, err := plugin.Chat(t, p, provider.ChatRequest{Stream: true})
			if err != nil {
				t.Fatal(err)
			}
			if r.Text != tt.reply.Text {
				t.Fatalf("text %q, want %q", r.Text, tt.reply.Text)
			}
			if want := len(fakellm.SplitText(tt.reply.Text, tt.reply.Chunks)); r.Texts != want {
				t.Fatalf("%d text events, want %d", r.Texts, want)
			}
			if r.Kinds != "text,usage,finish" {
				t.Fatalf("event order %s", r.Kinds)
			}
			if r.Finish != "stop" || r.Usage == nil || r.Usage.InputTokens == 0 || r.Usage.OutputTokens == 0 {
				t.Fatalf("finish %q usage %+v", r.Finish, r.Usage)
			}
		})
	}
}

func TestThoughtsAndFunctionCalls(t *testing.T) {
	const sig = "c2lnbmF0dXJlLW9mLXRoZS10dXJu"
	_, base := fake(t, fakellm.Reply{
		Reasoning:          "The user wants the weather and the time; call both tools.",
		ReasoningSignature: sig,
		Text:               "Let me look.",
		ToolCalls: []fakellm.ToolCall{
			{Name: "get_weather", Arguments: "{\"city\": \"Zürich\",\n \"days\": [1, 2, 3]}"},
			{Name: "get_time", Arguments: `{"tz":"Europe/Zurich"}`},
			{Name: "get_time", Arguments: `{"tz":"UTC"}`},
		},
		Usage: &fakellm.Usage{PromptTokens: 40, CompletionTokens: 12},
	})
	p := plugin.Serve(t, base, provider.ClientConfig{})
	for _, stream := range []bool{true, false} {
		r, err := plugin.Chat(t, p, provider.ChatRequest{Stream: stream})
		if err != nil {
			t.Fatal(err)
		}
		wantReasonings := 4
		if !stream {
			wantReasonings = 1
		}
		if r.Reasoning != "The user wants the weather and the time; call both tools." || r.Reasonings != wantReasonings {
			t.Fatalf("stream %v: reasoning %q in %d events", stream, r.Reasoning, r.Reasonings)
		}
		if len(r.Signatures) != 1 || r.Signatures[0] != sig {
			t.Fatalf("signatures %q", r.Signatures)
		}
		if r.Text != "Let me look." {
			t.Fatalf("text %q", r.Text)
		}
		want := []provider.ToolCall{
			{ID: "get_weather-1", Name: "get_weather", Arguments: `{"city":"Zürich","days":[1,2,3]}`, Signature: sig},
			{ID: "get_time-2", Name: "get_time", Arguments: `{"tz":"Europe/Zurich"}`},
			{ID: "get_time-3", Name: "get_time", Arguments: `{"tz":"UTC"}`},
		}
		if !reflect.DeepEqual(r.Tools, want) {
			t.Fatalf("tool calls\n%+v\nwant\n%+v", r.Tools, want)
		}
		if r.Kinds != "reasoning,signature,text,tool,usage,finish" {
			t.Fatalf("event order %s", r.Kinds)
		}
		if r.Finish != "tool_calls" || *r.Usage != (provider.Usage{InputTokens: 40, OutputTokens: 12}) {
			t.Fatalf("finish %q usage %+v", r.Finish, r.Usage)
		}
	}
}

func TestUsageCountsThoughts(t *testing.T) {
	// Without Usage the fake estimates: thoughts and answer both count as
	// output, as Gemini bills them.
	_, base := fake(t, fakellm.Reply{Reasoning: strings.Repeat("t", 40), Text: strings.Repeat("a", 20)})
	p := plugin.Serve(t, base, provider.ClientConfig{})
	r, err := plugin.Chat(t, p, provider.ChatRequest{Stream: true})
	if err != nil {
		t.Fatal(err)
	}
	if *r.Usage != (provider.Usage{InputTokens: 3, OutputTokens: 10 + 5, ReasoningTokens: 10}) {
		t.Fatalf("usage %+v", r.Usage)
	}
}

func TestSignaturesReplayed(t *testing.T) {
	const sig = "dHVybi1vbmUtc2lnbmF0dXJl"
	turn := 0
	f := &fakellm.Gemini{Respond: func(*fakellm.ChatRequest) fakellm.Reply {
		turn++
		if turn == 1 {
			return fakellm.Reply{Reasoning: "Need the weather.", ReasoningSignature: sig, ToolCalls: []fakellm.ToolCall{
				{Name: "get_weather", Arguments: `{"city":"Bern"}`}, {Name: "get_weather", Arguments: `{"city":"Genf"}`},
			}}
		}
		return fakellm.Reply{Text: "Sunny in both."}
	}}
	base := fakellm.StartGemini(t, f)
	p := plugin.Serve(t, base, provider.ClientConfig{})
	question := provider.TextMessage(provider.RoleUser, "Weather in Bern and Geneva?")
	r, err := plugin.Chat(t, p, provider.ChatRequest{Stream: true, Messages: []provider.Message{question}})
	if err != nil {
		t.Fatal(err)
	}
	// The assistant turn as the kernel records it.
	assistant := provider.Message{Role: provider.RoleAssistant, Parts: []provider.Part{
		{Reasoning: &provider.Reasoning{Text: r.Reasoning, Signature: r.Signatures[0]}},
	}}
	results := provider.Message{Role: provider.RoleTool}
	for i, tc := range r.Tools {
		assistant.Parts = append(assistant.Parts, provider.Part{ToolCall: &tc})
		results.Parts = append(results.Parts, provider.Part{ToolResult: &provider.ToolResult{CallID: tc.ID, Content: fmt.Sprintf(`{"temp":%d}`, 20+i)}})
	}
	r, err = plugin.Chat(t, p, provider.ChatRequest{Stream: true, Messages: []provider.Message{question, assistant, results,
		provider.TextMessage(provider.RoleUser, "Thanks!")}})
	if err != nil || r.Text != "Sunny in both." {
		t.Fatalf("second turn: %q %v", r.Text, err)
	}
	reqs := f.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	providertest.JSONEqual(t, reqs[1].Messages, `[
		{"role":"user","parts":[{"text":"Weather in Bern and Geneva?"}]},
		{"role":"model","parts":[
			{"text":"Need the weather.","thought":true,"thoughtSignature":"`+sig+`"},
			{"functionCall":{"name":"get_weather","args":{"city":"Bern"}},"thoughtSignature":"`+sig+`"},
			{"functionCall":{"name":"get_weather","args":{"city":"Genf"}}}]},
		{"role":"user","parts":[
			{"functionResponse":{"name":"get_weather","response":{"result":{"temp":20}}}},
			{"functionResponse":{"name":"get_weather","response":{"result":{"temp":21}}}},
			{"text":"Thanks!"}]}
	]`)
}

func TestRequestBody(t *testing.T) {
	f := &fakellm.Gemini{APIKey: testKey, Respond: func(*fakellm.ChatRequest) fakellm.Reply { return fakellm.Reply{Text: "ok"} }}
	base, rec := recorded(t, f.Handler())
	p := plugin.Serve(t, base, provider.ClientConfig{APIKey: testKey})
	temp, topP := 0.0, 0.9
	_, err := plugin.Chat(t, p, provider.ChatRequest{
		Model:           "gemini-2.5-pro",
		Stream:          true,
		Temperature:     &temp,
		TopP:            &topP,
		MaxOutputTokens: 512,
		ReasoningEffort: "low",
		Tools: []provider.Tool{
			{Name: "lookup", Description: "Looks things up.", Parameters: []byte(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`)},
			{Name: "now"},
			{Name: "ping", Parameters: []byte(`{"type":"object","properties":{}}`)},
		},
		Messages: []provider.Message{
			provider.TextMessage(provider.RoleSystem, "be brief"),
			{Role: provider.RoleUser, Parts: []provider.Part{
				{Text: "what are "}, {Text: "these?"},
				{ImageURL: "data:image/png;base64,iVBORw0KGgo="},
				{ImageURL: "https://example.com/cat.JPG?size=large"},
				{ImageURL: "https://generativelanguage.googleapis.com/v1beta/files/abc123"},
				{ImageURL: "data:image/webp;base64,-_-_"},
				{ImageURL: "data:,GIF89a%01%00"},
			}},
			provider.TextMessage(provider.RoleSystem, "and polite"),
			{Role: provider.RoleAssistant, Parts: []provider.Part{
				{Reasoning: &provider.Reasoning{Text: "unsigned thoughts from another model"}},
				{Reasoning: &provider.Reasoning{Redacted: "opaque"}},
				{Text: ""},
				{Text: "Let me check."},
				{ToolCall: &provider.ToolCall{ID: "c1", Name: "lookup", Arguments: `{"q":"x"}`, Signature: "c2lnMQ=="}},
				{ToolCall: &provider.ToolCall{ID: "c2", Name: "now"}},
			}},
			{Role: provider.RoleTool, Parts: []provider.Part{
				{ToolResult: &provider.ToolResult{CallID: "c1", Name: "lookup", Content: "found it"}},
				{ToolResult: &provider.ToolResult{CallID: "c2", Content: "clock broken", IsError: true}},
			}},
			{Role: provider.RoleAssistant, Parts: []provider.Part{{ToolCall: &provider.ToolCall{ID: "c3", Name: "now", Arguments: "not json"}}}},
			{Role: provider.RoleUser, Parts: []provider.Part{
				{ToolResult: &provider.ToolResult{CallID: "c3", Content: ` [1, "two"] `}},
				{Text: "thanks"},
			}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	seen := rec.requests()
	if len(seen) != 1 {
		t.Fatalf("%d requests", len(seen))
	}
	x := seen[0]
	if x.method != http.MethodPost || x.url != "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse" {
		t.Fatalf("%s %s", x.method, x.url)
	}
	if strings.Contains(x.url, "key") || strings.Contains(x.url, "SECRET") {
		t.Fatalf("the key is in the URL %s", x.url)
	}
	if x.header.Get("x-goog-api-key") != testKey || x.header.Get("Authorization") != "" ||
		x.header.Get("Content-Type") != "application/json" || x.header.Get("Accept") != "text/event-stream" ||
		x.header.Get("User-Agent") != "coyote-provider-gemini/"+gemini.Version {
		t.Fatalf("headers %v", x.header)
	}
	providertest.JSONEqual(t, x.body, `{
		"contents":[
			{"role":"user","parts":[{"text":"what are "},{"text":"these?"},
				{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}},
				{"fileData":{"mimeType":"image/jpeg","fileUri":"https://example.com/cat.JPG?size=large"}},
				{"fileData":{"fileUri":"https://generativelanguage.googleapis.com/v1beta/files/abc123"}},
				{"inlineData":{"mimeType":"image/webp","data":"+/+/"}},
				{"inlineData":{"mimeType":"image/gif","data":"R0lGODlhAQA="}}]},
			{"role":"model","parts":[{"text":"Let me check."},
				{"functionCall":{"name":"lookup","args":{"q":"x"}},"thoughtSignature":"c2lnMQ=="},
				{"functionCall":{"name":"now","args":{}}}]},
			{"role":"user","parts":[
				{"functionResponse":{"name":"lookup","response":{"result":"found it"}}},
				{"functionResponse":{"name":"now","response":{"error":"clock broken"}}}]},
			{"role":"model","parts":[{"functionCall":{"name":"now","args":{"arguments":"not json"}}}]},
			{"role":"user","parts":[
				{"functionResponse":{"name":"now","response":{"result":[1,"two"]}}},
				{"text":"thanks"}]}
		],
		"systemInstruction":{"parts":[{"text":"be brief"},{"text":"and polite"}]},
		"tools":[{"functionDeclarations":[
			{"name":"lookup","description":"Looks things up.","parameters":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}},
			{"name":"now"},
			{"name":"ping"}]}],
		"generationConfig":{"temperature":0,"topP":0.9,"maxOutputTokens":512,
			"thinkingConfig":{"thinkingLevel":"low","includeThoughts":true}}
	}`)
	if got := f.Requests()[0]; got.Authorization != testKey || got.ReasoningEffort != "low" {
		t.Fatalf("the fake saw key %q effort %q", got.Authorization, got.ReasoningEffort)
	}
}

func TestMinimalRequest(t *testing.T) {
	f := &fakellm.Gemini{}
	base, rec := recorded(t, f.Handler())
	p := plugin.Serve(t, base, provider.ClientConfig{})
	r, err := plugin.Chat(t, p, provider.ChatRequest{Model: "models/gemini-2.5-flash"})
	if err != nil || r.Text != fakellm.DefaultText || r.Texts != 1 || r.Finish != "stop" {
		t.Fatalf("%+v %v", r, err)
	}
	x := rec.requests()[0]
	if x.url != "/v1beta/models/gemini-2.5-flash:generateContent" || x.header.Get("x-goog-api-key") != "" || x.header.Get("Accept") != "application/json" {
		t.Fatalf("%s %v", x.url, x.header)
	}
	providertest.JSONEqual(t, x.body, `{"contents":[{"role":"user","parts":[{"text":"hello"}]}],"generationConfig":{"thinkingConfig":{"includeThoughts":true}}}`)
}

func TestThinkingConfig(t *testing.T) {
	tests := []struct {
		effort string
		want   string
	}{
		{"", `{"includeThoughts":true}`},
		{"high", `{"includeThoughts":true,"thinkingLevel":"high"}`},
		{" 2048 ", `{"includeThoughts":true,"thinkingBudget":2048}`},
		{"0", `{"includeThoughts":true,"thinkingBudget":0}`},
		{"-1", `{"includeThoughts":true,"thinkingBudget":-1}`},
	}
	f := &fakellm.Gemini{}
	base := fakellm.StartGemini(t, f)
	p := plugin.Serve(t, base, provider.ClientConfig{})
	for i, tt := range tests {
		if _, err := plugin.Chat(t, p, provider.ChatRequest{ReasoningEffort: tt.effort}); err != nil {
			t.Fatal(err)
		}
		gc := f.Requests()[i].Raw["generationConfig"].(map[string]any)
		providertest.JSONEqual(t, gc["thinkingConfig"], tt.want)
	}
}

func TestToolSchemas(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		want   string // the parameters sent; "" for none
	}{
		{"plain", `{"type":"object","properties":{"a":{"type":"string","description":"A."}}}`,
			`{"type":"object","properties":{"a":{"type":"string","description":"A."}}}`},
		{"MCP style", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","additionalProperties":false,
			"properties":{"path":{"type":"string","format":"uri"},"opts":{"type":"object","additionalProperties":{"type":"string"},
			"properties":{"deep":{"type":["integer","null"],"examples":[1]}}}},"required":["path","missing"]}`,
			`{"type":"object","properties":{"path":{"type":"string"},"opts":{"type":"object","properties":{"deep":{"type":"integer","nullable":true}}}},"required":["path"]}`},
		{"references", `{"type":"object","$defs":{"Unit":{"type":"string","enum":["c","f"]}},
			"properties":{"unit":{"$ref":"#/$defs/Unit","description":"Which."},"list":{"type":"array","items":{"$ref":"#/definitions/Item"}},
			"wrapped":{"allOf":[{"$ref":"#/$defs/Unit"}],"description":"Wrapped."}},
			"definitions":{"Item":{"type":"object","properties":{"n":{"type":"number","format":"double"}}}}}`,
			`{"type":"object","properties":{"unit":{"type":"string","enum":["c","f"],"description":"Which."},
			"list":{"type":"array","items":{"type":"object","properties":{"n":{"type":"number","format":"double"}}}},
			"wrapped":{"type":"string","enum":["c","f"],"description":"Wrapped."}}}`},
		{"recursive reference", `{"type":"object","properties":{"node":{"$ref":"#"}}}`, "recursive"},
		{"oneOf, const and enums", `{"type":"object","properties":{"x":{"oneOf":[{"type":"string","const":"auto"},{"type":"integer","minimum":1}]},
			"e":{"enum":["a",null]},"n":{"type":"integer","enum":[1,2]}}}`,
			`{"type":"object","properties":{"x":{"anyOf":[{"type":"string","enum":["auto"]},{"type":"integer","minimum":1}]},
			"e":{"enum":["a"],"nullable":true},"n":{"type":"integer"}}}`},
		{"no properties", `{"type":"object","properties":{},"additionalProperties":false}`, ""},
		{"empty", `{}`, ""},
		{"tuple items", `{"type":"object","properties":{"pair":{"type":"array","items":[{"type":"number"},{"type":"string"}]}}}`,
			`{"type":"object","properties":{"pair":{"type":"array","items":{"type":"number"}}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakellm.Gemini{}
			base := fakellm.StartGemini(t, f)
			p := plugin.Serve(t, base, provider.ClientConfig{})
			// The fake refuses what Gemini refuses, so an accepted request
			// shows the schema was reduced enough.
			if _, err := plugin.Chat(t, p, provider.ChatRequest{Tools: []provider.Tool{{Name: "t", Parameters: []byte(tt.schema)}}}); err != nil {
				t.Fatal(err)
			}
			decl := f.Requests()[0].Tools[0]["functionDeclarations"].([]any)[0].(map[string]any)
			got, sent := decl["parameters"]
			switch {
			case tt.want == "":
				if sent {
					t.Fatalf("parameters %v sent", got)
				}
			case tt.want == "recursive":
				// Bounded: the reference is expanded a few levels, then stops.
				b, _ := json.Marshal(got)
				if !sent || len(b) > 1<<20 || !strings.Contains(string(b), `"node"`) {
					t.Fatalf("parameters %.200s", b)
				}
			default:
				providertest.JSONEqual(t, got, tt.want)
			}
		})
	}
}

func TestInvalidRequests(t *testing.T) {
	f, base := fake(t, fakellm.Reply{Text: "ok"})
	p := plugin.Serve(t, base, provider.ClientConfig{})
	hello := []provider.Message{provider.TextMessage(provider.RoleUser, "hello")}
	tests := []struct {
		name string
		req  provider.ChatRequest
		want string
	}{
		{"no model", provider.ChatRequest{Messages: hello}, "no model"},
		{"bad tool schema", provider.ChatRequest{Model: "m", Messages: hello, Tools: []provider.Tool{{Name: "t", Parameters: []byte("{nope")}}}, `tool "t"`},
		{"schema not an object", provider.ChatRequest{Model: "m", Messages: hello, Tools: []provider.Tool{{Name: "t", Parameters: []byte("[1]")}}}, `tool "t"`},
		{"tool without a name", provider.ChatRequest{Model: "m", Messages: hello, Tools: []provider.Tool{{Description: "x"}}}, "tool without a name"},
		{"image in a system message", provider.ChatRequest{Model: "m", Messages: []provider.Message{{Role: provider.RoleSystem, Parts: []provider.Part{{ImageURL: "https://x/y.png"}}}}}, "system message"},
		{"unknown role", provider.ChatRequest{Model: "m", Messages: []provider.Message{provider.TextMessage("narrator", "hi")}}, `role "narrator"`},
		{"tool message without result", provider.ChatRequest{Model: "m", Messages: []provider.Message{provider.TextMessage(provider.RoleTool, "hi")}}, "tool results"},
		{"result of an unknown call", provider.ChatRequest{Model: "m", Messages: []provider.Message{{Role: provider.RoleTool, Parts: []provider.Part{{ToolResult: &provider.ToolResult{CallID: "zz", Content: "x"}}}}}}, `"zz"`},
		{"only a system message", provider.ChatRequest{Model: "m", Messages: []provider.Message{provider.TextMessage(provider.RoleSystem, "be nice")}}, "no message to send"},
		{"bad data URL", provider.ChatRequest{Model: "m", Messages: []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{ImageURL: "data:image/png;base64,!!!"}}}}}, "cannot be decoded"},
		{"relative image URL", provider.ChatRequest{Model: "m", Messages: []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{ImageURL: "cat.png"}}}}}, "image URL"},
		{"call in a user message", provider.ChatRequest{Model: "m", Messages: []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{ToolCall: &provider.ToolCall{Name: "x"}}}}}}, "user message"},
		{"bad patch", provider.ChatRequest{Model: "m", Messages: hello, Patches: []provider.RequestPatch{{Body: json.RawMessage("{oops")}}}, "patch 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.req.Client = "test"
			err := p.Chat(context.Background(), &tt.req, func(*provider.ChatEvent) error { return nil })
			if !errors.Is(err, sdk.ErrInvalidArgument) || !strings.Contains(err.Error(), tt.want) ||
				!strings.HasPrefix(err.Error(), `gemini client "test": `) {
				t.Fatalf("err = %v, want invalid argument mentioning %q", err, tt.want)
			}
		})
	}
	if n := len(f.Requests()); n != 0 {
		t.Fatalf("%d invalid requests reached the server", n)
	}
}

func TestPatches(t *testing.T) {
	f := &fakellm.Gemini{}
	base, rec := recorded(t, f.Handler())
	p := plugin.Serve(t, base, provider.ClientConfig{APIKey: testKey})
	_, err := plugin.Chat(t, p, provider.ChatRequest{Stream: true, Patches: []provider.RequestPatch{
		{Body: json.RawMessage(`{"generationConfig":{"thinkingConfig":null,"candidateCount":1},"safetySettings":[{"category":"HARM_CATEGORY_HARASSMENT","threshold":"BLOCK_NONE"}]}`)},
		{SetHeaders: map[string]string{"X-Extra": "1"}, DeleteHeaders: []string{"User-Agent"}},
		{URL: base + "/models/gemini-2.5-pro:streamGenerateContent?alt=sse"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	x := rec.requests()[0]
	if x.url != "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse" || x.header.Get("X-Extra") != "1" || x.header.Get("User-Agent") == "coyote-provider-gemini/"+gemini.Version {
		t.Fatalf("%s %v", x.url, x.header)
	}
	providertest.JSONEqual(t, x.body, `{"contents":[{"role":"user","parts":[{"text":"hello"}]}],"generationConfig":{"candidateCount":1},
		"safetySettings":[{"category":"HARM_CATEGORY_HARASSMENT","threshold":"BLOCK_NONE"}]}`)
}

func TestHTTPErrors(t *testing.T) {
	tests := []struct {
		reply fakellm.Reply
		want  error
		// message is the exact error text the kernel sees.
		message string
		retry   time.Duration
	}{
		{fakellm.Reply{Status: 400, ErrorMessage: "* GenerateContentRequest.contents: contents is not specified"}, sdk.ErrInvalidArgument,
			`gemini client "work": 400 Bad Request: * GenerateContentRequest.contents: contents is not specified`, 0},
		{fakellm.Reply{Status: 401, ErrorMessage: "Bad key " + testKey + "."}, sdk.ErrUnauthenticated,
			`gemini client "work": 401 Unauthorized: Bad key [redacted].`, 0},
		{fakellm.Reply{Status: 403}, sdk.ErrPermissionDenied,
			`gemini client "work": 403 Forbidden: The caller does not have permission`, 0},
		{fakellm.Reply{Status: 404}, sdk.ErrNotFound,
			`gemini client "work": 404 Not Found: model "gemini-x" not found: models/gemini-x is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.`, 0},
		{fakellm.Reply{Status: 429, RetryAfter: "20"}, sdk.ErrRateLimited,
			`gemini client "work": 429 Too Many Requests: You exceeded your current quota, please check your plan and billing details. (retry after 20s)`, 20 * time.Second},
		{fakellm.Reply{Status: 429}, sdk.ErrRateLimited,
			`gemini client "work": 429 Too Many Requests: You exceeded your current quota, please check your plan and billing details.`, 0},
		{fakellm.Reply{Status: 500}, sdk.ErrUnavailable,
			`gemini client "work": 500 Internal Server Error: An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting`, 0},
		{fakellm.Reply{Status: 503, RetryAfter: "7"}, sdk.ErrUnavailable,
			`gemini client "work": 503 Service Unavailable: The model is overloaded. Please try again later. (retry after 7s)`, 7 * time.Second},
	}
	for _, tt := range tests {
		for _, stream := range []bool{true, false} {
			_, base := fake(t, tt.reply)
			p := plugin.Serve(t, base, provider.ClientConfig{Name: "work", APIKey: testKey})
			_, err := plugin.Chat(t, p, provider.ChatRequest{Client: "work", Model: "gemini-x", Stream: stream})
			if !errors.Is(err, tt.want) {
				t.Fatalf("status %d: err = %v, want %v", tt.reply.Status, err, tt.want)
			}
			if err.Error() != tt.message {
				t.Fatalf("status %d: message\n%s\nwant\n%s", tt.reply.Status, err, tt.message)
			}
			providertest.RetryAfter(t, err, tt.retry, tt.retry)
			if strings.Contains(err.Error(), "SECRET") {
				t.Fatalf("the key leaked: %v", err)
			}
		}
	}
}

func TestKeysAndModels(t *testing.T) {
	f := &fakellm.Gemini{APIKey: "AIza-right"}
	base := fakellm.StartGemini(t, f)
	p := plugin.Serve(t, base, provider.ClientConfig{APIKey: testKey})
	_, err := plugin.Chat(t, p, provider.ChatRequest{})
	if !errors.Is(err, sdk.ErrUnauthenticated) || !strings.Contains(err.Error(), "API key not valid") || strings.Contains(err.Error(), "SECRET") {
		t.Fatalf("wrong key: %v", err)
	}
	plugin.Configure(t, p, base, provider.ClientConfig{})
	if _, err := plugin.Chat(t, p, provider.ChatRequest{}); !errors.Is(err, sdk.ErrPermissionDenied) {
		t.Fatalf("no key: %v", err)
	}
	plugin.Configure(t, p, base, provider.ClientConfig{APIKey: "AIza-right"})
	r, err := plugin.Chat(t, p, provider.ChatRequest{Stream: true})
	if err != nil || r.Text != fakellm.DefaultText {
		t.Fatalf("right key: %q %v", r.Text, err)
	}
	_, err = plugin.Chat(t, p, provider.ChatRequest{Model: "gemini-9"})
	if !errors.Is(err, sdk.ErrNotFound) || !strings.Contains(err.Error(), `model "gemini-9" not found`) {
		t.Fatalf("unknown model: %v", err)
	}
}

func TestBrokenStreams(t *testing.T) {
	text := "one two three four five six seven eight"
	tests := []struct {
		name   string
		reply  fakellm.Reply
		stream bool
		want   error
		msg    string
	}{
		{"malformed", fakellm.Reply{Text: text, Malformed: true}, true, sdk.ErrBadResponse, `malformed stream chunk`},
		{"truncated", fakellm.Reply{Text: text, Truncate: true}, true, sdk.ErrBadResponse, "stream ended before the reply was complete"},
		{"stream error", fakellm.Reply{Text: text, StreamError: "upstream exploded"}, true, sdk.ErrUnavailable, "upstream exploded (UNAVAILABLE)"},
		{"malformed, not streamed", fakellm.Reply{Text: text, Malformed: true}, false, sdk.ErrBadResponse, "malformed reply"},
		{"truncated, not streamed", fakellm.Reply{Text: text, Truncate: true}, false, sdk.ErrBadResponse, "malformed reply"},
		{"error, not streamed", fakellm.Reply{Text: text, StreamError: "upstream exploded"}, false, sdk.ErrUnavailable, "503 Service Unavailable: upstream exploded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, base := fake(t, tt.reply)
			p := plugin.Serve(t, base, provider.ClientConfig{})
			r, err := plugin.Chat(t, p, provider.ChatRequest{Stream: tt.stream})
			providertest.WantError(t, err, tt.want, tt.msg)
			if r.Finish != "" || r.Usage != nil {
				t.Fatalf("a broken reply finished with %q, usage %v", r.Finish, r.Usage)
			}
			if !tt.stream && r.Text != "" {
				t.Fatalf("text %q from a broken non-streamed reply", r.Text)
			}
		})
	}
}

func TestStreamShapes(t *testing.T) {
	chunk := func(parts, extra string) string {
		return `data: {"candidates":[{"content":{"role":"model","parts":[` + parts + `]}` + extra + `}]}` + "\r\n\r\n"
	}
	stop := `,"finishReason":"STOP"`
	tests := []struct {
		name        string
		status      int
		contentType string
		body        string
		header      []string
		want        providertest.Reply
		wantErr     error
		errText     string
		retry       time.Duration
	}{
		{
			name: "CRLF, comments and other fields",
			body: ": keep-alive\r\n\r\nevent: message\r\nid: 1\r\n" + chunk(`{"text":"Hel"}`, "") + "retry: 100\r\n" +
				chunk(`{"text":"lo"}`, stop) + `data: {"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":2,"toolUsePromptTokenCount":1}}` + "\r\n\r\n",
			want: providertest.Reply{Text: "Hello", Texts: 2, Usage: &provider.Usage{InputTokens: 6, OutputTokens: 2}, Finish: "stop"},
		},
		{
			name: "signatures stay with their part",
			body: chunk(`{"text":"a","thought":true,"thoughtSignature":"VA=="}`, "") +
				chunk(`{"functionCall":{"name":"f","args":{}}},{"functionCall":{"id":"own-id","name":"g","args":{"x":[1, 2]}},"thoughtSignature":"Rw=="}`, "") +
				chunk(`{"text":"","thoughtSignature":"VGV4dA=="}`, stop),
			want: providertest.Reply{Reasoning: "a", Reasonings: 1, Signatures: []string{"VA=="}, Finish: "tool_calls",
				Tools: []provider.ToolCall{{ID: "f-1", Name: "f", Arguments: "{}"}, {ID: "own-id", Name: "g", Arguments: `{"x":[1,2]}`, Signature: "Rw=="}}},
		},
		{
			name: "a signature alone on a thought part",
			body: chunk(`{"text":"","thought":true,"thoughtSignature":"U2ln"}`, "") + chunk(`{"text":"ok"}`, stop),
			want: providertest.Reply{Signatures: []string{"U2ln"}, Text: "ok", Texts: 1, Finish: "stop"},
		},
		{
			name: "other candidates are ignored",
			body: `data: {"candidates":[{"content":{"parts":[{"text":"mine"}]},"index":0,"finishReason":"STOP"},{"content":{"parts":[{"text":"other"}]},"index":1,"finishReason":"STOP"}]}` + "\n\n",
			want: providertest.Reply{Text: "mine", Texts: 1, Finish: "stop"},
		},
		{name: "max tokens", body: chunk(`{"text":"cut"}`, `,"finishReason":"MAX_TOKENS"`), want: providertest.Reply{Text: "cut", Texts: 1, Finish: "length"}},
		{name: "safety", body: chunk(`{"text":"no"}`, `,"finishReason":"SAFETY"`), want: providertest.Reply{Text: "no", Texts: 1, Finish: "safety"}},
		{name: "malformed function call", body: `data: {"candidates":[{"finishReason":"MALFORMED_FUNCTION_CALL"}]}` + "\n\n", want: providertest.Reply{Finish: "malformed_function_call"}},
		{
			name:        "a JSON array answer to a streamed request",
			contentType: "application/json",
			body:        "[{\n  \"candidates\": [{\"content\": {\"parts\": [{\"text\": \"wh\"}]}}]\n},\n{\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"ole\"}]}, \"finishReason\": \"STOP\"}]}]",
			want:        providertest.Reply{Text: "whole", Texts: 2, Finish: "stop"},
		},
		{
			name:    "error chunk with a code",
			body:    chunk(`{"text":"par"}`, "") + `data: {"error":{"code":429,"message":"Quota exceeded.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"12s"}]}}` + "\n\n",
			wantErr: sdk.ErrRateLimited, errText: "Quota exceeded. (RESOURCE_EXHAUSTED) (retry after 12s)", retry: 12 * time.Second,
		},
		{
			name:    "bare JSON error line",
			body:    `{"error":{"code":500,"message":"Internal error encountered.","status":"INTERNAL"}}` + "\n",
			wantErr: sdk.ErrUnavailable, errText: "Internal error encountered. (INTERNAL)",
		},
		{
			name:    "error with a status name only",
			body:    `data: {"error":{"message":"Nope.","status":"PERMISSION_DENIED"}}` + "\n\n",
			wantErr: sdk.ErrPermissionDenied, errText: "Nope.",
		},
		{
			name:    "blocked prompt",
			body:    `data: {"promptFeedback":{"blockReason":"SAFETY","blockReasonMessage":"The prompt was flagged."},"usageMetadata":{"promptTokenCount":3}}` + "\n\n",
			wantErr: sdk.ErrInvalidArgument, errText: "the prompt was blocked (SAFETY): The prompt was flagged.",
		},
		{name: "empty stream", body: "", wantErr: sdk.ErrBadResponse, errText: "stream ended before the reply was complete"},
		{name: "no finish reason", body: chunk(`{"text":"so far"}`, ""), wantErr: sdk.ErrBadResponse, errText: "stream ended before the reply was complete"},
		{name: "not an object", body: "data: 42\n\n", wantErr: sdk.ErrBadResponse, errText: "malformed stream chunk"},
		{name: "a field of the wrong type", body: chunk(`{"text":7}`, stop), wantErr: sdk.ErrBadResponse, errText: "malformed stream chunk"},
		{
			name:   "HTML error page",
			status: 502, contentType: "text/html",
			body:    "<html><body><h1>502 Bad Gateway</h1></body></html>",
			wantErr: sdk.ErrUnavailable, errText: `gemini client "test": 502 Bad Gateway`,
		},
		{
			// Not the API's error shape: the body's first line says why.
			name:   "a proxy's own text",
			status: 500, contentType: "text/plain",
			body:    "upstream request timeout\n",
			wantErr: sdk.ErrUnavailable, errText: `500 Internal Server Error: upstream request timeout`,
		},
		{
			name:   "another server's JSON",
			status: 500, contentType: "application/json",
			body:    `{"error":"TypeError","detail":"Cannot read properties of undefined"}`,
			wantErr: sdk.ErrUnavailable, errText: `500 Internal Server Error: {"error":"TypeError","detail":"Cannot read properties of undefined"}`,
		},
		{
			name:   "plain 404 from a wrong path",
			status: 404, contentType: "text/plain",
			body:    "404 page not found\n",
			wantErr: sdk.ErrNotFound, errText: `404 Not Found: model "gemini-2.5-flash" not found: 404 page not found (is api_base http://127.0.0.1`,
		},
		{
			name:   "429 with RetryInfo and no header",
			status: 429, contentType: "application/json",
			body:    `{"error":{"code":429,"message":"Quota exceeded for metric generate_content_free_tier_requests.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{}]},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"37s"}]}}`,
			wantErr: sdk.ErrRateLimited, errText: "429 Too Many Requests: Quota exceeded for metric generate_content_free_tier_requests. (retry after 37s)", retry: 37 * time.Second,
		},
		{
			name:   "Retry-After as a date wins over RetryInfo",
			status: 503, contentType: "application/json", header: []string{"Retry-After", time.Now().Add(90 * time.Second).UTC().Format(http.TimeFormat)},
			body:    `[{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"1s"}]}}]`,
			wantErr: sdk.ErrUnavailable, errText: "503 Service Unavailable: The model is overloaded. (retry after", retry: 80 * time.Second,
		},
		{
			name:   "expired key",
			status: 400, contentType: "application/json",
			body:    `{"error":{"code":400,"message":"API key expired. Please renew the API key.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_EXPIRED"}]}}`,
			wantErr: sdk.ErrUnauthenticated, errText: "400 Bad Request: API key expired.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := plugin.Serve(t, providertest.RawServer(t, tt.status, tt.contentType, tt.body, tt.header...)+"/v1beta", provider.ClientConfig{})
			r, err := plugin.Chat(t, p, provider.ChatRequest{Stream: true})
			if tt.wantErr != nil {
				providertest.WantError(t, err, tt.wantErr, tt.errText)
				most := tt.retry
				if most > time.Minute { // a date 90s ahead, less the time the test took
					most = 90 * time.Second
				}
				providertest.RetryAfter(t, err, tt.retry, most)
				if r.Finish != "" {
					t.Fatalf("finished with %q", r.Finish)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			r.Kinds = ""
			if !reflect.DeepEqual(*r, tt.want) {
				t.Fatalf("got  %+v\nwant %+v", *r, tt.want)
			}
		})
	}
}

func TestCancelMidStream(t *testing.T) {
	_, base := fake(t, fakellm.Reply{Text: "first second third fourth", Delay: time.Hour})
	impl := providertest.Watch(gemini.New())
	p := plugintest.Provider(t, plugin.Info, impl)
	plugin.Configure(t, p, base, provider.ClientConfig{})
	_, cancelled := providertest.CancelAtFirstEvent(t, p, provider.ChatRequest{Client: "test", Model: "m", Stream: true,
		Messages: []provider.Message{provider.TextMessage(provider.RoleUser, "go")}})
	if err := providertest.WaitCancelled(t, cancelled, impl.Returned); !strings.HasPrefix(err.Error(), `gemini client "test"`) {
		t.Fatalf("plugin err = %v, want the client's label", err)
	}
}

func TestReadTimeout(t *testing.T) {
	_, base := fake(t, fakellm.Reply{Text: "first second", Delay: time.Hour})
	p := plugin.Serve(t, base, provider.ClientConfig{Options: map[string]any{"extra": map[string]any{"read_timeout": 0.2}}})
	r, err := plugin.Chat(t, p, provider.ChatRequest{Stream: true})
	if !errors.Is(err, sdk.ErrUnavailable) || !strings.Contains(err.Error(), "read_timeout") {
		t.Fatalf("err = %v", err)
	}
	if r.Text != "first" {
		t.Fatalf("text before the stall %q", r.Text)
	}
}

func TestUnknownClient(t *testing.T) {
	p := plugintest.Provider(t, plugin.Info, gemini.New())
	err := p.Chat(context.Background(), &provider.ChatRequest{Client: "nope", Model: "m"}, func(*provider.ChatEvent) error { return nil })
	if !errors.Is(err, sdk.ErrFailedPrecondition) || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("chat: %v", err)
	}
	if _, err = p.ListModels(context.Background(), &provider.ListModelsRequest{Client: "nope"}); !errors.Is(err, sdk.ErrFailedPrecondition) {
		t.Fatalf("list models: %v", err)
	}
	if _, err = p.(provider.Embedder).Embed(context.Background(), &provider.EmbedRequest{Client: "nope", Model: "m", Inputs: []string{"x"}}); !errors.Is(err, sdk.ErrFailedPrecondition) {
		t.Fatalf("embed: %v", err)
	}
}

func TestConfigureErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  provider.ClientConfig
		want []string
	}{
		{"no name", provider.ClientConfig{Type: gemini.Type}, []string{"without a name"}},
		{"other type", provider.ClientConfig{Name: "c", Type: "claude"}, []string{`gemini client "c"`, `"claude"`}},
		{"not a URL", provider.ClientConfig{Name: "c", Type: gemini.Type, APIBase: "generativelanguage.googleapis.com"}, []string{`gemini client "c"`, "api_base"}},
		{"secret in api_base", provider.ClientConfig{Name: "c", Type: gemini.Type, APIBase: "ftp://u:hunter2@host/v1"}, []string{"api_base", "xxxxx"}},
		{"bad timeout", provider.ClientConfig{Name: "c", Type: gemini.Type, Options: map[string]any{"extra": map[string]any{"read_timeout": "soon"}}}, []string{"read_timeout"}},
		{"bad proxy", provider.ClientConfig{Name: "c", Type: gemini.Type, Options: map[string]any{"extra": map[string]any{"proxy": "gopher://x:70"}}}, []string{"proxy"}},
		{"extra not a mapping", provider.ClientConfig{Name: "c", Type: gemini.Type, Options: map[string]any{"extra": "x"}}, []string{"extra must be a mapping"}},
	}
	p := plugintest.Provider(t, plugin.Info, gemini.New())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := p.Configure(context.Background(), &provider.ConfigureRequest{Client: tt.cfg})
			providertest.WantError(t, err, sdk.ErrInvalidArgument, tt.want...)
			if strings.Contains(err.Error(), "hunter2") {
				t.Fatalf("password leaked: %v", err)
			}
		})
	}
}

func TestDefaultAPIBase(t *testing.T) {
	// The proxy refuses to tunnel, so nothing leaves the machine; the
	// error names the address the client wanted.
	proxy, seen := providertest.RefusingProxy(t)
	p := plugin.Serve(t, "", provider.ClientConfig{APIBase: " ", APIKey: testKey,
		Options: map[string]any{"extra": map[string]any{"proxy": proxy}}})
	_, err := plugin.Chat(t, p, provider.ChatRequest{})
	if !errors.Is(err, sdk.ErrUnavailable) || !strings.Contains(err.Error(), gemini.DefaultAPIBase) || strings.Contains(err.Error(), "SECRET") {
		t.Fatalf("err = %v", err)
	}
	if asked := seen(); len(asked) == 0 || asked[len(asked)-1] != "CONNECT generativelanguage.googleapis.com:443" {
		t.Fatalf("the proxy was asked for %q", asked)
	}
}

func TestUnreachableServer(t *testing.T) {
	base := providertest.Unreachable(t) + "/v1beta"
	p := plugin.Serve(t, base, provider.ClientConfig{APIKey: testKey})
	for _, stream := range []bool{true, false} {
		_, err := plugin.Chat(t, p, provider.ChatRequest{Stream: stream})
		if !errors.Is(err, sdk.ErrUnavailable) || !strings.Contains(err.Error(), base) || strings.Contains(err.Error(), "SECRET") {
			t.Fatalf("err = %v", err)
		}
	}
}

func TestListModels(t *testing.T) {
	f := &fakellm.Gemini{APIKey: testKey}
	base, rec := recorded(t, f.Handler())
	p := plugin.Serve(t, base, provider.ClientConfig{APIKey: testKey})
	resp, err := p.ListModels(context.Background(), &provider.ListModelsRequest{Client: "test"})
	if err != nil {
		t.Fatal(err)
	}
	want := []provider.Model{
		{Name: "gemini-2.5-flash", Type: provider.ModelChat, MaxInputTokens: 1048576, MaxOutputTokens: 65536, SupportsVision: true, SupportsFunctionCalling: true},
		{Name: "gemini-2.5-pro", Type: provider.ModelChat, MaxInputTokens: 1048576, MaxOutputTokens: 65536, SupportsVision: true, SupportsFunctionCalling: true},
		{Name: "text-embedding-004", Type: provider.ModelEmbedding, MaxInputTokens: 2048},
	}
	if !reflect.DeepEqual(resp.Models, want) {
		t.Fatalf("models\n%+v\nwant\n%+v", resp.Models, want)
	}
	x := rec.requests()[0]
	if x.method != http.MethodGet || strings.Contains(x.url, "key=") || x.header.Get("x-goog-api-key") != testKey {
		t.Fatalf("%s %s %v", x.method, x.url, x.header)
	}

	plugin.Configure(t, p, base, provider.ClientConfig{APIKey: "AIza-wrong-key"})
	_, err = p.ListModels(context.Background(), &provider.ListModelsRequest{Client: "test"})
	if !errors.Is(err, sdk.ErrUnauthenticated) || strings.Contains(err.Error(), "AIza-wrong-key") {
		t.Fatalf("wrong key: %v", err)
	}
}

func TestListModelsPages(t *testing.T) {
	names := make([]string, 1500)
	for i := range names {
		names[i] = fmt.Sprintf("gemini-test-%04d", i)
	}
	names[3] = "gemini-embedding-001"
	base, rec := recorded(t, (&fakellm.Gemini{Models: names}).Handler())
	p := plugin.Serve(t, base, provider.ClientConfig{})
	resp, err := p.ListModels(context.Background(), &provider.ListModelsRequest{Client: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Models) != len(names) || rec.requests()[1].url != "/v1beta/models?pageSize=1000&pageToken=1000" {
		t.Fatalf("%d models in %d pages", len(resp.Models), len(rec.requests()))
	}
	for i, m := range resp.Models {
		if m.Name != names[i] || (m.Type == provider.ModelEmbedding) != (i == 3) {
			t.Fatalf("model %d = %+v", i, m)
		}
	}
}

func TestListModelsSkipsOthers(t *testing.T) {
	base := providertest.RawServer(t, 200, "application/json", `{"models":[
		{"name":"models/imagen-4.0-generate-001","supportedGenerationMethods":["predict"]},
		{"name":"models/gemma-3-27b-it","inputTokenLimit":131072,"outputTokenLimit":8192,"supportedGenerationMethods":["generateContent","countTokens"]},
		{"name":"models/aqa","supportedGenerationMethods":["generateAnswer"]},
		{"name":"models/gemini-embedding-001","inputTokenLimit":2048,"outputTokenLimit":1,"supportedGenerationMethods":["embedContent","countTextTokens"]}]}`) + "/v1beta"
	p := plugin.Serve(t, base, provider.ClientConfig{})
	resp, err := p.ListModels(context.Background(), &provider.ListModelsRequest{Client: "test"})
	if err != nil {
		t.Fatal(err)
	}
	want := []provider.Model{
		{Name: "gemma-3-27b-it", Type: provider.ModelChat, MaxInputTokens: 131072, MaxOutputTokens: 8192},
		{Name: "gemini-embedding-001", Type: provider.ModelEmbedding, MaxInputTokens: 2048},
	}
	if !reflect.DeepEqual(resp.Models, want) {
		t.Fatalf("models %+v", resp.Models)
	}
	p = plugin.Serve(t, providertest.RawServer(t, 200, "application/json", `{"models":[`)+"/v1beta", provider.ClientConfig{})
	if _, err := p.ListModels(context.Background(), &provider.ListModelsRequest{Client: "test"}); !errors.Is(err, sdk.ErrBadResponse) {
		t.Fatalf("truncated list: %v", err)
	}
}

func embedder(t testing.TB, base string, cfg provider.ClientConfig) provider.Embedder {
	return plugin.Serve(t, base, cfg).(provider.Embedder)
}

func TestEmbed(t *testing.T) {
	f := &fakellm.Gemini{APIKey: testKey, EmbedDims: 24}
	base, rec := recorded(t, f.Handler())
	e := embedder(t, base, provider.ClientConfig{APIKey: testKey})
	inputs := make([]string, 250)
	for i := range inputs {
		inputs[i] = fmt.Sprintf("text number %d, grüezi", i)
	}
	tests := []struct {
		name      string
		inputs    []string
		inputType string
		dims      int
		task      string
		batches   []int
	}{
		{"one", []string{"hello"}, "", 0, "", []int{1}},
		{"queries", []string{"q1", "q2"}, provider.InputQuery, 0, "RETRIEVAL_QUERY", []int{2}},
		{"documents, shortened", []string{"d1", "d2", "d3"}, provider.InputDocument, 8, "RETRIEVAL_DOCUMENT", []int{3}},
		{"exactly one batch", inputs[:100], "", 0, "", []int{100}},
		{"three batches", inputs, provider.InputDocument, 16, "RETRIEVAL_DOCUMENT", []int{100, 100, 50}},
		{"none", nil, "", 0, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(rec.requests())
			resp, err := e.Embed(context.Background(), &provider.EmbedRequest{Client: "test", Model: "text-embedding-004",
				Inputs: tt.inputs, InputType: tt.inputType, Dimensions: tt.dims})
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Vectors) != len(tt.inputs) {
				t.Fatalf("%d vectors for %d inputs", len(resp.Vectors), len(tt.inputs))
			}
			dims := tt.dims
			if dims == 0 {
				dims = 24
			}
			for i, v := range resp.Vectors {
				if !reflect.DeepEqual(v, fakellm.FakeVector(tt.inputs[i], dims)) {
					t.Fatalf("vector %d is not the input's: %v", i, v)
				}
			}
			calls := rec.requests()[before:]
			if len(calls) != len(tt.batches) {
				t.Fatalf("%d calls, want %d", len(calls), len(tt.batches))
			}
			for i, x := range calls {
				if x.url != "/v1beta/models/text-embedding-004:batchEmbedContents" || x.header.Get("x-goog-api-key") != testKey {
					t.Fatalf("%s %v", x.url, x.header)
				}
				var body struct {
					Requests []map[string]any
				}
				if err := json.Unmarshal(x.body, &body); err != nil || len(body.Requests) != tt.batches[i] {
					t.Fatalf("batch %d: %d requests (%v)", i, len(body.Requests), err)
				}
				for _, r := range body.Requests {
					task, _ := r["taskType"].(string)
					d, _ := r["outputDimensionality"].(float64)
					if task != tt.task || int(d) != tt.dims || r["model"] != "models/text-embedding-004" {
						t.Fatalf("request %v", r)
					}
				}
			}
		})
	}
	got := f.EmbedRequests()
	if n := len(got); n != 1+1+1+1+3 || !reflect.DeepEqual(got[4], inputs[:100]) || !reflect.DeepEqual(got[6], inputs[200:]) {
		t.Fatalf("the fake saw %d calls", n)
	}
}

func TestEmbedErrors(t *testing.T) {
	f := &fakellm.Gemini{APIKey: testKey}
	base := fakellm.StartGemini(t, f)
	e := embedder(t, base, provider.ClientConfig{APIKey: testKey})
	tests := []struct {
		name string
		req  provider.EmbedRequest
		want error
		msg  string
	}{
		{"no model", provider.EmbedRequest{Inputs: []string{"x"}}, sdk.ErrInvalidArgument, "no model"},
		{"bad input type", provider.EmbedRequest{Model: "text-embedding-004", Inputs: []string{"x"}, InputType: "passage"}, sdk.ErrInvalidArgument, `"passage"`},
		{"negative dimensions", provider.EmbedRequest{Model: "text-embedding-004", Inputs: []string{"x"}, Dimensions: -3}, sdk.ErrInvalidArgument, "-3"},
		{"chat model", provider.EmbedRequest{Model: "gemini-2.5-flash", Inputs: []string{"x"}}, sdk.ErrNotFound, `model "gemini-2.5-flash" not found`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.req.Client = "test"
			_, err := e.Embed(context.Background(), &tt.req)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.msg) || !strings.HasPrefix(err.Error(), `gemini client "test": `) {
				t.Fatalf("err = %v, want %v with %q", err, tt.want, tt.msg)
			}
		})
	}
	e = embedder(t, base, provider.ClientConfig{APIKey: "AIza-wrong"})
	if _, err := e.Embed(context.Background(), &provider.EmbedRequest{Client: "test", Model: "text-embedding-004", Inputs: []string{"x"}}); !errors.Is(err, sdk.ErrUnauthenticated) {
		t.Fatalf("wrong key: %v", err)
	}
	shapes := []struct {
		body string
		msg  string
	}{
		{`{"embeddings":[{"values":[0.1,0.2]}]}`, "returned 1 embeddings for 2 inputs"},
		{`{"embeddings":[{"values":[0.1,0.2]},{"values":[0.3,`, "malformed embeddings"},
		{`{"embeddings":[{"values":[0.1]},{}]}`, "embedding 1 has no values"},
		{`{"other":1}`, "no embeddings"},
	}
	for _, s := range shapes {
		e := embedder(t, providertest.RawServer(t, 200, "application/json", s.body)+"/v1beta", provider.ClientConfig{})
		_, err := e.Embed(context.Background(), &provider.EmbedRequest{Client: "test", Model: "m", Inputs: []string{"a", "b"}})
		if !errors.Is(err, sdk.ErrBadResponse) || !strings.Contains(err.Error(), s.msg) {
			t.Fatalf("%s: %v", s.body, err)
		}
	}
	e = embedder(t, providertest.RawServer(t, 429, "application/json", `{"error":{"code":429,"message":"Slow down.","status":"RESOURCE_EXHAUSTED"}}`, "Retry-After", "3")+"/v1beta", provider.ClientConfig{})
	_, err := e.Embed(context.Background(), &provider.EmbedRequest{Client: "test", Model: "m", Inputs: []string{"a"}})
	providertest.WantError(t, err, sdk.ErrRateLimited)
	providertest.RetryAfter(t, err, 3*time.Second, 3*time.Second)
}

func TestDescribe(t *testing.T) {
	d := plugintest.Serve(t, sdk.Info{Name: "gemini", Version: gemini.Version, Capabilities: []string{provider.CapTools, provider.CapReasoning}},
		provider.Plugin(gemini.New())).Describe(t)
	for _, c := range []string{provider.CapChat, provider.CapStreaming, provider.CapTools, provider.CapReasoning, provider.CapEmbeddings} {
		if !d.Has(c) {
			t.Fatalf("capabilities %v lack %s", d.Capabilities, c)
		}
	}
}

func BenchmarkChatOverGRPC2000Chunks(b *testing.B) {
	_, base := fake(b, fakellm.Reply{Text: strings.Repeat("token ", 2000), Chunks: 2000})
	providertest.BenchChat(b, plugin.Serve(b, base, provider.ClientConfig{}), 2000)
}

// BenchmarkEmbedOverGRPC64x384 embeds 64 inputs into 384 dimensions per
// call, over the wire; the target is 20,000 inputs a second.
func BenchmarkEmbedOverGRPC64x384(b *testing.B) {
	base := fakellm.StartGemini(b, &fakellm.Gemini{EmbedDims: 384})
	inputs := make([]string, 64)
	for i := range inputs {
		inputs[i] = fmt.Sprintf("chunk %d of a document that is being indexed for retrieval", i)
	}
	req := &provider.EmbedRequest{Client: "test", Model: "text-embedding-004", Inputs: inputs, InputType: provider.InputDocument}
	providertest.BenchEmbed(b, embedder(b, base, provider.ClientConfig{}), req, 384)
}
