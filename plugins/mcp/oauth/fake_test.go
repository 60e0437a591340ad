package oauth

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeAS is an in-test OAuth authorization server: metadata, dynamic
// registration, an authorize endpoint that approves at once (redirecting
// the "browser" to the callback), and a token endpoint that checks PKCE.
type fakeAS struct {
	t   *testing.T
	srv *httptest.Server

	// Set before use.
	metadataAt     string   // "oauth" (RFC 8414, default) or "openid"
	noRegistration bool     // publish no registration_endpoint
	scopes         []string // scopes_supported in the AS metadata
	expiresIn      int      // seconds; 0 means 3600
	presetClients  map[string]string
	issueSecrets   bool // registrations get a client secret the token endpoint demands
	// override replaces members of the metadata (a nil value removes
	// one); it is given the AS's URL.
	override func(base string) map[string]any

	mu            sync.Mutex
	refreshStatus int  // when set, refresh requests fail with it
	issueRevoked  bool // issue access tokens the resource refuses
	registrations []map[string]any
	authorizeReqs []url.Values
	tokenReqs     []url.Values
	tokenBasic    []string          // "id:secret" of Basic auth, "" when none
	clients       map[string]string // client_id → registered redirect URI
	secrets       map[string]string // client_id → secret issued at registration
	codes         map[string]codeGrant
	access        map[string]bool
	refresh       map[string]bool
	issued        int
}

type codeGrant struct {
	clientID, redirect, challenge string
}

func newFakeAS(t *testing.T) *fakeAS {
	as := &fakeAS{
		t:       t,
		clients: map[string]string{},
		secrets: map[string]string{},
		codes:   map[string]codeGrant{},
		access:  map[string]bool{},
		refresh: map[string]bool{},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/", as.metadata)
	mux.HandleFunc("/register", as.register)
	mux.HandleFunc("/authorize", as.authorize)
	mux.HandleFunc("/token", as.token)
	as.srv = httptest.NewServer(mux)
	t.Cleanup(as.srv.Close)
	return as
}

func (as *fakeAS) metadata(w http.ResponseWriter, r *http.Request) {
	want := "/.well-known/oauth-authorization-server"
	if as.metadataAt == "openid" {
		want = "/.well-known/openid-configuration"
	}
	if r.URL.Path != want {
		http.NotFound(w, r)
		return
	}
	m := map[string]any{
		"issuer":                           as.srv.URL,
		"authorization_endpoint":           as.srv.URL + "/authorize",
		"token_endpoint":                   as.srv.URL + "/token",
		"code_challenge_methods_supported": []string{"S256"},
		"scopes_supported":                 as.scopes,
	}
	if !as.noRegistration {
		m["registration_endpoint"] = as.srv.URL + "/register"
	}
	if as.override != nil {
		for k, v := range as.override(as.srv.URL) {
			if v == nil {
				delete(m, k)
			} else {
				m[k] = v
			}
		}
	}
	writeJSON(w, http.StatusOK, m)
}

func (as *fakeAS) register(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_client_metadata"})
		return
	}
	uris, _ := body["redirect_uris"].([]any)
	if len(uris) != 1 {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_redirect_uri"})
		return
	}
	as.mu.Lock()
	as.registrations = append(as.registrations, body)
	id := fmt.Sprintf("client-%d", len(as.registrations))
	as.clients[id] = uris[0].(string)
	answer := map[string]any{"client_id": id, "redirect_uris": uris, "token_endpoint_auth_method": "none"}
	if as.issueSecrets {
		as.secrets[id] = "secret-" + id
		answer["client_secret"], answer["token_endpoint_auth_method"] = as.secrets[id], "client_secret_basic"
	}
	as.mu.Unlock()
	writeJSON(w, http.StatusCreated, answer)
}

// authorize approves at once: it redirects to the redirect URI with a
// code and the state, as a browser session that is already logged in.
func (as *fakeAS) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	as.mu.Lock()
	defer as.mu.Unlock()
	as.authorizeReqs = append(as.authorizeReqs, q)
	id, redirect := q.Get("client_id"), q.Get("redirect_uri")
	registered, ok := as.clients[id]
	if !ok {
		_, ok = as.presetClients[id]
		registered = redirect
	}
	if !ok || registered != redirect || q.Get("code_challenge_method") != "S256" || q.Get("response_type") != "code" {
		http.Error(w, "bad authorize request", http.StatusBadRequest)
		return
	}
	code := fmt.Sprintf("code-%d", len(as.authorizeReqs))
	as.codes[code] = codeGrant{clientID: id, redirect: redirect, challenge: q.Get("code_challenge")}
	u, _ := url.Parse(redirect)
	u.RawQuery = url.Values{"code": {code}, "state": {q.Get("state")}}.Encode()
	http.Redirect(w, r, u.String(), http.StatusFound)
}

func (as *fakeAS) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
		return
	}
	form := r.PostForm
	as.mu.Lock()
	defer as.mu.Unlock()
	as.tokenReqs = append(as.tokenReqs, form)
	basic := ""
	if u, p, ok := r.BasicAuth(); ok {
		basic = u + ":" + p
	}
	as.tokenBasic = append(as.tokenBasic, basic)
	clientID := form.Get("client_id")
	if u, _, ok := r.BasicAuth(); ok {
		clientID = u
	}
	secret := as.presetClients[clientID]
	if s, ok := as.secrets[clientID]; ok {
		secret = s
	}
	if secret != "" && basic != clientID+":"+secret {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
		return
	}
	switch form.Get("grant_type") {
	case "authorization_code":
		g, ok := as.codes[form.Get("code")]
		delete(as.codes, form.Get("code"))
		sum := sha256.Sum256([]byte(form.Get("code_verifier")))
		if !ok || g.clientID != clientID || g.redirect != form.Get("redirect_uri") ||
			base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
	case "refresh_token":
		if as.refreshStatus != 0 {
			writeJSON(w, as.refreshStatus, map[string]string{"error": "invalid_grant", "error_description": "refresh token revoked"})
			return
		}
		if !as.refresh[form.Get("refresh_token")] {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
		delete(as.refresh, form.Get("refresh_token"))
	default:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	as.issued++
	at, rt := fmt.Sprintf("at-%d", as.issued), fmt.Sprintf("rt-%d", as.issued)
	as.access[at], as.refresh[rt] = !as.issueRevoked, true
	exp := as.expiresIn
	if exp == 0 {
		exp = 3600
	}
	writeJSON(w, http.StatusOK, map[string]any{"access_token": at, "token_type": "Bearer", "refresh_token": rt, "expires_in": exp})
}

func (as *fakeAS) valid(token string) bool {
	as.mu.Lock()
	defer as.mu.Unlock()
	return as.access[token]
}

func (as *fakeAS) revoke(token string) {
	as.mu.Lock()
	defer as.mu.Unlock()
	delete(as.access, token)
}

func (as *fakeAS) setIssueRevoked() {
	as.mu.Lock()
	defer as.mu.Unlock()
	as.issueRevoked = true
}

func (as *fakeAS) setRefreshStatus(s int) {
	as.mu.Lock()
	defer as.mu.Unlock()
	as.refreshStatus = s
}

// snapshot returns copies of what the AS received.
func (as *fakeAS) snapshot() (regs []map[string]any, auths, tokens []url.Values, basic []string) {
	as.mu.Lock()
	defer as.mu.Unlock()
	return append([]map[string]any(nil), as.registrations...),
		append([]url.Values(nil), as.authorizeReqs...),
		append([]url.Values(nil), as.tokenReqs...),
		append([]string(nil), as.tokenBasic...)
}

// fakeRS is a protected MCP-ish resource at /mcp (and /other): 401 with
// a Bearer challenge unless the request carries a token the AS issued.
type fakeRS struct {
	srv *httptest.Server
	as  *fakeAS

	// Set before use.
	metadataMode string // "header" (default), "path" or "root": where the metadata is
	resource     string // advertised resource; "" → the /mcp URL, "-" → none
	challengeURL string // resource_metadata of the challenge; "" → /custom/prm
	scopes       []string
	noMetadata   bool // publish no resource metadata at all

	mu     sync.Mutex
	auths  []string // Authorization headers seen on /mcp and /other
	bodies []string
}

func newFakeRS(t *testing.T, as *fakeAS) *fakeRS {
	rs := &fakeRS{as: as}
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", rs.resourceHandler)
	mux.HandleFunc("/other", rs.resourceHandler)
	mux.HandleFunc("/custom/prm", rs.metadata("header"))
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", rs.metadata("path"))
	mux.HandleFunc("/.well-known/oauth-protected-resource", rs.metadata("root"))
	rs.srv = httptest.NewServer(mux)
	t.Cleanup(rs.srv.Close)
	return rs
}

func (rs *fakeRS) mode() string {
	if rs.metadataMode == "" {
		return "header"
	}
	return rs.metadataMode
}

func (rs *fakeRS) metadata(mode string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if rs.noMetadata || rs.mode() != mode {
			http.NotFound(w, r)
			return
		}
		m := map[string]any{"authorization_servers": []string{rs.as.srv.URL}}
		switch rs.resource {
		case "":
			m["resource"] = rs.srv.URL + "/mcp"
		case "-":
		default:
			m["resource"] = rs.resource
		}
		if len(rs.scopes) > 0 {
			m["scopes_supported"] = rs.scopes
		}
		writeJSON(w, http.StatusOK, m)
	}
}

func (rs *fakeRS) resourceHandler(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	auth := r.Header.Get("Authorization")
	rs.mu.Lock()
	rs.auths = append(rs.auths, auth)
	rs.bodies = append(rs.bodies, string(body))
	rs.mu.Unlock()
	if tok, ok := strings.CutPrefix(auth, "Bearer "); ok && rs.as.valid(tok) {
		writeJSON(w, http.StatusOK, map[string]string{"echo": string(body)})
		return
	}
	ch := `Bearer error="invalid_token"`
	prm := ""
	if rs.mode() == "header" {
		prm = rs.srv.URL + "/custom/prm"
	}
	if rs.challengeURL != "" {
		prm = rs.challengeURL
	}
	if prm != "" {
		ch = `Bearer realm="mcp", resource_metadata="` + prm + `"`
	}
	w.Header().Set("WWW-Authenticate", ch)
	w.WriteHeader(http.StatusUnauthorized)
}

func (rs *fakeRS) seen() (auths, bodies []string) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return append([]string(nil), rs.auths...), append([]string(nil), rs.bodies...)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// browser plays the user's browser: it opens the authorization URL, lets
// tamper change the redirect to the callback, and follows it. It records
// the callback's status.
type browser struct {
	t      *testing.T
	tamper func(q url.Values)

	mu             sync.Mutex
	callbackStatus int
	callbackURL    string
	shown          int
}

func (b *browser) show(authURL string) {
	b.mu.Lock()
	b.shown++
	b.mu.Unlock()
	noFollow := &http.Client{
		Timeout:       10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	resp, err := noFollow.Get(authURL)
	if err != nil {
		b.t.Errorf("browser: open %s: %v", authURL, err)
		return
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		b.t.Errorf("browser: authorize answered %s", resp.Status)
		return
	}
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		b.t.Errorf("browser: bad redirect: %v", err)
		return
	}
	if b.tamper != nil {
		q := loc.Query()
		b.tamper(q)
		loc.RawQuery = q.Encode()
	}
	resp, err = noFollow.Get(loc.String())
	if err != nil {
		b.t.Errorf("browser: open callback %s: %v", loc, err)
		return
	}
	_ = resp.Body.Close()
	b.mu.Lock()
	b.callbackStatus, b.callbackURL = resp.StatusCode, loc.String()
	b.mu.Unlock()
}

// fakeClock is a settable clock.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}
