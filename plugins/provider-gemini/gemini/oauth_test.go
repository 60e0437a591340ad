package gemini_test

import (
	"context"
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
	"github.com/coyote-cli/coyote/plugins/provider-gemini/gemini"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// TestGoogleLoginHeaders: with auth: oauth the key is a Google login's
// access token, sent as a bearer token instead of x-goog-api-key.
func TestGoogleLoginHeaders(t *testing.T) {
	for _, tc := range []struct {
		name              string
		options           map[string]any
		wantKey, wantAuth string
	}{
		{name: "api key", wantKey: "tok"},
		{name: "oauth", options: map[string]any{"auth": "oauth"}, wantAuth: "Bearer tok"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakellm.Gemini{}
			base := fakellm.StartGemini(t, f)
			p := gemini.New()
			cfg := provider.ClientConfig{Name: "c", Type: gemini.Type, APIBase: base, APIKey: "tok", Options: tc.options}
			if _, err := p.Configure(context.Background(), &provider.ConfigureRequest{Client: cfg}); err != nil {
				t.Fatal(err)
			}
			req := &provider.ChatRequest{Client: "c", Model: "gemini-2.5-flash", Messages: []provider.Message{provider.TextMessage(provider.RoleUser, "hi")}}
			if err := p.Chat(context.Background(), req, func(*provider.ChatEvent) error { return nil }); err != nil {
				t.Fatal(err)
			}
			h := f.Requests()[0].Header
			if h.Get("x-goog-api-key") != tc.wantKey || h.Get("Authorization") != tc.wantAuth {
				t.Fatalf("x-goog-api-key %q, authorization %q", h.Get("x-goog-api-key"), h.Get("Authorization"))
			}
		})
	}
}
