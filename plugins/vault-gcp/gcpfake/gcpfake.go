// Package gcpfake is an in-memory Google Cloud Secret Manager for tests:
// the v1 REST API (access the latest version, create, add a version,
// delete, list) of one project, which accepts only requests whose bearer
// token is a JWT signed by the test service account's key (the self-signed
// JWT Google's clients make from a service account key file) or a token
// its own OAuth token endpoint issued for such a JWT, as Google does.
package gcpfake

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"hash/crc32"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The project and service account the fake knows.
const (
	Project     = "coyote-test-project"
	ClientEmail = "coyote-test@coyote-test-project.iam.gserviceaccount.com"
)

// Server is the fake service.
type Server struct {
	*httptest.Server
	// Latency is added to every Secret Manager answer.
	Latency time.Duration

	key    *rsa.PrivateKey
	issued string // the access token the token endpoint gives

	mu       sync.Mutex
	secrets  map[string][]string // versions, by secret
	requests []string
	denied   bool
}

// New starts a fake holding secrets (each one version).
func New(secrets map[string]string) *Server {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	var tok [16]byte
	_, _ = rand.Read(tok[:])
	s := &Server{key: key, issued: base64.RawURLEncoding.EncodeToString(tok[:]), secrets: map[string][]string{}}
	for k, v := range secrets {
		s.secrets[k] = []string{v}
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// CredentialsJSON is a service account key file for the fake's account,
// whose token endpoint is the fake's.
func (s *Server) CredentialsJSON() []byte {
	der := x509.MarshalPKCS1PrivateKey(s.key)
	b, _ := json.Marshal(map[string]string{
		"type":           "service_account",
		"project_id":     Project,
		"private_key_id": "0123456789abcdef",
		"private_key":    string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: der})),
		"client_email":   ClientEmail,
		"client_id":      "123456789",
		"token_uri":      s.URL + "/token",
	})
	return b
}

// Deny makes every request fail with PERMISSION_DENIED.
func (s *Server) Deny() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.denied = true
}

// Requests are the Secret Manager requests ("GET .../versions/latest:access").
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

func apiError(w http.ResponseWriter, status int, st, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"code": status, "message": msg, "status": st}})
}

// validJWT checks a JWT's RS256 signature against the service account's
// key and its issuer.
func (s *Server) validJWT(tok string) bool {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return false
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return false
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if rsa.VerifyPKCS1v15(&s.key.PublicKey, crypto.SHA256, sum[:], sig) != nil {
		return false
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return false
	}
	var claims struct {
		Iss string `json:"iss"`
		Exp int64  `json:"exp"`
	}
	return json.Unmarshal(payload, &claims) == nil && claims.Iss == ClientEmail && time.Unix(claims.Exp, 0).After(time.Now())
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/token" {
		_ = r.ParseForm()
		if r.Form.Get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" || !s.validJWT(r.Form.Get("assertion")) {
			writeJSON(w, 400, map[string]string{"error": "invalid_grant", "error_description": "Invalid JWT Signature."})
			return
		}
		writeJSON(w, 200, map[string]any{"access_token": s.issued, "token_type": "Bearer", "expires_in": 3600})
		return
	}
	if s.Latency > 0 {
		time.Sleep(s.Latency)
	}
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || (tok != s.issued && !s.validJWT(tok)) {
		apiError(w, 401, "UNAUTHENTICATED", "Request had invalid authentication credentials.")
		return
	}
	prefix := "/v1/projects/" + Project + "/secrets"
	rest, ok := strings.CutPrefix(r.URL.Path, prefix)
	if !ok {
		apiError(w, 404, "NOT_FOUND", "unknown path "+r.URL.Path)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, r.Method+" "+r.URL.Path)
	if s.denied {
		apiError(w, 403, "PERMISSION_DENIED", "Permission 'secretmanager.versions.access' denied for resource (or it may not exist).")
		return
	}
	full := func(n string) string { return "projects/" + Project + "/secrets/" + n }
	rest = strings.TrimPrefix(rest, "/")
	switch {
	case r.Method == http.MethodGet && rest == "":
		names := make([]string, 0, len(s.secrets))
		for n := range s.secrets {
			names = append(names, n)
		}
		sort.Strings(names)
		var list []map[string]any
		for _, n := range names {
			list = append(list, map[string]any{"name": full(n)})
		}
		writeJSON(w, 200, map[string]any{"secrets": list, "totalSize": len(list)})
	case r.Method == http.MethodPost && rest == "":
		id := r.URL.Query().Get("secretId")
		if id == "" {
			apiError(w, 400, "INVALID_ARGUMENT", "secretId is required")
			return
		}
		if _, ok := s.secrets[id]; ok {
			apiError(w, 409, "ALREADY_EXISTS", "Secret ["+full(id)+"] already exists.")
			return
		}
		s.secrets[id] = nil
		writeJSON(w, 200, map[string]any{"name": full(id), "replication": map[string]any{"automatic": map[string]any{}}})
	case r.Method == http.MethodGet && strings.HasSuffix(rest, "/versions/latest:access"):
		n := strings.TrimSuffix(rest, "/versions/latest:access")
		versions := s.secrets[n]
		if len(versions) == 0 {
			apiError(w, 404, "NOT_FOUND", "Secret ["+full(n)+"] not found or has no versions.")
			return
		}
		v := versions[len(versions)-1]
		sum := crc32.Checksum([]byte(v), crc32.MakeTable(crc32.Castagnoli))
		writeJSON(w, 200, map[string]any{
			"name":    full(n) + "/versions/" + strconv.Itoa(len(versions)),
			"payload": map[string]any{"data": base64.StdEncoding.EncodeToString([]byte(v)), "dataCrc32c": strconv.FormatUint(uint64(sum), 10)},
		})
	case r.Method == http.MethodPost && strings.HasSuffix(rest, ":addVersion"):
		n := strings.TrimSuffix(rest, ":addVersion")
		if _, ok := s.secrets[n]; !ok {
			apiError(w, 404, "NOT_FOUND", "Secret ["+full(n)+"] not found.")
			return
		}
		var body struct {
			Payload struct {
				Data       string `json:"data"`
				DataCrc32c string `json:"dataCrc32c"`
			} `json:"payload"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			apiError(w, 400, "INVALID_ARGUMENT", err.Error())
			return
		}
		data, err := base64.StdEncoding.DecodeString(body.Payload.Data)
		if err != nil {
			apiError(w, 400, "INVALID_ARGUMENT", "payload.data is not base64")
			return
		}
		if body.Payload.DataCrc32c != "" && body.Payload.DataCrc32c != strconv.FormatUint(uint64(crc32.Checksum(data, crc32.MakeTable(crc32.Castagnoli))), 10) {
			apiError(w, 400, "INVALID_ARGUMENT", "Checksum mismatch")
			return
		}
		s.secrets[n] = append(s.secrets[n], string(data))
		writeJSON(w, 200, map[string]any{"name": full(n) + "/versions/" + strconv.Itoa(len(s.secrets[n])), "state": "ENABLED"})
	case r.Method == http.MethodDelete && rest != "" && !strings.Contains(rest, "/"):
		if _, ok := s.secrets[rest]; !ok {
			apiError(w, 404, "NOT_FOUND", "Secret ["+full(rest)+"] not found.")
			return
		}
		delete(s.secrets, rest)
		writeJSON(w, 200, map[string]any{})
	default:
		apiError(w, 404, "NOT_FOUND", r.Method+" "+r.URL.Path)
	}
}
