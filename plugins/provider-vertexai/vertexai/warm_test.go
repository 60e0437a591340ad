package vertexai_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/coyote-cli/coyote/internal/fakellm"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// Configure opens the connection to the API before the first request
// (while the token is fetched, from another host here as in Google's
// cloud), and the Gemini and Claude requests go over it: the API's
// server sees that connection before any request, and no other.
func TestConfigureOpensTheConnectionTheRequestsUse(t *testing.T) {
	f := &fakellm.Vertex{Gemini: &fakellm.Gemini{Respond: answer("hi")}, Anthropic: &fakellm.Anthropic{Respond: answer("hi")}}
	var mu sync.Mutex
	opened := 0
	first := make(chan struct{})
	api := httptest.NewUnstartedServer(f.Handler())
	api.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s != http.StateNew {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if opened++; opened == 1 {
			close(first)
		}
	}
	api.Start()
	t.Cleanup(api.Close)
	token := httptest.NewServer(f.Handler())
	t.Cleanup(token.Close)
	f.Root = token.URL // the token endpoint, in the key's token_uri

	p := plugin.Serve(t, "", provider.ClientConfig{APIBase: api.URL + "/v1", Options: map[string]any{
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
	mu.Lock()
	defer mu.Unlock()
	if opened != 1 {
		t.Fatalf("the API's server saw %d connections; the one opened at Configure should have served every request", opened)
	}
}
