package fakellm

// This file is the fake of Google Cloud's Vertex AI: Gemini's
// generateContent and streamGenerateContent, Claude's rawPredict and
// streamRawPredict, text embeddings through predict, all under
// /v1/projects/{project}/locations/{location}/publishers/{publisher}/models/,
// with an OAuth 2 token endpoint that hands out the access tokens the API
// requires. Its unexported names start with "vertex".

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Vertex is a fake of Vertex AI (v1) and of Google's OAuth 2 token
// endpoint. Set Gemini and Anthropic to the fakes that answer the chats of
// publishers google and anthropic (their APIKey must be empty: Vertex
// authenticates with tokens); it must not be copied after first use.
//
// It serves:
//
//	POST /token    grant_type jwt-bearer (a service account's signed
//	               assertion) or refresh_token (an authorized_user file)
//	POST /v1/projects/{p}/locations/{l}/publishers/google/models/{m}:generateContent
//	POST .../publishers/google/models/{m}:streamGenerateContent?alt=sse
//	POST .../publishers/google/models/{m}:predict       (text embeddings)
//	POST .../publishers/anthropic/models/{m}:rawPredict
//	POST .../publishers/anthropic/models/{m}:streamRawPredict
//
// Every API request must carry "Authorization: Bearer <token>" with a
// token the endpoint issued and has not revoked (RevokeTokens), else a 401
// UNAUTHENTICATED in Google's error body; a project or location other than
// Project and Location gets a 403 PERMISSION_DENIED. The assertion of a
// jwt-bearer grant is checked as Google does: RS256 signed by the service
// account's key (ServiceAccountKey), iss its email, aud the token URL, the
// cloud-platform scope, not expired. A Claude request must carry
// anthropic_version "vertex-2023-10-16" in its body and leaves the model to
// the URL; it is then answered by the Anthropic fake.
type Vertex struct {
	// Project and Location are the only ones served (default
	// "coyote-test" and "us-central1").
	Project, Location string
	Gemini            *Gemini
	Anthropic         *Anthropic
	// RespondEmbed, when set, can make a predict request fail, as
	// Gemini.RespondEmbed does.
	RespondEmbed func(texts []string) Reply
	// EmbedDims is the size of the vectors of a request that does not
	// set outputDimensionality (default 768).
	EmbedDims int
	// TokenTTL is the lifetime of an access token (default an hour).
	TokenTTL time.Duration

	// Root is the URL the fake is served at, without /v1: StartVertex sets
	// it; a server of Handler's own sets it before the first request.
	Root   string
	embeds recorder[[]string]

	mu     sync.Mutex
	key    *rsa.PrivateKey
	issued map[string]bool
	grants []string
	denied []string
}

// vertexEmail is the service account of ServiceAccountKey.
const vertexEmail = "coyote-test@coyote-test.iam.gserviceaccount.com"

// Vertex's authorized_user credentials.
const (
	vertexClientID     = "fake-client.apps.googleusercontent.com"
	vertexClientSecret = "fake-client-secret"
	vertexRefreshToken = "1//fake-refresh-token"
)

// StartVertex serves f on a loopback port until the test ends and returns
// the API's base URL, ending in "/v1".
func StartVertex(t testing.TB, f *Vertex) string {
	t.Helper()
	base := start(t, f.Handler(), "/v1")
	f.Root = strings.TrimSuffix(base, "/v1")
	return base
}

// Handler serves the API and the token endpoint.
func (f *Vertex) Handler() http.Handler { return http.HandlerFunc(f.serveHTTP) }

// TokenURL is the URL of the fake's token endpoint.
func (f *Vertex) TokenURL() string { return f.Root + "/token" }

func (f *Vertex) project() string {
	if f.Project != "" {
		return f.Project
	}
	return "coyote-test"
}

func (f *Vertex) location() string {
	if f.Location != "" {
		return f.Location
	}
	return "us-central1"
}

// privateKey is the service account's key, made on first use.
func (f *Vertex) privateKey() *rsa.PrivateKey {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.key == nil {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			panic("fakellm: generate an RSA key: " + err.Error())
		}
		f.key = k
	}
	return f.key
}

// ServiceAccountKey is the JSON key of a service account the token
// endpoint knows, its token_uri the fake's.
func (f *Vertex) ServiceAccountKey() []byte {
	der, err := x509.MarshalPKCS8PrivateKey(f.privateKey())
	if err != nil {
		panic("fakellm: encode the key: " + err.Error())
	}
	data, _ := json.MarshalIndent(map[string]string{
		"type":           "service_account",
		"project_id":     f.project(),
		"private_key_id": "fake-key-1",
		"private_key":    string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email":   vertexEmail,
		"client_id":      "100000000000000000001",
		"token_uri":      f.TokenURL(),
	}, "", "  ")
	return data
}

// AuthorizedUser is the ADC file `gcloud auth application-default login`
// writes, for a user the token endpoint knows.
func (f *Vertex) AuthorizedUser() []byte {
	data, _ := json.MarshalIndent(map[string]string{
		"type":          "authorized_user",
		"client_id":     vertexClientID,
		"client_secret": vertexClientSecret,
		"refresh_token": vertexRefreshToken,
		"token_uri":     f.TokenURL(),
	}, "", "  ")
	return data
}

// RevokeTokens makes every token issued so far invalid, as an expiry
// would.
func (f *Vertex) RevokeTokens() {
	f.mu.Lock()
	defer f.mu.Unlock()
	clear(f.issued)
}

// Grants returns the grant types of the token requests answered with a
// token, in order.
func (f *Vertex) Grants() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.grants...)
}

// Denied returns the Authorization headers of the API requests refused
// with a 401, in order.
func (f *Vertex) Denied() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.denied...)
}

// EmbedRequests returns the texts of each predict call, in order.
func (f *Vertex) EmbedRequests() [][]string { return f.embeds.all() }

func (f *Vertex) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/token" {
		f.token(w, r)
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/v1/projects/")
	segs := strings.SplitN(rest, "/", 7)
	if !ok || r.Method != http.MethodPost || len(segs) != 7 || segs[1] != "locations" || segs[3] != "publishers" || segs[5] != "models" {
		geminiWriteError(w, http.StatusNotFound, "The requested URL "+r.URL.Path+" was not found on this server.", nil)
		return
	}
	project, location, publisher := segs[0], segs[2], segs[4]
	model, method, ok := strings.Cut(segs[6], ":")
	if !ok || model == "" {
		geminiWriteError(w, http.StatusNotFound, "The requested URL "+r.URL.Path+" was not found on this server.", nil)
		return
	}
	if !f.authorized(w, r) {
		return
	}
	if project != f.project() || location != f.location() {
		geminiWriteError(w, http.StatusForbidden, "Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/projects/"+project+"/locations/"+location+"/publishers/"+publisher+"/models/"+model+"' (or it may not exist).", nil)
		return
	}
	switch {
	case publisher == "google" && (method == "generateContent" || method == "streamGenerateContent") && f.Gemini != nil:
		r2 := r.Clone(r.Context())
		r2.URL.Path = "/v1beta/models/" + model + ":" + method
		r2.Header.Del("x-goog-api-key")
		f.Gemini.Handler().ServeHTTP(w, r2)
	case publisher == "google" && method == "predict":
		f.predict(w, r, model)
	case publisher == "anthropic" && (method == "rawPredict" || method == "streamRawPredict") && f.Anthropic != nil:
		f.claude(w, r, model, method == "streamRawPredict")
	default:
		geminiWriteError(w, http.StatusNotFound, "Publisher Model `projects/"+project+"/locations/"+location+"/publishers/"+publisher+"/models/"+model+"` not found or does not serve "+method+".", nil)
	}
}

// authorized answers a 401 and returns false unless the request carries a
// token the endpoint issued.
func (f *Vertex) authorized(w http.ResponseWriter, r *http.Request) bool {
	auth := r.Header.Get("Authorization")
	tok, ok := strings.CutPrefix(auth, "Bearer ")
	f.mu.Lock()
	ok = ok && f.issued[tok]
	if !ok {
		f.denied = append(f.denied, auth)
	}
	f.mu.Unlock()
	if !ok {
		w.Header().Set("WWW-Authenticate", `Bearer realm="https://accounts.google.com/"`)
		geminiWriteError(w, http.StatusUnauthorized, "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.", nil)
	}
	return ok
}

// claude checks Vertex's form of a Messages API request and has the
// Anthropic fake answer it as the API would.
func (f *Vertex) claude(w http.ResponseWriter, r *http.Request, model string, stream bool) {
	raw, ok := readBody(r)
	if !ok {
		writeAnthropicError(w, http.StatusBadRequest, "invalid_request_error", "There was an error parsing the body of your request as JSON.", "")
		return
	}
	if v, _ := raw["anthropic_version"].(string); v != "vertex-2023-10-16" {
		writeAnthropicError(w, http.StatusBadRequest, "invalid_request_error", "anthropic_version: vertex-2023-10-16 is required in the body", "")
		return
	}
	if s, _ := raw["stream"].(bool); s != stream {
		writeAnthropicError(w, http.StatusBadRequest, "invalid_request_error", "stream: streamRawPredict needs stream true, rawPredict stream false", "")
		return
	}
	delete(raw, "anthropic_version")
	raw["model"] = model
	body, _ := json.Marshal(raw)
	r2 := r.Clone(r.Context())
	r2.URL.Path = "/v1/messages"
	r2.Body = io.NopCloser(strings.NewReader(string(body)))
	r2.ContentLength = int64(len(body))
	r2.Header.Set("anthropic-version", "2023-06-01")
	f.Anthropic.Handler().ServeHTTP(w, r2)
}

// predict answers a text-embedding model's predict call.
func (f *Vertex) predict(w http.ResponseWriter, r *http.Request, model string) {
	var body struct {
		Instances []struct {
			Content  *string `json:"content"`
			TaskType string  `json:"task_type"`
		} `json:"instances"`
		Parameters struct {
			OutputDimensionality int `json:"outputDimensionality"`
		} `json:"parameters"`
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err == nil {
		err = json.Unmarshal(data, &body)
	}
	if err != nil {
		geminiWriteError(w, http.StatusBadRequest, "Invalid JSON payload received.", nil)
		return
	}
	texts := make([]string, len(body.Instances))
	for i, in := range body.Instances {
		if in.Content == nil {
			geminiWriteError(w, http.StatusBadRequest, "instances["+strconv.Itoa(i)+"]: content is required.", nil)
			return
		}
		if in.TaskType != "" && !geminiTaskType(in.TaskType) {
			geminiWriteError(w, http.StatusBadRequest, "instances["+strconv.Itoa(i)+"]: unknown task_type "+in.TaskType, nil)
			return
		}
		texts[i] = *in.Content
	}
	f.embeds.add(texts)
	if !strings.Contains(model, "embedding") {
		geminiWriteError(w, http.StatusBadRequest, "Model "+model+" does not embed text.", nil)
		return
	}
	if f.RespondEmbed != nil {
		if reply := f.RespondEmbed(texts); reply.Status >= 400 {
			geminiReplyError(w, &reply, model)
			return
		}
	}
	if len(texts) == 0 || len(texts) > 250 {
		geminiWriteError(w, http.StatusBadRequest, "between 1 and 250 instances are allowed in one request.", nil)
		return
	}
	dims := f.EmbedDims
	if dims <= 0 {
		dims = 768
	}
	if n := body.Parameters.OutputDimensionality; n > 0 {
		dims = n
	}
	out := []byte(`{"predictions":[`)
	for i, t := range texts {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, `{"embeddings":{"values":`...)
		out = geminiAppendVector(out, FakeVector(t, dims))
		out = append(out, `,"statistics":{"truncated":false,"token_count":`...)
		out = strconv.AppendInt(out, int64(max(1, len(t)/4)), 10)
		out = append(out, `}}}`...)
	}
	out = append(out, `],"metadata":{"billableCharacterCount":1}}`+"\n"...)
	writeBody(w, http.StatusOK, "application/json; charset=UTF-8", out)
}

// token is the OAuth 2 token endpoint.
func (f *Vertex) token(w http.ResponseWriter, r *http.Request) {
	oauthError := func(status int, code, desc string) {
		writeJSON(w, status, map[string]string{"error": code, "error_description": desc})
	}
	if r.Method != http.MethodPost || r.ParseForm() != nil {
		oauthError(http.StatusBadRequest, "invalid_request", "POST a form")
		return
	}
	grant := r.PostForm.Get("grant_type")
	switch grant {
	case "urn:ietf:params:oauth:grant-type:jwt-bearer":
		if msg := f.checkAssertion(r.PostForm.Get("assertion")); msg != "" {
			oauthError(http.StatusBadRequest, "invalid_grant", msg)
			return
		}
	case "refresh_token":
		id, secret, ok := r.BasicAuth()
		if !ok {
			id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
		}
		if id != vertexClientID || secret != vertexClientSecret {
			oauthError(http.StatusUnauthorized, "invalid_client", "The OAuth client was not found.")
			return
		}
		if r.PostForm.Get("refresh_token") != vertexRefreshToken {
			oauthError(http.StatusBadRequest, "invalid_grant", "Bad Request")
			return
		}
	default:
		oauthError(http.StatusBadRequest, "unsupported_grant_type", "Invalid grant_type: "+grant)
		return
	}
	ttl := f.TokenTTL
	if ttl <= 0 {
		ttl = time.Hour
	}
	f.mu.Lock()
	if f.issued == nil {
		f.issued = map[string]bool{}
	}
	f.grants = append(f.grants, grant)
	tok := "ya29.fake-" + strconv.Itoa(len(f.grants))
	f.issued[tok] = true
	f.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"access_token": tok, "expires_in": int(ttl / time.Second), "token_type": "Bearer"})
}

// checkAssertion checks a service account's JWT as Google does, and says
// what is wrong with it.
func (f *Vertex) checkAssertion(jwt string) string {
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		return "Invalid JWT: not three parts"
	}
	var head struct {
		Alg string `json:"alg"`
		Kid string `json:"kid"`
	}
	var claims struct {
		Iss   string `json:"iss"`
		Scope string `json:"scope"`
		Aud   string `json:"aud"`
		Exp   int64  `json:"exp"`
		Iat   int64  `json:"iat"`
	}
	hb, err1 := base64.RawURLEncoding.DecodeString(parts[0])
	cb, err2 := base64.RawURLEncoding.DecodeString(parts[1])
	sig, err3 := base64.RawURLEncoding.DecodeString(parts[2])
	if err1 != nil || err2 != nil || err3 != nil || json.Unmarshal(hb, &head) != nil || json.Unmarshal(cb, &claims) != nil {
		return "Invalid JWT: not base64url JSON"
	}
	if head.Alg != "RS256" {
		return "Invalid JWT: alg " + head.Alg
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if rsa.VerifyPKCS1v15(&f.privateKey().PublicKey, crypto.SHA256, sum[:], sig) != nil {
		return "Invalid JWT Signature."
	}
	now := time.Now().Unix()
	switch {
	case claims.Iss != vertexEmail:
		return "Invalid JWT: unknown issuer " + claims.Iss
	case claims.Aud != f.TokenURL():
		return "Invalid JWT: aud must be " + f.TokenURL()
	case !strings.Contains(" "+claims.Scope+" ", " https://www.googleapis.com/auth/cloud-platform "):
		return "Invalid JWT: the cloud-platform scope is missing"
	case claims.Exp < now || claims.Iat > now+60 || claims.Exp-claims.Iat > 3600:
		return "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe."
	}
	return ""
}
