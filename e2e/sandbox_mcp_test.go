package e2e

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coyote-cli/coyote/internal/fakellm"
)

// TestSandboxReachesARemoteMCPServerThroughTheProxy: a streamable HTTP MCP
// server that wants a vault secret in a header is reached from inside the
// sandbox through the credential proxy, which puts the secret in the
// header; the inside had only a placeholder. A stdio server's secret,
// which no proxy can fill in, goes in as its value, and --info says so.
func TestSandboxReachesARemoteMCPServerThroughTheProxy(t *testing.T) {
	needBwrap(t)
	const token = "mcp-header-token-5e2b7"
	srv := mcp.NewServer(&mcp.Implementation{Name: "hosted", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "greet", Description: "Say hello."}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Name string `json:"name"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello " + in.Name}}}, nil, nil
	})
	var mu sync.Mutex
	var auths []string
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	hosted := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auths = append(auths, r.Header.Get("Authorization"))
		mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		handler.ServeHTTP(w, r)
	}))
	defer hosted.Close()

	fake := &fakellm.OpenAI{Respond: func(req *fakellm.ChatRequest) fakellm.Reply {
		if res := toolResults(req); len(res) > 0 {
			return fakellm.Reply{Text: "results: " + strings.Join(res, " | ")}
		}
		return fakellm.Reply{ToolCalls: []fakellm.ToolCall{{ID: "c1", Name: "mcp_invoke_hosted", Arguments: `{"tool":"greet","arguments":{"name":"sandbox"}}`}}}
	}}
	url := fakellm.StartOpenAI(t, fake)
	e, ws := sandboxEnv(t, url)
	cfg := string(mustRead(t, e.configDir+"/config.yaml"))
	if err := os.WriteFile(e.configDir+"/config.yaml", []byte("vault_password_file: "+vaultPassword(t)+"\nenabled_mcp_servers: all\n"+cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	e.mustSucceed(e.run(token+"\n", "--add-secret", "HOSTED_TOKEN"))
	e.mustSucceed(e.run("stdio-value-9\n", "--add-secret", "LOCAL_KEY"))
	e.writeUserMCP(`{"mcpServers":{
	  "hosted":{"type":"http","url":"` + hosted.URL + `/mcp","headers":{"Authorization":"Bearer {{HOSTED_TOKEN}}"}},
	  "local":{"command":"/bin/true","env":{"KEY":"{{LOCAL_KEY}}"}}}}`)

	info := e.runIn(ws, "", "--sandbox=mcp", "--info")
	e.mustSucceed(info)
	for _, want := range []string{"proxied\tm/hosted", "passed as a value\tMCP server local (stdio): LOCAL_KEY"} {
		if !strings.Contains(info.stdout, want) {
			t.Errorf("--sandbox --info lacks %q:\n%s", want, info.stdout)
		}
	}
	if strings.Contains(info.stdout, token) {
		t.Fatalf("--info shows the token:\n%s", info.stdout)
	}

	r := e.runIn(ws, "", "--sandbox=mcp", "greet the sandbox")
	e.mustSucceed(r)
	if !strings.Contains(r.stdout, "hello sandbox") {
		t.Fatalf("stdout %q\nstderr %q\nlog:\n%s", r.stdout, r.stderr, e.log())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(auths) == 0 || auths[0] != "Bearer "+token {
		t.Fatalf("the MCP server saw %q", auths)
	}
}
