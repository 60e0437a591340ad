package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/internal/fakeauth"
	"github.com/coyote-cli/coyote/internal/fakellm"
)

// loginEnv is an environment whose client "acme" logs in with OAuth (PKCE,
// localhost callback) at the fake authorization server, and whose API
// accepts only the access tokens that server issued. Its "browser" is a
// script that follows the authorization redirects back to coyote.
func loginEnv(t *testing.T, srv *fakeauth.Server, extraClients string) (*env, *fakellm.OpenAI) {
	t.Helper()
	api := &fakellm.OpenAI{Respond: func(req *fakellm.ChatRequest) fakellm.Reply {
		if !srv.Valid(strings.TrimPrefix(req.Authorization, "Bearer ")) {
			return fakellm.Reply{Status: 401, ErrorMessage: "invalid or expired token"}
		}
		return fakellm.Reply{Text: "Hello, subscriber."}
	}}
	url := fakellm.StartOpenAI(t, api)
	cfg := fmt.Sprintf(`model: acme:m
clients:
  - type: openai-compatible
    name: acme
    api_base: %s
    models: [{name: m}]
    auth: oauth
    oauth:
      flow: pkce
      client_id: %s
      authorize_url: %s
      token_url: %s
%s`, url, srv.ClientID, srv.AuthorizeURL(), srv.TokenURL(), extraClients)
	e := newEnv(t, cfg)
	browser := filepath.Join(t.TempDir(), "browser")
	if err := os.WriteFile(browser, []byte("#!/bin/sh\nexec curl -sSL -o /dev/null \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return e.set("BROWSER=" + browser), api
}

// TestSubscriptionLogin: a client with auth: oauth says how to log in
// until it is; --authenticate runs the browser login and caches the token
// (0600); requests carry it; a token the API refuses is refreshed once
// and the request sent again; no token reaches the log.
func TestSubscriptionLogin(t *testing.T) {
	srv := (&fakeauth.Server{ClientID: "coyote-test", ExpiresIn: 3600}).Start(t)
	e, api := loginEnv(t, srv, "")

	line := oneLineError(t, e.run("", "hello"))
	if !strings.Contains(line, `client "acme" uses auth: oauth and is not logged in: run coyote --authenticate acme`) {
		t.Fatalf("before the login: %q", line)
	}

	r := e.run("", "--authenticate", "acme")
	e.mustSucceed(r)
	if !strings.Contains(r.stderr, "Logged in: client acme") || !strings.Contains(r.stderr, srv.AuthorizeURL()) {
		t.Fatalf("--authenticate said %q", r.stderr)
	}
	tokens := filepath.Join(e.cacheDir, "oauth", "acme_oauth_tokens.json")
	st, err := os.Stat(tokens)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v, %v", st, err)
	}

	r = e.run("", "hello")
	e.mustSucceed(r)
	if r.stdout != "Hello, subscriber.\n" {
		t.Fatalf("stdout %q", r.stdout)
	}

	// The API stops taking the token: one refresh, one more request.
	srv.RevokeAccess()
	r = e.run("", "hello")
	e.mustSucceed(r)
	if r.stdout != "Hello, subscriber.\n" || srv.Grants()["refresh_token"] != 1 {
		t.Fatalf("after revocation: stdout %q, grants %v", r.stdout, srv.Grants())
	}
	reqs := api.Requests()
	// None before the login; then one answered, one refused, the same
	// one again with the refreshed token.
	if n := len(reqs); n != 3 || reqs[1].Authorization == reqs[2].Authorization {
		t.Fatalf("%d chat requests, want 3 (answered, refused, answered with a new token)", n)
	}

	// No token in the log.
	log := e.log()
	data, _ := os.ReadFile(tokens)
	for _, secret := range []string{"access-", "refresh-"} {
		if strings.Contains(log, secret) {
			t.Errorf("the log holds a token (%s…):\n%s", secret, log)
		}
	}
	if !strings.Contains(string(data), "refresh-") {
		t.Fatalf("token file %s", data)
	}
}

// TestAuthenticatePicker: without a name, the only OAuth client is logged
// in; with several, a run without a terminal is refused in one line that
// says what to do; a client that does not use OAuth is named as such.
func TestAuthenticatePicker(t *testing.T) {
	srv := (&fakeauth.Server{ClientID: "coyote-test"}).Start(t)
	e, _ := loginEnv(t, srv, "")
	e.mustSucceed(e.run("", "--authenticate"))
	if srv.Grants()["authorization_code"] != 1 {
		t.Fatalf("grants %v", srv.Grants())
	}

	two, _ := loginEnv(t, srv, `  - type: openai-compatible
    name: other
    api_base: http://127.0.0.1:9/v1
    auth: oauth
    oauth: {flow: device_code, client_id: x, device_authorization_url: http://127.0.0.1:9/d, token_url: http://127.0.0.1:9/t}
  - type: openai
    name: keyed
    api_key: sk-x
`)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--authenticate"}, "several clients log in with OAuth (acme, other): name one, as in coyote --authenticate acme (choosing needs a terminal)"},
		{[]string{"--authenticate", "keyed"}, `client "keyed" does not log in with OAuth: set ` + "`auth: oauth`" + ` on it in config.yaml`},
		{[]string{"--authenticate", "nobody"}, `there is no client named "nobody"; the clients that log in with OAuth are: acme, other`},
	} {
		line := oneLineError(t, two.run("", tc.args...))
		if !strings.Contains(line, tc.want) {
			t.Errorf("%v: %q\nwant %q", tc.args, line, tc.want)
		}
	}
}

// TestAzureEntraToken: an azure-openai client with auth: oauth and a
// service principal gets its Entra token by client credentials, with no
// login step, and sends it as a bearer token.
func TestAzureEntraToken(t *testing.T) {
	srv := (&fakeauth.Server{ClientID: "sp-id", ClientSecret: "sp-secret", ExpiresIn: 3600}).Start(t)
	az := &fakellm.Azure{Token: "access-1", Deployments: []string{"gpt-4o"}}
	url := fakellm.StartAzure(t, az)
	cfg := fmt.Sprintf(`model: azure-openai:gpt-4o
clients:
  - type: azure-openai
    api_base: %s
    models: [{name: gpt-4o}]
    auth: oauth
    oauth:
      tenant_id: my-tenant
      client_id: sp-id
      client_secret: sp-secret
      token_url: %s
`, url, srv.TokenURL())
	e := newEnv(t, cfg)
	r := e.run("", "hello")
	e.mustSucceed(r)
	if r.stdout != fakellm.DefaultText+"\n" {
		t.Fatalf("stdout %q", r.stdout)
	}
	c := az.Calls()[0]
	if c.Header.Get("Authorization") != "Bearer access-1" || c.Header.Get("api-key") != "" {
		t.Fatalf("headers %v", c.Header)
	}
	if g := srv.Grants(); g["client_credentials"] != 1 {
		t.Fatalf("grants %v", g)
	}
	req := srv.Requests()[0]
	if req.Params["scope"] != "https://cognitiveservices.azure.com/.default" {
		t.Fatalf("scope %q", req.Params["scope"])
	}
}
