package vertexai_test

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/coyote-cli/coyote/internal/fakellm"
	"github.com/coyote-cli/coyote/sdk/provider"
	"github.com/coyote-cli/coyote/sdk/provider/providertest"
)

// Configure opens the connection to the API before the first request
// (while the token is fetched, from another host here as in Google's
// cloud), and the Gemini and Claude requests go over it: the API's
// server sees that connection before any request, and no other.
func TestConfigureOpensTheConnectionTheRequestsUse(t *testing.T) {
	f := &fakellm.Vertex{Gemini: &fakellm.Gemini{Respond: answer("hi")}, Anthropic: &fakellm.Anthropic{Respond: answer("hi")}}
	api, opened, first := providertest.WatchedServer(t, f.Handler())
	token := httptest.NewServer(f.Handler())
	t.Cleanup(token.Close)
	f.Root = token.URL // the token endpoint, in the key's token_uri

	p := plugin.Serve(t, "", provider.ClientConfig{APIBase: api + "/v1", Options: map[string]any{
		"project_id": "coyote-test", "location": "us-central1", "adc_file": credentials(t, f.ServiceAccountKey()),
	}})
	select {
	case <-first:
	case <-time.After(10 * time.Second):
		t.Fatal("Configure opened no connection to the API ahead of the request")
	}
	for _, model := range []string{"gemini-2.5-flash", "claude-sonnet-4-5"} {
		for _, stream := range []bool{true, false} {
			r, err := plugin.Chat(t, p, provider.ChatRequest{Model: model, Stream: stream})
			if err != nil || r.Text != "hi" {
				t.Fatalf("%s: reply %q, %v", model, r.Text, err)
			}
		}
	}
	if n := opened(); n != 1 {
		t.Fatalf("the API's server saw %d connections; the one opened at Configure should have served every request", n)
	}
}
