package fakellm_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
)

// vertexPost sends body to u with the headers given as name, value pairs and
// returns the status and the body.
func vertexPost(t *testing.T, u, contentType, body string, header ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data)
}

// The token endpoint refuses what Google refuses, and the API wants one
// of its tokens and Vertex's form of a Claude request.
func TestVertexChecks(t *testing.T) {
	f := &fakellm.Vertex{Gemini: &fakellm.Gemini{}, Anthropic: &fakellm.Anthropic{}}
	base := fakellm.StartVertex(t, f)
	form := "application/x-www-form-urlencoded"
	tokenTests := []struct {
		name, body string
		status     int
		want       string
	}{
		{"forged assertion", "grant_type=" + url.QueryEscape("urn:ietf:params:oauth:grant-type:jwt-bearer") + "&assertion=eyJhbGciOiJSUzI1NiJ9.e30.c2ln", 400, "Invalid JWT Signature"},
		{"wrong refresh token", "grant_type=refresh_token&client_id=fake-client.apps.googleusercontent.com&client_secret=fake-client-secret&refresh_token=nope", 400, "invalid_grant"},
		{"wrong client", "grant_type=refresh_token&client_id=x&client_secret=y&refresh_token=1//fake-refresh-token", 401, "invalid_client"},
		{"unknown grant", "grant_type=password", 400, "unsupported_grant_type"},
	}
	for _, tt := range tokenTests {
		if status, body := vertexPost(t, f.TokenURL(), form, tt.body); status != tt.status || !strings.Contains(body, tt.want) {
			t.Errorf("%s: %d %s", tt.name, status, body)
		}
	}
	status, body := vertexPost(t, f.TokenURL(), form, "grant_type=refresh_token&client_id=fake-client.apps.googleusercontent.com&client_secret=fake-client-secret&refresh_token=1//fake-refresh-token")
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if status != 200 || json.Unmarshal([]byte(body), &tok) != nil || tok.AccessToken == "" {
		t.Fatalf("token: %d %s", status, body)
	}
	bearer := "Bearer " + tok.AccessToken
	models := base + "/projects/coyote-test/locations/us-central1/publishers/"
	apiTests := []struct {
		name, url, body, auth string
		status                int
		want                  string
	}{
		{"no token", models + "google/models/gemini-2.5-flash:generateContent", `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`, "", 401, "UNAUTHENTICATED"},
		{"another project", base + "/projects/other/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent", `{}`, bearer, 403, "PERMISSION_DENIED"},
		{"gemini", models + "google/models/gemini-2.5-flash:generateContent", `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`, bearer, 200, "candidates"},
		{"claude without the version", models + "anthropic/models/claude-sonnet-4-5:rawPredict", `{"max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`, bearer, 400, "vertex-2023-10-16"},
		{"claude", models + "anthropic/models/claude-sonnet-4-5:rawPredict", `{"anthropic_version":"vertex-2023-10-16","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`, bearer, 200, `"type":"message"`},
		{"embeddings", models + "google/models/text-embedding-005:predict", `{"instances":[{"content":"a","task_type":"RETRIEVAL_QUERY"}]}`, bearer, 200, `"predictions"`},
	}
	for _, tt := range apiTests {
		var h []string
		if tt.auth != "" {
			h = []string{"Authorization", tt.auth}
		}
		if status, body := vertexPost(t, tt.url, "application/json", tt.body, h...); status != tt.status || !strings.Contains(body, tt.want) {
			t.Errorf("%s: %d %s", tt.name, status, body)
		}
	}
	f.RevokeTokens()
	if status, _ := vertexPost(t, models+"google/models/text-embedding-005:predict", "application/json", `{"instances":[{"content":"a"}]}`, "Authorization", bearer); status != 401 {
		t.Errorf("a revoked token: %d", status)
	}
}
