package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coyote-cli/coyote/internal/fakellm"
)

// oauthSite is an OAuth authorization server and the MCP server it
// protects, on one local HTTP server, as a hosted MCP service would be.
type oauthSite struct {
	srv *httptest.Server

	mu        sync.Mutex
	challenge map[string]string // code → PKCE challenge
	resources []string          // the resource parameter of every authorize and token request
	movedTo   string            // when set, /mcp answers 307 to this origin's /mcp
	refusal   url.Values        // when set, /authorize sends the user back with this error
}

func startOAuthSite(t *testing.T) *oauthSite {
	t.Helper()
	s := &oauthSite{challenge: map[string]string{}}
	mcpSrv := mcp.NewServer(&mcp.Implementation{Name: "hosted", Version: "1"}, nil)
	mcp.AddTool(mcpSrv, &mcp.Tool{Name: "greet", Description: "Say hello to someone."}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Name string `json:"name"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello " + in.Name}}}, nil, nil
	})
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return mcpSrv }, nil)
	mux := http.NewServeMux()
	base := func() string { return s.srv.URL }
	writeJSON := func(w http.ResponseWriter, status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, 200, map[string]any{"resource": base() + "/mcp", "authorization_servers": []string{base()}})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, 200, map[string]any{
			"issuer": base(), "authorization_endpoint": base() + "/authorize", "token_endpoint": base() + "/token",
			"registration_endpoint": base() + "/register", "code_challenge_methods_supported": []string{"S256"},
			"response_types_supported": []string{"code"},
		})
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		var req map[string]any
		_ = json.NewDecoder(r.Body).Decode(&req)
		req["client_id"] = "client-1"
		writeJSON(w, http.StatusCreated, req)
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		s.mu.Lock()
		s.resources = append(s.resources, q.Get("resource"))
		s.challenge["code-1"] = q.Get("code_challenge")
		s.mu.Unlock()
		if q.Get("client_id") != "client-1" || q.Get("code_challenge_method") != "S256" {
			http.Error(w, "bad authorize request", http.StatusBadRequest)
			return
		}
		back, _ := url.Parse(q.Get("redirect_uri"))
		back.RawQuery = url.Values{"code": {"code-1"}, "state": {q.Get("state")}}.Encode()
		s.mu.Lock()
		if s.refusal != nil {
			answer := url.Values{"state": {q.Get("state")}}
			for k, v := range s.refusal {
				answer[k] = v
			}
			back.RawQuery = answer.Encode()
		}
		s.mu.Unlock()
		http.Redirect(w, r, back.String(), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		s.mu.Lock()
		s.resources = append(s.resources, r.PostForm.Get("resource"))
		ok := r.PostForm.Get("grant_type") == "authorization_code" && s.challenge[r.PostForm.Get("code")] == base64.RawURLEncoding.EncodeToString(sum[:])
		s.mu.Unlock()
		if !ok {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
		writeJSON(w, 200, map[string]any{"access_token": "token-1", "token_type": "Bearer", "expires_in": 3600, "refresh_token": "refresh-1"})
	})
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		moved := s.movedTo
		s.mu.Unlock()
		if moved != "" {
			http.Redirect(w, r, moved+"/mcp", http.StatusTemporaryRedirect)
			return
		}
		if r.Header.Get("Authorization") != "Bearer token-1" {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+base()+`/.well-known/oauth-protected-resource/mcp"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		handler.ServeHTTP(w, r)
	})
	s.srv = httptest.NewServer(mux)
	t.Cleanup(s.srv.Close)
	return s
}

// oauthEnv is an environment whose model searches the tools of the MCP
// server "web" of site (then answers with what it found), and whose
// "browser" is a script that follows the authorization redirects.
func oauthEnv(t *testing.T, site *oauthSite) *env {
	t.Helper()
	fake := &fakellm.OpenAI{Respond: func(req *fakellm.ChatRequest) fakellm.Reply {
		if res := toolResults(req); len(res) > 0 {
			return fakellm.Reply{Text: "result: " + res[0]}
		}
		return fakellm.Reply{ToolCalls: []fakellm.ToolCall{{ID: "c1", Name: "mcp_search_web", Arguments: `{"query":"hello"}`}}}
	}}
	url := fakellm.StartOpenAI(t, fake)
	e := newEnv(t, fakeConfig(url, "enabled_mcp_servers: web"))
	e.writeUserMCP(`{"mcpServers":{"web":{"type":"http","url":"` + site.srv.URL + `/mcp"}}}`)
	browser := filepath.Join(t.TempDir(), "browser")
	if err := os.WriteFile(browser, []byte("#!/bin/sh\nexec curl -sSL -o /dev/null \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return e.set("BROWSER=" + browser)
}

// checkResources fails unless the authorize and the token request both
// carried the MCP server's URL as their resource parameter.
func (s *oauthSite) checkResources(t *testing.T) {
	t.Helper()
	s.mu.Lock()
	resources := append([]string(nil), s.resources...)
	s.mu.Unlock()
	if len(resources) != 2 || resources[0] != s.srv.URL+"/mcp" || resources[1] != s.srv.URL+"/mcp" {
		t.Fatalf("resource parameters %q", resources)
	}
}

// TestAuthMCPAuthorizesARemoteServerForLaterRuns: before --auth-mcp the
// model is told the server needs authorization; coyote --auth-mcp runs
// the whole OAuth flow through the real bridge plugin (the "browser" is
// a script that follows the redirects); afterwards the model lists the
// server's tools with the stored token.
func TestAuthMCPAuthorizesARemoteServerForLaterRuns(t *testing.T) {
	site := startOAuthSite(t)
	e := oauthEnv(t, site)

	r := e.run("", "hi")
	e.mustSucceed(r)
	if !strings.Contains(r.stdout, "needs authorization") || !strings.Contains(r.stdout, "coyote --auth-mcp web") {
		t.Fatalf("before --auth-mcp: stdout %q", r.stdout)
	}

	r = e.run("", "--auth-mcp", "web")
	e.mustSucceed(r)
	if !strings.Contains(r.stderr, site.srv.URL+"/authorize?") || !strings.Contains(r.stderr, "MCP server web is authorized") {
		t.Fatalf("--auth-mcp: stderr %q", r.stderr)
	}
	site.checkResources(t)

	r = e.run("", "hi")
	e.mustSucceed(r)
	if !strings.Contains(r.stdout, `"name":"greet"`) {
		t.Fatalf("after --auth-mcp: stdout %q", r.stdout)
	}
}

// TestMCPAuthInTheREPL: .mcp auth runs the same flow from the REPL, and
// the next question in the same run reaches the server's tools.
func TestMCPAuthInTheREPL(t *testing.T) {
	site := startOAuthSite(t)
	e := oauthEnv(t, site)
	p := e.startREPL()
	p.enter(".mcp auth web", "Open this URL to authorize MCP server web", site.srv.URL+"/authorize?", "MCP server web is authorized.", replPrompt)
	site.checkResources(t)
	p.enter("hi", `"name":"greet"`, replPrompt)
	p.exit()
}

// TestAuthMCPRefusals: --auth-mcp refuses, in one line that says what to
// do, a server that is not there, a stdio server, and a server that
// publishes no OAuth metadata (named once, not by every layer).
func TestAuthMCPRefusals(t *testing.T) {
	bare := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(bare.Close)
	// A server whose resource metadata is for another resource of its host.
	var other *httptest.Server
	other = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/.well-known/oauth-protected-resource/mcp" {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"resource": other.URL + "/admin", "authorization_servers": []string{other.URL}})
			return
		}
		w.WriteHeader(http.StatusUnauthorized)
	}))
	t.Cleanup(other.Close)
	e := newEnv(t, "")
	e.writeUserMCP(`{"mcpServers":{"bare":{"type":"http","url":"` + bare.URL + `/mcp"},"local":{"command":"true"},` +
		`"other":{"type":"http","url":"` + other.URL + `/mcp"}}}`)
	for _, tt := range []struct {
		server string
		want   []string
	}{
		{"nope", []string{`no MCP server "nope"`, "coyote --mcp-list"}},
		{"local", []string{"runs over stdio", "only remote (http, sse) servers use OAuth"}},
		{"bare", []string{"publishes no OAuth metadata", "check its URL"}},
		{"other", []string{`refused the OAuth metadata of MCP server "other"`, "/admin", "RFC 9728"}},
	} {
		line := oneLineError(t, e.run("", "--auth-mcp", tt.server))
		for _, w := range tt.want {
			if !strings.Contains(line, w) {
				t.Errorf("--auth-mcp %s: %q lacks %q", tt.server, line, w)
			}
		}
		if n := strings.Count(line, "authorize MCP server"); n > 1 {
			t.Errorf("--auth-mcp %s names the server %d times: %q", tt.server, n, line)
		}
	}
}

// TestARedirectToAnotherOriginGetsNoCredentials: the real coyote and
// coyote-mcp against an authorized server (a stored OAuth token and a
// static header in mcp.json) that starts answering 307 to another
// origin. The bridge refuses to follow: the other origin receives no
// request at all, so neither the header nor the token, and the error the
// model is given says to change the server's url in mcp.json.
func TestARedirectToAnotherOriginGetsNoCredentials(t *testing.T) {
	const header = "static-header-secret"
	site := startOAuthSite(t)
	var mu sync.Mutex
	var seen []string // what the other origin received
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.Path+" Authorization="+r.Header.Get("Authorization")+" X-Api-Key="+r.Header.Get("X-Api-Key"))
		mu.Unlock()
		http.Error(w, "not here", http.StatusNotFound)
	}))
	t.Cleanup(elsewhere.Close)
	e := oauthEnv(t, site)
	e.writeUserMCP(`{"mcpServers":{"web":{"type":"http","url":"` + site.srv.URL + `/mcp","headers":{"X-Api-Key":"` + header + `"}}}}`)

	e.mustSucceed(e.run("", "--auth-mcp", "web"))
	r := e.run("", "hi")
	e.mustSucceed(r)
	if !strings.Contains(r.stdout, `"name":"greet"`) {
		t.Fatalf("the authorized server's tools were not listed: stdout %q", r.stdout)
	}

	site.mu.Lock()
	site.movedTo = elsewhere.URL
	site.mu.Unlock()
	r = e.run("", "hi")
	e.mustSucceed(r)
	mu.Lock()
	got := append([]string(nil), seen...)
	mu.Unlock()
	if len(got) > 0 {
		t.Errorf("the other origin received %q", got)
	}
	// The fake model answers "result: " and the tool result it was given.
	var res struct {
		Error string `json:"tool_call_error"`
	}
	if err := json.Unmarshal([]byte(strings.TrimPrefix(strings.TrimSpace(r.stdout), "result: ")), &res); err != nil {
		t.Fatalf("stdout %q: %v", r.stdout, err)
	}
	line := res.Error
	if strings.Contains(line, "\n") {
		t.Errorf("the error %q is not one line", line)
	}
	for _, want := range []string{`MCP server "web" did not start`, "redirected to " + elsewhere.URL, "another origin", "change its url in mcp.json"} {
		if !strings.Contains(line, want) {
			t.Errorf("the error line %q lacks %q; stdout %q", line, want, r.stdout)
		}
	}
	for _, secret := range []string{header, "token-1"} {
		if strings.Contains(r.stdout+r.stderr, secret) {
			t.Errorf("the output shows the credential %q", secret)
		}
	}
}

// TestServerTextOfAnOAuthRefusalCannotActOnTheTerminal: the authorization
// server refuses with an error and error_description full of what a
// terminal acts on (escape sequences, a bell, a carriage return, a C1
// control, a right-to-left override). The bridge quotes them as they
// are; coyote --auth-mcp's error line shows their text without them.
func TestServerTextOfAnOAuthRefusalCannotActOnTheTerminal(t *testing.T) {
	site := startOAuthSite(t)
	site.mu.Lock()
	site.refusal = url.Values{
		"error":             {"access_denied\x1b[31m"},
		"error_description": {"denied\x1b[2J\x1b]0;pwned\x07\rspoofed \u202egnp.exe\u0085end\nsecond line"},
	}
	site.mu.Unlock()
	e := oauthEnv(t, site)
	r := e.run("", "--auth-mcp", "web")
	if r.code != 1 {
		t.Fatalf("exit code %d, want 1; stderr %q", r.code, r.stderr)
	}
	if strings.ContainsAny(r.stderr, "\x1b\x07\r\u202e\u0085") {
		t.Errorf("stderr %q keeps characters a terminal acts on", r.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	line := lines[len(lines)-1] // after the URL to open
	if !strings.HasPrefix(line, "Error: ") {
		t.Fatalf("stderr does not end with the error line: %q", r.stderr)
	}
	if want := "the authorization server refused: access_denied[31m (denied[2J]0;pwned spoofed gnp.exe end)"; !strings.Contains(line, want) {
		t.Errorf("the error line %q lacks %q", line, want)
	}
}
