package plugins

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/mcpbridge"
)

// envMCPPlugin makes the test binary an MCP bridge plugin (checked in
// init, before TestMain; sdk.Serve never returns). "oauth" serves one
// with the oauth capability.
const envMCPPlugin = "COYOTE_TEST_MCP_PLUGIN"

func init() {
	switch os.Getenv(envMCPPlugin) {
	case "":
		return
	case "oauth":
		sdk.Serve(sdk.Info{Name: "mcp", Version: "0.0.2"}, mcpbridge.Plugin(authBridge{&testBridge{}}))
	default:
		sdk.Serve(sdk.Info{Name: "mcp", Version: "0.0.1"}, mcpbridge.Plugin(&testBridge{}))
	}
}

// testBridge stands for coyote-mcp: each configured server has one tool
// named after its command; tool "crash" exits with status 3 and "pid"
// answers with the process id.
type testBridge struct {
	mu      sync.Mutex
	servers map[string]mcpbridge.ServerConfig
}

func (b *testBridge) Configure(_ context.Context, req *mcpbridge.ConfigureRequest) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.servers = map[string]mcpbridge.ServerConfig{}
	for _, s := range req.Servers {
		b.servers[s.Name] = s
	}
	return nil
}

func (b *testBridge) Tools(_ context.Context, req *mcpbridge.ToolsRequest) (*mcpbridge.ToolsResponse, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := &mcpbridge.ToolsResponse{}
	for _, name := range req.Servers {
		st := mcpbridge.ServerTools{Server: name}
		if s, ok := b.servers[name]; ok {
			st.Tools = []mcpbridge.Tool{{Name: s.Command}}
		} else {
			st.Error = "not configured"
		}
		out.Servers = append(out.Servers, st)
	}
	return out, nil
}

func (b *testBridge) Call(_ context.Context, req *mcpbridge.CallRequest) (*mcpbridge.CallResult, error) {
	switch req.Tool {
	case "crash":
		os.Exit(3)
	case "pid":
		return &mcpbridge.CallResult{Text: strconv.Itoa(os.Getpid())}, nil
	}
	return nil, fmt.Errorf("tool %q: %w", req.Tool, sdk.ErrNotFound)
}

func (b *testBridge) Stop(context.Context, *mcpbridge.StopRequest) error { return nil }

type authBridge struct{ *testBridge }

func (authBridge) Authenticate(_ context.Context, req *mcpbridge.AuthenticateRequest, send func(*mcpbridge.AuthEvent) error) error {
	return send(&mcpbridge.AuthEvent{AuthorizationURL: "https://auth.example/" + req.Server})
}

// mcpHost returns a host whose coyote-mcp runs this test binary in mode.
func mcpHost(t *testing.T, mode string) *MCPBridge {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	script := fmt.Sprintf("#!/bin/sh\n%s=%s exec %q\n", envMCPPlugin, mode, exe)
	if err := os.WriteFile(filepath.Join(dir, BinaryName(sdk.KindMCP, "")), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	h := New(Options{Dirs: []string{dir}, Logger: hclog.New(&hclog.LoggerOptions{Output: testWriter{t}, Level: hclog.Debug})})
	t.Cleanup(h.Close)
	m, err := h.MCP()
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := h.MCP(); again != m {
		t.Fatal("a host has one MCP handle")
	}
	return m
}

func mcpPID(t *testing.T, m *MCPBridge) string {
	t.Helper()
	r, err := m.Call(context.Background(), &mcpbridge.CallRequest{Server: "fs", Tool: "pid"})
	if err != nil {
		t.Fatal(err)
	}
	return r.Text
}

func listed(t *testing.T, m *MCPBridge, server string) string {
	t.Helper()
	resp, err := m.Tools(context.Background(), &mcpbridge.ToolsRequest{Servers: []string{server}})
	if err != nil {
		t.Fatal(err)
	}
	st := resp.Servers[0]
	if st.Error != "" || len(st.Tools) != 1 {
		t.Fatalf("tools of %s: %+v", server, st)
	}
	return st.Tools[0].Name
}

func TestMCPConfigureAndStopStartNothing(t *testing.T) {
	m := mcpHost(t, "plain")
	ctx := context.Background()
	if err := m.Configure(ctx, &mcpbridge.ConfigureRequest{Servers: []mcpbridge.ServerConfig{{Name: "fs", Type: "stdio", Command: "one"}}}); err != nil {
		t.Fatal(err)
	}
	if err := m.Stop(ctx, &mcpbridge.StopRequest{}); err != nil {
		t.Fatal(err)
	}
	if m.Plugin().live() != nil {
		t.Fatal("Configure or Stop started the plugin")
	}
	if got := listed(t, m, "fs"); got != "one" {
		t.Fatalf("the first process was not configured: %q", got)
	}
	// A new configuration reaches the live process at once.
	if err := m.Configure(ctx, &mcpbridge.ConfigureRequest{Servers: []mcpbridge.ServerConfig{{Name: "fs", Type: "stdio", Command: "two"}}}); err != nil {
		t.Fatal(err)
	}
	if got := listed(t, m, "fs"); got != "two" {
		t.Fatalf("after a reconfigure: %q", got)
	}
}

func TestMCPCrashIsReportedAndTheNextCallReconfiguresANewProcess(t *testing.T) {
	m := mcpHost(t, "plain")
	ctx := context.Background()
	if err := m.Configure(ctx, &mcpbridge.ConfigureRequest{Servers: []mcpbridge.ServerConfig{{Name: "fs", Type: "stdio", Command: "server-fs"}}}); err != nil {
		t.Fatal(err)
	}
	before := mcpPID(t, m)
	_, err := m.Call(ctx, &mcpbridge.CallRequest{Server: "fs", Tool: "crash"})
	var crash *CrashError
	if !errors.As(err, &crash) || crash.Binary != "coyote-mcp" || crash.Exit != "exit status 3" {
		t.Fatalf("err = %v (%T), want the crash of coyote-mcp", err, err)
	}
	if got := listed(t, m, "fs"); got != "server-fs" {
		t.Fatalf("the new process was not configured again: %q", got)
	}
	if after := mcpPID(t, m); after == before || m.Plugin().cur.Gen != 2 {
		t.Fatalf("after the crash the calls ran in process %s (generation %d), before %s", after, m.Plugin().cur.Gen, before)
	}
	if _, err := m.Call(ctx, &mcpbridge.CallRequest{Server: "fs", Tool: "nope"}); !errors.Is(err, sdk.ErrNotFound) || errors.As(err, &crash) {
		t.Fatalf("a plugin's own error: %v", err)
	}
}

func TestMCPAuthenticateNeedsTheCapability(t *testing.T) {
	ctx := context.Background()
	var events []string
	send := func(ev *mcpbridge.AuthEvent) error {
		events = append(events, ev.AuthorizationURL)
		return nil
	}
	plain := mcpHost(t, "plain")
	err := plain.Authenticate(ctx, &mcpbridge.AuthenticateRequest{Server: "remote"}, send)
	if !errors.Is(err, sdk.ErrUnsupported) || !strings.Contains(err.Error(), "OAuth for MCP servers is not supported by plugin coyote-mcp v0.0.1") {
		t.Fatalf("without the capability: %v", err)
	}
	withOAuth := mcpHost(t, "oauth")
	if err := withOAuth.Authenticate(ctx, &mcpbridge.AuthenticateRequest{Server: "remote"}, send); err != nil {
		t.Fatal(err)
	}
	if len(events) != 1 || events[0] != "https://auth.example/remote" {
		t.Fatalf("events = %v", events)
	}
}
