package openai_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
	"github.com/coyote-cli/coyote/internal/fakellm/scenario"
	"github.com/coyote-cli/coyote/plugins/provider-openai/openai"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/provider"
	"github.com/coyote-cli/coyote/sdk/provider/providertest"
)

// azureOnly is the plugin as an azure-openai client sees it: Azure has no
// rerank API, so the suite's rerank check does not apply.
type azureOnly struct {
	*openai.Provider
}

func (azureOnly) Rerank() {} // hides Provider.Rerank: not a provider.Reranker

// TestAzureConformance: the azure-openai mode passes the public provider
// suite against the fake Azure resource (deployment paths, api-version,
// api-key header).
func TestAzureConformance(t *testing.T) {
	providertest.Suite{
		Info: openai.Info,
		New:  func() provider.Provider { return azureOnly{openai.New()} },
		Upstream: func(t *testing.T, sc providertest.Scenario) provider.ClientConfig {
			reply := scenario.Reply(sc)
			errorOnly := fakellm.Reply{Status: reply.Status, RetryAfter: reply.RetryAfter}
			f := &fakellm.Azure{
				APIKey:     testKey,
				APIVersion: openai.DefaultAzureAPIVersion,
				OpenAI: &fakellm.OpenAI{
					Respond:      func(*fakellm.ChatRequest) fakellm.Reply { return reply },
					RespondEmbed: func(*fakellm.EmbedCall) fakellm.Reply { return errorOnly },
				},
			}
			return provider.ClientConfig{APIBase: fakellm.StartAzure(t, f), APIKey: testKey}
		},
		Type:           openai.TypeAzureOpenAI,
		Model:          "my-gpt-4o",
		EmbeddingModel: "my-embedding-deployment",
	}.Run(t)
}

// TestAzureRequests: what reaches Azure for each way of configuring a
// client — the deployment in the path, the api-version in the query, and
// the credential in the header Azure expects for it.
func TestAzureRequests(t *testing.T) {
	for _, tc := range []struct {
		name       string
		base       string // appended to the fake's URL
		options    map[string]any
		key        string
		wantKey    string // the api-key header
		wantAuth   string // the Authorization header
		wantVer    string
		deployment string
	}{
		{name: "api key", key: "azure-key-1", wantKey: "azure-key-1", wantVer: openai.DefaultAzureAPIVersion, deployment: "gpt-4o"},
		{name: "api_version option", key: "azure-key-1", options: map[string]any{"api_version": "2025-01-01-preview"}, wantKey: "azure-key-1", wantVer: "2025-01-01-preview", deployment: "gpt-4o"},
		{name: "endpoint with /openai/", base: "/openai/", key: "azure-key-1", wantKey: "azure-key-1", wantVer: openai.DefaultAzureAPIVersion, deployment: "gpt-4o"},
		{name: "entra token", key: "entra-token", options: map[string]any{"auth": "oauth"}, wantAuth: "Bearer entra-token", wantVer: openai.DefaultAzureAPIVersion, deployment: "gpt-4o"},
		{name: "deployment name escaped", key: "azure-key-1", wantKey: "azure-key-1", wantVer: openai.DefaultAzureAPIVersion, deployment: "team a/4o"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakellm.Azure{APIKey: "azure-key-1", Token: "entra-token", APIVersion: tc.wantVer}
			base := fakellm.StartAzure(t, f) + tc.base
			p := openai.New()
			cfg := provider.ClientConfig{Name: "az", Type: openai.TypeAzureOpenAI, APIBase: base, APIKey: tc.key, Options: tc.options}
			if _, err := p.Configure(context.Background(), &provider.ConfigureRequest{Client: cfg}); err != nil {
				t.Fatalf("Configure: %v", err)
			}
			req := &provider.ChatRequest{Client: "az", Model: tc.deployment, Stream: true, Messages: []provider.Message{provider.TextMessage(provider.RoleUser, "hi")}}
			var text strings.Builder
			err := p.Chat(context.Background(), req, func(ev *provider.ChatEvent) error { text.WriteString(ev.Text); return nil })
			if err != nil {
				t.Fatalf("Chat: %v", err)
			}
			if text.String() != fakellm.DefaultText {
				t.Errorf("text %q, want %q", text.String(), fakellm.DefaultText)
			}
			calls := f.Calls()
			if len(calls) != 1 {
				t.Fatalf("%d calls, want 1", len(calls))
			}
			c := calls[0]
			if c.Deployment != tc.deployment {
				t.Errorf("deployment %q, want %q", c.Deployment, tc.deployment)
			}
			if !strings.HasSuffix(c.Path, "/chat/completions") || !strings.HasPrefix(c.Path, "/openai/deployments/") {
				t.Errorf("path %q", c.Path)
			}
			if c.APIVersion != tc.wantVer {
				t.Errorf("api-version %q, want %q", c.APIVersion, tc.wantVer)
			}
			if got := c.Header.Get("api-key"); got != tc.wantKey {
				t.Errorf("api-key header %q, want %q", got, tc.wantKey)
			}
			if got := c.Header.Get("Authorization"); got != tc.wantAuth {
				t.Errorf("Authorization header %q, want %q", got, tc.wantAuth)
			}
		})
	}
}

// TestAzureErrors: the lines a user sees when an azure-openai client is
// misconfigured.
func TestAzureErrors(t *testing.T) {
	f := &fakellm.Azure{APIKey: "azure-key-1", Deployments: []string{"gpt-4o"}}
	base := fakellm.StartAzure(t, f)
	for _, tc := range []struct {
		name    string
		cfg     provider.ClientConfig
		model   string
		kind    error
		wantMsg string
	}{
		{name: "no api_base", cfg: provider.ClientConfig{APIKey: "k"}, kind: sdk.ErrInvalidArgument,
			wantMsg: `azure-openai client "az": type azure-openai needs your resource's endpoint: set api_base to https://<resource>.openai.azure.com`},
		{name: "bad api_version", cfg: provider.ClientConfig{APIBase: base, APIKey: "k", Options: map[string]any{"api_version": 7}}, kind: sdk.ErrInvalidArgument,
			wantMsg: "api_version must be a version string"},
		{name: "wrong key", cfg: provider.ClientConfig{APIBase: base, APIKey: "wrong"}, model: "gpt-4o", kind: sdk.ErrUnauthenticated,
			wantMsg: "Access denied due to invalid subscription key"},
		{name: "unknown deployment", cfg: provider.ClientConfig{APIBase: base, APIKey: "azure-key-1"}, model: "gpt-5", kind: sdk.ErrNotFound,
			wantMsg: `deployment "gpt-5" not found (an azure-openai client's models are the names of your deployments)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := openai.New()
			tc.cfg.Name, tc.cfg.Type = "az", openai.TypeAzureOpenAI
			_, err := p.Configure(context.Background(), &provider.ConfigureRequest{Client: tc.cfg})
			if err == nil {
				req := &provider.ChatRequest{Client: "az", Model: tc.model, Messages: []provider.Message{provider.TextMessage(provider.RoleUser, "hi")}}
				err = p.Chat(context.Background(), req, func(*provider.ChatEvent) error { return nil })
			}
			if !errors.Is(err, tc.kind) || err == nil || !strings.Contains(err.Error(), tc.wantMsg) {
				t.Fatalf("err = %v, want %v containing %q", err, tc.kind, tc.wantMsg)
			}
		})
	}
	p := openai.New()
	if _, err := p.Configure(context.Background(), &provider.ConfigureRequest{Client: provider.ClientConfig{Name: "az", Type: openai.TypeAzureOpenAI, APIBase: base, APIKey: "k"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Rerank(context.Background(), &provider.RerankRequest{Client: "az", Model: "m", Query: "q", Documents: []string{"d"}}); !errors.Is(err, sdk.ErrUnsupported) {
		t.Errorf("Rerank: %v, want sdk.ErrUnsupported", err)
	}
	if _, err := p.ListModels(context.Background(), &provider.ListModelsRequest{Client: "az"}); !errors.Is(err, sdk.ErrUnsupported) {
		t.Errorf("ListModels: %v, want sdk.ErrUnsupported", err)
	}
}
