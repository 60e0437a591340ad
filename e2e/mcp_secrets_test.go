package e2e

import (
	"encoding/json"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
)

// TestMCPServerSecretsDoNotReachTheProvider: an http server whose URL
// carries a vault secret in its query is down, and a stdio server given
// the secret as an argument prints it on its way out; the tool results
// the provider receives say what failed without the secret (the URL
// redacted, the argument shown as its placeholder).
func TestMCPServerSecretsDoNotReachTheProvider(t *testing.T) {
	const secret = "mcp-key-7f3a9c51"
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	_ = ln.Close() // the server is down

	var mu sync.Mutex
	var bodies []string // every request the provider receives
	fake := &fakellm.OpenAI{Respond: func(req *fakellm.ChatRequest) fakellm.Reply {
		raw, _ := json.Marshal(req.Raw)
		mu.Lock()
		bodies = append(bodies, string(raw))
		mu.Unlock()
		if res := toolResults(req); len(res) > 0 {
			return fakellm.Reply{Text: "results: " + strings.Join(res, " | ")}
		}
		return fakellm.Reply{ToolCalls: []fakellm.ToolCall{
			{ID: "c1", Name: "mcp_search_down", Arguments: `{"query":"x"}`},
			{ID: "c2", Name: "mcp_search_talkative", Arguments: `{"query":"x"}`},
		}}
	}}
	url := fakellm.StartOpenAI(t, fake)
	e := newEnv(t, fakeConfig(url, "vault_password_file: "+vaultPassword(t)+"\nenabled_mcp_servers: all\n"))
	e.mustSucceed(e.run(secret+"\n", "--add-secret", "MCP_KEY"))
	e.writeUserMCP(`{"mcpServers":{
	  "down":{"type":"http","url":"http://127.0.0.1:` + port + `/mcp?api_key={{MCP_KEY}}"},
	  "talkative":{"command":"/bin/sh","args":["-c","echo \"invalid key $1\" >&2; exit 1","sh","{{MCP_KEY}}"]}}}`)

	r := e.run("", "hi")
	e.mustSucceed(r)
	mu.Lock()
	defer mu.Unlock()
	if len(bodies) != 2 {
		t.Fatalf("%d provider requests, want the question and the tool results", len(bodies))
	}
	for _, b := range bodies {
		if strings.Contains(b, secret) {
			t.Errorf("the provider received the secret: %s", b)
		}
	}
	for _, want := range []string{`127.0.0.1:` + port + `/mcp?api_key=***`, "invalid key {{MCP_KEY}}"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("tool results %q lack %q", r.stdout, want)
		}
	}
}
