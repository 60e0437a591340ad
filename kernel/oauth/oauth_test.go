package oauth_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coyote-cli/coyote/internal/fakeauth"
	"github.com/coyote-cli/coyote/kernel/oauth"
)

// browser stands in for the user's browser: it follows the URL the login
// opens (redirects included, to the login's localhost callback) and keeps
// the last page's text, which a paste-back login shows the code on.
type browser struct {
	t      *testing.T
	opened []string
	page   string
}

func (b *browser) open(u string) bool {
	b.opened = append(b.opened, u)
	resp, err := http.Get(u)
	if err != nil {
		b.t.Errorf("browser: %v", err)
		return true
	}
	defer func() { _ = resp.Body.Close() }()
	data, _ := io.ReadAll(resp.Body)
	b.page = string(data)
	return true
}

func noWait(ctx context.Context, _ time.Duration) error { return ctx.Err() }

// login makes a Login of client "c" against the fake, with over laid
// over the fake's endpoints.
func login(t *testing.T, srv *fakeauth.Server, b *browser, over map[string]any) *oauth.Login {
	t.Helper()
	block := map[string]any{
		"client_id":                srv.ClientID,
		"authorize_url":            srv.AuthorizeURL(),
		"token_url":                srv.TokenURL(),
		"device_authorization_url": srv.DeviceURL(),
	}
	if srv.ClientSecret != "" {
		block["client_secret"] = srv.ClientSecret
	}
	for k, v := range over {
		block[k] = v
	}
	p, err := oauth.ForClient("openai-compatible", "c", block)
	if err != nil {
		t.Fatalf("ForClient: %v", err)
	}
	l := &oauth.Login{Client: "c", Provider: p, Dir: filepath.Join(t.TempDir(), "oauth"), Open: b.open, Out: &bytes.Buffer{}, Wait: noWait}
	l.ReadCode = func(string) (string, error) { return b.page, nil }
	return l
}

// TestFlows logs in with each flow against the fake authorization server
// (the browser step driven by the test) and checks the token that is
// cached and what the server was sent.
func TestFlows(t *testing.T) {
	for _, tc := range []struct {
		name   string
		srv    *fakeauth.Server
		over   map[string]any
		grant  string
		opened int
	}{
		{name: "pkce localhost callback", srv: &fakeauth.Server{ClientID: "cli"}, over: map[string]any{"flow": "pkce"}, grant: "authorization_code", opened: 1},
		{name: "pkce fixed port and path", srv: &fakeauth.Server{ClientID: "cli"}, over: map[string]any{"flow": "pkce", "redirect_path": "/auth/callback"}, grant: "authorization_code", opened: 1},
		{name: "pkce paste-back, JSON, state", srv: &fakeauth.Server{ClientID: "cli", JSON: true, RequireState: true},
			over: map[string]any{"flow": "pkce", "token_request_format": "json", "state_in_token_request": true}, grant: "authorization_code", opened: 1},
		{name: "device code", srv: &fakeauth.Server{ClientID: "cli", PendingPolls: 2}, over: map[string]any{"flow": "device_code"}, grant: "urn:ietf:params:oauth:grant-type:device_code", opened: 1},
		{name: "device code with pkce", srv: &fakeauth.Server{ClientID: "cli"}, over: map[string]any{"flow": "device_code", "use_pkce_in_device_flow": true}, grant: "urn:ietf:params:oauth:grant-type:device_code", opened: 1},
		{name: "client credentials", srv: &fakeauth.Server{ClientID: "svc", ClientSecret: "s3cret"}, over: map[string]any{"flow": "client_credentials", "scopes": []any{"api"}}, grant: "client_credentials", opened: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := tc.srv.Start(t)
			b := &browser{t: t}
			if strings.Contains(tc.name, "paste-back") {
				tc.over["redirect_uri"] = srv.PasteBackURL()
			}
			l := login(t, srv, b, tc.over)
			if err := l.Authenticate(context.Background()); err != nil {
				t.Fatalf("Authenticate: %v", err)
			}
			if len(b.opened) != tc.opened {
				t.Errorf("opened %d URLs, want %d", len(b.opened), tc.opened)
			}
			// A device login polls until approved, then as often as the
			// server still says it is pending.
			if got, want := srv.Grants()[tc.grant], 1+tc.srv.PendingPolls; got != want {
				t.Errorf("grants %v, want %d %s", srv.Grants(), want, tc.grant)
			}
			tok, err := l.Token(context.Background(), false)
			if err != nil || !srv.Valid(tok) {
				t.Fatalf("Token = %q, %v; want a token the server issued", tok, err)
			}
			st, err := os.Stat(l.Path())
			if err != nil {
				t.Fatal(err)
			}
			if st.Mode().Perm() != 0o600 {
				t.Errorf("token file mode %v, want 0600", st.Mode().Perm())
			}
			if filepath.Base(l.Path()) != "c_oauth_tokens.json" {
				t.Errorf("token file %s", l.Path())
			}
			// Another process (a new Login) reads the cached token.
			again := &oauth.Login{Client: "c", Provider: l.Provider, Dir: l.Dir}
			if tok2, err := again.Token(context.Background(), false); err != nil || tok2 != tok {
				t.Errorf("a second Login read %q, %v; want the cached %q", tok2, err, tok)
			}
		})
	}
}

// TestRefresh: a token close to its expiry is refreshed before use; force
// refreshes a token the provider refused; a revoked refresh token asks
// the user to log in again; client credentials fetch a new token.
func TestRefresh(t *testing.T) {
	srv := (&fakeauth.Server{ClientID: "cli", ExpiresIn: 3600}).Start(t)
	b := &browser{t: t}
	l := login(t, srv, b, map[string]any{"flow": "pkce"})
	now := time.Now()
	l.Now = func() time.Time { return now }
	if err := l.Authenticate(context.Background()); err != nil {
		t.Fatal(err)
	}
	first, _ := l.Token(context.Background(), false)

	// Valid for long enough: no request.
	now = now.Add(30 * time.Minute)
	if tok, _ := l.Token(context.Background(), false); tok != first || srv.Grants()["refresh_token"] != 0 {
		t.Fatalf("a fresh token was refreshed: %q, grants %v", tok, srv.Grants())
	}
	// Within the margin before expiry: refreshed.
	now = now.Add(29 * time.Minute)
	second, err := l.Token(context.Background(), false)
	if err != nil || second == first || !srv.Valid(second) || srv.Grants()["refresh_token"] != 1 {
		t.Fatalf("near expiry: %q, %v, grants %v", second, err, srv.Grants())
	}
	// Refused by the API (revoked): force refreshes it.
	srv.RevokeAccess()
	third, err := l.Token(context.Background(), true)
	if err != nil || third == second || !srv.Valid(third) {
		t.Fatalf("forced: %q, %v", third, err)
	}
	// The refreshed token was saved: a new process uses it.
	var saved oauth.Token
	data, _ := os.ReadFile(l.Path())
	if err := json.Unmarshal(data, &saved); err != nil || saved.AccessToken != third {
		t.Fatalf("saved %+v, %v", saved, err)
	}
	// The refresh token revoked: log in again, said in one line.
	srv.RevokeRefresh()
	_, err = l.Token(context.Background(), true)
	if !errors.Is(err, oauth.ErrNotLoggedIn) || !strings.Contains(err.Error(), "coyote --authenticate c") || strings.Contains(err.Error(), "refresh-") {
		t.Fatalf("revoked: %v", err)
	}
}

// TestRefreshRaceBetweenProcesses: when another coyote refreshed first and
// the provider rotated the refresh token, the login uses the token that
// coyote saved instead of asking the user to log in again.
func TestRefreshRaceBetweenProcesses(t *testing.T) {
	srv := (&fakeauth.Server{ClientID: "cli", ExpiresIn: 3600}).Start(t)
	a := login(t, srv, &browser{t: t}, map[string]any{"flow": "pkce"})
	if err := a.Authenticate(context.Background()); err != nil {
		t.Fatal(err)
	}
	b := &oauth.Login{Client: "c", Provider: a.Provider, Dir: a.Dir}
	if _, err := b.Token(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	// a refreshes (spending the refresh token b also holds), then b must.
	fresh, err := a.Token(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	got, err := b.Token(context.Background(), true)
	if err != nil || got != fresh {
		t.Fatalf("b got %q, %v; want a's %q", got, err, fresh)
	}
}

func TestClientCredentialsNeedNoLogin(t *testing.T) {
	srv := (&fakeauth.Server{ClientID: "svc", ClientSecret: "s3cret", ExpiresIn: 60}).Start(t)
	l := login(t, srv, &browser{t: t}, map[string]any{"flow": "client_credentials"})
	tok, err := l.Token(context.Background(), false)
	if err != nil || !srv.Valid(tok) {
		t.Fatalf("Token: %q, %v", tok, err)
	}
	// Expires within the margin: a new one is fetched.
	tok2, err := l.Token(context.Background(), false)
	if err != nil || tok2 == tok || srv.Grants()["client_credentials"] != 2 {
		t.Fatalf("second Token: %q, %v, grants %v", tok2, err, srv.Grants())
	}
}

func TestNotLoggedIn(t *testing.T) {
	srv := (&fakeauth.Server{ClientID: "cli"}).Start(t)
	l := login(t, srv, &browser{t: t}, map[string]any{"flow": "pkce"})
	_, err := l.Token(context.Background(), false)
	if !errors.Is(err, oauth.ErrNotLoggedIn) || err.Error() != `client "c" uses auth: oauth and is not logged in: run coyote --authenticate c (or .authenticate in the REPL)` {
		t.Fatalf("err = %v", err)
	}
	if len(srv.Requests()) != 0 {
		t.Errorf("asked the server %d times without a login", len(srv.Requests()))
	}
}

// TestLoginFailures: what the user reads when a login goes wrong.
func TestLoginFailures(t *testing.T) {
	for _, tc := range []struct {
		name string
		srv  *fakeauth.Server
		over map[string]any
		want string
	}{
		{name: "wrong client id", srv: &fakeauth.Server{ClientID: "cli"}, over: map[string]any{"flow": "device_code", "client_id": "other"},
			want: `log in client "c": device authorization: 401 Unauthorized: invalid_client (unknown client or wrong secret)`},
		{name: "wrong secret", srv: &fakeauth.Server{ClientID: "svc", ClientSecret: "right"}, over: map[string]any{"flow": "client_credentials", "client_secret": "wrong"},
			want: `log in client "c": 401 Unauthorized: invalid_client (unknown client or wrong secret)`},
		{name: "pasted code of another login", srv: &fakeauth.Server{ClientID: "cli"}, over: map[string]any{"flow": "pkce", "redirect_uri": "PASTE"},
			want: `log in client "c": the pasted code belongs to another login; start again`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := tc.srv.Start(t)
			b := &browser{t: t}
			if tc.over["redirect_uri"] == "PASTE" {
				tc.over["redirect_uri"] = srv.PasteBackURL()
			}
			l := login(t, srv, b, tc.over)
			if strings.Contains(tc.name, "pasted") {
				l.ReadCode = func(string) (string, error) { return "code-1#not-the-state", nil }
			}
			err := l.Authenticate(context.Background())
			if err == nil || err.Error() != tc.want {
				t.Fatalf("err = %v\nwant %s", err, tc.want)
			}
			if _, serr := os.Stat(l.Path()); serr == nil {
				t.Error("a failed login left a token file")
			}
		})
	}
}

// TestForClient: presets by type or name, overridden by the client's
// block; what a flow lacks is named.
func TestForClient(t *testing.T) {
	for _, tc := range []struct {
		name, typ, client string
		block             any
		check             func(oauth.Provider) bool
		err               string
	}{
		{name: "openai preset", typ: "openai", client: "openai", check: func(p oauth.Provider) bool {
			return p.Flow == oauth.FlowPKCE && p.RedirectPort == 1455 && p.RedirectPath == "/auth/callback" && strings.HasPrefix(p.TokenURL, "https://auth.openai.com/")
		}},
		{name: "claude paste-back", typ: "claude", client: "claude", check: func(p oauth.Provider) bool {
			return p.RedirectURI != "" && p.TokenRequestFormat == oauth.FormatJSON && p.StateInTokenRequest
		}},
		{name: "xai by name", typ: "openai-compatible", client: "xai", check: func(p oauth.Provider) bool {
			return p.RedirectPort == 56121 && p.StateInTokenRequest && p.ExtraAuthorizeParams["plan"] == "generic"
		}},
		{name: "override keeps the rest", typ: "openai", client: "openai", block: map[string]any{"token_url": "http://127.0.0.1:1/token"}, check: func(p oauth.Provider) bool {
			return p.TokenURL == "http://127.0.0.1:1/token" && p.ClientID == oauth.Presets["openai"].ClientID
		}},
		{name: "azure entra tenant", typ: "azure-openai", client: "az", block: map[string]any{"tenant_id": "t1", "client_id": "i", "client_secret": "s"}, check: func(p oauth.Provider) bool {
			return p.TokenURL == "https://login.microsoftonline.com/t1/oauth2/v2.0/token" && p.Flow == oauth.FlowClientCredentials
		}},
		{name: "azure without tenant", typ: "azure-openai", client: "az", block: map[string]any{"client_id": "i", "client_secret": "s"}, err: "set oauth.tenant_id"},
		{name: "gemini needs your client", typ: "gemini", client: "gemini", err: "the pkce flow needs client_id: set it under oauth:"},
		{name: "unknown provider", typ: "openai-compatible", client: "acme", err: "oauth: no flow"},
		{name: "bad flow", typ: "openai-compatible", client: "acme", block: map[string]any{"flow": "magic"}, err: `unknown flow "magic"`},
		{name: "not a mapping", typ: "openai", client: "openai", block: "yes", err: "oauth must be a mapping"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := oauth.ForClient(tc.typ, tc.client, tc.block)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || !tc.check(p) {
				t.Fatalf("%+v, %v", p, err)
			}
		})
	}
	// A client's override never changes the preset itself.
	if _, err := oauth.ForClient("openai", "o", map[string]any{"extra_authorize_params": map[string]any{"x": "y"}}); err != nil {
		t.Fatal(err)
	}
	if _, ok := oauth.Presets["openai"].ExtraAuthorizeParams["x"]; ok {
		t.Error("ForClient changed the preset")
	}
}

// TestTokenNeverPrinted: a token printed by mistake shows no secret.
func TestTokenNeverPrinted(t *testing.T) {
	tok := oauth.Token{AccessToken: "secret-access", RefreshToken: "secret-refresh", IDToken: "secret-id"}
	for _, s := range []string{tok.String(), tok.GoString()} {
		if strings.Contains(s, "secret") {
			t.Errorf("%q shows a secret", s)
		}
	}
}
