// Package azurefake is an in-memory Azure Key Vault for tests, with its
// token flow: a TLS server that answers Microsoft Entra ID's OpenID
// configuration and client-credentials token endpoint
// (/<tenant>/oauth2/v2.0/token, for the test client and secret), and Key
// Vault's secrets REST API, which answers a request without the token
// with 401 and the WWW-Authenticate challenge that tells the client where
// to get one, as Key Vault does.
package azurefake

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// The identity the fake accepts.
const (
	TenantID     = "00000000-0000-0000-0000-00000000c0e7"
	ClientID     = "11111111-2222-3333-4444-555555555555"
	ClientSecret = "coyote-test-client-secret"
	token        = "fake-entra-access-token"
)

// Server is the fake: authority and vault on one TLS server.
type Server struct {
	*httptest.Server
	// Latency is added to every vault answer.
	Latency time.Duration

	mu       sync.Mutex
	secrets  map[string]string // by Key Vault name
	deleted  map[string]bool
	tokens   int
	requests []string
	forbid   bool
}

// New starts a fake vault holding secrets (by Key Vault name).
func New(secrets map[string]string) *Server {
	s := &Server{secrets: map[string]string{}, deleted: map[string]bool{}}
	for k, v := range secrets {
		s.secrets[k] = v
	}
	s.Server = httptest.NewTLSServer(http.HandlerFunc(s.serve))
	return s
}

// Forbid makes every vault request with a token fail with 403.
func (s *Server) Forbid() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.forbid = true
}

// Tokens is how many tokens the fake issued.
func (s *Server) Tokens() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tokens
}

// Requests are the vault requests ("GET OPENAI-API-KEY"), with a token.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func kvError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]string{"code": code, "message": msg}})
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	switch {
	case strings.HasSuffix(r.URL.Path, "/v2.0/.well-known/openid-configuration"):
		tenant := strings.Split(strings.TrimPrefix(r.URL.Path, "/"), "/")[0]
		base := s.URL + "/" + tenant
		writeJSON(w, 200, map[string]any{
			"token_endpoint":                base + "/oauth2/v2.0/token",
			"authorization_endpoint":        base + "/oauth2/v2.0/authorize",
			"issuer":                        base + "/v2.0",
			"device_authorization_endpoint": base + "/oauth2/v2.0/devicecode",
		})
		return
	case strings.HasSuffix(r.URL.Path, "/oauth2/v2.0/token"):
		s.issue(w, r)
		return
	case strings.HasPrefix(r.URL.Path, "/secrets"):
		s.vault(w, r)
		return
	case strings.HasPrefix(r.URL.Path, "/deletedsecrets/") && r.Method == http.MethodDelete:
		if r.Header.Get("Authorization") != "Bearer "+token {
			kvError(w, 401, "Unauthorized", "no token")
			return
		}
		s.purge(w, strings.TrimPrefix(r.URL.Path, "/deletedsecrets/"))
		return
	}
	http.NotFound(w, r)
}

func (s *Server) issue(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	if !strings.HasPrefix(r.URL.Path, "/"+TenantID+"/") || r.Form.Get("grant_type") != "client_credentials" ||
		r.Form.Get("client_id") != ClientID || r.Form.Get("client_secret") != ClientSecret {
		writeJSON(w, 401, map[string]any{"error": "invalid_client", "error_description": "AADSTS7000215: Invalid client secret provided.", "error_codes": []int{7000215}})
		return
	}
	if !slices.Contains(strings.Fields(r.Form.Get("scope")), "https://vault.azure.net/.default") {
		writeJSON(w, 400, map[string]any{"error": "invalid_scope", "error_description": "AADSTS70011: bad scope " + r.Form.Get("scope")})
		return
	}
	s.mu.Lock()
	s.tokens++
	s.mu.Unlock()
	writeJSON(w, 200, map[string]any{"token_type": "Bearer", "expires_in": 3600, "ext_expires_in": 3600, "access_token": token})
}

func (s *Server) vault(w http.ResponseWriter, r *http.Request) {
	if s.Latency > 0 {
		time.Sleep(s.Latency)
	}
	if r.Header.Get("Authorization") != "Bearer "+token {
		w.Header().Set("WWW-Authenticate", `Bearer authorization="`+s.URL+"/"+TenantID+`", resource="https://vault.azure.net"`)
		kvError(w, 401, "Unauthorized", "AKV10000: Request is missing a Bearer or PoP token.")
		return
	}
	if r.URL.Query().Get("api-version") == "" {
		kvError(w, 400, "BadParameter", "The 'api-version' query parameter is required")
		return
	}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	name := ""
	if len(parts) > 1 {
		name = parts[1]
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, r.Method+" "+name)
	if s.forbid {
		kvError(w, 403, "Forbidden", "Caller is not authorized to perform action on resource.")
		return
	}
	id := func(n string) string { return s.URL + "/secrets/" + n + "/0123456789abcdef" }
	switch {
	case r.Method == http.MethodGet && name == "":
		var list []map[string]any
		names := make([]string, 0, len(s.secrets))
		for n := range s.secrets {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			list = append(list, map[string]any{"id": s.URL + "/secrets/" + n, "attributes": map[string]any{"enabled": true}})
		}
		writeJSON(w, 200, map[string]any{"value": list, "nextLink": nil})
	case r.Method == http.MethodGet:
		v, ok := s.secrets[name]
		if !ok {
			kvError(w, 404, "SecretNotFound", "A secret with (name/id) "+name+" was not found in this key vault.")
			return
		}
		writeJSON(w, 200, map[string]any{"value": v, "id": id(name), "attributes": map[string]any{"enabled": true}})
	case r.Method == http.MethodPut:
		if s.deleted[name] {
			kvError(w, 409, "Conflict", "Secret "+name+" is currently in a deleted but recoverable state.")
			return
		}
		var body struct {
			Value *string `json:"value"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body.Value == nil {
			kvError(w, 400, "BadParameter", "value is required")
			return
		}
		s.secrets[name] = *body.Value
		writeJSON(w, 200, map[string]any{"value": *body.Value, "id": id(name)})
	case r.Method == http.MethodDelete:
		if _, ok := s.secrets[name]; !ok {
			kvError(w, 404, "SecretNotFound", "A secret with (name/id) "+name+" was not found in this key vault.")
			return
		}
		delete(s.secrets, name)
		s.deleted[name] = true
		writeJSON(w, 200, map[string]any{"id": id(name), "recoveryId": s.URL + "/deletedsecrets/" + name})
	default:
		kvError(w, 405, "MethodNotAllowed", r.Method)
	}
}

// purge handles DELETE /deletedsecrets/<name>.
func (s *Server) purge(w http.ResponseWriter, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.deleted[name] {
		kvError(w, 404, "SecretNotFound", "Deleted Secret not found")
		return
	}
	delete(s.deleted, name)
	w.WriteHeader(204)
}
