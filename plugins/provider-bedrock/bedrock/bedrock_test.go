package bedrock_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
	"github.com/coyote-cli/coyote/plugins/provider-bedrock/bedrock"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/plugintest"
	"github.com/coyote-cli/coyote/sdk/provider"
	"github.com/coyote-cli/coyote/sdk/provider/providertest"
)

var plugin = providertest.Plugin{
	Info:  bedrock.Info,
	New:   func() provider.Provider { return bedrock.New() },
	Type:  bedrock.Type,
	Model: "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
}

// serve starts a fake that checks every signature with the test keys and
// a plugin whose client "test" reaches it.
func serve(t *testing.T, respond func(*fakellm.ChatRequest) fakellm.Reply) (*fakellm.Bedrock, provider.Provider) {
	t.Helper()
	f := &fakellm.Bedrock{AccessKeyID: testAccessKey, SecretAccessKey: testSecretKey, Region: testRegion, Respond: respond}
	return f, plugin.Serve(t, fakellm.StartBedrock(t, f), provider.ClientConfig{Options: testOptions()})
}

func text(s string) provider.Part { return provider.Part{Text: s} }

// A session with two tool calls in one assistant turn, signed reasoning
// before them, and the two results in two tool messages followed by a
// question: Converse needs it as alternating turns, the reasoning
// replayed with its signature, the calls as toolUse blocks, and both
// results as toolResult blocks of one user message (the fake refuses
// anything else as the real service does).
func TestToolResultsAreReplayedAsConverseWantsThem(t *testing.T) {
	f, p := serve(t, func(*fakellm.ChatRequest) fakellm.Reply { return fakellm.Reply{Text: "Both done."} })
	history := []provider.Message{
		provider.TextMessage(provider.RoleSystem, "Be brief."),
		provider.TextMessage(provider.RoleUser, "Weather in Paris and Lyon?"),
		{Role: provider.RoleAssistant, Parts: []provider.Part{
			{Reasoning: &provider.Reasoning{Text: "Two cities.", Signature: "c2lnbmVk"}},
			{Reasoning: &provider.Reasoning{Text: "Unsigned, from another provider."}},
			{ToolCall: &provider.ToolCall{ID: "tooluse_a", Name: "get_weather", Arguments: `{"city":"Paris"}`}},
			{ToolCall: &provider.ToolCall{ID: "tooluse_b", Name: "get_weather", Arguments: ""}},
		}},
		{Role: provider.RoleTool, Parts: []provider.Part{{ToolResult: &provider.ToolResult{CallID: "tooluse_a", Name: "get_weather", Content: "sunny"}}}},
		{Role: provider.RoleTool, Parts: []provider.Part{{ToolResult: &provider.ToolResult{CallID: "tooluse_b", Name: "get_weather", Content: "", IsError: true}}}},
		{Role: provider.RoleUser, Parts: []provider.Part{text("  "), text("And tomorrow?")}},
	}
	for _, stream := range []bool{true, false} {
		r, err := plugin.Chat(t, p, provider.ChatRequest{Stream: stream, Messages: history,
			Tools: []provider.Tool{{Name: "get_weather", Parameters: []byte(`{"type":"object"}`)}}})
		if err != nil {
			t.Fatalf("stream %v: %v", stream, err)
		}
		if r.Text != "Both done." || r.Finish != "stop" {
			t.Fatalf("stream %v: text %q finish %q", stream, r.Text, r.Finish)
		}
	}
	got := f.Requests()[0]
	providertest.JSONEqual(t, got.Raw["system"], `[{"text":"Be brief."}]`)
	providertest.JSONEqual(t, got.Messages, `[
		{"role":"user","content":[{"text":"Weather in Paris and Lyon?"}]},
		{"role":"assistant","content":[
			{"reasoningContent":{"reasoningText":{"text":"Two cities.","signature":"c2lnbmVk"}}},
			{"toolUse":{"toolUseId":"tooluse_a","name":"get_weather","input":{"city":"Paris"}}},
			{"toolUse":{"toolUseId":"tooluse_b","name":"get_weather","input":{}}}]},
		{"role":"user","content":[
			{"toolResult":{"toolUseId":"tooluse_a","content":[{"text":"sunny"}]}},
			{"toolResult":{"toolUseId":"tooluse_b","content":[{"text":"(no output)"}],"status":"error"}},
			{"text":"And tomorrow?"}]}]`)
	providertest.JSONEqual(t, got.Tools, `[{"toolSpec":{"name":"get_weather","inputSchema":{"json":{"type":"object"}}}}]`)
}

// Reasoning streams as reasoning, its signature closes it, then the
// text, tool calls (input streamed in pieces), usage and the finish
// reason; the same reply without streaming gives the same events.
func TestReasoningToolCallsAndUsage(t *testing.T) {
	_, p := serve(t, func(*fakellm.ChatRequest) fakellm.Reply {
		return fakellm.Reply{Reasoning: "Let me look it up.", ReasoningSignature: "U0lH", Text: "Checking.",
			ToolCalls: []fakellm.ToolCall{{ID: "tooluse_1", Name: "get_weather", Arguments: `{"city":"Lyon","days":2}`}},
			Usage:     &fakellm.Usage{PromptTokens: 30, CompletionTokens: 12}}
	})
	for _, stream := range []bool{true, false} {
		r, err := plugin.Chat(t, p, provider.ChatRequest{Stream: stream})
		if err != nil {
			t.Fatalf("stream %v: %v", stream, err)
		}
		if r.Reasoning != "Let me look it up." || len(r.Signatures) != 1 || r.Signatures[0] != "U0lH" || r.Text != "Checking." {
			t.Errorf("stream %v: reasoning %q signatures %v text %q", stream, r.Reasoning, r.Signatures, r.Text)
		}
		if len(r.Tools) != 1 || r.Tools[0].ID != "tooluse_1" {
			t.Fatalf("stream %v: tools %+v", stream, r.Tools)
		}
		providertest.JSONEqual(t, json.RawMessage(r.Tools[0].Arguments), `{"city":"Lyon","days":2}`)
		if r.Usage == nil || *r.Usage != (provider.Usage{InputTokens: 30, OutputTokens: 12}) || r.Finish != "tool_calls" {
			t.Errorf("stream %v: usage %+v finish %q", stream, r.Usage, r.Finish)
		}
		if !strings.HasSuffix(r.Kinds, "usage,finish") || !strings.HasPrefix(r.Kinds, "reasoning,signature,text") {
			t.Errorf("stream %v: events %s", stream, r.Kinds)
		}
	}
}

// The effort goes in additionalModelRequestFields, in the shape of the
// model's own API; sampling options in inferenceConfig.
func TestReasoningEffortAndSampling(t *testing.T) {
	tests := []struct {
		model, want string
	}{
		{"us.anthropic.claude-opus-4-6-v1", `{"output_config":{"effort":"high"}}`},
		{"openai.gpt-oss-120b-1:0", `{"reasoning_effort":"high"}`},
	}
	for _, tt := range tests {
		f, p := serve(t, nil)
		temp := 0.3
		if _, err := plugin.Chat(t, p, provider.ChatRequest{Model: tt.model, ReasoningEffort: "high", Temperature: &temp, MaxOutputTokens: 900}); err != nil {
			t.Fatal(err)
		}
		got := f.Requests()[0]
		providertest.JSONEqual(t, got.Raw["additionalModelRequestFields"], tt.want)
		providertest.JSONEqual(t, got.Raw["inferenceConfig"], `{"temperature":0.3,"maxTokens":900}`)
	}
}

// patch: rules change the body, headers and URL before the request is
// signed: the fake checks the signature, so a patch applied after
// signing would fail.
func TestPatchesApplyBeforeSigning(t *testing.T) {
	f, p := serve(t, nil)
	temp := 0.5
	patch := provider.RequestPatch{
		Body:       json.RawMessage(`{"inferenceConfig":{"temperature":null},"additionalModelRequestFields":{"thinking":{"type":"enabled","budget_tokens":1024}}}`),
		SetHeaders: map[string]string{"X-Amzn-Bedrock-Trace": "ENABLED"},
	}
	for _, stream := range []bool{true, false} {
		if _, err := plugin.Chat(t, p, provider.ChatRequest{Stream: stream, Temperature: &temp, Patches: []provider.RequestPatch{patch}}); err != nil {
			t.Fatalf("stream %v: %v", stream, err)
		}
	}
	for _, got := range f.Requests() {
		providertest.JSONEqual(t, got.Raw["additionalModelRequestFields"], `{"thinking":{"type":"enabled","budget_tokens":1024}}`)
		if _, has := got.Raw["inferenceConfig"].(map[string]any)["temperature"]; has || got.Header.Get("X-Amzn-Bedrock-Trace") != "ENABLED" {
			t.Errorf("patch not applied: %v %v", got.Raw["inferenceConfig"], got.Header)
		}
	}
	// A URL patch sends the request elsewhere (another endpoint), signed
	// for where it goes.
	other := &fakellm.Bedrock{AccessKeyID: testAccessKey, SecretAccessKey: testSecretKey, Region: testRegion}
	url := fakellm.StartBedrock(t, other) + "/model/us.amazon.nova-pro-v1:0/converse"
	if _, err := plugin.Chat(t, p, provider.ChatRequest{Patches: []provider.RequestPatch{{URL: url}}}); err != nil {
		t.Fatal(err)
	}
	if got := other.Requests(); len(got) != 1 || got[0].Model != "us.amazon.nova-pro-v1:0" {
		t.Fatalf("the patched URL got %+v", got)
	}
}

// Errors are one line with Bedrock's code, the right sentinel, and what
// to do.
func TestErrors(t *testing.T) {
	tests := []struct {
		name  string
		reply fakellm.Reply
		want  error
		texts []string
	}{
		{"validation", fakellm.Reply{Status: 400, ErrorMessage: "maxTokens exceeds\nthe model's limit"}, sdk.ErrInvalidArgument,
			[]string{"400 Bad Request: ValidationException: maxTokens exceeds the model's limit"}},
		{"unknown model", fakellm.Reply{Status: 404}, sdk.ErrNotFound, []string{"ResourceNotFoundException", `model "us.anthropic.claude-sonnet-4-5-20250929-v1:0"`}},
		{"access denied", fakellm.Reply{Status: 403}, sdk.ErrPermissionDenied, []string{"AccessDeniedException", "bedrock:InvokeModel"}},
		{"throttled", fakellm.Reply{Status: 429, RetryAfter: "7"}, sdk.ErrRateLimited, []string{"ThrottlingException", "(retry after 7s)"}},
		{"mid-stream", fakellm.Reply{Text: "one two three four", StreamError: "model crashed"}, sdk.ErrUnavailable, []string{"ModelStreamErrorException", "model crashed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, p := serve(t, func(*fakellm.ChatRequest) fakellm.Reply { return tt.reply })
			_, err := plugin.Chat(t, p, provider.ChatRequest{Stream: true})
			providertest.WantError(t, err, tt.want, tt.texts...)
			if strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), testSecretKey) {
				t.Errorf("not one line, or shows the secret: %q", err)
			}
		})
	}
}

func TestWrongSecretAndUnreachableEndpoint(t *testing.T) {
	f := &fakellm.Bedrock{AccessKeyID: testAccessKey, SecretAccessKey: testSecretKey, Region: testRegion}
	opts := testOptions()
	opts["secret_access_key"] = "not-the-right-secret-key-000000000000000"
	p := plugin.Serve(t, fakellm.StartBedrock(t, f), provider.ClientConfig{Options: opts})
	_, err := plugin.Chat(t, p, provider.ChatRequest{})
	providertest.WantError(t, err, sdk.ErrUnauthenticated, "InvalidSignatureException", "check access_key_id and secret_access_key")
	if strings.Contains(err.Error(), "not-the-right-secret") {
		t.Errorf("the secret shows: %v", err)
	}

	p = plugin.Serve(t, providertest.Unreachable(t), provider.ClientConfig{Options: testOptions()})
	_, err = plugin.Chat(t, p, provider.ChatRequest{Stream: true})
	providertest.WantError(t, err, sdk.ErrUnavailable, "cannot reach http://127.0.0.1:")
}

// A stream that goes silent fails after extra.read_timeout.
func TestSilentStreamTimesOut(t *testing.T) {
	f := &fakellm.Bedrock{Respond: func(*fakellm.ChatRequest) fakellm.Reply {
		return fakellm.Reply{Text: "one two three", Stall: true}
	}}
	opts := testOptions()
	opts["extra"] = map[string]any{"read_timeout": "200ms"}
	p := plugin.Serve(t, fakellm.StartBedrock(t, f), provider.ClientConfig{Options: opts})
	r, err := plugin.Chat(t, p, provider.ChatRequest{Stream: true})
	providertest.WantError(t, err, sdk.ErrUnavailable, "read timeout")
	if r.Text != "one" {
		t.Errorf("text before the silence %q", r.Text)
	}
}

func TestConfigureRejectsHalfCredentials(t *testing.T) {
	tests := []struct {
		opts map[string]any
		want string
	}{
		{map[string]any{"access_key_id": "AKIA1"}, "access_key_id and secret_access_key go together"},
		{map[string]any{"session_token": "tok"}, "session_token needs access_key_id"},
		{map[string]any{"region": 5.5, "profile": []any{"x"}}, "must be a string"},
	}
	for _, tt := range tests {
		p := plugintest.Provider(t, plugin.Info, plugin.New())
		_, err := p.Configure(context.Background(), &provider.ConfigureRequest{Client: provider.ClientConfig{Name: "b", Type: bedrock.Type, Options: tt.opts}})
		providertest.WantError(t, err, sdk.ErrInvalidArgument, tt.want)
	}
}

// Without a region anywhere, the first request says how to set one.
func TestNoRegion(t *testing.T) {
	t.Setenv("AWS_REGION", "")
	t.Setenv("AWS_DEFAULT_REGION", "")
	opts := testOptions()
	delete(opts, "region")
	p := plugin.Serve(t, providertest.Unreachable(t), provider.ClientConfig{Options: opts})
	_, err := plugin.Chat(t, p, provider.ChatRequest{})
	providertest.WantError(t, err, sdk.ErrInvalidArgument, "no AWS region")
}

// Titan embeds one text a request, with the dimensions asked; Cohere a
// batch, with its input type.
func TestEmbeddings(t *testing.T) {
	f := &fakellm.Bedrock{AccessKeyID: testAccessKey, SecretAccessKey: testSecretKey, Region: testRegion}
	p := plugin.Serve(t, fakellm.StartBedrock(t, f), provider.ClientConfig{Options: testOptions()})
	e := p.(provider.Embedder)
	resp, err := e.Embed(context.Background(), &provider.EmbedRequest{Client: "test", Model: "amazon.titan-embed-text-v2:0", Inputs: []string{"a", "b"}, Dimensions: 256})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Vectors) != 2 || len(resp.Vectors[0]) != 256 {
		t.Fatalf("%d vectors of %d", len(resp.Vectors), len(resp.Vectors[0]))
	}
	if _, err := e.Embed(context.Background(), &provider.EmbedRequest{Client: "test", Model: "cohere.embed-multilingual-v3", Inputs: []string{"q"}, InputType: provider.InputQuery}); err != nil {
		t.Fatal(err)
	}
	calls := f.InvokeRequests()
	if len(calls) != 3 || calls[0].Raw["inputText"] != "a" || calls[0].Raw["dimensions"] != float64(256) || calls[2].Raw["input_type"] != "search_query" {
		t.Fatalf("calls %+v", calls)
	}
}
