package bedrock_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coyote-cli/coyote/internal/fakellm"
	"github.com/coyote-cli/coyote/sdk/plugintest"
	"github.com/coyote-cli/coyote/sdk/provider"
	"github.com/coyote-cli/coyote/sdk/provider/providertest"
)

// Configure opens the connection to Bedrock before the first request,
// and the AWS client sends that request over it: the server sees the
// connection before any request, and no other.
func TestConfigureOpensTheConnectionTheFirstRequestUses(t *testing.T) {
	f := &fakellm.Bedrock{AccessKeyID: testAccessKey, SecretAccessKey: testSecretKey, Region: testRegion}
	url, opened, first := providertest.WatchedServer(t, f.Handler())

	p := plugin.Serve(t, url, provider.ClientConfig{Options: testOptions()})
	select {
	case <-first:
	case <-time.After(10 * time.Second):
		t.Fatal("Configure opened no connection ahead of the request")
	}
	if len(f.Requests()) != 0 {
		t.Fatal("a request was sent before the chat")
	}
	for _, stream := range []bool{true, false} {
		r, err := plugin.Chat(t, p, provider.ChatRequest{Stream: stream})
		if err != nil || r.Text != fakellm.BedrockText {
			t.Fatalf("reply %q, %v", r.Text, err)
		}
	}
	if n := opened(); n != 1 {
		t.Fatalf("the server saw %d connections; the one opened at Configure should have served both requests", n)
	}
}

// A client without keys of its own finds its credentials through the AWS
// chain as soon as it is configured, and its first request signs with
// them without asking again: here the chain ends at the container
// credentials endpoint (the files name no keys, the instance endpoint is
// off), which the test serves and counts.
func TestConfigureFetchesTheChainsCredentialsAhead(t *testing.T) {
	const token = "fake-session-token-from-the-container"
	var asked atomic.Int32
	fetched := make(chan struct{}, 1)
	creds := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"AccessKeyId":"` + testAccessKey + `","SecretAccessKey":"` + testSecretKey +
			`","Token":"` + token + `","Expiration":"` + time.Now().Add(time.Hour).UTC().Format(time.RFC3339) + `"}`))
		select {
		case fetched <- struct{}{}:
		default:
		}
	}))
	t.Cleanup(creds.Close)
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "AWS_SESSION_TOKEN": "",
		"AWS_PROFILE": "", "AWS_DEFAULT_PROFILE": "", "AWS_CONFIG_FILE": empty, "AWS_SHARED_CREDENTIALS_FILE": empty,
		"AWS_WEB_IDENTITY_TOKEN_FILE": "", "AWS_ROLE_ARN": "",
		"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "", "AWS_CONTAINER_CREDENTIALS_FULL_URI": creds.URL + "/creds",
		"AWS_CONTAINER_AUTHORIZATION_TOKEN": "", "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE": "",
		"AWS_EC2_METADATA_DISABLED": "true",
	} {
		t.Setenv(k, v)
	}
	f := &fakellm.Bedrock{AccessKeyID: testAccessKey, SecretAccessKey: testSecretKey, SessionToken: token, Region: testRegion}
	p := plugintest.Provider(t, plugin.Info, plugin.New())
	plugin.Configure(t, p, fakellm.StartBedrock(t, f), provider.ClientConfig{Options: map[string]any{"region": testRegion}})
	select {
	case <-fetched:
	case <-time.After(10 * time.Second):
		t.Fatal("Configure did not fetch the credentials ahead of the request")
	}
	if len(f.Requests()) != 0 {
		t.Fatal("a request was sent before the chat")
	}
	r, err := plugin.Chat(t, p, provider.ChatRequest{Stream: true})
	if err != nil || r.Text != fakellm.BedrockText {
		t.Fatalf("reply %q, %v", r.Text, err)
	}
	if n := asked.Load(); n != 1 {
		t.Fatalf("the credentials endpoint was asked %d times; the request should have used what Configure fetched", n)
	}
}
