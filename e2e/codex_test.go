package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coyote-cli/coyote/internal/fakeauth"
	"github.com/coyote-cli/coyote/internal/fakellm"
)

// The ChatGPT subscription login through the real binary (issue 23): an
// openai client with auth: oauth logs in at the fake authorization server,
// whose tokens name the ChatGPT account as the real ones do, and talks to
// the fake Codex backend in the Responses API.

const codexAccount = "acct-e2e-7"

// codexEnv is an environment whose client "chatgpt" (type openai, the
// OpenAI login preset with the fake's endpoints) logs in at srv and talks
// to a fake Codex backend answering with respond; wire_api: responses
// because api_base points at the fake rather than at chatgpt.com.
func codexEnv(t *testing.T, srv *fakeauth.Server, respond func(*fakellm.ChatRequest) fakellm.Reply) (*env, *fakellm.Codex) {
	t.Helper()
	backend := &fakellm.Codex{AccountID: codexAccount, Valid: srv.Valid, Respond: respond}
	url := fakellm.StartCodex(t, backend)
	cfg := fmt.Sprintf(`model: chatgpt:gpt-5-codex
clients:
  - type: openai
    name: chatgpt
    api_base: %s
    wire_api: responses
    models: [{name: gpt-5-codex, supports_function_calling: true}]
    auth: oauth
    oauth:
      client_id: %s
      authorize_url: %s
      token_url: %s
      redirect_port: %d
`, url, srv.ClientID, srv.AuthorizeURL(), srv.TokenURL(), freePort(t))
	e := newEnv(t, cfg)
	browser := filepath.Join(t.TempDir(), "browser")
	if err := os.WriteFile(browser, []byte("#!/bin/sh\nexec curl -sSL -o /dev/null \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The effort is set by the environment (or .set), as in the original.
	return e.set("BROWSER="+browser, "TZ=UTC", "COYOTE_REASONING_EFFORT=high"), backend
}

// freePort is a loopback port nothing listens on now (the OpenAI preset's
// own, 1455, may be taken on a developer's machine).
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func chatGPTAuth() *fakeauth.Server {
	return &fakeauth.Server{ClientID: "app_test", ExpiresIn: 3600,
		Claims: map[string]any{"https://api.openai.com/auth": map[string]any{"chatgpt_account_id": codexAccount, "chatgpt_plan_type": "plus"}}}
}

// TestChatGPTLogin: after --authenticate, a one-shot prompt streams the
// backend's answer, reasoning in <think>, with the token, the account from
// its claims, the Codex headers, the effort as reasoning.effort and the
// system prompt as instructions; a token the backend refuses is refreshed
// once and the request sent again; no token reaches the log.
func TestChatGPTLogin(t *testing.T) {
	srv := chatGPTAuth().Start(t)
	e, backend := codexEnv(t, srv, func(*fakellm.ChatRequest) fakellm.Reply {
		return fakellm.Reply{Reasoning: "Short greeting.", Text: "Hello from your subscription."}
	})

	line := oneLineError(t, e.run("", "hello"))
	if !strings.Contains(line, `client "chatgpt" uses auth: oauth and is not logged in: run coyote --authenticate chatgpt`) {
		t.Fatalf("before the login: %q", line)
	}
	r := e.run("", "--authenticate", "chatgpt")
	e.mustSucceed(r)
	if len(backend.Requests()) != 0 {
		t.Fatalf("%d requests before the login", len(backend.Requests()))
	}
	// The OpenAI preset's authorization parameters reached the server.
	auths := srv.Requests()
	if len(auths) != 1 || auths[0].Params["grant_type"] != "authorization_code" || !strings.HasSuffix(auths[0].Params["redirect_uri"], "/auth/callback") {
		t.Fatalf("token requests %+v", auths)
	}

	r = e.run("", "--prompt", "Answer in one line.", "hello")
	e.mustSucceed(r)
	if want := "<think>\nShort greeting.\n</think>\n\nHello from your subscription.\n"; r.stdout != want {
		t.Fatalf("stdout %q, want %q", r.stdout, want)
	}
	req := backend.Requests()[0]
	if !srv.Valid(strings.TrimPrefix(req.Authorization, "Bearer ")) {
		t.Fatalf("authorization %q is not a token of the login", req.Authorization)
	}
	if got := req.Header.Get("chatgpt-account-id"); got != codexAccount {
		t.Fatalf("chatgpt-account-id %q, want the token's account %q", got, codexAccount)
	}
	if req.ReasoningEffort != "high" || req.Raw["store"] != false || req.Raw["stream"] != true {
		t.Fatalf("body %v", req.Raw)
	}
	if ins, _ := req.Raw["instructions"].(string); !strings.Contains(ins, "Answer in one line.") {
		t.Fatalf("instructions %q", ins)
	}

	// The backend stops taking the token: one refresh, the same request
	// once more.
	srv.RevokeAccess()
	r = e.run("", "hello")
	e.mustSucceed(r)
	if !strings.HasSuffix(r.stdout, "Hello from your subscription.\n") || srv.Grants()["refresh_token"] != 1 {
		t.Fatalf("after revocation: stdout %q, grants %v", r.stdout, srv.Grants())
	}
	reqs := backend.Requests()
	if n := len(reqs); n != 3 || reqs[1].Authorization == reqs[2].Authorization || reqs[2].Header.Get("chatgpt-account-id") != codexAccount {
		t.Fatalf("%d requests, want 3 (answered, refused, answered with a new token)", n)
	}

	log := e.log()
	tokens, _ := os.ReadFile(filepath.Join(e.cacheDir, "oauth", "chatgpt_oauth_tokens.json"))
	var cached struct {
		AccessToken  string `json:"access_token"`
		RefreshToken string `json:"refresh_token"`
		IDToken      string `json:"id_token"`
	}
	if err := json.Unmarshal(tokens, &cached); err != nil || cached.IDToken == "" {
		t.Fatalf("token file %s: %v", tokens, err)
	}
	for _, secret := range []string{cached.AccessToken, cached.RefreshToken, cached.IDToken} {
		if strings.Contains(log, secret) {
			t.Errorf("the log holds a token:\n%s", log)
		}
	}
}

// TestChatGPTToolRound: the model's function call runs, and the next
// request sends back its reasoning (encrypted), the call and the
// function's output as Responses items, which the backend checks.
func TestChatGPTToolRound(t *testing.T) {
	srv := chatGPTAuth().Start(t)
	e, backend := codexEnv(t, srv, func(req *fakellm.ChatRequest) fakellm.Reply {
		for _, it := range req.Messages {
			if it["type"] == "function_call_output" {
				return fakellm.Reply{Text: "The tool said: " + fmt.Sprint(it["output"])}
			}
		}
		return fakellm.Reply{Reasoning: "Ask the user.", ToolCalls: []fakellm.ToolCall{
			{ID: "call_q1", Name: "user__select", Arguments: `{"question":"Which one?","options":["a","b"]}`}}}
	})
	e.mustSucceed(e.run("", "--authenticate", "chatgpt"))
	r := e.run("", "--headless", "pick")
	e.mustSucceed(r)
	if !strings.Contains(r.stdout, "The tool said: ") || !strings.Contains(r.stdout, "needs_human") {
		t.Fatalf("stdout %q", r.stdout)
	}
	reqs := backend.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	var kinds []string
	for _, it := range reqs[1].Messages {
		kinds = append(kinds, fmt.Sprint(it["type"]))
		switch it["type"] {
		case "reasoning":
			if it["encrypted_content"] != fakellm.CodexEncrypted("Ask the user.") {
				t.Errorf("reasoning replayed as %v", it)
			}
		case "function_call":
			if it["call_id"] != "call_q1" || it["name"] != "user__select" {
				t.Errorf("call replayed as %v", it)
			}
		case "function_call_output":
			if out, _ := it["output"].(string); it["call_id"] != "call_q1" || !strings.Contains(out, "needs_human") {
				t.Errorf("output replayed as %v", it)
			}
		}
	}
	if got := strings.Join(kinds, ","); got != "message,reasoning,function_call,function_call_output" {
		t.Fatalf("items of the second request: %s", got)
	}
}

// TestChatGPTUsageLimit: the plan's usage limit is one line that says
// when it resets, and the request is not retried.
func TestChatGPTUsageLimit(t *testing.T) {
	srv := chatGPTAuth().Start(t)
	reset := time.Now().Add(3 * time.Hour).Truncate(time.Minute).Add(30 * time.Second)
	e, backend := codexEnv(t, srv, func(*fakellm.ChatRequest) fakellm.Reply {
		return fakellm.Reply{Status: 429, LimitResetsAt: reset}
	})
	e.mustSucceed(e.run("", "--authenticate", "chatgpt"))
	line := oneLineError(t, e.run("", "hello"))
	want := "you have reached the usage limit of your ChatGPT plus plan; it resets at " + reset.UTC().Format("15:04") + " UTC"
	if reset.UTC().Format(time.DateOnly) != time.Now().UTC().Format(time.DateOnly) {
		want = "you have reached the usage limit of your ChatGPT plus plan; it resets at " + reset.UTC().Format("Mon 2 Jan 15:04") + " UTC"
	}
	if !strings.Contains(line, want) || strings.Contains(line, "wait a moment") {
		t.Fatalf("error %q\nwant %q", line, want)
	}
	if n := len(backend.Requests()); n != 1 {
		t.Fatalf("%d requests: a usage limit is not retried", n)
	}
}
