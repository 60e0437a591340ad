package claude_test

import (
	"context"
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
	"github.com/coyote-cli/coyote/plugins/provider-claude/claude"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// TestSubscriptionLoginHeaders: with auth: oauth the key is a login's
// access token, sent as a bearer token with the OAuth beta header and no
// x-api-key; without it, the key goes in x-api-key alone.
func TestSubscriptionLoginHeaders(t *testing.T) {
	for _, tc := range []struct {
		name                        string
		options                     map[string]any
		wantKey, wantAuth, wantBeta string
	}{
		{name: "api key", wantKey: "tok"},
		{name: "oauth", options: map[string]any{"auth": "oauth"}, wantAuth: "Bearer tok", wantBeta: claude.OAuthBeta},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakellm.Anthropic{}
			base := fakellm.StartAnthropic(t, f)
			p := claude.New()
			cfg := provider.ClientConfig{Name: "c", Type: claude.Type, APIBase: base, APIKey: "tok", Options: tc.options}
			if _, err := p.Configure(context.Background(), &provider.ConfigureRequest{Client: cfg}); err != nil {
				t.Fatal(err)
			}
			req := &provider.ChatRequest{Client: "c", Model: "claude-sonnet-4-5", Messages: []provider.Message{provider.TextMessage(provider.RoleUser, "hi")}}
			if err := p.Chat(context.Background(), req, func(*provider.ChatEvent) error { return nil }); err != nil {
				t.Fatal(err)
			}
			h := f.Requests()[0].Header
			if h.Get("x-api-key") != tc.wantKey || h.Get("Authorization") != tc.wantAuth || h.Get("anthropic-beta") != tc.wantBeta {
				t.Fatalf("x-api-key %q, authorization %q, anthropic-beta %q", h.Get("x-api-key"), h.Get("Authorization"), h.Get("anthropic-beta"))
			}
		})
	}
}
