package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"
)

// newTestClient returns a Client with a fake clock.
func newTestClient(dir string, s Server) (*Client, *fakeClock) {
	c := New(dir, s)
	clock := &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	c.now = clock.now
	return c, clock
}

func authorize(t *testing.T, c *Client, b *browser) {
	t.Helper()
	if err := c.Authorize(context.Background(), b.show); err != nil {
		t.Fatalf("Authorize: %v", err)
	}
}

// post sends body to u through rt and returns the answer's body.
func post(t *testing.T, rt http.RoundTripper, u, body string) (string, error) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := (&http.Client{Transport: rt}).Do(req)
	if err != nil {
		return "", err
	}
	defer func() { _ = resp.Body.Close() }()
	var out map[string]string
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %s", u, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out["echo"], nil
}

func lastAuth(rs *fakeRS) string {
	auths, _ := rs.seen()
	return auths[len(auths)-1]
}

func TestAuthorizeDiscoversRegistersAndTheRoundTripperRefreshes(t *testing.T) {
	for _, tc := range []struct {
		name         string
		metadataMode string // where the resource metadata is
		asMetadataAt string
	}{
		{"metadata from the 401 challenge", "header", "oauth"},
		{"metadata at the path-inserted well-known", "path", "oauth"},
		{"metadata at the root well-known", "root", "oauth"},
		{"server metadata from OpenID discovery", "header", "openid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := newFakeAS(t)
			as.metadataAt = tc.asMetadataAt
			as.scopes = []string{"openid", "everything"}
			rs := newFakeRS(t, as)
			rs.metadataMode = tc.metadataMode
			rs.scopes = []string{"mcp:read", "mcp:write"}
			dir := t.TempDir()
			serverURL := rs.srv.URL + "/mcp"
			c, clock := newTestClient(dir, Server{Name: "remote", URL: serverURL})
			other := New(dir, Server{Name: "remote", URL: serverURL}) // another instance, e.g. another process

			if c.HasToken() || other.HasToken() {
				t.Fatal("HasToken before Authorize")
			}
			b := &browser{t: t}
			authorize(t, c, b)

			if b.callbackStatus != http.StatusOK {
				t.Errorf("callback answered %d", b.callbackStatus)
			}
			if !c.HasToken() || !other.HasToken() {
				t.Fatalf("HasToken after Authorize: %v, other instance %v", c.HasToken(), other.HasToken())
			}
			regs, auths, tokens, _ := as.snapshot()
			if len(regs) != 1 {
				t.Fatalf("registrations = %d, want 1", len(regs))
			}
			if m := regs[0]["token_endpoint_auth_method"]; m != "none" {
				t.Errorf("registered token_endpoint_auth_method %v, want none (public client)", m)
			}
			if len(auths) != 1 || len(tokens) != 1 {
				t.Fatalf("authorize requests %d, token requests %d", len(auths), len(tokens))
			}
			a := auths[0]
			if a.Get("resource") != serverURL {
				t.Errorf("authorize resource = %q, want %q", a.Get("resource"), serverURL)
			}
			if a.Get("scope") != "mcp:read mcp:write" {
				t.Errorf("authorize scope = %q, want the resource's scopes", a.Get("scope"))
			}
			if a.Get("state") == "" || a.Get("code_challenge") == "" {
				t.Errorf("authorize request without state or PKCE: %v", a)
			}
			if r := tokens[0]; r.Get("grant_type") != "authorization_code" || r.Get("resource") != serverURL || r.Get("code_verifier") == "" {
				t.Errorf("code exchange = %v", r)
			}
			fi, err := os.Stat(c.tokenPath())
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("token file mode %v, want 0600", fi.Mode().Perm())
			}

			rt := c.RoundTripper(nil)
			if got, err := post(t, rt, serverURL, "one"); err != nil || got != "one" {
				t.Fatalf("first request: %q, %v", got, err)
			}
			if got := lastAuth(rs); got != "Bearer at-1" {
				t.Errorf("first request Authorization = %q", got)
			}

			// Expiry: the token is refreshed before the request.
			clock.advance(time.Hour)
			if _, err := post(t, rt, serverURL, "two"); err != nil {
				t.Fatalf("request after expiry: %v", err)
			}
			if got := lastAuth(rs); got != "Bearer at-2" {
				t.Errorf("request after expiry Authorization = %q, want the refreshed token", got)
			}
			_, _, tokens, _ = as.snapshot()
			if r := tokens[len(tokens)-1]; r.Get("grant_type") != "refresh_token" || r.Get("resource") != serverURL || r.Get("refresh_token") != "rt-1" {
				t.Errorf("refresh request = %v", r)
			}

			// A 401 with a live-looking token: refresh once, replay the body.
			as.revoke("at-2")
			if got, err := post(t, rt, serverURL, "three"); err != nil || got != "three" {
				t.Fatalf("request after revocation: %q, %v", got, err)
			}
			auths2, bodies := rs.seen()
			n := len(auths2)
			if auths2[n-2] != "Bearer at-2" || auths2[n-1] != "Bearer at-3" || bodies[n-2] != "three" || bodies[n-1] != "three" {
				t.Errorf("retry after 401: auths %q, bodies %q", auths2[n-2:], bodies[n-2:])
			}
		})
	}
}

func TestResourceParameter(t *testing.T) {
	for _, tc := range []struct {
		name       string
		advertised func(rs *fakeRS) string // the resource in the metadata
		path       string                  // the server URL's path, query and fragment
		want       func(rs *fakeRS) string
	}{
		{
			name:       "the advertised resource is the server URL",
			advertised: func(rs *fakeRS) string { return rs.srv.URL + "/mcp" },
			path:       "/mcp",
			want:       func(rs *fakeRS) string { return rs.srv.URL + "/mcp" },
		},
		{
			name:       "the server URL's query is not part of the resource",
			advertised: func(rs *fakeRS) string { return rs.srv.URL + "/mcp" },
			path:       "/mcp?oauth=initialize",
			want:       func(rs *fakeRS) string { return rs.srv.URL + "/mcp" },
		},
		{
			name:       "the advertised spelling is sent (upper-case scheme and host)",
			advertised: func(rs *fakeRS) string { return "HTTP://" + strings.TrimPrefix(rs.srv.URL, "http://") + "/mcp" },
			path:       "/mcp",
			want:       func(rs *fakeRS) string { return "HTTP://" + strings.TrimPrefix(rs.srv.URL, "http://") + "/mcp" },
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := newFakeAS(t)
			rs := newFakeRS(t, as)
			rs.metadataMode = "header"
			rs.resource = tc.advertised(rs)
			c, clock := newTestClient(t.TempDir(), Server{Name: "r", URL: rs.srv.URL + tc.path})
			authorize(t, c, &browser{t: t})
			clock.advance(2 * time.Hour)
			if _, err := post(t, c.RoundTripper(nil), rs.srv.URL+"/mcp", "x"); err != nil {
				t.Fatal(err)
			}
			want := tc.want(rs)
			_, auths, tokens, _ := as.snapshot()
			if got := auths[0].Get("resource"); got != want {
				t.Errorf("authorize resource = %q, want %q", got, want)
			}
			if len(tokens) != 2 {
				t.Fatalf("token requests = %d, want code exchange and refresh", len(tokens))
			}
			for _, r := range tokens {
				if got := r.Get("resource"); got != want {
					t.Errorf("%s resource = %q, want %q", r.Get("grant_type"), got, want)
				}
			}
		})
	}
}

func TestCanonicalResourceAndSameURL(t *testing.T) {
	for _, tc := range []struct{ server, want string }{
		{"https://aws-mcp.us-east-1.api.aws/mcp?oauth=initialize", "https://aws-mcp.us-east-1.api.aws/mcp"},
		{"https://example.com/mcp#section", "https://example.com/mcp"},
		{"http://localhost:8080/mcp/v1?x=1", "http://localhost:8080/mcp/v1"},
		{"https://mcp.example.com", "https://mcp.example.com"},
		{"https://mcp.example.com/", "https://mcp.example.com"},
		{"HTTPS://MCP.Example.com/Path", "https://mcp.example.com/Path"},
		{"https://user:pw@mcp.example.com/x", "https://mcp.example.com/x"},
	} {
		got, err := canonicalResource(tc.server)
		if err != nil || got != tc.want {
			t.Errorf("canonicalResource(%q) = %q, %v; want %q", tc.server, got, err, tc.want)
		}
	}
	for _, bad := range []string{"not-a-url", "ftp://example.com/x", "/relative"} {
		if _, err := canonicalResource(bad); err == nil {
			t.Errorf("canonicalResource(%q) accepted", bad)
		}
	}
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"https://example.com/mcp", "https://example.com/mcp", true},
		{"HTTPS://EXAMPLE.com/mcp", "https://example.com/mcp", true},
		{"https://example.com:443/mcp", "https://example.com/mcp", true},
		{"https://example.com", "https://example.com/", true},
		{"https://example.com/", "https://example.com/mcp", false},
		{"https://example.com/mcp/", "https://example.com/mcp", false},
		{"https://example.com/MCP", "https://example.com/mcp", false},
		{"http://example.com/mcp", "https://example.com/mcp", false},
		{"https://example.com:8443/mcp", "https://example.com/mcp", false},
		{"https://evil.example/mcp", "https://example.com/mcp", false},
		{"https://example.com/mcp?x=1", "https://example.com/mcp", false},
		{"https://u@example.com/mcp", "https://example.com/mcp", false},
		{"", "https://example.com/mcp", false},
		{"not a url", "not a url", false},
	} {
		if got := sameURL(tc.a, tc.b); got != tc.same {
			t.Errorf("sameURL(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.same)
		}
	}
}

// TestMetadataIsValidatedAsTheRFCsRequire: discovery refuses, before any
// URL is shown to the user, metadata for another resource (RFC 9728
// §3.3) or another issuer (RFC 8414 §3.3), an authorization server that
// does not state PKCE S256 support, and http endpoints on hosts other
// than loopback ones.
func TestMetadataIsValidatedAsTheRFCsRequire(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(as *fakeAS, rs *fakeRS)
		want  string
	}{
		{"resource for another path on the same host", func(_ *fakeAS, rs *fakeRS) { rs.resource = rs.srv.URL + "/" }, "not for its URL"},
		{"resource with a trailing slash", func(_ *fakeAS, rs *fakeRS) { rs.resource = rs.srv.URL + "/mcp/" }, "not for its URL"},
		{"resource of another origin", func(_ *fakeAS, rs *fakeRS) { rs.resource = "https://evil.example/mcp" }, "not for its URL"},
		{"resource missing", func(_ *fakeAS, rs *fakeRS) { rs.resource = "-" }, "not for its URL"},
		{"issuer of another server", func(as *fakeAS, _ *fakeRS) {
			as.override = func(string) map[string]any { return map[string]any{"issuer": "https://evil.example"} }
		}, "names the issuer"},
		{"issuer with another path", func(as *fakeAS, _ *fakeRS) {
			as.override = func(base string) map[string]any { return map[string]any{"issuer": base + "/tenant"} }
		}, "names the issuer"},
		{"no code_challenge_methods_supported", func(as *fakeAS, _ *fakeRS) {
			as.override = func(string) map[string]any { return map[string]any{"code_challenge_methods_supported": nil} }
		}, "does not say that it supports PKCE"},
		{"plain PKCE only", func(as *fakeAS, _ *fakeRS) {
			as.override = func(string) map[string]any {
				return map[string]any{"code_challenge_methods_supported": []string{"plain"}}
			}
		}, "does not support PKCE with S256"},
		{"http token endpoint off loopback", func(as *fakeAS, _ *fakeRS) {
			as.override = func(string) map[string]any { return map[string]any{"token_endpoint": "http://as.example.com/token"} }
		}, "token_endpoint of its authorization server http://as.example.com/token is not https"},
		{"http authorization endpoint off loopback", func(as *fakeAS, _ *fakeRS) {
			as.override = func(string) map[string]any {
				return map[string]any{"authorization_endpoint": "http://as.example.com/authorize"}
			}
		}, "authorization_endpoint of its authorization server http://as.example.com/authorize is not https"},
		{"http registration endpoint off loopback", func(as *fakeAS, _ *fakeRS) {
			as.override = func(string) map[string]any {
				return map[string]any{"registration_endpoint": "http://as.example.com/register"}
			}
		}, "registration_endpoint of its authorization server http://as.example.com/register is not https"},
		{"http resource metadata off loopback", func(_ *fakeAS, rs *fakeRS) { rs.challengeURL = "http://as.example.com/prm" }, "resource_metadata URL http://as.example.com/prm is not https"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := newFakeAS(t)
			rs := newFakeRS(t, as)
			tc.setup(as, rs)
			c, _ := newTestClient(t.TempDir(), Server{Name: "v", URL: rs.srv.URL + "/mcp"})
			b := &browser{t: t}
			err := c.Authorize(context.Background(), b.show)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), `refused the OAuth metadata of MCP server "v"`) {
				t.Fatalf("Authorize error = %v, want %q", err, tc.want)
			}
			regs, _, tokens, _ := as.snapshot()
			if b.shown != 0 || len(regs) != 0 || len(tokens) != 0 {
				t.Errorf("after refused metadata: %d URLs shown, %d registrations, %d token requests", b.shown, len(regs), len(tokens))
			}
		})
	}
}

// TestMatchingMetadataIsFoundPastAMismatchedOne: resource metadata for
// another resource is not used, but the next location is still tried.
func TestMatchingMetadataIsFoundPastAMismatchedOne(t *testing.T) {
	as := newFakeAS(t)
	rs := newFakeRS(t, as)
	rs.metadataMode = "path" // the path-inserted location has it right
	var asked atomic.Int32
	mismatched := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		asked.Add(1)
		writeJSON(w, http.StatusOK, map[string]any{"resource": "https://other.example/mcp", "authorization_servers": []string{"https://evil.example"}})
	}))
	t.Cleanup(mismatched.Close)
	rs.challengeURL = mismatched.URL + "/prm" // the challenge names it first
	c, _ := newTestClient(t.TempDir(), Server{Name: "m", URL: rs.srv.URL + "/mcp"})
	authorize(t, c, &browser{t: t})
	if asked.Load() == 0 {
		t.Error("the mismatched document was not asked")
	}
	if _, auths, _, _ := as.snapshot(); len(auths) != 1 || auths[0].Get("resource") != rs.srv.URL+"/mcp" {
		t.Fatalf("authorize requests = %v", auths)
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	return port
}

func redirectPort(t *testing.T, redirect string) int {
	t.Helper()
	u, err := url.Parse(redirect)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := strconv.Atoi(u.Port())
	return p
}

func TestCachedRegistration(t *testing.T) {
	for _, tc := range []struct {
		name string
		// first and second configure the two authorizations; between runs
		// after the first one.
		first, second func(t *testing.T, s *Server)
		between       func(t *testing.T, firstRedirect string)
		reused        bool
	}{
		{
			name:   "same host, port free: reused",
			reused: true,
		},
		{
			name: "pinned port unchanged: reused",
			first: func(t *testing.T, s *Server) {
				s.CallbackPort = freePort(t)
			},
			reused: true,
		},
		{
			name:   "pinned port changed: registered again",
			second: func(t *testing.T, s *Server) { s.CallbackPort = freePort(t) },
		},
		{
			name: "cached port busy: registered again",
			between: func(t *testing.T, firstRedirect string) {
				ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(redirectPort(t, firstRedirect))))
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = ln.Close() })
			},
		},
		{
			name:   "redirect host changed: registered again",
			second: func(t *testing.T, s *Server) { s.RedirectHost = "127.0.0.1" },
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := newFakeAS(t)
			rs := newFakeRS(t, as)
			dir := t.TempDir()
			s := Server{Name: "reg", URL: rs.srv.URL + "/mcp"}
			if tc.first != nil {
				tc.first(t, &s)
			}
			b := &browser{t: t}
			c, _ := newTestClient(dir, s)
			authorize(t, c, b)
			_, auths0, _, _ := as.snapshot()
			firstRedirect := auths0[0].Get("redirect_uri")
			if s.CallbackPort != 0 && redirectPort(t, firstRedirect) != s.CallbackPort {
				t.Errorf("redirect %s ignores the pinned port %d", firstRedirect, s.CallbackPort)
			}
			if tc.between != nil {
				tc.between(t, firstRedirect)
			}
			if tc.second != nil {
				tc.second(t, &s)
			}
			c2, _ := newTestClient(dir, s)
			authorize(t, c2, b)

			regs, auths, _, _ := as.snapshot()
			secondRedirect := auths[1].Get("redirect_uri")
			if tc.reused {
				if len(regs) != 1 || secondRedirect != firstRedirect || auths[1].Get("client_id") != "client-1" {
					t.Errorf("registrations %d, redirects %s then %s, client %s: want the cached registration reused",
						len(regs), firstRedirect, secondRedirect, auths[1].Get("client_id"))
				}
				return
			}
			if len(regs) != 2 || auths[1].Get("client_id") != "client-2" {
				t.Errorf("registrations %d, second client %s: want a new registration", len(regs), auths[1].Get("client_id"))
			}
			if secondRedirect == firstRedirect {
				t.Errorf("second redirect %s equals the first", secondRedirect)
			}
			if s.CallbackPort != 0 && redirectPort(t, secondRedirect) != s.CallbackPort {
				t.Errorf("second redirect %s ignores the pinned port %d", secondRedirect, s.CallbackPort)
			}
			r := c2.loadRegistration()
			if r == nil || r.ClientID != "client-2" || r.RedirectURI != secondRedirect {
				t.Errorf("cached registration = %+v, want client-2 at %s", r, secondRedirect)
			}
		})
	}
}

func TestCallbackRefusals(t *testing.T) {
	for _, tc := range []struct {
		name    string
		tamper  func(q url.Values)
		wantErr string
	}{
		{"server error", func(q url.Values) {
			q.Del("code")
			q.Set("error", "access_denied")
		}, "access_denied"},
		{"no code", func(q url.Values) { q.Del("code") }, "no code"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := newFakeAS(t)
			rs := newFakeRS(t, as)
			c, _ := newTestClient(t.TempDir(), Server{Name: "s", URL: rs.srv.URL + "/mcp"})
			b := &browser{t: t, tamper: tc.tamper}
			err := c.Authorize(context.Background(), b.show)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Authorize error = %v, want %q", err, tc.wantErr)
			}
			if b.callbackStatus != http.StatusBadRequest {
				t.Errorf("callback answered %d, want 400", b.callbackStatus)
			}
			if _, _, tokens, _ := as.snapshot(); len(tokens) != 0 {
				t.Errorf("token requests = %d, want none", len(tokens))
			}
			if c.HasToken() {
				t.Error("HasToken after a refused callback")
			}
		})
	}
}

// TestWrongStateCallbackDoesNotEndTheFlow: a callback without the flow's
// state (forged, or from an older attempt) gets a 404 and changes
// nothing; the real answer that follows completes the flow.
func TestWrongStateCallbackDoesNotEndTheFlow(t *testing.T) {
	for _, tc := range []struct {
		name   string
		tamper func(q url.Values)
	}{
		{"state mismatch", func(q url.Values) { q.Set("state", "forged") }},
		{"missing state", func(q url.Values) { q.Del("state") }},
		{"error with a wrong state", func(q url.Values) {
			q.Set("state", "forged")
			q.Del("code")
			q.Set("error", "access_denied")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := newFakeAS(t)
			rs := newFakeRS(t, as)
			c, _ := newTestClient(t.TempDir(), Server{Name: "s", URL: rs.srv.URL + "/mcp"})
			forged := &browser{t: t, tamper: tc.tamper}
			real := &browser{t: t}
			err := c.Authorize(context.Background(), func(u string) {
				forged.show(u)
				real.show(u)
			})
			if err != nil {
				t.Fatalf("Authorize: %v", err)
			}
			if forged.callbackStatus != http.StatusNotFound {
				t.Errorf("the callback answered the wrong state with %d, want 404", forged.callbackStatus)
			}
			if real.callbackStatus != http.StatusOK || !c.HasToken() {
				t.Errorf("the real answer got %d; token stored: %v", real.callbackStatus, c.HasToken())
			}
		})
	}
}

// TestAuthorizeHasADeadline: a user who never comes back from the
// browser ends the flow after the flow's timeout with a line that says so.
func TestAuthorizeHasADeadline(t *testing.T) {
	as := newFakeAS(t)
	rs := newFakeRS(t, as)
	c, _ := newTestClient(t.TempDir(), Server{Name: "s", URL: rs.srv.URL + "/mcp"})
	if c.flowTimeout != 5*time.Minute {
		t.Errorf("flow timeout %s, want 5 minutes", c.flowTimeout)
	}
	c.flowTimeout = 300 * time.Millisecond
	err := c.Authorize(context.Background(), func(string) {}) // the browser never comes back
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "did not finish within 300ms (no answer from the browser)") {
		t.Fatalf("Authorize error = %v", err)
	}
	if got := (&flowTimeoutError{after: flowTimeout, browser: true}).Error(); !strings.Contains(got, "within 5 minutes") {
		t.Errorf("timeout message %q", got)
	}
}

// TestServerTextIsOneShortLine: an error_description (and error code)
// from the authorization server is quoted as its first line, cut to
// maxShown characters, as valid UTF-8. Its control characters are left
// to the kernel, which strips them wherever it shows the text
// (e2e TestServerTextOfAnOAuthRefusalCannotActOnTheTerminal).
func TestServerTextIsOneShortLine(t *testing.T) {
	text := "denied\x1b[2J \u202egnp.exe \xffend"
	as := newFakeAS(t)
	rs := newFakeRS(t, as)
	c, _ := newTestClient(t.TempDir(), Server{Name: "s", URL: rs.srv.URL + "/mcp"})
	b := &browser{t: t, tamper: func(q url.Values) {
		q.Del("code")
		q.Set("error", "access_denied\nmore")
		q.Set("error_description", text+"\r\nsecond line")
	}}
	err := c.Authorize(context.Background(), b.show)
	te := &tokenError{Status: 400, Code: "invalid_grant\r\nmore", Description: text + "\nsecond line"}
	for _, msg := range []string{err.Error(), te.Error()} {
		if strings.Contains(msg, "second line") || strings.Contains(msg, "more") {
			t.Errorf("message %q goes past the first line", msg)
		}
		if !strings.Contains(msg, "denied\x1b[2J \u202egnp.exe \uFFFDend)") || !utf8.ValidString(msg) {
			t.Errorf("message %q is not the first line as valid UTF-8", msg)
		}
	}
	if got := oneLine(strings.Repeat("é", 300)); len([]rune(got)) != maxShown+1 || !strings.HasSuffix(got, "…") {
		t.Errorf("oneLine of a long text: %d runes", len([]rune(got)))
	}
	if got := oneLine("bad \xff byte"); got != "bad \uFFFD byte" {
		t.Errorf("oneLine of invalid UTF-8 = %q", got)
	}
}

func TestAuthorizeStopsWhenContextEnds(t *testing.T) {
	as := newFakeAS(t)
	rs := newFakeRS(t, as)
	c, _ := newTestClient(t.TempDir(), Server{Name: "s", URL: rs.srv.URL + "/mcp"})
	ctx, cancel := context.WithCancel(context.Background())
	shown := ""
	err := c.Authorize(ctx, func(u string) { shown = u; cancel() }) // the user never comes back
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Authorize error = %v, want context.Canceled", err)
	}
	if !strings.HasPrefix(shown, as.srv.URL+"/authorize?") {
		t.Errorf("shown URL %q", shown)
	}
}

func TestRoundTripperNeedsAuth(t *testing.T) {
	for _, tc := range []struct {
		name string
		// setup prepares the stored state; it returns the URL to request.
		setup func(t *testing.T, as *fakeAS, rs *fakeRS, dir string) (s Server, reqURL string)
	}{
		{
			name: "no token stored",
			setup: func(t *testing.T, as *fakeAS, rs *fakeRS, dir string) (Server, string) {
				return Server{Name: "n", URL: rs.srv.URL + "/mcp"}, rs.srv.URL + "/mcp"
			},
		},
		{
			name: "token for another URL is not used",
			setup: func(t *testing.T, as *fakeAS, rs *fakeRS, dir string) (Server, string) {
				c, _ := newTestClient(dir, Server{Name: "n", URL: rs.srv.URL + "/mcp"})
				authorize(t, c, &browser{t: t})
				return Server{Name: "n", URL: rs.srv.URL + "/other"}, rs.srv.URL + "/other"
			},
		},
		{
			name: "expired token without refresh token",
			setup: func(t *testing.T, as *fakeAS, rs *fakeRS, dir string) (Server, string) {
				s := Server{Name: "n", URL: rs.srv.URL + "/mcp"}
				c := New(dir, s)
				c.mu.Lock()
				defer c.mu.Unlock()
				if err := c.saveTokenLocked(&storedToken{ServerURL: s.URL, AccessToken: "at-old", ExpiresAt: time.Now().Add(-time.Hour)}); err != nil {
					t.Fatal(err)
				}
				return s, s.URL
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := newFakeAS(t)
			rs := newFakeRS(t, as)
			dir := t.TempDir()
			s, reqURL := tc.setup(t, as, rs, dir)
			_, _, tokensBefore, _ := as.snapshot()
			c := New(dir, s)
			if c.HasToken() {
				t.Error("HasToken is true")
			}
			_, err := post(t, c.RoundTripper(nil), reqURL, "x")
			if !errors.Is(err, ErrNeedsAuth) {
				t.Fatalf("error = %v, want ErrNeedsAuth", err)
			}
			if want := "coyote --auth-mcp n"; !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not say %q", err, want)
			}
			if got := lastAuth(rs); got != "" {
				t.Errorf("server saw Authorization %q, want none", got)
			}
			if _, _, tokens, _ := as.snapshot(); len(tokens) != len(tokensBefore) {
				t.Errorf("the round tripper asked the token endpoint")
			}
		})
	}
}

func TestRefreshFailure(t *testing.T) {
	for _, tc := range []struct {
		name      string
		status    int
		needsAuth bool // refusal: tokens cleared, ErrNeedsAuth
	}{
		{"refused refresh clears the token", http.StatusBadRequest, true},
		{"unauthorized client clears the token", http.StatusUnauthorized, true},
		{"server error keeps the token", http.StatusServiceUnavailable, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := newFakeAS(t)
			rs := newFakeRS(t, as)
			dir := t.TempDir()
			c, clock := newTestClient(dir, Server{Name: "f", URL: rs.srv.URL + "/mcp"})
			authorize(t, c, &browser{t: t})
			probes, _ := rs.seen()
			as.setRefreshStatus(tc.status)
			clock.advance(2 * time.Hour)
			_, err := post(t, c.RoundTripper(nil), rs.srv.URL+"/mcp", "x")
			if err == nil {
				t.Fatal("request succeeded with an expired token and a failing refresh")
			}
			if errors.Is(err, ErrNeedsAuth) != tc.needsAuth {
				t.Fatalf("error = %v; ErrNeedsAuth wanted: %v", err, tc.needsAuth)
			}
			fresh := New(dir, Server{Name: "f", URL: rs.srv.URL + "/mcp"})
			if c.HasToken() == tc.needsAuth || fresh.HasToken() == tc.needsAuth {
				t.Errorf("HasToken = %v (new instance %v), want %v", c.HasToken(), fresh.HasToken(), !tc.needsAuth)
			}
			if auths, _ := rs.seen(); len(auths) != len(probes) {
				t.Errorf("the request was sent (%q) although the refresh failed", auths[len(probes):])
			}
		})
	}
}

func TestFreshTokenRefusedNeedsAuth(t *testing.T) {
	as := newFakeAS(t)
	rs := newFakeRS(t, as)
	c, _ := newTestClient(t.TempDir(), Server{Name: "x", URL: rs.srv.URL + "/mcp"})
	authorize(t, c, &browser{t: t})
	as.revoke("at-1")
	as.setIssueRevoked() // the refresh works but the server refuses the new token too
	_, err := post(t, c.RoundTripper(http.DefaultTransport), rs.srv.URL+"/mcp", "x")
	if !errors.Is(err, ErrNeedsAuth) {
		t.Fatalf("error = %v, want ErrNeedsAuth", err)
	}
	if c.HasToken() {
		t.Error("HasToken after the server refused a fresh token")
	}
}

func TestConcurrentRequestsRefreshOnce(t *testing.T) {
	as := newFakeAS(t)
	rs := newFakeRS(t, as)
	c, clock := newTestClient(t.TempDir(), Server{Name: "c", URL: rs.srv.URL + "/mcp"})
	authorize(t, c, &browser{t: t})
	clock.advance(2 * time.Hour)
	rt := c.RoundTripper(nil)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Go(func() {
			req, _ := http.NewRequest(http.MethodPost, rs.srv.URL+"/mcp", strings.NewReader(strconv.Itoa(i)))
			resp, err := (&http.Client{Transport: rt}).Do(req)
			if err != nil {
				errs <- err
				return
			}
			_ = resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				errs <- errors.New(resp.Status)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	_, _, tokens, _ := as.snapshot()
	if len(tokens) != 2 {
		t.Errorf("token requests = %d, want the code exchange and one refresh", len(tokens))
	}
}

func TestConfiguredClientSkipsRegistration(t *testing.T) {
	as := newFakeAS(t)
	as.presetClients = map[string]string{"preset": "s3cret"}
	rs := newFakeRS(t, as)
	port := freePort(t)
	c, clock := newTestClient(t.TempDir(), Server{
		Name: "p", URL: rs.srv.URL + "/mcp",
		ClientID: "preset", ClientSecret: "s3cret", CallbackPort: port, RedirectHost: "127.0.0.1",
	})
	authorize(t, c, &browser{t: t})
	clock.advance(2 * time.Hour)
	if _, err := post(t, c.RoundTripper(nil), rs.srv.URL+"/mcp", "x"); err != nil {
		t.Fatal(err)
	}
	regs, auths, tokens, basic := as.snapshot()
	if len(regs) != 0 {
		t.Errorf("registrations = %d, want none with a configured client", len(regs))
	}
	if want := "http://127.0.0.1:" + strconv.Itoa(port) + "/callback"; auths[0].Get("redirect_uri") != want {
		t.Errorf("redirect_uri = %q, want %q", auths[0].Get("redirect_uri"), want)
	}
	if len(tokens) != 2 {
		t.Fatalf("token requests = %d", len(tokens))
	}
	for i, b := range basic {
		if b != "preset:s3cret" {
			t.Errorf("token request %d (%s) authenticated as %q", i, tokens[i].Get("grant_type"), b)
		}
	}
}

// A configured secret without a client id, and a registration that
// returns a secret of its own: the code exchange and the refresh both
// authenticate with the registered secret.
func TestRegisteredSecretIsUsedForExchangeAndRefresh(t *testing.T) {
	as := newFakeAS(t)
	as.issueSecrets = true
	rs := newFakeRS(t, as)
	c, clock := newTestClient(t.TempDir(), Server{Name: "rs", URL: rs.srv.URL + "/mcp", ClientSecret: "configured"})
	authorize(t, c, &browser{t: t})
	clock.advance(2 * time.Hour)
	if _, err := post(t, c.RoundTripper(nil), rs.srv.URL+"/mcp", "x"); err != nil {
		t.Fatal(err)
	}
	_, _, tokens, basic := as.snapshot()
	if len(tokens) != 2 {
		t.Fatalf("token requests = %d, want the code exchange and a refresh", len(tokens))
	}
	for i, b := range basic {
		if b != "client-1:secret-client-1" {
			t.Errorf("token request %d (%s) authenticated as %q, want the registered secret", i, tokens[i].Get("grant_type"), b)
		}
	}
}

func TestNoRegistrationEndpointAsksForAClientID(t *testing.T) {
	as := newFakeAS(t)
	as.noRegistration = true
	rs := newFakeRS(t, as)
	c, _ := newTestClient(t.TempDir(), Server{Name: "nr", URL: rs.srv.URL + "/mcp"})
	b := &browser{t: t}
	err := c.Authorize(context.Background(), b.show)
	if err == nil || !strings.Contains(err.Error(), "clientId") {
		t.Fatalf("Authorize error = %v, want a hint about clientId", err)
	}
	if b.shown != 0 {
		t.Error("an authorization URL was shown")
	}
}

func TestNoMetadataIsAnError(t *testing.T) {
	as := newFakeAS(t)
	rs := newFakeRS(t, as)
	rs.noMetadata = true
	c, _ := newTestClient(t.TempDir(), Server{Name: "nm", URL: rs.srv.URL + "/mcp"})
	err := c.Authorize(context.Background(), (&browser{t: t}).show)
	if err == nil || !strings.Contains(err.Error(), "publishes no OAuth metadata") {
		t.Fatalf("Authorize error = %v", err)
	}
}

func TestStaticAuthorizationHeaderPassesThrough(t *testing.T) {
	as := newFakeAS(t)
	rs := newFakeRS(t, as)
	c, _ := newTestClient(t.TempDir(), Server{Name: "h", URL: rs.srv.URL + "/mcp"})
	authorize(t, c, &browser{t: t})
	req, _ := http.NewRequest(http.MethodGet, rs.srv.URL+"/mcp", nil)
	req.Header.Set("Authorization", "Bearer static-pat")
	resp, err := c.RoundTripper(nil).RoundTrip(req)
	if err != nil {
		t.Fatalf("RoundTrip: %v", err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("status %d, want the server's 401 untouched", resp.StatusCode)
	}
	if got := lastAuth(rs); got != "Bearer static-pat" {
		t.Errorf("server saw %q", got)
	}
}

func TestParseChallenges(t *testing.T) {
	for _, tc := range []struct {
		header string
		want   []challenge
	}{
		{`Bearer resource_metadata="https://a/x"`, []challenge{{"bearer", map[string]string{"resource_metadata": "https://a/x"}}}},
		{`Bearer realm="mcp", error="invalid_token", resource_metadata="https://a/x", scope="a b"`,
			[]challenge{{"bearer", map[string]string{"realm": "mcp", "error": "invalid_token", "resource_metadata": "https://a/x", "scope": "a b"}}}},
		{`Basic realm="x", Bearer resource_metadata=https://a/x`, []challenge{
			{"basic", map[string]string{"realm": "x"}},
			{"bearer", map[string]string{"resource_metadata": "https://a/x"}},
		}},
		{`Negotiate abc123==, Bearer scope="r"`, []challenge{
			{"negotiate", map[string]string{}},
			{"bearer", map[string]string{"scope": "r"}},
		}},
		{`Bearer`, []challenge{{"bearer", map[string]string{}}}},
		{`BEARER Resource_Metadata="q\"uote"`, []challenge{{"bearer", map[string]string{"resource_metadata": `q"uote`}}}},
		{``, nil},
	} {
		got := parseChallenges([]string{tc.header})
		if !equalChallenges(got, tc.want) {
			t.Errorf("parseChallenges(%q) = %v, want %v", tc.header, got, tc.want)
		}
	}
}

func equalChallenges(a, b []challenge) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].scheme != b[i].scheme || len(a[i].params) != len(b[i].params) {
			return false
		}
		for k, v := range a[i].params {
			if b[i].params[k] != v {
				return false
			}
		}
	}
	return true
}

func TestWellKnownURLs(t *testing.T) {
	for _, tc := range []struct {
		in           string
		resource, as []string
	}{
		{
			"https://mcp.example.com/v1/mcp",
			[]string{"https://mcp.example.com/.well-known/oauth-protected-resource/v1/mcp", "https://mcp.example.com/.well-known/oauth-protected-resource"},
			[]string{"https://mcp.example.com/.well-known/oauth-authorization-server/v1/mcp", "https://mcp.example.com/.well-known/openid-configuration/v1/mcp", "https://mcp.example.com/v1/mcp/.well-known/openid-configuration"},
		},
		{
			"https://mcp.example.com:8443/",
			[]string{"https://mcp.example.com:8443/.well-known/oauth-protected-resource"},
			[]string{"https://mcp.example.com:8443/.well-known/oauth-authorization-server", "https://mcp.example.com:8443/.well-known/openid-configuration"},
		},
		{
			"https://mcp.example.com:443",
			[]string{"https://mcp.example.com/.well-known/oauth-protected-resource"},
			[]string{"https://mcp.example.com/.well-known/oauth-authorization-server", "https://mcp.example.com/.well-known/openid-configuration"},
		},
	} {
		u, err := parseHTTPURL(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := resourceMetadataURLs(u); strings.Join(got, " ") != strings.Join(tc.resource, " ") {
			t.Errorf("resourceMetadataURLs(%s) = %q, want %q", tc.in, got, tc.resource)
		}
		if got := serverMetadataURLs(u); strings.Join(got, " ") != strings.Join(tc.as, " ") {
			t.Errorf("serverMetadataURLs(%s) = %q, want %q", tc.in, got, tc.as)
		}
	}
}

func TestFileKey(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"github", "github"},
		{"my-server_2", "my-server_2"},
	} {
		if got := fileKey(tc.name); got != tc.want {
			t.Errorf("fileKey(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
	for _, unsafe := range []string{"../x", "a/b", "", "a b", "a.b"} {
		got := fileKey(unsafe)
		if strings.ContainsAny(got, "/\\. ") || got == "" {
			t.Errorf("fileKey(%q) = %q is not a safe file name part", unsafe, got)
		}
	}
	if fileKey("a b") == fileKey("a_b") || fileKey("a/b") == fileKey("a.b") {
		t.Error("different names share a file")
	}
}

func TestServerWithoutResourceMetadataIsItsOwnAuthorizationServer(t *testing.T) {
	as := newFakeAS(t)
	// An older server: no RFC 9728 metadata, its own origin publishes the
	// authorization server's metadata (the endpoints may live elsewhere).
	legacy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/oauth-authorization-server":
			writeJSON(w, http.StatusOK, map[string]any{
				"issuer":                           "http://" + r.Host,
				"authorization_endpoint":           as.srv.URL + "/authorize",
				"token_endpoint":                   as.srv.URL + "/token",
				"registration_endpoint":            as.srv.URL + "/register",
				"code_challenge_methods_supported": []string{"S256"},
			})
		default:
			w.WriteHeader(http.StatusUnauthorized)
		}
	}))
	t.Cleanup(legacy.Close)
	c, _ := newTestClient(t.TempDir(), Server{Name: "old", URL: legacy.URL + "/mcp?v=1"})
	authorize(t, c, &browser{t: t})
	_, auths, tokens, _ := as.snapshot()
	if want := legacy.URL + "/mcp"; auths[0].Get("resource") != want || tokens[0].Get("resource") != want {
		t.Errorf("resource = %q / %q, want the canonical URL %q", auths[0].Get("resource"), tokens[0].Get("resource"), want)
	}
	if !c.HasToken() {
		t.Error("no token stored")
	}
}

// TestTokenGoesOnlyToTheServersOrigin: under a client that follows
// redirects, a redirect from the server to another origin does not carry
// the token there.
func TestTokenGoesOnlyToTheServersOrigin(t *testing.T) {
	for _, status := range []int{http.StatusTemporaryRedirect, http.StatusPermanentRedirect, http.StatusFound} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			var mu sync.Mutex
			var elsewhereAuth []string
			elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				elsewhereAuth = append(elsewhereAuth, r.Header.Get("Authorization"))
				mu.Unlock()
				writeJSON(w, http.StatusOK, map[string]string{"echo": "elsewhere"})
			}))
			t.Cleanup(elsewhere.Close)
			homeAuth := ""
			home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				homeAuth = r.Header.Get("Authorization")
				http.Redirect(w, r, elsewhere.URL+"/mcp", status)
			}))
			t.Cleanup(home.Close)
			s := Server{Name: "o", URL: home.URL + "/mcp"}
			c := New(t.TempDir(), s)
			c.mu.Lock()
			err := c.saveTokenLocked(&storedToken{ServerURL: s.URL, AccessToken: "at-home"})
			c.mu.Unlock()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := post(t, c.RoundTripper(nil), s.URL, "x"); err != nil {
				t.Fatal(err)
			}
			if homeAuth != "Bearer at-home" {
				t.Errorf("the server got Authorization %q", homeAuth)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(elsewhereAuth) != 1 || elsewhereAuth[0] != "" {
				t.Errorf("the other origin got Authorization %q, want one request without", elsewhereAuth)
			}
		})
	}
}

// TestPublicServerMayNotNameInternalAddresses: the metadata of an MCP
// server on a public address cannot have Coyote connect to loopback,
// private or link-local addresses (by address or by a name that
// resolves to one, directly or through a proxy); public addresses, and
// anything named by a server that is itself internal, are fetched.
func TestPublicServerMayNotNameInternalAddresses(t *testing.T) {
	names := map[string][]string{
		"mcp.public.test":  {"203.0.113.10"},
		"mcp.corp.test":    {"10.9.9.9"},
		"as.public.test":   {"198.51.100.20"},
		"as.internal.test": {"192.168.1.5"},
		"mixed.test":       {"198.51.100.21", "10.0.0.1"},
		"proxy.corp.test":  {"10.1.1.1"},
	}
	for _, tc := range []struct {
		name      string
		server    string // host of the MCP server
		challenge string // resource_metadata named by the 401
		issuer    string // authorization server named by the resource metadata
		proxy     string
		noProxy   string // a host the proxy is not used for
		refused   string // the address in the refusal; "" when not refused
		dialed    string // an address that must have been dialled
	}{
		{name: "private address literal", server: "mcp.public.test", challenge: "https://10.0.0.7/prm", refused: "10.0.0.7"},
		{name: "server at a public address literal", server: "203.0.113.10", challenge: "https://10.0.0.7/prm", refused: "10.0.0.7"},
		{name: "cloud metadata address", server: "mcp.public.test", issuer: "https://169.254.169.254", refused: "169.254.169.254"},
		{name: "name resolving to a private address", server: "mcp.public.test", issuer: "https://as.internal.test", refused: "192.168.1.5"},
		{name: "name with one internal address among others", server: "mcp.public.test", issuer: "https://mixed.test", refused: "10.0.0.1"},
		{name: "IPv4-mapped loopback", server: "mcp.public.test", challenge: "https://[::ffff:127.0.0.1]/prm", refused: "127.0.0.1"},
		{name: "internal address through a proxy", server: "mcp.public.test", issuer: "https://as.internal.test", proxy: "http://proxy.corp.test:3128", refused: "192.168.1.5"},
		{name: "the proxy's own address, not through the proxy", server: "mcp.public.test", challenge: "https://10.1.1.1:3128/prm", proxy: "http://10.1.1.1:3128", noProxy: "10.1.1.1", refused: "10.1.1.1"},
		{name: "public address is fetched", server: "mcp.public.test", issuer: "https://as.public.test", dialed: "198.51.100.20:443"},
		{name: "public address through a proxy", server: "mcp.public.test", issuer: "https://as.public.test", proxy: "http://proxy.corp.test:3128", dialed: "proxy.corp.test:3128"},
		{name: "internal server may name internal metadata", server: "mcp.corp.test", challenge: "https://10.0.0.7/prm", dialed: "10.0.0.7:443"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch {
				case r.URL.Path == "/mcp":
					if tc.challenge != "" {
						w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+tc.challenge+`"`)
					}
					w.WriteHeader(http.StatusUnauthorized)
				case r.URL.Path == "/.well-known/oauth-protected-resource/mcp" && tc.issuer != "":
					writeJSON(w, http.StatusOK, map[string]any{"resource": "http://" + r.Host + "/mcp", "authorization_servers": []string{tc.issuer}})
				default:
					http.NotFound(w, r)
				}
			}))
			t.Cleanup(site.Close)
			c, _ := newTestClient(t.TempDir(), Server{Name: "p", URL: "http://" + tc.server + "/mcp"})
			var mu sync.Mutex
			var dialed []string
			c.guard.resolve = func(_ context.Context, host string) ([]netip.Addr, error) {
				var out []netip.Addr
				for _, a := range names[host] {
					out = append(out, netip.MustParseAddr(a))
				}
				if len(out) == 0 {
					return nil, errors.New("no such host (test)")
				}
				return out, nil
			}
			c.guard.dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
				mu.Lock()
				dialed = append(dialed, addr)
				mu.Unlock()
				if addr == "203.0.113.10:80" || addr == "mcp.corp.test:80" {
					return (&net.Dialer{}).DialContext(ctx, network, site.Listener.Addr().String())
				}
				return nil, errors.New("unreachable (test)")
			}
			c.guard.proxyFor = func(req *http.Request) (*url.URL, error) {
				if tc.proxy == "" || req.URL.Scheme != "https" || req.URL.Hostname() == tc.noProxy {
					return nil, nil
				}
				return url.Parse(tc.proxy)
			}
			err := c.Authorize(context.Background(), (&browser{t: t}).show)
			if err == nil {
				t.Fatal("Authorize succeeded")
			}
			mu.Lock()
			defer mu.Unlock()
			if tc.refused != "" {
				if !strings.Contains(err.Error(), "internal address ("+tc.refused+")") || !strings.Contains(err.Error(), "refused the OAuth metadata") {
					t.Errorf("Authorize error = %v, want a refusal of %s", err, tc.refused)
				}
				for _, d := range dialed {
					if strings.HasPrefix(d, tc.refused+":") || strings.HasPrefix(d, "["+tc.refused) {
						t.Errorf("dialled %s", d)
					}
				}
				return
			}
			if strings.Contains(err.Error(), "internal address") {
				t.Errorf("Authorize error = %v, want no refusal", err)
			}
			if !slices.Contains(dialed, tc.dialed) {
				t.Errorf("dialled %q, want %s among them", dialed, tc.dialed)
			}
		})
	}
}

func TestInternalAddr(t *testing.T) {
	for _, tc := range []struct {
		addr     string
		internal bool
	}{
		{"127.0.0.1", true}, {"::1", true}, {"10.1.2.3", true}, {"172.16.0.1", true}, {"192.168.0.1", true},
		{"169.254.169.254", true}, {"fe80::1", true}, {"fd00::1", true}, {"100.64.0.1", true}, {"0.0.0.0", true},
		{"::", true}, {"::ffff:10.0.0.1", true}, {"224.0.0.1", true},
		{"8.8.8.8", false}, {"2606:4700::1111", false}, {"172.32.0.1", false}, {"::ffff:8.8.8.8", false},
	} {
		if got := internalAddr(netip.MustParseAddr(tc.addr)); got != tc.internal {
			t.Errorf("internalAddr(%s) = %v", tc.addr, got)
		}
	}
	for _, tc := range []struct {
		host     string
		loopback bool
	}{
		{"localhost", true}, {"LOCALHOST.", true}, {"a.localhost", true}, {"127.0.0.1", true}, {"127.9.9.9", true}, {"::1", true},
		{"::ffff:127.0.0.1", true}, {"localhost.example.com", false}, {"10.0.0.1", false}, {"example.com", false},
	} {
		if got := loopbackHost(tc.host); got != tc.loopback {
			t.Errorf("loopbackHost(%s) = %v", tc.host, got)
		}
	}
}

// TestTokenRequestIsNotRedirectedToAnotherOrigin: the code exchange (the
// code, the PKCE verifier, a client secret) is not re-sent to another
// origin by a redirect of the token endpoint.
func TestTokenRequestIsNotRedirectedToAnotherOrigin(t *testing.T) {
	var elsewhereHits atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		elsewhereHits.Add(1)
		writeJSON(w, http.StatusOK, map[string]any{"access_token": "stolen", "token_type": "Bearer"})
	}))
	t.Cleanup(elsewhere.Close)
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/token", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(redirector.Close)
	as := newFakeAS(t)
	as.override = func(string) map[string]any { return map[string]any{"token_endpoint": redirector.URL + "/token"} }
	rs := newFakeRS(t, as)
	c, _ := newTestClient(t.TempDir(), Server{Name: "t", URL: rs.srv.URL + "/mcp"})
	err := c.Authorize(context.Background(), (&browser{t: t}).show)
	if err == nil || !strings.Contains(err.Error(), "redirected to another origin") {
		t.Fatalf("Authorize error = %v", err)
	}
	if elsewhereHits.Load() != 0 || c.HasToken() {
		t.Errorf("the other origin got %d requests; token stored: %v", elsewhereHits.Load(), c.HasToken())
	}
}

// TestSecretFilesAreAlways0600: a token or registration file left
// readable by others (0644) is 0600 after the next save, and so is the
// directory (0700).
func TestSecretFilesAreAlways0600(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "oauth")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	c := New(dir, Server{Name: "m", URL: "https://mcp.example.com/mcp"})
	for _, path := range []string{c.tokenPath(), c.registrationPath()} {
		if err := os.WriteFile(path, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, 0o644); err != nil { // whatever the umask
			t.Fatal(err)
		}
	}
	c.mu.Lock()
	err := c.saveTokenLocked(&storedToken{ServerURL: c.s.URL, AccessToken: "at"})
	c.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.saveRegistration(&registration{ClientID: "id"}); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]os.FileMode{c.tokenPath(): 0o600, c.registrationPath(): 0o600, dir: 0o700} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", filepath.Base(path), fi.Mode().Perm(), want)
		}
	}
}
