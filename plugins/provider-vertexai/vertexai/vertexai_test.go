package vertexai_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
	"github.com/coyote-cli/coyote/internal/fakellm/scenario"
	"github.com/coyote-cli/coyote/plugins/provider-vertexai/vertexai"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/provider"
	"github.com/coyote-cli/coyote/sdk/provider/providertest"
)

var plugin = providertest.Plugin{Info: vertexai.Info, New: func() provider.Provider { return vertexai.New() },
	Type: vertexai.Type, Model: "gemini-2.5-flash"}

// credentials writes a credentials file and returns its path.
func credentials(t testing.TB, data []byte) string {
	path := filepath.Join(t.TempDir(), "adc.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// vertex starts a fake Vertex whose Gemini and Claude answer with respond,
// and returns it with the configuration of a client that reaches it with
// the service account's key.
func vertex(t testing.TB, respond func(*fakellm.ChatRequest) fakellm.Reply) (*fakellm.Vertex, provider.ClientConfig) {
	f := &fakellm.Vertex{Gemini: &fakellm.Gemini{Respond: respond}, Anthropic: &fakellm.Anthropic{Respond: respond}}
	base := fakellm.StartVertex(t, f)
	return f, provider.ClientConfig{APIBase: base, Options: map[string]any{
		"project_id": "coyote-test", "location": "us-central1", "adc_file": credentials(t, f.ServiceAccountKey()),
	}}
}

func answer(text string) func(*fakellm.ChatRequest) fakellm.Reply {
	return func(*fakellm.ChatRequest) fakellm.Reply { return fakellm.Reply{Text: text} }
}

// TestConformance: the plugin passes the public provider suite with Gemini
// models and with Claude models, each through Vertex's own URLs and token.
func TestConformance(t *testing.T) {
	for _, model := range []string{"gemini-2.5-flash", "claude-sonnet-4-5"} {
		t.Run(model, func(t *testing.T) {
			providertest.Suite{
				Info: vertexai.Info,
				New:  func() provider.Provider { return vertexai.New() },
				Upstream: func(t *testing.T, sc providertest.Scenario) provider.ClientConfig {
					reply := scenario.Reply(sc)
					f, cfg := vertex(t, func(*fakellm.ChatRequest) fakellm.Reply { return reply })
					f.RespondEmbed = func([]string) fakellm.Reply {
						return fakellm.Reply{Status: reply.Status, RetryAfter: reply.RetryAfter}
					}
					return cfg
				},
				Type:           vertexai.Type,
				Model:          model,
				EmbeddingModel: "text-embedding-005",
			}.Run(t)
		})
	}
}

// Both kinds of credentials file reach the API with a bearer token from
// the token endpoint, by the grant each requires.
func TestCredentialFiles(t *testing.T) {
	tests := []struct {
		name  string
		file  func(*fakellm.Vertex) []byte
		grant string
	}{
		{"service account key", (*fakellm.Vertex).ServiceAccountKey, "urn:ietf:params:oauth:grant-type:jwt-bearer"},
		{"authorized user", (*fakellm.Vertex).AuthorizedUser, "refresh_token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, cfg := vertex(t, answer("Hi."))
			cfg.Options["adc_file"] = credentials(t, tt.file(f))
			p := plugin.Serve(t, "", cfg)
			for range 2 {
				r, err := plugin.Chat(t, p, provider.ChatRequest{Stream: true})
				if err != nil || r.Text != "Hi." {
					t.Fatalf("chat: %q %v", r.Text, err)
				}
			}
			if g := f.Grants(); !reflect.DeepEqual(g, []string{tt.grant}) {
				t.Fatalf("grants %v, want one %s: the token is reused", g, tt.grant)
			}
			reqs := f.Gemini.Requests()
			if auth := reqs[0].Header.Get("Authorization"); auth != "Bearer ya29.fake-1" {
				t.Fatalf("Authorization %q", auth)
			}
			if ua := reqs[0].Header.Get("User-Agent"); !strings.HasPrefix(ua, "coyote-provider-vertexai/") {
				t.Fatalf("User-Agent %q", ua)
			}
		})
	}
}

// A token Vertex refuses is replaced once, before the reply is read.
func TestRefusedTokenIsRefreshedOnce(t *testing.T) {
	for _, model := range []string{"gemini-2.5-flash", "claude-sonnet-4-5"} {
		t.Run(model, func(t *testing.T) {
			f, cfg := vertex(t, answer("Still here."))
			p := plugin.Serve(t, "", cfg)
			if _, err := plugin.Chat(t, p, provider.ChatRequest{Model: model, Stream: true}); err != nil {
				t.Fatal(err)
			}
			f.RevokeTokens()
			r, err := plugin.Chat(t, p, provider.ChatRequest{Model: model, Stream: true})
			if err != nil || r.Text != "Still here." {
				t.Fatalf("after the revocation: %q %v", r.Text, err)
			}
			if g, d := f.Grants(), f.Denied(); len(g) != 2 || len(d) != 1 || d[0] != "Bearer ya29.fake-1" {
				t.Fatalf("grants %v denied %v, want a second token after one refusal", g, d)
			}
		})
	}
}

// Gemini's request carries the reasoning effort as a thinking level and
// the user's patches; Claude's the Vertex version in its body (the fake
// refuses it otherwise) and the effort.
func TestRequests(t *testing.T) {
	f, cfg := vertex(t, answer("ok"))
	p := plugin.Serve(t, "", cfg)
	patch := provider.RequestPatch{Body: []byte(`{"safetySettings":[{"category":"HARM_CATEGORY_HARASSMENT","threshold":"BLOCK_ONLY_HIGH"}]}`)}
	if _, err := plugin.Chat(t, p, provider.ChatRequest{Stream: true, ReasoningEffort: "low", Patches: []provider.RequestPatch{patch}}); err != nil {
		t.Fatal(err)
	}
	g := f.Gemini.Requests()[0]
	if g.Model != "gemini-2.5-flash" || g.ReasoningEffort != "low" || g.Raw["safetySettings"] == nil {
		t.Fatalf("gemini request: model %q effort %q safety %v", g.Model, g.ReasoningEffort, g.Raw["safetySettings"])
	}
	for _, stream := range []bool{true, false} {
		if _, err := plugin.Chat(t, p, provider.ChatRequest{Model: "claude-opus-4-5@20251101", Stream: stream, ReasoningEffort: "high"}); err != nil {
			t.Fatalf("claude (stream %v): %v", stream, err)
		}
	}
	for _, c := range f.Anthropic.Requests() {
		if c.Model != "claude-opus-4-5@20251101" || c.ReasoningEffort != "high" {
			t.Fatalf("claude request: model %q effort %q", c.Model, c.ReasoningEffort)
		}
	}
}

// The thought signature of a Gemini tool round goes back with the call.
func TestThoughtSignaturesSurviveToolRounds(t *testing.T) {
	const sig = "dmVydGV4LXNpZ25hdHVyZQ=="
	turn := 0
	f, cfg := vertex(t, func(*fakellm.ChatRequest) fakellm.Reply {
		turn++
		if turn == 1 {
			return fakellm.Reply{Reasoning: "Look it up.", ReasoningSignature: sig,
				ToolCalls: []fakellm.ToolCall{{Name: "get_weather", Arguments: `{"city":"Bern"}`}}}
		}
		return fakellm.Reply{Text: "Sunny."}
	})
	p := plugin.Serve(t, "", cfg)
	q := provider.TextMessage(provider.RoleUser, "Weather in Bern?")
	r, err := plugin.Chat(t, p, provider.ChatRequest{Stream: true, Messages: []provider.Message{q}})
	if err != nil || len(r.Tools) != 1 || len(r.Signatures) == 0 {
		t.Fatalf("first round: %+v %v", r, err)
	}
	call := r.Tools[0]
	history := []provider.Message{q,
		{Role: provider.RoleAssistant, Parts: []provider.Part{{Reasoning: &provider.Reasoning{Text: r.Reasoning, Signature: r.Signatures[0]}}, {ToolCall: &call}}},
		{Role: provider.RoleTool, Parts: []provider.Part{{ToolResult: &provider.ToolResult{CallID: call.ID, Content: `{"sky":"clear"}`}}}},
	}
	if r, err = plugin.Chat(t, p, provider.ChatRequest{Stream: true, Messages: history}); err != nil || r.Text != "Sunny." {
		t.Fatalf("second round: %q %v", r.Text, err)
	}
	providertest.JSONEqual(t, f.Gemini.Requests()[1].Messages[1], `{"role":"model","parts":[
		{"text":"Look it up.","thought":true,"thoughtSignature":"`+sig+`"},
		{"functionCall":{"name":"get_weather","args":{"city":"Bern"}},"thoughtSignature":"`+sig+`"}]}`)
}

func TestEmbed(t *testing.T) {
	f, cfg := vertex(t, answer(""))
	p := plugin.Serve(t, "", cfg)
	inputs := make([]string, 260)
	for i := range inputs {
		inputs[i] = strings.Repeat("x", i+1)
	}
	resp, err := p.(provider.Embedder).Embed(context.Background(), &provider.EmbedRequest{Client: "test", Model: "text-embedding-005",
		Inputs: inputs, InputType: provider.InputQuery, Dimensions: 64})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Vectors) != 260 || len(resp.Vectors[0]) != 64 || !reflect.DeepEqual(resp.Vectors[259], fakellm.FakeVector(inputs[259], 64)) {
		t.Fatalf("%d vectors of %d", len(resp.Vectors), len(resp.Vectors[0]))
	}
	if calls := f.EmbedRequests(); len(calls) != 2 || len(calls[0]) != 250 || len(calls[1]) != 10 {
		t.Fatalf("predict calls of %d texts", len(calls))
	}
	if resp.Usage == nil || resp.Usage.InputTokens == 0 {
		t.Fatalf("usage %+v", resp.Usage)
	}
}

func TestConfigureErrors(t *testing.T) {
	notCreds := credentials(t, []byte(`{"hello":"world"}`))
	tests := []struct {
		name string
		opts map[string]any
		want string
	}{
		{"no project", map[string]any{"location": "us-central1"}, "set project_id and location"},
		{"no location", map[string]any{"project_id": "p"}, "set project_id and location"},
		{"missing adc file", map[string]any{"project_id": "p", "location": "l", "adc_file": "/nonexistent/adc.json"}, "adc_file: /nonexistent/adc.json"},
		{"not a credentials file", map[string]any{"project_id": "p", "location": "l", "adc_file": notCreds}, "is not a Google credentials file"},
		{"project not a string", map[string]any{"project_id": 7, "location": "l"}, "project_id must be a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := vertexai.New().Configure(context.Background(), &provider.ConfigureRequest{Client: provider.ClientConfig{
				Name: "v", Type: vertexai.Type, Options: tt.opts}})
			providertest.WantError(t, err, sdk.ErrInvalidArgument, tt.want)
		})
	}
}

// Credentials the token endpoint refuses are one line naming the file and
// what to do, as an authentication error.
func TestRefusedCredentials(t *testing.T) {
	other := &fakellm.Vertex{}
	fakellm.StartVertex(t, other)
	f, cfg := vertex(t, answer("never"))
	// Another service account's key, sent to this fake's endpoint.
	key := strings.Replace(string(other.ServiceAccountKey()), other.TokenURL(), f.TokenURL(), 1)
	cfg.Options["adc_file"] = credentials(t, []byte(key))
	p := plugin.Serve(t, "", cfg)
	_, err := plugin.Chat(t, p, provider.ChatRequest{Stream: true})
	providertest.WantError(t, err, sdk.ErrUnauthenticated, "adc_file", "invalid_grant", "gcloud auth application-default login")
	if strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "PRIVATE KEY") {
		t.Fatalf("error %q", err)
	}
	if len(f.Gemini.Requests()) != 0 {
		t.Fatal("a request went out without a token")
	}
}

func TestDefaultAPIBase(t *testing.T) {
	for loc, want := range map[string]string{"us-central1": "https://us-central1-aiplatform.googleapis.com/v1", "global": "https://aiplatform.googleapis.com/v1"} {
		resp, err := vertexai.New().Configure(context.Background(), &provider.ConfigureRequest{Client: provider.ClientConfig{
			Name: "v", Type: vertexai.Type, Options: map[string]any{"project_id": "p", "location": loc}}})
		if err != nil || resp.APIBase != want {
			t.Fatalf("%s: %v %v", loc, resp, err)
		}
	}
}

// Mistral's models on Vertex are refused in one line, not sent to Google.
func TestMistralModelsAreUnsupported(t *testing.T) {
	f, cfg := vertex(t, answer("never"))
	p := plugin.Serve(t, "", cfg)
	_, err := plugin.Chat(t, p, provider.ChatRequest{Model: "codestral-2501", Stream: true})
	providertest.WantError(t, err, sdk.ErrUnsupported, "codestral-2501", "Mistral")
	if len(f.Gemini.Requests()) != 0 {
		t.Fatal("a request went out")
	}
}

// Without adc_file the plugin finds Application Default Credentials:
// here the file GOOGLE_APPLICATION_CREDENTIALS names.
func TestDefaultCredentials(t *testing.T) {
	f, cfg := vertex(t, answer("Found them."))
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", cfg.Options["adc_file"].(string))
	delete(cfg.Options, "adc_file")
	p := plugin.Serve(t, "", cfg)
	r, err := plugin.Chat(t, p, provider.ChatRequest{Stream: true})
	if err != nil || r.Text != "Found them." || len(f.Grants()) != 1 {
		t.Fatalf("%q %v, grants %v", r.Text, err, f.Grants())
	}
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", filepath.Join(t.TempDir(), "missing.json"))
	p = plugin.Serve(t, "", cfg)
	_, err = plugin.Chat(t, p, provider.ChatRequest{Stream: true})
	providertest.WantError(t, err, sdk.ErrUnauthenticated, "no Google credentials", "adc_file")
}
