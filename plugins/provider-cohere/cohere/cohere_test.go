package cohere_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
	"github.com/coyote-cli/coyote/internal/fakellm/scenario"
	"github.com/coyote-cli/coyote/plugins/provider-cohere/cohere"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/provider"
	"github.com/coyote-cli/coyote/sdk/provider/providertest"
)

const testKey = "co-test-SECRET-0123456789"

var plugin = providertest.Plugin{Info: cohere.Info, New: func() provider.Provider { return cohere.New() },
	Type: cohere.Type, Model: "command-a-03-2025"}

func fake(t testing.TB, respond func(*fakellm.ChatRequest) fakellm.Reply) (*fakellm.Cohere, provider.Provider) {
	f := &fakellm.Cohere{APIKey: testKey, Respond: respond}
	return f, plugin.Serve(t, fakellm.StartCohere(t, f), provider.ClientConfig{APIKey: testKey})
}

func reply(r fakellm.Reply) func(*fakellm.ChatRequest) fakellm.Reply {
	return func(*fakellm.ChatRequest) fakellm.Reply { return r }
}

// TestConformance: the plugin passes the public provider suite, with the
// fake Cohere API as its upstream.
func TestConformance(t *testing.T) {
	providertest.Suite{
		Info: cohere.Info,
		New:  func() provider.Provider { return cohere.New() },
		Upstream: func(t *testing.T, sc providertest.Scenario) provider.ClientConfig {
			r := scenario.Reply(sc)
			f := &fakellm.Cohere{APIKey: testKey, Respond: reply(r),
				RespondEmbed: func([]string) fakellm.Reply { return fakellm.Reply{Status: r.Status, RetryAfter: r.RetryAfter} }}
			return provider.ClientConfig{APIBase: fakellm.StartCohere(t, f), APIKey: testKey}
		},
		Type:           cohere.Type,
		Model:          "command-a-03-2025",
		EmbeddingModel: "embed-v4.0",
		RerankModel:    "rerank-v3.5",
	}.Run(t)
}

// Thinking streams as reasoning before the text; a tool plan as text
// before the calls; both streamed and whole.
func TestReasoningToolPlanAndCalls(t *testing.T) {
	tests := []struct {
		name  string
		reply fakellm.Reply
		kinds string
	}{
		{"thinking then text", fakellm.Reply{Reasoning: "Think it over.", Text: "Coyotes howl."}, "reasoning,text,usage,finish"},
		{"plan then calls", fakellm.Reply{Text: "I will look it up.", ToolCalls: []fakellm.ToolCall{
			{Name: "get_weather", Arguments: `{"city":"Bern"}`}, {Name: "get_time", Arguments: `{}`}}}, "text,tool,usage,finish"},
	}
	for _, tt := range tests {
		for _, stream := range []bool{true, false} {
			t.Run(tt.name, func(t *testing.T) {
				_, p := fake(t, reply(tt.reply))
				r, err := plugin.Chat(t, p, provider.ChatRequest{Stream: stream})
				if err != nil {
					t.Fatal(err)
				}
				if r.Kinds != tt.kinds || r.Text != tt.reply.Text || r.Reasoning != tt.reply.Reasoning {
					t.Fatalf("events %s text %q reasoning %q", r.Kinds, r.Text, r.Reasoning)
				}
				if stream && tt.reply.Reasoning != "" && r.Reasonings < 2 {
					t.Fatalf("thinking came in %d events", r.Reasonings)
				}
				for i, c := range tt.reply.ToolCalls {
					if r.Tools[i].Name != c.Name || r.Tools[i].Arguments != c.Arguments || r.Tools[i].ID == "" {
						t.Fatalf("call %d: %+v", i, r.Tools[i])
					}
				}
			})
		}
	}
}

// The conversation is sent in v2's shape: the system message, the
// assistant's plan, thinking and calls, one tool message per call in the
// calls' order (an unanswered call gets a result saying so), tools,
// thinking and sampling.
func TestRequestBody(t *testing.T) {
	f, p := fake(t, reply(fakellm.Reply{Text: "ok"}))
	temp, topP := 0.2, 0.9
	msgs := []provider.Message{
		provider.TextMessage(provider.RoleSystem, "Be brief."),
		provider.TextMessage(provider.RoleUser, "Weather and time in Bern?"),
		{Role: provider.RoleAssistant, Parts: []provider.Part{
			{Reasoning: &provider.Reasoning{Text: "Two tools."}},
			{Text: "Looking up both."},
			{ToolCall: &provider.ToolCall{ID: "c1", Name: "get_weather", Arguments: `{"city":"Bern"}`}},
			{ToolCall: &provider.ToolCall{ID: "c2", Name: "get_time", Arguments: ``}},
			{ToolCall: &provider.ToolCall{ID: "c3", Name: "get_news", Arguments: `{}`}},
		}},
		{Role: provider.RoleTool, Parts: []provider.Part{
			{ToolResult: &provider.ToolResult{CallID: "c2", Content: "noon"}},
			{ToolResult: &provider.ToolResult{CallID: "c1", Content: `{"sky":"clear"}`, IsError: true}},
		}},
		{Role: provider.RoleUser, Parts: []provider.Part{{Text: "And this?"}, {ImageURL: "https://example.com/a.png"}}},
	}
	_, err := plugin.Chat(t, p, provider.ChatRequest{Messages: msgs, Temperature: &temp, TopP: &topP, MaxOutputTokens: 100,
		ReasoningEffort: "2048", Tools: []provider.Tool{{Name: "get_weather", Parameters: []byte(`{"type":"object","properties":{"city":{"type":"string"}}}`)}, {Name: "get_time"}}})
	if err != nil {
		t.Fatal(err)
	}
	raw := f.Requests()[0].Raw
	if raw["stream"] != false || raw["temperature"] != 0.2 || raw["p"] != 0.9 || raw["max_tokens"] != 100.0 {
		t.Fatalf("sampling: %v", raw)
	}
	providertest.JSONEqual(t, raw["thinking"], `{"type":"enabled","token_budget":2048}`)
	providertest.JSONEqual(t, raw["tools"], `[
		{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}},
		{"type":"function","function":{"name":"get_time","parameters":{"type":"object","properties":{}}}}]`)
	providertest.JSONEqual(t, raw["messages"], `[
		{"role":"system","content":"Be brief."},
		{"role":"user","content":"Weather and time in Bern?"},
		{"role":"assistant","content":[{"type":"thinking","thinking":"Two tools."}],"tool_plan":"Looking up both.","tool_calls":[
			{"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Bern\"}"}},
			{"id":"c2","type":"function","function":{"name":"get_time","arguments":"{}"}},
			{"id":"c3","type":"function","function":{"name":"get_news","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"c1","content":"Error: {\"sky\":\"clear\"}"},
		{"role":"tool","tool_call_id":"c2","content":"noon"},
		{"role":"tool","tool_call_id":"c3","content":"No result: the tool call was interrupted."},
		{"role":"user","content":[{"type":"text","text":"And this?"},{"type":"image_url","image_url":{"url":"https://example.com/a.png"}}]}
	]`)
}

func TestThinkingEffort(t *testing.T) {
	for effort, want := range map[string]string{"none": `{"type":"disabled"}`, "high": `{"type":"enabled"}`, "": `null`} {
		f, p := fake(t, reply(fakellm.Reply{Text: "ok"}))
		if _, err := plugin.Chat(t, p, provider.ChatRequest{ReasoningEffort: effort}); err != nil {
			t.Fatal(err)
		}
		providertest.JSONEqual(t, f.Requests()[0].Raw["thinking"], want)
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name  string
		reply fakellm.Reply
		want  error
		text  string
	}{
		{"bad key", fakellm.Reply{Status: 401}, sdk.ErrUnauthenticated, "invalid api token"},
		{"rate limited", fakellm.Reply{Status: 429, RetryAfter: "7"}, sdk.ErrRateLimited, "retry after 7s"},
		{"stream error", fakellm.Reply{Text: "one two three four", StreamError: "model crashed"}, sdk.ErrUnavailable, "model crashed"},
		{"malformed", fakellm.Reply{Text: "one two three four", Malformed: true}, sdk.ErrBadResponse, "malformed"},
		{"truncated", fakellm.Reply{Text: "one two three four", Truncate: true}, sdk.ErrBadResponse, "ended before"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, p := fake(t, reply(tt.reply))
			_, err := plugin.Chat(t, p, provider.ChatRequest{Stream: true})
			providertest.WantError(t, err, tt.want, tt.text)
			if strings.Contains(err.Error(), testKey) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q", err)
			}
		})
	}
}

func TestPatches(t *testing.T) {
	f, p := fake(t, reply(fakellm.Reply{Text: "ok"}))
	patch := provider.RequestPatch{Body: []byte(`{"safety_mode":"STRICT","p":null}`), SetHeaders: map[string]string{"X-Extra": "1"}}
	top := 0.5
	if _, err := plugin.Chat(t, p, provider.ChatRequest{Stream: true, TopP: &top, Patches: []provider.RequestPatch{patch}}); err != nil {
		t.Fatal(err)
	}
	req := f.Requests()[0]
	if req.Raw["safety_mode"] != "STRICT" || req.Raw["p"] != nil || req.Header.Get("X-Extra") != "1" {
		t.Fatalf("patched request %v %v", req.Raw, req.Header)
	}
}

func TestEmbedBatchesAndInputTypes(t *testing.T) {
	f, p := fake(t, nil)
	inputs := make([]string, 100)
	for i := range inputs {
		inputs[i] = strings.Repeat("y", i+1)
	}
	resp, err := p.(provider.Embedder).Embed(context.Background(), &provider.EmbedRequest{Client: "test", Model: "embed-v4.0", Inputs: inputs, InputType: provider.InputQuery, Dimensions: 256})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Vectors) != 100 || !reflect.DeepEqual(resp.Vectors[99], fakellm.FakeVector(inputs[99], 256)) || resp.Usage.InputTokens == 0 {
		t.Fatalf("%d vectors, usage %+v", len(resp.Vectors), resp.Usage)
	}
	if calls := f.EmbedRequests(); len(calls) != 2 || len(calls[0]) != 96 {
		t.Fatalf("embed calls %d", len(calls))
	}
}

func TestListModels(t *testing.T) {
	_, p := fake(t, nil)
	resp, err := p.ListModels(context.Background(), &provider.ListModelsRequest{Client: "test"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, m := range resp.Models {
		got[m.Name] = m.Type
	}
	want := map[string]string{"command-a-03-2025": provider.ModelChat, "embed-v4.0": provider.ModelEmbedding, "rerank-v3.5": provider.ModelReranker}
	if !reflect.DeepEqual(got, want) || !resp.Models[0].SupportsFunctionCalling {
		t.Fatalf("models %+v", resp.Models)
	}
}

// BenchmarkChatOverGRPC2000Chunks streams a 2,000-chunk reply through the
// plugin over the wire, as the kernel receives it.
func BenchmarkChatOverGRPC2000Chunks(b *testing.B) {
	_, p := fake(b, reply(fakellm.Reply{Text: strings.Repeat("token ", 2000), Chunks: 2000}))
	providertest.BenchChat(b, p, 2000)
}
