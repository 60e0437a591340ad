// Package fakeauth is an OAuth 2.0 authorization server for tests: the
// authorization endpoint (which approves at once and redirects back, or
// shows a code to paste), the token endpoint (authorization code with
// PKCE, refresh token, client credentials, device code), and the device
// authorization endpoint with its verification page. It checks what a real
// server checks — client id and secret, redirect URI, PKCE verifier, state
// — and records what it was asked, so a test can drive a whole login with
// an HTTP client standing in for the browser.
package fakeauth

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Server is the fake. Set its fields before Start.
type Server struct {
	// ClientID is the only client accepted; ClientSecret, if set, is
	// required of it.
	ClientID, ClientSecret string
	// ExpiresIn is the lifetime of an access token, in seconds (0: the
	// answer gives none).
	ExpiresIn int
	// PendingPolls is how often the token endpoint answers
	// authorization_pending to a device code after it was approved.
	PendingPolls int
	// Interval is the device flow's polling interval in seconds.
	Interval int
	// JSON requires token requests as JSON rather than form-encoded.
	JSON bool
	// RequireState requires the state with the code exchange.
	RequireState bool
	// NoRefreshToken leaves refresh tokens out of the answers.
	NoRefreshToken bool
	// Claims, when set, make the access tokens JWTs carrying these claims
	// (and a jti that tells them apart), and add an OpenID id_token with
	// them, as OpenID providers such as the ChatGPT login issue them. The
	// signature is a placeholder.
	Claims map[string]any

	URL string
	srv *httptest.Server

	mu       sync.Mutex
	n        int
	codes    map[string]grant
	refresh  map[string]bool
	access   map[string]bool
	devices  map[string]*device
	byUser   map[string]string
	requests []Request
}

// grant is an authorization code's context.
type grant struct {
	clientID, redirect, challenge, state string
}

type device struct {
	approved bool
	pending  int
	verifier string // the PKCE challenge sent, if any
}

// Request is what the fake recorded of a token or device request.
type Request struct {
	Path        string
	ContentType string
	Params      map[string]string
}

// Start serves the fake until the test ends; s.URL is its base.
func (s *Server) Start(t testing.TB) *Server {
	t.Helper()
	s.codes, s.refresh, s.access = map[string]grant{}, map[string]bool{}, map[string]bool{}
	s.devices, s.byUser = map[string]*device{}, map[string]string{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /authorize", s.authorize)
	mux.HandleFunc("GET /code", s.codePage)
	mux.HandleFunc("POST /token", s.token)
	mux.HandleFunc("POST /device", s.deviceAuthorization)
	mux.HandleFunc("GET /device/verify", s.verify)
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL
	t.Cleanup(s.srv.Close)
	return s
}

// Endpoints, below URL.
func (s *Server) AuthorizeURL() string { return s.URL + "/authorize" }
func (s *Server) TokenURL() string     { return s.URL + "/token" }
func (s *Server) DeviceURL() string    { return s.URL + "/device" }

// PasteBackURL is a redirect URI that shows the code as "code#state" for
// the user to paste.
func (s *Server) PasteBackURL() string { return s.URL + "/code" }

// Valid reports whether an access token was issued and not revoked; a
// fake API checks its Authorization header with it.
func (s *Server) Valid(token string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.access[token]
}

// RevokeAccess makes every access token issued so far invalid, as an
// expiry the client did not see coming would.
func (s *Server) RevokeAccess() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.access)
}

// RevokeRefresh makes every refresh token issued so far invalid.
func (s *Server) RevokeRefresh() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.refresh)
}

// Requests returns the token and device requests so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Grants counts the token requests by grant_type.
func (s *Server) Grants() map[string]int {
	out := map[string]int{}
	for _, r := range s.Requests() {
		if r.Path == "/token" {
			out[r.Params["grant_type"]]++
		}
	}
	return out
}

func (s *Server) next(prefix string) string {
	s.n++
	return prefix + strconv.Itoa(s.n)
}

// authorize approves at once: it redirects to redirect_uri with a code.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	switch {
	case q.Get("response_type") != "code":
		http.Error(w, "response_type must be code", http.StatusBadRequest)
		return
	case q.Get("client_id") != s.ClientID:
		http.Error(w, "unknown client", http.StatusBadRequest)
		return
	case q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256":
		http.Error(w, "PKCE with S256 is required", http.StatusBadRequest)
		return
	case q.Get("redirect_uri") == "" || q.Get("state") == "":
		http.Error(w, "redirect_uri and state are required", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	code := s.next("code-")
	s.codes[code] = grant{clientID: q.Get("client_id"), redirect: q.Get("redirect_uri"), challenge: q.Get("code_challenge"), state: q.Get("state")}
	s.mu.Unlock()
	back := q.Get("redirect_uri")
	sep := "?"
	if strings.Contains(back, "?") {
		sep = "&"
	}
	http.Redirect(w, r, back+sep+"code="+code+"&state="+q.Get("state"), http.StatusFound)
}

// codePage is the paste-back redirect target: it shows "code#state".
func (s *Server) codePage(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain")
	_, _ = fmt.Fprintf(w, "%s#%s", r.URL.Query().Get("code"), r.URL.Query().Get("state"))
}

// params reads a form or JSON body and records the request.
func (s *Server) params(w http.ResponseWriter, r *http.Request) (map[string]string, bool) {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	p := map[string]string{}
	switch mt {
	case "application/json":
		if err := json.NewDecoder(r.Body).Decode(&p); err != nil {
			oauthError(w, http.StatusBadRequest, "invalid_request", "the body is not a JSON object of strings")
			return nil, false
		}
	case "application/x-www-form-urlencoded":
		if err := r.ParseForm(); err != nil {
			oauthError(w, http.StatusBadRequest, "invalid_request", "bad form")
			return nil, false
		}
		for k := range r.PostForm {
			p[k] = r.PostForm.Get(k)
		}
	default:
		oauthError(w, http.StatusBadRequest, "invalid_request", "unsupported content type "+mt)
		return nil, false
	}
	s.mu.Lock()
	s.requests = append(s.requests, Request{Path: r.URL.Path, ContentType: mt, Params: p})
	s.mu.Unlock()
	if s.JSON && mt != "application/json" && r.URL.Path == "/token" {
		oauthError(w, http.StatusBadRequest, "invalid_request", "JSON is required")
		return nil, false
	}
	if p["client_id"] != s.ClientID || (s.ClientSecret != "" && p["client_secret"] != s.ClientSecret) {
		oauthError(w, http.StatusUnauthorized, "invalid_client", "unknown client or wrong secret")
		return nil, false
	}
	return p, true
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	p, ok := s.params(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch p["grant_type"] {
	case "authorization_code":
		g, ok := s.codes[p["code"]]
		delete(s.codes, p["code"])
		sum := sha256.Sum256([]byte(p["code_verifier"]))
		switch {
		case !ok:
			oauthError(w, http.StatusBadRequest, "invalid_grant", "unknown or used code")
			return
		case g.redirect != p["redirect_uri"]:
			oauthError(w, http.StatusBadRequest, "invalid_grant", "redirect_uri differs from the authorization request's")
			return
		case base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge:
			oauthError(w, http.StatusBadRequest, "invalid_grant", "code_verifier does not match the challenge")
			return
		case s.RequireState && p["state"] != g.state:
			oauthError(w, http.StatusBadRequest, "invalid_grant", "state missing or wrong")
			return
		}
	case "refresh_token":
		if !s.refresh[p["refresh_token"]] {
			oauthError(w, http.StatusBadRequest, "invalid_grant", "refresh token revoked")
			return
		}
		delete(s.refresh, p["refresh_token"])
	case "client_credentials":
		if s.ClientSecret == "" {
			oauthError(w, http.StatusBadRequest, "unauthorized_client", "this client has no secret")
			return
		}
	case "urn:ietf:params:oauth:grant-type:device_code":
		d, ok := s.devices[p["device_code"]]
		switch {
		case !ok:
			oauthError(w, http.StatusBadRequest, "expired_token", "unknown device code")
			return
		case d.verifier != "" && challengeOf(p["code_verifier"]) != d.verifier:
			oauthError(w, http.StatusBadRequest, "invalid_grant", "code_verifier does not match")
			return
		case !d.approved:
			oauthError(w, http.StatusBadRequest, "authorization_pending", "")
			return
		case d.pending > 0:
			d.pending--
			oauthError(w, http.StatusBadRequest, "authorization_pending", "")
			return
		}
		delete(s.devices, p["device_code"])
	default:
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type", p["grant_type"])
		return
	}
	access := s.next("access-")
	body := map[string]any{"token_type": "Bearer"}
	if s.Claims != nil {
		access = s.jwt(access)
		body["id_token"] = s.jwt(s.next("id-"))
	}
	s.access[access] = true
	body["access_token"] = access
	if s.ExpiresIn > 0 {
		body["expires_in"] = s.ExpiresIn
	}
	if !s.NoRefreshToken && p["grant_type"] != "client_credentials" {
		rt := s.next("refresh-")
		s.refresh[rt] = true
		body["refresh_token"] = rt
	}
	writeJSON(w, http.StatusOK, body)
}

// jwt is a token of Claims with jti id.
func (s *Server) jwt(id string) string {
	claims := map[string]any{"jti": id}
	for k, v := range s.Claims {
		claims[k] = v
	}
	payload, _ := json.Marshal(claims)
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"RS256","typ":"JWT"}`)) + "." + enc(payload) + "." + enc([]byte("fake-signature-"+id))
}

func challengeOf(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

func (s *Server) deviceAuthorization(w http.ResponseWriter, r *http.Request) {
	p, ok := s.params(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	dc, uc := s.next("device-"), s.next("USER-")
	s.devices[dc] = &device{pending: s.PendingPolls, verifier: p["code_challenge"]}
	s.byUser[uc] = dc
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{
		"device_code": dc, "user_code": uc, "expires_in": 600, "interval": s.Interval,
		"verification_uri":          s.URL + "/device/verify",
		"verification_uri_complete": s.URL + "/device/verify?user_code=" + uc,
	})
}

// verify approves the device whose user code is given.
func (s *Server) verify(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.devices[s.byUser[r.URL.Query().Get("user_code")]]
	if !ok {
		http.Error(w, "unknown code", http.StatusNotFound)
		return
	}
	d.approved = true
	_, _ = w.Write([]byte("approved"))
}

func oauthError(w http.ResponseWriter, status int, code, desc string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": desc})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
