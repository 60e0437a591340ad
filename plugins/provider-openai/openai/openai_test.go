package openai_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coyote-cli/coyote/internal/fakellm"
	"github.com/coyote-cli/coyote/plugins/provider-openai/openai"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/plugintest"
	"github.com/coyote-cli/coyote/sdk/provider"
	"github.com/coyote-cli/coyote/sdk/provider/providertest"
)

const testKey = "sk-test-SECRET-0123456789"

// plugin is the openai plugin with the defaults of these tests.
var plugin = providertest.Plugin{Info: sdk.Info{Name: "openai"}, New: func() provider.Provider { return openai.New() },
	Type: openai.TypeOpenAICompatible, Model: "gpt-4o-mini"}

// fake starts a fake server answering every request with r.
func fake(t testing.TB, r fakellm.Reply) (*fakellm.OpenAI, string) {
	f := &fakellm.OpenAI{Respond: func(*fakellm.ChatRequest) fakellm.Reply { return r }}
	return f, fakellm.StartOpenAI(t, f)
}

func TestStreamedText(t *testing.T) {
	long := strings.Repeat("lorem ipsum ", 1500)
	tests := []struct {
		name  string
		reply fakellm.Reply
	}{
		{"a word per delta", fakellm.Reply{Text: "The quick brown fox jumps over the lazy dog."}},
		{"unicode split by runes", fakellm.Reply{Text: "Grüße, 世界! 🙂 ok", Chunks: 12}},
		{"two thousand chunks", fakellm.Reply{Text: long, Chunks: 2000}},
		{"escapes", fakellm.Reply{Text: "line\nbreak \"quoted\" back\\slash\ttab"}},
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
			if r.Finish != "stop" || r.Usage == nil || r.Usage.OutputTokens == 0 {
				t.Fatalf("finish %q usage %+v", r.Finish, r.Usage)
			}
		})
	}
}

func TestReasoningAndToolCalls(t *testing.T) {
	_, base := fake(t, fakellm.Reply{
		Reasoning: "The user wants the weather and the time; call both tools.",
		Text:      "Let me look.",
		ToolCalls: []fakellm.ToolCall{
			{ID: "call_w", Name: "get_weather", Arguments: `{"city":"Zürich","days":[1,2,3]}`},
			{ID: "call_t", Name: "get_time", Arguments: `{"tz":"Europe/Zurich"}`},
		},
		Usage: &fakellm.Usage{PromptTokens: 40, CompletionTokens: 12},
	})
	p := plugin.Serve(t, base, provider.ClientConfig{})
	r, err := plugin.Chat(t, p, provider.ChatRequest{Stream: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Reasoning != "The user wants the weather and the time; call both tools." || r.Reasonings != 4 {
		t.Fatalf("reasoning %q in %d events", r.Reasoning, r.Reasonings)
	}
	if r.Text != "Let me look." {
		t.Fatalf("text %q", r.Text)
	}
	want := []provider.ToolCall{
		{ID: "call_w", Name: "get_weather", Arguments: `{"city":"Zürich","days":[1,2,3]}`},
		{ID: "call_t", Name: "get_time", Arguments: `{"tz":"Europe/Zurich"}`},
	}
	if len(r.Tools) != 2 || r.Tools[0] != want[0] || r.Tools[1] != want[1] {
		t.Fatalf("tool calls %+v", r.Tools)
	}
	if r.Kinds != "reasoning,text,tool,usage,finish" {
		t.Fatalf("event order %s", r.Kinds)
	}
	if r.Finish != "tool_calls" || *r.Usage != (provider.Usage{InputTokens: 40, OutputTokens: 12}) {
		t.Fatalf("finish %q usage %+v", r.Finish, r.Usage)
	}
}

func TestFinishReasonAndUsage(t *testing.T) {
	_, base := fake(t, fakellm.Reply{Text: "cut", FinishReason: "length", Usage: &fakellm.Usage{PromptTokens: 3, CompletionTokens: 1}})
	p := plugin.Serve(t, base, provider.ClientConfig{})
	r, err := plugin.Chat(t, p, provider.ChatRequest{Stream: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Finish != "length" || *r.Usage != (provider.Usage{InputTokens: 3, OutputTokens: 1}) {
		t.Fatalf("finish %q usage %+v", r.Finish, r.Usage)
	}
}

func TestNonStreamed(t *testing.T) {
	f, base := fake(t, fakellm.Reply{
		Reasoning: "think",
		Text:      "Sunny all week.",
		ToolCalls: []fakellm.ToolCall{{ID: "c1", Name: "log", Arguments: `{"ok":true}`}},
		Usage:     &fakellm.Usage{PromptTokens: 8, CompletionTokens: 5},
	})
	p := plugin.Serve(t, base, provider.ClientConfig{})
	r, err := plugin.Chat(t, p, provider.ChatRequest{Stream: false})
	if err != nil {
		t.Fatal(err)
	}
	if r.Kinds != "reasoning,text,tool,usage,finish" {
		t.Fatalf("event order %s", r.Kinds)
	}
	if r.Reasoning != "think" || r.Text != "Sunny all week." || r.Texts != 1 || len(r.Tools) != 1 ||
		r.Tools[0] != (provider.ToolCall{ID: "c1", Name: "log", Arguments: `{"ok":true}`}) ||
		*r.Usage != (provider.Usage{InputTokens: 8, OutputTokens: 5}) || r.Finish != "tool_calls" {
		t.Fatalf("result %+v", r)
	}
	req := f.Requests()[0]
	if req.Stream || req.Raw["stream_options"] != nil {
		t.Fatalf("non-streamed request asked for a stream: %v", req.Raw)
	}
}

func TestRequestBody(t *testing.T) {
	f, base := fake(t, fakellm.Reply{Text: "ok"})
	p := plugin.Serve(t, base, provider.ClientConfig{APIKey: testKey})
	temp, topP := 0.0, 0.9
	_, err := plugin.Chat(t, p, provider.ChatRequest{
		Model:           "gpt-4.1",
		Stream:          true,
		Temperature:     &temp,
		TopP:            &topP,
		MaxOutputTokens: 512,
		ReasoningEffort: "low",
		Tools: []provider.Tool{
			{Name: "lookup", Description: "Looks things up.", Parameters: []byte(`{"type":"object","properties":{"q":{"type":"string"}}}`)},
			{Name: "now"},
		},
		Messages: []provider.Message{
			provider.TextMessage(provider.RoleSystem, "be brief"),
			{Role: provider.RoleUser, Parts: []provider.Part{{Text: "what is "}, {Text: "this?"}, {ImageURL: "data:image/png;base64,AAAA"}}},
			{Role: provider.RoleAssistant, Parts: []provider.Part{
				{Reasoning: &provider.Reasoning{Text: "secret thoughts"}},
				{Text: "Let me check."},
				{ToolCall: &provider.ToolCall{ID: "c1", Name: "lookup", Arguments: `{"q":"x"}`}},
				{ToolCall: &provider.ToolCall{ID: "c2", Name: "now"}},
			}},
			{Role: provider.RoleTool, Parts: []provider.Part{
				{ToolResult: &provider.ToolResult{CallID: "c1", Name: "lookup", Content: "found"}},
				{ToolResult: &provider.ToolResult{CallID: "c2", Name: "now", Content: "noon", IsError: true}},
			}},
			{Role: provider.RoleAssistant, Parts: []provider.Part{{ToolCall: &provider.ToolCall{ID: "c3", Name: "now", Arguments: "{}"}}}},
			{Role: provider.RoleUser, Parts: []provider.Part{
				{ToolResult: &provider.ToolResult{CallID: "c3", Content: "later"}},
				{Text: "thanks"},
			}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	reqs := f.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	raw := reqs[0].Raw
	if reqs[0].Authorization != "Bearer "+testKey {
		t.Fatalf("Authorization %q", reqs[0].Authorization)
	}
	providertest.JSONEqual(t, raw["messages"], `[
		{"role":"system","content":"be brief"},
		{"role":"user","content":[{"type":"text","text":"what is "},{"type":"text","text":"this?"},
			{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}]},
		{"role":"assistant","content":"Let me check.","tool_calls":[
			{"id":"c1","type":"function","function":{"name":"lookup","arguments":"{\"q\":\"x\"}"}},
			{"id":"c2","type":"function","function":{"name":"now","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"c1","content":"found"},
		{"role":"tool","tool_call_id":"c2","content":"noon"},
		{"role":"assistant","content":null,"tool_calls":[
			{"id":"c3","type":"function","function":{"name":"now","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"c3","content":"later"},
		{"role":"user","content":"thanks"}
	]`)
	providertest.JSONEqual(t, raw["tools"], `[
		{"type":"function","function":{"name":"lookup","description":"Looks things up.",
			"parameters":{"type":"object","properties":{"q":{"type":"string"}}}}},
		{"type":"function","function":{"name":"now","parameters":{"type":"object","properties":{}}}}
	]`)
	delete(raw, "messages")
	delete(raw, "tools")
	providertest.JSONEqual(t, raw, `{"model":"gpt-4.1","stream":true,"stream_options":{"include_usage":true},
		"temperature":0,"top_p":0.9,"max_tokens":512,"reasoning_effort":"low"}`)
}

func TestMinimalRequestBody(t *testing.T) {
	f, base := fake(t, fakellm.Reply{Text: "ok"})
	p := plugin.Serve(t, base, provider.ClientConfig{})
	if _, err := plugin.Chat(t, p, provider.ChatRequest{Model: "llama3"}); err != nil {
		t.Fatal(err)
	}
	req := f.Requests()[0]
	if req.Authorization != "" {
		t.Fatalf("Authorization %q sent without a key", req.Authorization)
	}
	providertest.JSONEqual(t, req.Raw, `{"model":"llama3","stream":false,"messages":[{"role":"user","content":"hello"}]}`)
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
		{"image in a system message", provider.ChatRequest{Model: "m", Messages: []provider.Message{{Role: provider.RoleSystem, Parts: []provider.Part{{ImageURL: "https://x/y.png"}}}}}, "image"},
		{"unknown role", provider.ChatRequest{Model: "m", Messages: []provider.Message{provider.TextMessage("narrator", "hi")}}, "role"},
		{"tool message without result", provider.ChatRequest{Model: "m", Messages: []provider.Message{provider.TextMessage(provider.RoleTool, "hi")}}, "tool result"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.req.Client = "test"
			err := p.Chat(context.Background(), &tt.req, func(*provider.ChatEvent) error { return nil })
			providertest.WantError(t, err, sdk.ErrInvalidArgument, tt.want)
		})
	}
	if n := len(f.Requests()); n != 0 {
		t.Fatalf("%d invalid requests reached the server", n)
	}
}

func TestHTTPErrors(t *testing.T) {
	tests := []struct {
		reply fakellm.Reply
		want  error
		// message is the exact error text the kernel sees.
		message string
	}{
		{fakellm.Reply{Status: 400, ErrorMessage: "Invalid 'messages': empty array."}, sdk.ErrInvalidArgument,
			`openai-compatible client "groq": 400 Bad Request: Invalid 'messages': empty array.`},
		{fakellm.Reply{Status: 401, ErrorMessage: "Incorrect API key provided: " + testKey + "."}, sdk.ErrUnauthenticated,
			`openai-compatible client "groq": 401 Unauthorized: Incorrect API key provided: [redacted].`},
		{fakellm.Reply{Status: 403}, sdk.ErrPermissionDenied,
			`openai-compatible client "groq": 403 Forbidden: You are not allowed to use this model.`},
		{fakellm.Reply{Status: 404}, sdk.ErrNotFound,
			`openai-compatible client "groq": 404 Not Found: model "gpt-x" not found: The model 'gpt-x' does not exist or you do not have access to it.`},
		{fakellm.Reply{Status: 422, ErrorMessage: "bad\n  field"}, sdk.ErrInvalidArgument,
			`openai-compatible client "groq": 422 Unprocessable Entity: bad field`},
		{fakellm.Reply{Status: 429, RetryAfter: "20"}, sdk.ErrRateLimited,
			`openai-compatible client "groq": 429 Too Many Requests: Rate limit reached for requests. Please try again later. (retry after 20s)`},
		{fakellm.Reply{Status: 429}, sdk.ErrRateLimited,
			`openai-compatible client "groq": 429 Too Many Requests: Rate limit reached for requests. Please try again later.`},
		{fakellm.Reply{Status: 500}, sdk.ErrUnavailable,
			`openai-compatible client "groq": 500 Internal Server Error: The server had an error while processing your request. Sorry about that!`},
		{fakellm.Reply{Status: 503}, sdk.ErrUnavailable,
			`openai-compatible client "groq": 503 Service Unavailable: The engine is currently overloaded, please try again later.`},
	}
	for _, tt := range tests {
		for _, stream := range []bool{true, false} {
			_, base := fake(t, tt.reply)
			p := plugin.Serve(t, base, provider.ClientConfig{Name: "groq", APIKey: testKey})
			_, err := plugin.Chat(t, p, provider.ChatRequest{Client: "groq", Model: "gpt-x", Stream: stream})
			if !errors.Is(err, tt.want) {
				t.Fatalf("status %d: err = %v, want %v", tt.reply.Status, err, tt.want)
			}
			if err.Error() != tt.message {
				t.Fatalf("status %d: message\n%s\nwant\n%s", tt.reply.Status, err, tt.message)
			}
			if strings.Contains(err.Error(), testKey) || strings.Contains(err.Error(), "SECRET") {
				t.Fatalf("the key leaked: %v", err)
			}
		}
	}
}

func TestWrongKeyAndUnknownModel(t *testing.T) {
	f := &fakellm.OpenAI{APIKey: "sk-right"}
	base := fakellm.StartOpenAI(t, f)
	p := plugin.Serve(t, base, provider.ClientConfig{APIKey: testKey})
	if _, err := plugin.Chat(t, p, provider.ChatRequest{}); !errors.Is(err, sdk.ErrUnauthenticated) || strings.Contains(err.Error(), testKey) {
		t.Fatalf("wrong key: %v", err)
	}
	plugin.Configure(t, p, base, provider.ClientConfig{APIKey: "sk-right"})
	r, err := plugin.Chat(t, p, provider.ChatRequest{Stream: true})
	if err != nil || r.Text != fakellm.DefaultText {
		t.Fatalf("right key: %q %v", r.Text, err)
	}
	_, err = plugin.Chat(t, p, provider.ChatRequest{Model: "gpt-9"})
	if !errors.Is(err, sdk.ErrNotFound) || !strings.Contains(err.Error(), `model "gpt-9" not found`) {
		t.Fatalf("unknown model: %v", err)
	}
}

func TestBrokenStreams(t *testing.T) {
	text := "one two three four five six seven eight"
	tests := []struct {
		name  string
		reply fakellm.Reply
		want  error
		msg   string
	}{
		{"malformed", fakellm.Reply{Text: text, Malformed: true}, sdk.ErrBadResponse, `"data: {\"choices\":[{"`},
		{"truncated", fakellm.Reply{Text: text, Truncate: true}, sdk.ErrBadResponse, "stream ended before the reply was complete"},
		{"stream error", fakellm.Reply{Text: text, StreamError: "upstream exploded"}, sdk.ErrUnavailable, "upstream exploded"},
		{"malformed, not streamed", fakellm.Reply{Text: text, Malformed: true}, sdk.ErrBadResponse, "malformed reply"},
		{"truncated, not streamed", fakellm.Reply{Text: text, Truncate: true}, sdk.ErrBadResponse, "malformed reply"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, base := fake(t, tt.reply)
			p := plugin.Serve(t, base, provider.ClientConfig{})
			r, err := plugin.Chat(t, p, provider.ChatRequest{Stream: !strings.Contains(tt.name, "not streamed")})
			providertest.WantError(t, err, tt.want, tt.msg)
			if r.Finish != "" {
				t.Fatalf("a broken reply finished with %q", r.Finish)
			}
			if strings.HasSuffix(tt.name, "streamed") && r.Text != "" {
				t.Fatalf("text %q from a broken non-streamed reply", r.Text)
			}
		})
	}
}

func TestCancelMidStream(t *testing.T) {
	_, base := fake(t, fakellm.Reply{Text: "first second third fourth", Delay: time.Hour})
	impl := providertest.Watch(openai.New())
	p := plugintest.Provider(t, plugin.Info, impl)
	plugin.Configure(t, p, base, provider.ClientConfig{})
	_, cancelled := providertest.CancelAtFirstEvent(t, p, provider.ChatRequest{Client: "test", Model: "m", Stream: true,
		Messages: []provider.Message{provider.TextMessage(provider.RoleUser, "go")}})
	providertest.WaitCancelled(t, cancelled, impl.Returned)
}

func TestReadTimeout(t *testing.T) {
	_, base := fake(t, fakellm.Reply{Text: "first second", Delay: time.Hour})
	p := plugin.Serve(t, base, provider.ClientConfig{Options: map[string]any{"extra": map[string]any{"read_timeout": 0.2}}})
	start := time.Now()
	r, err := plugin.Chat(t, p, provider.ChatRequest{Stream: true})
	if !errors.Is(err, sdk.ErrUnavailable) || !strings.Contains(err.Error(), "read_timeout") {
		t.Fatalf("err = %v", err)
	}
	if r.Text != "first" {
		t.Fatalf("text before the stall %q", r.Text)
	}
	if d := time.Since(start); d < 200*time.Millisecond || d > 5*time.Second {
		t.Fatalf("gave up after %v", d)
	}
}

func TestUnknownClient(t *testing.T) {
	p := plugintest.Provider(t, plugin.Info, openai.New())
	err := p.Chat(context.Background(), &provider.ChatRequest{Client: "nope", Model: "m"}, func(*provider.ChatEvent) error { return nil })
	if !errors.Is(err, sdk.ErrFailedPrecondition) || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("chat: %v", err)
	}
	_, err = p.ListModels(context.Background(), &provider.ListModelsRequest{Client: "nope"})
	if !errors.Is(err, sdk.ErrFailedPrecondition) {
		t.Fatalf("list models: %v", err)
	}
}

func TestConfigureErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  provider.ClientConfig
		want []string
	}{
		{"compatible without api_base", provider.ClientConfig{Name: "ollama", Type: openai.TypeOpenAICompatible}, []string{`"ollama"`, "api_base"}},
		{"other type", provider.ClientConfig{Name: "c", Type: "claude"}, []string{`"claude"`}},
		{"not a URL", provider.ClientConfig{Name: "c", Type: openai.TypeOpenAI, APIBase: "localhost:11434"}, []string{"api_base"}},
		{"secret in api_base", provider.ClientConfig{Name: "c", Type: openai.TypeOpenAI, APIBase: "ftp://u:hunter2@host/v1"}, []string{"api_base", "xxxxx"}},
		{"bad timeout", provider.ClientConfig{Name: "c", Type: openai.TypeOpenAI, Options: map[string]any{"extra": map[string]any{"read_timeout": "soon"}}}, []string{"read_timeout"}},
		{"negative timeout", provider.ClientConfig{Name: "c", Type: openai.TypeOpenAI, Options: map[string]any{"extra": map[string]any{"connect_timeout": -1}}}, []string{"connect_timeout"}},
		{"bad proxy", provider.ClientConfig{Name: "c", Type: openai.TypeOpenAI, Options: map[string]any{"extra": map[string]any{"proxy": "gopher://x:70"}}}, []string{"proxy"}},
		{"bad organization", provider.ClientConfig{Name: "c", Type: openai.TypeOpenAI, Options: map[string]any{"organization_id": 7}}, []string{"organization_id"}},
	}
	p := plugintest.Provider(t, plugin.Info, openai.New())
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

func TestListModels(t *testing.T) {
	f := &fakellm.OpenAI{APIKey: testKey, Models: []string{"gpt-4o", "text-embedding-3-small", "nomic-embed-text", "bge-reranker-v2", "llama3.1:8b"}}
	base := fakellm.StartOpenAI(t, f)
	p := plugin.Serve(t, base, provider.ClientConfig{APIKey: testKey})
	resp, err := p.ListModels(context.Background(), &provider.ListModelsRequest{Client: "test"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range resp.Models {
		got = append(got, m.Name+"="+m.Type)
	}
	want := "gpt-4o=chat text-embedding-3-small=embedding nomic-embed-text=embedding bge-reranker-v2=reranker llama3.1:8b=chat"
	if strings.Join(got, " ") != want {
		t.Fatalf("models %v", got)
	}

	plugin.Configure(t, p, base, provider.ClientConfig{APIKey: "sk-wrong-key"})
	_, err = p.ListModels(context.Background(), &provider.ListModelsRequest{Client: "test"})
	if !errors.Is(err, sdk.ErrUnauthenticated) || strings.Contains(err.Error(), "sk-wrong-key") {
		t.Fatalf("wrong key: %v", err)
	}
}

func TestUnreachableServer(t *testing.T) {
	base := providertest.Unreachable(t) + "/v1"
	p := plugin.Serve(t, base, provider.ClientConfig{APIKey: testKey})
	for _, stream := range []bool{true, false} {
		_, err := plugin.Chat(t, p, provider.ChatRequest{Stream: stream})
		if !errors.Is(err, sdk.ErrUnavailable) || !strings.Contains(err.Error(), base) || strings.Contains(err.Error(), testKey) {
			t.Fatalf("err = %v", err)
		}
	}
	_, err := p.ListModels(context.Background(), &provider.ListModelsRequest{Client: "test"})
	if !errors.Is(err, sdk.ErrUnavailable) || !strings.Contains(err.Error(), base) {
		t.Fatalf("list models: %v", err)
	}
}

func TestProxyAndOrganization(t *testing.T) {
	f := &fakellm.OpenAI{Respond: func(*fakellm.ChatRequest) fakellm.Reply { return fakellm.Reply{Text: "via proxy"} }}
	var mu sync.Mutex
	var seen []*http.Request
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Clone(context.Background()))
		mu.Unlock()
		f.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(proxy.Close)
	p := plugin.Serve(t, "", provider.ClientConfig{
		APIBase: "http://upstream.invalid/v1",
		Options: map[string]any{"organization_id": "org-42", "extra": map[string]any{"proxy": proxy.URL, "connect_timeout": "2s"}},
	})
	r, err := plugin.Chat(t, p, provider.ChatRequest{Stream: true})
	if err != nil || r.Text != "via proxy" {
		t.Fatalf("%q %v", r.Text, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 || seen[0].Host != "upstream.invalid" || seen[0].Header.Get("OpenAI-Organization") != "org-42" ||
		!strings.HasPrefix(seen[0].Header.Get("User-Agent"), "coyote-provider-openai/") {
		t.Fatalf("proxied requests %v", seen)
	}
}

func TestDefaultAPIBase(t *testing.T) {
	// The proxy refuses to tunnel, so nothing leaves the machine; the
	// error names the address the client wanted.
	proxy, _ := providertest.RefusingProxy(t)
	p := plugin.Serve(t, "", provider.ClientConfig{Type: openai.TypeOpenAI, APIBase: " ",
		Options: map[string]any{"extra": map[string]any{"proxy": proxy}}})
	_, err := plugin.Chat(t, p, provider.ChatRequest{})
	if !errors.Is(err, sdk.ErrUnavailable) || !strings.Contains(err.Error(), openai.DefaultAPIBase) {
		t.Fatalf("err = %v", err)
	}
}

func TestStreamShapes(t *testing.T) {
	huge := strings.Repeat("x", 3<<20)
	tests := []struct {
		name        string
		status      int
		contentType string
		body        string
		want        providertest.Reply
		wantErr     error
		errText     string
	}{
		{
			name: "CRLF, comments, event and id lines",
			body: ": keep-alive\r\n\r\nevent: message\r\nid: 1\r\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hel\"}}]}\r\n\r\n" +
				"retry: 100\r\ndata:{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"}}]}\r\n\r\n" +
				"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\r\n\r\ndata: [DONE]\r\n\r\n",
			want: providertest.Reply{Text: "Hello", Texts: 2, Finish: "stop"},
		},
		{
			name: "a data line of several megabytes",
			body: `data: {"choices":[{"index":0,"delta":{"content":"` + huge + `"}}]}` + "\n\n" +
				`data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n",
			want: providertest.Reply{Text: huge, Texts: 1, Finish: "stop"},
		},
		{
			name: "tool calls without index, id and name repeated",
			body: `data: {"choices":[{"delta":{"tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{\"x\""}}]}}]}` + "\n\n" +
				`data: {"choices":[{"delta":{"tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":":1}"}}]}}]}` + "\n\n" +
				`data: {"choices":[{"delta":{"tool_calls":[{"id":"b","type":"function","function":{"name":"g"}}]}}]}` + "\n\n" +
				`data: {"choices":[{"delta":{},"finish_reason":"tool_calls"}]}` + "\n\n" + "data: [DONE]\n\n",
			want: providertest.Reply{Tools: []provider.ToolCall{{ID: "a", Name: "f", Arguments: `{"x":1}`}, {ID: "b", Name: "g", Arguments: "{}"}}, Finish: "tool_calls"},
		},
		{
			name: "tool call indexes out of order, no ids",
			body: `data: {"choices":[{"delta":{"tool_calls":[{"index":1,"function":{"name":"second","arguments":"{}"}},{"index":0,"function":{"name":"first","arguments":"[1"}}]}}]}` + "\n\n" +
				`data: {"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"]"}}]}}]}` + "\n\n" +
				"data: [DONE]\n\n",
			want: providertest.Reply{Tools: []provider.ToolCall{{ID: "call_0", Name: "first", Arguments: "[1]"}, {ID: "call_1", Name: "second", Arguments: "{}"}}, Finish: "tool_calls"},
		},
		{
			name: "reasoning field and Groq usage",
			body: `data: {"choices":[{"delta":{"reasoning":"hmm"}}]}` + "\n\n" +
				`data: {"choices":[{"delta":{"content":"ok"}}]}` + "\n\n" +
				`data: {"choices":[{"delta":{},"finish_reason":"stop"}],"x_groq":{"usage":{"prompt_tokens":3,"completion_tokens":4}}}` + "\n\n" +
				"data: [DONE]\n\n",
			want: providertest.Reply{Reasoning: "hmm", Reasonings: 1, Text: "ok", Texts: 1, Usage: &provider.Usage{InputTokens: 3, OutputTokens: 4}, Finish: "stop"},
		},
		{
			name: "no [DONE] after the finish reason",
			body: `data: {"choices":[{"delta":{"content":"done"},"finish_reason":"stop"}]}` + "\n\n",
			want: providertest.Reply{Text: "done", Texts: 1, Finish: "stop"},
		},
		{
			name:        "a JSON answer to a streamed request",
			contentType: "application/json",
			body:        `{"choices":[{"message":{"role":"assistant","content":"whole"},"finish_reason":"stop"}]}`,
			want:        providertest.Reply{Text: "whole", Texts: 1, Finish: "stop"},
		},
		{
			name:    "bare JSON error line",
			body:    `{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}` + "\n",
			wantErr: sdk.ErrRateLimited, errText: "You exceeded your current quota",
		},
		{
			name:    "error chunk with a numeric code",
			body:    `data: {"error":{"message":"bad key","code":401}}` + "\n\n",
			wantErr: sdk.ErrUnauthenticated, errText: "bad key",
		},
		{
			name:    "empty stream",
			body:    "",
			wantErr: sdk.ErrBadResponse, errText: "stream ended before the reply was complete",
		},
		{
			name:    "only a role",
			body:    `data: {"choices":[{"delta":{"role":"assistant"}}]}` + "\n\n",
			wantErr: sdk.ErrBadResponse, errText: "stream ended before the reply was complete",
		},
		{
			name:   "HTML error page",
			status: 502, contentType: "text/html",
			body:    "<html><body><h1>502 Bad Gateway</h1></body></html>",
			wantErr: sdk.ErrUnavailable, errText: `openai-compatible client "test": 502 Bad Gateway`,
		},
		{
			// A 5xx whose body is not OpenAI's shape: its first line says why.
			name:   "proxy page with a reason",
			status: 503, contentType: "text/html",
			body:    "<html><head><title>503</title></head><body><h1>Service Unavailable</h1><p>Backend pool vllm-a is down</p></body></html>",
			wantErr: sdk.ErrUnavailable, errText: `503 Service Unavailable: Backend pool vllm-a is down`,
		},
		{
			name:   "a crashed server's own JSON",
			status: 500, contentType: "application/json",
			body:    `{"error":"TypeError","message_detail":"Cannot read properties of undefined (reading 'choices')"}`,
			wantErr: sdk.ErrUnavailable, errText: `500 Internal Server Error: {"error":"TypeError","message_detail":"Cannot read properties of undefined (reading 'choices')"}`,
		},
		{
			name:   "plain 404 from a wrong path",
			status: 404, contentType: "text/plain",
			body:    "404 page not found\n",
			wantErr: sdk.ErrNotFound, errText: `404 Not Found: model "gpt-4o-mini" not found: 404 page not found (is api_base http://127.0.0.1`,
		},
		{
			name:   "vLLM error shape",
			status: 400, contentType: "application/json",
			body:    `{"object":"error","message":"This model's maximum context length is 4096 tokens.","type":"BadRequestError","param":null,"code":400}`,
			wantErr: sdk.ErrInvalidArgument, errText: "400 Bad Request: This model's maximum context length is 4096 tokens.",
		},
		{
			name:   "Ollama error shape",
			status: 404, contentType: "application/json",
			body:    `{"error":"model \"llama9\" not found, try pulling it first"}`,
			wantErr: sdk.ErrNotFound, errText: `not found: model "llama9" not found, try pulling it first`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := plugin.Serve(t, providertest.RawServer(t, tt.status, tt.contentType, tt.body)+"/v1", provider.ClientConfig{})
			r, err := plugin.Chat(t, p, provider.ChatRequest{Stream: true})
			if tt.wantErr != nil {
				providertest.WantError(t, err, tt.wantErr, tt.errText)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Text != tt.want.Text || r.Texts != tt.want.Texts || r.Reasoning != tt.want.Reasoning ||
				r.Reasonings != tt.want.Reasonings || r.Finish != tt.want.Finish ||
				(r.Usage == nil) != (tt.want.Usage == nil) || (r.Usage != nil && *r.Usage != *tt.want.Usage) ||
				len(r.Tools) != len(tt.want.Tools) {
				t.Fatalf("got %+v\nwant %+v", short(r), short(&tt.want))
			}
			for i := range r.Tools {
				if r.Tools[i] != tt.want.Tools[i] {
					t.Fatalf("tool %d = %+v, want %+v", i, r.Tools[i], tt.want.Tools[i])
				}
			}
		})
	}
}

func short(r *providertest.Reply) providertest.Reply {
	c := *r
	if len(c.Text) > 40 {
		c.Text = c.Text[:40] + "…"
	}
	return c
}

func BenchmarkChatOverGRPC2000Chunks(b *testing.B) {
	_, base := fake(b, fakellm.Reply{Text: strings.Repeat("token ", 2000), Chunks: 2000})
	providertest.BenchChat(b, plugin.Serve(b, base, provider.ClientConfig{}), 2000)
}

func BenchmarkChatInProcess2000Chunks(b *testing.B) {
	_, base := fake(b, fakellm.Reply{Text: strings.Repeat("token ", 2000), Chunks: 2000})
	p := openai.New()
	plugin.Configure(b, p, base, provider.ClientConfig{})
	providertest.BenchChat(b, p, 2000)
}

func TestConnectionIsReused(t *testing.T) {
	f := &fakellm.OpenAI{Respond: func(*fakellm.ChatRequest) fakellm.Reply { return fakellm.Reply{Text: "again and again"} }}
	url, conns := providertest.CountingServer(t, f.Handler())
	p := plugin.Serve(t, url+"/v1", provider.ClientConfig{})
	for i := range 4 {
		if r, err := plugin.Chat(t, p, provider.ChatRequest{Stream: i%2 == 0}); err != nil || r.Text != "again and again" {
			t.Fatalf("chat %d: %q %v", i, r.Text, err)
		}
	}
	if _, err := p.ListModels(context.Background(), &provider.ListModelsRequest{Client: "test"}); err != nil {
		t.Fatal(err)
	}
	if n := conns(); n != 1 {
		t.Fatalf("%d connections for 5 sequential requests", n)
	}
}
