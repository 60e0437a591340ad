package fakellm

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// Azure is a fake Azure OpenAI resource in front of a fake OpenAI API: it
// serves POST /openai/deployments/<deployment>/chat/completions and
// .../embeddings, requires the api-version query parameter, and
// authenticates with the api-key header or an Entra bearer token, as
// Azure does. A request that passes is handed to OpenAI with the
// deployment as the body's model (Azure ignores the body's own), so
// OpenAI.Respond and the recorded requests see the deployment's name.
type Azure struct {
	// OpenAI answers the requests that pass; its APIKey must be empty.
	// Default: one that answers DefaultText to every deployment (whether a
	// deployment exists is Deployments' to say).
	OpenAI *OpenAI
	// APIKey, if set, is accepted in the api-key header.
	APIKey string
	// Token, if set, is accepted as "Authorization: Bearer <Token>".
	Token string
	// APIVersion, if set, is the only api-version accepted; otherwise any
	// non-empty one is.
	APIVersion string
	// Deployments are the deployments that exist; others get Azure's 404
	// DeploymentNotFound. Empty: every deployment exists.
	Deployments []string

	calls recorder[AzureCall]
}

// AzureCall is what the fake recorded of one request.
type AzureCall struct {
	Method, Path, APIVersion string
	Deployment               string
	Header                   http.Header
}

// Calls returns a copy of the requests received so far, in order.
func (f *Azure) Calls() []AzureCall { return f.calls.all() }

// StartAzure serves f on a loopback port until the test ends and returns
// its endpoint (the api_base of an azure-openai client).
func StartAzure(t testing.TB, f *Azure) string {
	t.Helper()
	return start(t, f.Handler(), "")
}

// Handler serves the resource's endpoint (for a server of one's own, as
// the benchmarks run).
func (f *Azure) Handler() http.Handler {
	if f.OpenAI == nil {
		f.OpenAI = &OpenAI{Respond: func(*ChatRequest) Reply { return Reply{Text: DefaultText} }}
	}
	return http.HandlerFunc(f.serveHTTP)
}

func (f *Azure) serveHTTP(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.EscapedPath(), "/openai/deployments/")
	deployment, api, _ := strings.Cut(rest, "/")
	if d, err := url.PathUnescape(deployment); err == nil {
		deployment = d
	}
	version := r.URL.Query().Get("api-version")
	f.calls.add(AzureCall{Method: r.Method, Path: r.URL.Path, APIVersion: version, Deployment: deployment, Header: r.Header.Clone()})
	if !ok || deployment == "" || r.Method != http.MethodPost || (api != "chat/completions" && api != "embeddings") {
		azureError(w, http.StatusNotFound, "404", "Resource not found")
		return
	}
	switch {
	case version == "":
		azureError(w, http.StatusNotFound, "404", "Resource not found")
		return
	case f.APIVersion != "" && version != f.APIVersion:
		azureError(w, http.StatusBadRequest, "BadRequest", "API version not supported")
		return
	}
	key, bearer := r.Header.Get("api-key"), r.Header.Get("Authorization")
	if !(f.APIKey != "" && key == f.APIKey) && !(f.Token != "" && bearer == "Bearer "+f.Token) {
		azureError(w, http.StatusUnauthorized, "401", "Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.")
		return
	}
	if len(f.Deployments) > 0 && !slices.Contains(f.Deployments, deployment) {
		azureError(w, http.StatusNotFound, "DeploymentNotFound", "The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again.")
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	var raw map[string]any
	if json.Unmarshal(body, &raw) == nil {
		raw["model"] = deployment
		body, _ = json.Marshal(raw)
	}
	inner := r.Clone(r.Context())
	inner.URL.Path, inner.URL.RawQuery = "/"+api, ""
	inner.Body, inner.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	inner.Header.Del("api-key")
	f.OpenAI.serveHTTP(w, inner)
}

// azureError writes Azure's error body.
func azureError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]string{"code": code, "message": msg}})
}
