package openai_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/coyote-cli/coyote/internal/fakellm"
	"github.com/coyote-cli/coyote/internal/fakellm/scenario"
	"github.com/coyote-cli/coyote/plugins/provider-openai/openai"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/plugintest"
	"github.com/coyote-cli/coyote/sdk/provider"
	"github.com/coyote-cli/coyote/sdk/provider/providertest"
)

// chatGPTToken is a token shaped as a ChatGPT login's: a JWT whose
// https://api.openai.com/auth claim names the account.
func chatGPTToken(account string) string {
	enc := base64.RawURLEncoding.EncodeToString
	claims, _ := json.Marshal(map[string]any{
		"sub":                         "user-1",
		"https://api.openai.com/auth": map[string]any{"chatgpt_account_id": account, "chatgpt_plan_type": "plus"},
	})
	return enc([]byte(`{"alg":"RS256","typ":"JWT"}`)) + "." + enc(claims) + ".c2lnbmF0dXJl"
}

// codexClient is the configuration of a ChatGPT login's client pointed at
// the fake backend at base.
func codexClient(base, token string) provider.ClientConfig {
	return provider.ClientConfig{Type: openai.TypeOpenAI, APIBase: base, APIKey: token,
		Options: map[string]any{"auth": "oauth", "wire_api": "responses"}}
}

// codex starts the fake backend answering every request with r, requiring
// the account of chatGPTToken("acct-1").
func codex(t testing.TB, r fakellm.Reply) (*fakellm.Codex, string) {
	f := &fakellm.Codex{AccountID: "acct-1", Respond: func(*fakellm.ChatRequest) fakellm.Reply { return r }}
	return f, fakellm.StartCodex(t, f)
}

// TestOAuthPicksTheAPI: an "openai" client with auth: oauth and no
// api_base is a ChatGPT login and goes to the Codex backend; with an
// api_base, or with a key, it keeps chat completions, unless wire_api says
// otherwise.
func TestOAuthPicksTheAPI(t *testing.T) {
	tests := []struct {
		name     string
		typ      string
		base     string
		options  map[string]any
		wantBase string
	}{
		{"chatgpt login", openai.TypeOpenAI, "", map[string]any{"auth": "oauth"}, openai.ChatGPTBase},
		{"api key", openai.TypeOpenAI, "", nil, openai.DefaultAPIBase},
		{"oauth with a base", openai.TypeOpenAI, "http://gateway.example/v1", map[string]any{"auth": "oauth"}, "http://gateway.example/v1"},
		{"chat asked for", openai.TypeOpenAI, "", map[string]any{"auth": "oauth", "wire_api": "chat"}, openai.DefaultAPIBase},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := plugintest.Provider(t, openai.Info, openai.New())
			resp, err := p.Configure(t.Context(), &provider.ConfigureRequest{Client: provider.ClientConfig{
				Name: "c", Type: tt.typ, APIBase: tt.base, APIKey: chatGPTToken("acct-1"), Options: tt.options}})
			if err != nil {
				t.Fatal(err)
			}
			if resp.APIBase != tt.wantBase {
				t.Fatalf("base %q, want %q", resp.APIBase, tt.wantBase)
			}
		})
	}

	// A custom base with OAuth speaks chat completions: the OpenAI fake
	// answers only those.
	_, base := fake(t, fakellm.Reply{Text: "chat completions"})
	p := plugin.Serve(t, base, provider.ClientConfig{Type: openai.TypeOpenAI, APIKey: "tok", Options: map[string]any{"auth": "oauth"}})
	r, err := plugin.Chat(t, p, provider.ChatRequest{Stream: true})
	if err != nil || r.Text != "chat completions" {
		t.Fatalf("oauth with api_base: %q, %v", r.Text, err)
	}

	// An openai-compatible gateway's OAuth token on the Responses API is
	// not a ChatGPT login: none of the backend's headers or requirements.
	gw := &fakellm.Codex{}
	gwBase := fakellm.StartCodex(t, gw)
	p = plugin.Serve(t, gwBase, provider.ClientConfig{Type: openai.TypeOpenAICompatible, APIKey: "tok",
		Options: map[string]any{"auth": "oauth", "wire_api": "responses"}})
	if _, err := plugin.Chat(t, p, provider.ChatRequest{Stream: true}); !errors.Is(err, sdk.ErrInvalidArgument) {
		t.Fatalf("gateway: %v, want the fake's refusal of a request without the ChatGPT headers", err)
	}
	if h := gw.Requests()[0].Header; h.Get("originator") != "" || h.Get("session_id") != "" || gw.Requests()[0].Raw["reasoning"] != nil {
		t.Fatalf("a gateway got the ChatGPT headers or defaults: %v %v", h, gw.Requests()[0].Raw)
	}

	for _, bad := range []any{"graphql", 3} {
		p := plugintest.Provider(t, openai.Info, openai.New())
		_, err := p.Configure(t.Context(), &provider.ConfigureRequest{Client: provider.ClientConfig{
			Name: "c", Type: openai.TypeOpenAI, Options: map[string]any{"wire_api": bad}}})
		if !errors.Is(err, sdk.ErrInvalidArgument) || !strings.Contains(err.Error(), "wire_api must be chat") {
			t.Errorf("wire_api %v: %v", bad, err)
		}
	}
}

// TestCodexStream: reasoning summary, its encrypted content, text, tool
// calls and usage arrive as events, in order, from the backend's event
// stream; the request carries the backend's headers and body.
func TestCodexStream(t *testing.T) {
	f, base := codex(t, fakellm.Reply{
		Reasoning: "Weather first, then the time.",
		Text:      "Let me look that up.",
		ToolCalls: []fakellm.ToolCall{
			{ID: "call_w", Name: "get_weather", Arguments: `{"city":"Zürich","days":[1,2,3]}`},
			{ID: "call_t", Name: "get_time", Arguments: `{}`},
		},
		Usage: &fakellm.Usage{PromptTokens: 120, CompletionTokens: 40, CachedTokens: 64, ReasoningTokens: 25},
	})
	p := plugin.Serve(t, base, codexClient(base, chatGPTToken("acct-1")))
	r, err := plugin.Chat(t, p, provider.ChatRequest{
		Model:           "gpt-5-codex",
		Stream:          true,
		ReasoningEffort: "high",
		Messages: []provider.Message{
			provider.TextMessage(provider.RoleSystem, "Be brief."),
			provider.TextMessage(provider.RoleUser, "Weather and time in Zürich?"),
		},
		Tools: []provider.Tool{{Name: "get_weather", Description: "Weather", Parameters: []byte(`{"type":"object","properties":{"city":{"type":"string"}}}`)}, {Name: "get_time"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if r.Kinds != "reasoning,signature,text,tool,usage,finish" {
		t.Fatalf("events %s", r.Kinds)
	}
	if r.Reasoning != "Weather first, then the time." || r.Text != "Let me look that up." || r.Finish != "tool_calls" {
		t.Fatalf("reply %+v", r)
	}
	if len(r.Signatures) != 1 || r.Signatures[0] != fakellm.CodexEncrypted("Weather first, then the time.") {
		t.Fatalf("signatures %q", r.Signatures)
	}
	want := []provider.ToolCall{{ID: "call_w", Name: "get_weather", Arguments: `{"city":"Zürich","days":[1,2,3]}`}, {ID: "call_t", Name: "get_time", Arguments: `{}`}}
	if len(r.Tools) != 2 || r.Tools[0] != want[0] || r.Tools[1] != want[1] {
		t.Fatalf("tools %+v", r.Tools)
	}
	if u := r.Usage; *u != (provider.Usage{InputTokens: 120, OutputTokens: 40, CachedTokens: 64, ReasoningTokens: 25}) {
		t.Fatalf("usage %+v", u)
	}
	req := f.Requests()[0]
	for h, want := range map[string]string{"chatgpt-account-id": "acct-1", "OpenAI-Beta": "responses=experimental", "originator": openai.Originator} {
		if got := req.Header.Get(h); got != want {
			t.Errorf("header %s = %q, want %q", h, got, want)
		}
	}
	if req.Header.Get("session_id") == "" || req.Raw["prompt_cache_key"] != req.Header.Get("session_id") {
		t.Errorf("session %q, prompt_cache_key %v", req.Header.Get("session_id"), req.Raw["prompt_cache_key"])
	}
	body := req.Raw
	delete(body, "prompt_cache_key")
	providertest.JSONEqual(t, body, `{
		"model": "gpt-5-codex",
		"instructions": "Be brief.",
		"input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Weather and time in Zürich?"}]}],
		"tools": [
			{"type": "function", "name": "get_weather", "description": "Weather", "parameters": {"type":"object","properties":{"city":{"type":"string"}}}, "strict": false},
			{"type": "function", "name": "get_time", "parameters": {"type":"object","properties":{}}, "strict": false}
		],
		"tool_choice": "auto",
		"parallel_tool_calls": true,
		"reasoning": {"effort": "high", "summary": "auto"},
		"store": false,
		"stream": true,
		"include": ["reasoning.encrypted_content"]
	}`)
}

// TestCodexToolRoundReplay: the second request of a tool round sends the
// reasoning back with its encrypted content, the text, the function call
// and its output as the Responses API's items, and the backend accepts
// them.
func TestCodexToolRoundReplay(t *testing.T) {
	f, base := codex(t, fakellm.Reply{Text: "Sunny."})
	p := plugin.Serve(t, base, codexClient(base, chatGPTToken("acct-1")))
	enc := fakellm.CodexEncrypted("think")
	r, err := plugin.Chat(t, p, provider.ChatRequest{Stream: false, Messages: []provider.Message{
		provider.TextMessage(provider.RoleUser, "Weather?"),
		{Role: provider.RoleAssistant, Parts: []provider.Part{
			{Reasoning: &provider.Reasoning{Text: "think", Signature: enc}},
			{Reasoning: &provider.Reasoning{Text: "another provider's, unsigned"}},
			{Text: "Checking."},
			{ToolCall: &provider.ToolCall{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Bern"}`}},
		}},
		{Role: provider.RoleTool, Parts: []provider.Part{{ToolResult: &provider.ToolResult{CallID: "call_1", Name: "get_weather", Content: `{"sky":"clear"}`}}}},
	}})
	if err != nil || r.Text != "Sunny." {
		t.Fatalf("reply %q, %v", r.Text, err)
	}
	providertest.JSONEqual(t, f.Requests()[0].Raw["input"], `[
		{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Weather?"}]},
		{"type": "reasoning", "summary": [{"type": "summary_text", "text": "think"}], "encrypted_content": "`+enc+`"},
		{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Checking."}]},
		{"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": "{\"city\":\"Bern\"}"},
		{"type": "function_call_output", "call_id": "call_1", "output": "{\"sky\":\"clear\"}"}
	]`)
	if got := f.Requests()[0].Raw["instructions"]; got == "" || got == nil {
		t.Errorf("instructions %v: the backend requires them", got)
	}
}

// TestCodexErrors: each failure is one line of the right class; the
// plan's usage limit says when it resets and is not retried.
func TestCodexErrors(t *testing.T) {
	reset := time.Now().Add(2*time.Hour + 30*time.Minute)
	tests := []struct {
		name  string
		reply fakellm.Reply
		key   string
		want  error
		text  []string
		// code and event: how the fake reports StreamError.
		code  string
		event bool
		retry time.Duration
	}{
		{"usage limit", fakellm.Reply{Status: 429, LimitResetsAt: reset}, "", sdk.ErrFailedPrecondition,
			[]string{"usage limit of your ChatGPT plus plan", "resets at " + reset.Format("15:04"), "(in 2h30m)"}, "", false, 0},
		{"rate limit", fakellm.Reply{Status: 429, RetryAfter: "7"}, "", sdk.ErrRateLimited, []string{"429"}, "", false, 0},
		{"refused token", fakellm.Reply{}, chatGPTToken("acct-1") + "x", sdk.ErrUnauthenticated, []string{"401", "expired"}, "", false, 0},
		{"wrong account", fakellm.Reply{}, chatGPTToken("acct-2"), sdk.ErrPermissionDenied, []string{"403", "chatgpt-account-id"}, "", false, 0},
		{"failed response", fakellm.Reply{Text: "one two three four", StreamError: "The model crashed"}, "", sdk.ErrUnavailable,
			[]string{"The model crashed", "server_error"}, "", false, 0},
		{"broken event", fakellm.Reply{Text: "one two three four", Malformed: true}, "", sdk.ErrBadResponse, []string{"malformed event"}, "", false, 0},
		{"rate limit event", fakellm.Reply{Text: "one two three four", StreamError: "Rate limit reached. Please try again in 2.5s."}, "", sdk.ErrRateLimited,
			[]string{"Rate limit reached", "(rate_limit_exceeded)"}, "rate_limit_exceeded", true, 2500 * time.Millisecond},
		{"usage limit event", fakellm.Reply{Text: "one two three four", StreamError: "The usage limit has been reached"}, "", sdk.ErrFailedPrecondition,
			[]string{"usage limit"}, "usage_limit_reached", false, 0},
		{"cut short", fakellm.Reply{Text: "one two three four", Truncate: true}, "", sdk.ErrBadResponse, []string{"stream ended"}, "", false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			valid := chatGPTToken("acct-1")
			f := &fakellm.Codex{AccountID: "acct-1", Valid: func(tok string) bool { return tok == valid || tok == chatGPTToken("acct-2") },
				Respond:         func(*fakellm.ChatRequest) fakellm.Reply { return tt.reply },
				StreamErrorCode: tt.code, ErrorEvent: tt.event}
			base := fakellm.StartCodex(t, f)
			p := plugin.Serve(t, base, codexClient(base, cmpOr(tt.key, valid)))
			_, err := plugin.Chat(t, p, provider.ChatRequest{Stream: true})
			providertest.WantError(t, err, tt.want, tt.text...)
			if d, _ := sdk.RetryAfter(err); tt.retry > 0 && d != tt.retry {
				t.Errorf("retry after %v, want %v", d, tt.retry)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("not one line: %q", err)
			}
			if strings.Contains(err.Error(), valid[:20]) {
				t.Errorf("the error shows the token: %v", err)
			}
		})
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// TestCodexIncompleteIsLength: a reply cut by the output limit finishes
// with "length".
func TestCodexIncompleteIsLength(t *testing.T) {
	_, base := codex(t, fakellm.Reply{Text: "partial answer", FinishReason: "length"})
	p := plugin.Serve(t, base, codexClient(base, chatGPTToken("acct-1")))
	r, err := plugin.Chat(t, p, provider.ChatRequest{Stream: true})
	if err != nil || r.Finish != "length" || r.Text != "partial answer" {
		t.Fatalf("%+v, %v", r, err)
	}
}

// TestCodexConformance: in its ChatGPT mode the plugin passes the public
// provider suite, with the fake backend as its upstream.
func TestCodexConformance(t *testing.T) {
	providertest.Suite{
		Info: openai.Info,
		New:  func() provider.Provider { return codexOnly{openai.New()} },
		Upstream: func(t *testing.T, sc providertest.Scenario) provider.ClientConfig {
			reply := scenario.Reply(sc)
			f := &fakellm.Codex{Respond: func(*fakellm.ChatRequest) fakellm.Reply { return reply }}
			base := fakellm.StartCodex(t, f)
			return codexClient(base, "")
		},
		Type:  openai.TypeOpenAI,
		Model: "gpt-5-codex",
	}.Run(t)
}

// codexOnly is the plugin without embeddings and rerank, which the ChatGPT
// backend does not serve.
type codexOnly struct{ *openai.Provider }

func (codexOnly) Embed()  {} // hides Provider.Embed: not a provider.Embedder
func (codexOnly) Rerank() {} // hides Provider.Rerank: not a provider.Reranker

// TestCodexSessionFollowsTheConversation: every request of a conversation
// carries the same session id (and prompt cache key), in this plugin
// process or another; another conversation gets another.
func TestCodexSessionFollowsTheConversation(t *testing.T) {
	f, base := codex(t, fakellm.Reply{Text: "ok"})
	first := provider.TextMessage(provider.RoleUser, "Weather in Bern?")
	convs := [][]provider.Message{
		{first},
		{first, provider.TextMessage(provider.RoleAssistant, "Sunny."), provider.TextMessage(provider.RoleUser, "And tomorrow?")},
		{first},
		{provider.TextMessage(provider.RoleUser, "Something else")},
	}
	for i, msgs := range convs {
		p := plugin.Serve(t, base, codexClient(base, chatGPTToken("acct-1"))) // a new process each time
		if _, err := plugin.Chat(t, p, provider.ChatRequest{Stream: true, Messages: msgs}); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	var ids []string
	for _, r := range f.Requests() {
		id := r.Header.Get("session_id")
		if r.Raw["prompt_cache_key"] != id {
			t.Fatalf("prompt_cache_key %v, session_id %q", r.Raw["prompt_cache_key"], id)
		}
		ids = append(ids, id)
	}
	if ids[0] == "" || ids[0] != ids[1] || ids[0] != ids[2] || ids[3] == ids[0] {
		t.Fatalf("session ids %q: want the first three alike, the last different", ids)
	}
}

// TestCodexWithoutAccountSaysHowToSetIt: a token that names no account
// (and no chatgpt_account_id) gets the backend's refusal with what to set.
func TestCodexWithoutAccountSaysHowToSetIt(t *testing.T) {
	_, base := codex(t, fakellm.Reply{Text: "ok"})
	p := plugin.Serve(t, base, codexClient(base, "opaque-token"))
	_, err := plugin.Chat(t, p, provider.ChatRequest{Stream: true})
	providertest.WantError(t, err, sdk.ErrPermissionDenied, "403", "set chatgpt_account_id on the client")
	if strings.Count(err.Error(), `client "test"`) != 1 {
		t.Errorf("the client is named more than once: %v", err)
	}

	cfg := codexClient(base, "opaque-token")
	cfg.Options["chatgpt_account_id"] = "acct-1"
	p = plugin.Serve(t, base, cfg)
	if r, err := plugin.Chat(t, p, provider.ChatRequest{Stream: true}); err != nil || r.Text != "ok" {
		t.Fatalf("with chatgpt_account_id: %q, %v", r.Text, err)
	}
}

func BenchmarkCodexInProcess2000Chunks(b *testing.B) {
	_, base := codex(b, fakellm.Reply{Text: strings.Repeat("token ", 2000), Chunks: 2000})
	p := openai.New()
	plugin.Configure(b, p, base, codexClient(base, chatGPTToken("acct-1")))
	providertest.BenchChat(b, p, 2000)
}
