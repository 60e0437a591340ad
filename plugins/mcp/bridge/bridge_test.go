package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coyote-cli/coyote/internal/mcptest"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/mcpbridge"
	"github.com/coyote-cli/coyote/sdk/plugintest"
)

// served returns a bridge served over real gRPC in this process, the
// kernel's client for it, and the bridge itself for inspection.
func served(t *testing.T, opts Options) (mcpbridge.Client, *Bridge) {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = hclog.New(&hclog.LoggerOptions{Output: testWriter{t}, Level: hclog.Debug})
	}
	b := New(opts)
	t.Cleanup(b.Close)
	c := plugintest.Serve(t, sdk.Info{Name: "mcp", Version: "test"}, mcpbridge.Plugin(b.Served())).
		Dispense(t, sdk.KindMCP).(mcpbridge.Client)
	return c, b
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// npmServer is the config of an npm server run through sh, which writes
// the process id (the process group's id) to a file first. With tee set,
// everything the server reads is also copied to a log file.
func npmServer(t *testing.T, name, pkg string, tee bool, extraArgs ...string) (mcpbridge.ServerConfig, *pidFile) {
	t.Helper()
	node, args := mcptest.Server(t, pkg)
	dir := t.TempDir()
	pf := &pidFile{path: filepath.Join(dir, "pid"), log: filepath.Join(dir, "stdin.log")}
	script := `echo $$ > "$PIDFILE"; exec "$@"`
	if tee {
		script = `echo $$ > "$PIDFILE"; tee "$STDINLOG" | "$@"`
	}
	return mcpbridge.ServerConfig{
		Name:    name,
		Type:    mcpbridge.TypeStdio,
		Command: "/bin/sh",
		Args:    append([]string{"-c", script, "sh", node}, append(args, extraArgs...)...),
		Env:     map[string]string{"PIDFILE": pf.path, "STDINLOG": pf.log},
	}, pf
}

type pidFile struct{ path, log string }

func (p *pidFile) pid(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile(p.path)
	if err != nil {
		t.Fatalf("the server wrote no pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// eventually waits for cond, failing the test after a deadline. It waits
// on things outside the test's control (another process's state).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func configure(t *testing.T, c mcpbridge.Bridge, servers ...mcpbridge.ServerConfig) {
	t.Helper()
	if err := c.Configure(testCtx(t), &mcpbridge.ConfigureRequest{Servers: servers, OAuthDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
}

func toolNames(st mcpbridge.ServerTools) map[string]bool {
	m := map[string]bool{}
	for _, tl := range st.Tools {
		m[tl.Name] = true
	}
	return m
}

func call(t *testing.T, c mcpbridge.Bridge, server, tool, args string) *mcpbridge.CallResult {
	t.Helper()
	r, err := c.Call(testCtx(t), &mcpbridge.CallRequest{Server: server, Tool: tool, Arguments: []byte(args)})
	if err != nil {
		t.Fatalf("call %s on %s: %v", tool, server, err)
	}
	return r
}

func TestStdioServersListAndCallTools(t *testing.T) {
	c, _ := served(t, Options{})
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("the zebra file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	every, _ := npmServer(t, "every", mcptest.Everything, false)
	fs, _ := npmServer(t, "fs", mcptest.Filesystem, false, dir)
	configure(t, c, every, fs)

	resp, err := c.Tools(testCtx(t), &mcpbridge.ToolsRequest{Servers: []string{"fs", "every"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Servers) != 2 || resp.Servers[0].Server != "fs" || resp.Servers[1].Server != "every" {
		t.Fatalf("entries not in request order: %+v", resp.Servers)
	}
	for _, st := range resp.Servers {
		if st.Error != "" {
			t.Fatalf("%s: %s", st.Server, st.Error)
		}
	}
	if n := toolNames(resp.Servers[0]); !n["read_file"] && !n["read_text_file"] {
		t.Fatalf("fs tools: %v", n)
	}
	echo := toolNames(resp.Servers[1])
	if !echo["echo"] {
		t.Fatalf("everything tools: %v", echo)
	}
	for _, tl := range resp.Servers[1].Tools {
		if tl.Name == "echo" {
			var schema map[string]any
			if err := json.Unmarshal(tl.InputSchema, &schema); err != nil || schema["type"] != "object" {
				t.Fatalf("echo schema %s: %v", tl.InputSchema, err)
			}
		}
	}

	tests := []struct {
		name, server, tool, args string
		want                     string
		isError                  bool
	}{
		{"echo", "every", "echo", `{"message":"hi there"}`, "hi there", false},
		{"read a file", "fs", "read_text_file", fmt.Sprintf(`{"path":%q}`, filepath.Join(dir, "notes.txt")), "the zebra file", false},
		{"outside the allowed directory", "fs", "read_text_file", `{"path":"/etc/passwd"}`, "denied", true},
		{"structured content", "every", "get-structured-content", `{"location":"New York"}`, "temperature", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, c, tc.server, tc.tool, tc.args)
			if r.IsError != tc.isError || !strings.Contains(r.Text, tc.want) {
				t.Fatalf("result = %+v, want %q (isError %v)", r, tc.want, tc.isError)
			}
		})
	}
}

func TestStdioServerGetsAMinimalEnvironment(t *testing.T) {
	t.Setenv("COYOTE_TEST_API_KEY", "sk-must-not-leak")
	c, _ := served(t, Options{})
	every, _ := npmServer(t, "every", mcptest.Everything, false)
	every.Env["FROM_CONFIG"] = "yes-from-config"
	configure(t, c, every)
	r := call(t, c, "every", "get-env", `{}`)
	if strings.Contains(r.Text, "sk-must-not-leak") || !strings.Contains(r.Text, "yes-from-config") || !strings.Contains(r.Text, "PATH") {
		t.Fatalf("get-env = %s", r.Text)
	}
}

func TestConcurrentCallsOnOneAndSeveralServers(t *testing.T) {
	c, _ := served(t, Options{})
	a, _ := npmServer(t, "a", mcptest.Everything, false)
	b, _ := npmServer(t, "b", mcptest.Everything, false)
	configure(t, c, a, b)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			server := []string{"a", "b"}[i%2]
			msg := fmt.Sprintf("message %d", i)
			r, err := c.Call(testCtx(t), &mcpbridge.CallRequest{Server: server, Tool: "echo", Arguments: []byte(fmt.Sprintf(`{"message":%q}`, msg))})
			switch {
			case err != nil:
				errs <- err
			case !strings.HasSuffix(r.Text, msg):
				errs <- fmt.Errorf("call %d got %q", i, r.Text)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestServerKilledMidCallIsReportedAndRestarted(t *testing.T) {
	c, _ := served(t, Options{})
	every, pf := npmServer(t, "every", mcptest.Everything, true)
	configure(t, c, every)
	call(t, c, "every", "echo", `{"message":"warm up"}`)
	pid := pf.pid(t)

	done := make(chan error, 1)
	go func() {
		_, err := c.Call(testCtx(t), &mcpbridge.CallRequest{Server: "every", Tool: "trigger-long-running-operation", Arguments: []byte(`{"duration":60,"steps":60}`)})
		done <- err
	}()
	// The call is in flight once the server has read it.
	eventually(t, "the call to reach the server", func() bool {
		b, _ := os.ReadFile(pf.log)
		return strings.Contains(string(b), "trigger-long-running-operation")
	})
	signalGroup(&os.Process{Pid: pid}, killSignal)
	err := <-done
	if err == nil || !strings.Contains(err.Error(), `MCP server "every" ended`) || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("err = %v, want the server named and how it ended", err)
	}
	if r := call(t, c, "every", "echo", `{"message":"again"}`); !strings.Contains(r.Text, "again") {
		t.Fatalf("after the restart: %+v", r)
	}
	if pf.pid(t) == pid {
		t.Fatal("the server was not started again")
	}
}

func TestCancelledCallEndsAndTheServerLives(t *testing.T) {
	c, _ := served(t, Options{})
	every, pf := npmServer(t, "every", mcptest.Everything, true)
	configure(t, c, every)
	call(t, c, "every", "echo", `{"message":"warm up"}`)
	ctx, cancel := context.WithCancel(testCtx(t))
	done := make(chan error, 1)
	go func() {
		_, err := c.Call(ctx, &mcpbridge.CallRequest{Server: "every", Tool: "trigger-long-running-operation", Arguments: []byte(`{"duration":60,"steps":60}`)})
		done <- err
	}()
	eventually(t, "the call to reach the server", func() bool {
		b, _ := os.ReadFile(pf.log)
		return strings.Contains(string(b), "trigger-long-running-operation")
	})
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	eventually(t, "notifications/cancelled to reach the server", func() bool {
		b, _ := os.ReadFile(pf.log)
		return strings.Contains(string(b), "notifications/cancelled")
	})
	pid := pf.pid(t)
	call(t, c, "every", "echo", `{"message":"still here"}`)
	if pf.pid(t) != pid {
		t.Fatal("the server was restarted after a cancelled call")
	}
}

func TestStopEndsTheProcessGroupFast(t *testing.T) {
	c, _ := served(t, Options{})
	every, pf := npmServer(t, "every", mcptest.Everything, true) // sh + tee + node in one group
	configure(t, c, every)
	call(t, c, "every", "echo", `{"message":"hi"}`)
	pid := pf.pid(t)
	start := time.Now()
	if err := c.Stop(testCtx(t), &mcpbridge.StopRequest{Servers: []string{"every"}}); err != nil {
		t.Fatal(err)
	}
	t.Logf("stop took %s", time.Since(start))
	if groupAlive(pid) {
		t.Fatalf("process group %d is still alive after Stop", pid)
	}
}

func TestConfigureKeepsUnchangedServersAndStopsTheRest(t *testing.T) {
	c, _ := served(t, Options{})
	keep, keepPID := npmServer(t, "keep", mcptest.Everything, false)
	change, changePID := npmServer(t, "change", mcptest.Everything, false)
	gone, gonePID := npmServer(t, "gone", mcptest.Everything, false)
	configure(t, c, keep, change, gone)
	resp, err := c.Tools(testCtx(t), &mcpbridge.ToolsRequest{Servers: []string{"keep", "change", "gone"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range resp.Servers {
		if st.Error != "" {
			t.Fatal(st.Error)
		}
	}
	k, ch, g := keepPID.pid(t), changePID.pid(t), gonePID.pid(t)
	change2 := change
	change2.Env = map[string]string{"PIDFILE": change.Env["PIDFILE"], "STDINLOG": change.Env["STDINLOG"], "NEW": "1"}
	configure(t, c, keep, change2)
	if groupAlive(ch) || groupAlive(g) {
		t.Fatal("a changed or removed server is still running after Configure")
	}
	if !groupAlive(k) {
		t.Fatal("an unchanged server was stopped")
	}
	call(t, c, "keep", "echo", `{"message":"x"}`)
	call(t, c, "change", "echo", `{"message":"x"}`)
	if keepPID.pid(t) != k || changePID.pid(t) == ch {
		t.Fatal("keep should keep its process and change get a new one")
	}
	if _, err := c.Call(testCtx(t), &mcpbridge.CallRequest{Server: "gone", Tool: "echo"}); !errors.Is(err, sdk.ErrNotFound) {
		t.Fatalf("call on a removed server: %v", err)
	}
}

func TestStartFailuresAreReportedPerServer(t *testing.T) {
	c, _ := served(t, Options{})
	every, _ := npmServer(t, "every", mcptest.Everything, false)
	configure(t, c, every,
		mcpbridge.ServerConfig{Name: "missing", Type: "stdio", Command: "/nonexistent/mcp-server"},
		mcpbridge.ServerConfig{Name: "dies", Type: "stdio", Command: "/bin/sh", Args: []string{"-c", "echo 'cannot open the database' >&2; exit 3"}},
	)
	resp, err := c.Tools(testCtx(t), &mcpbridge.ToolsRequest{Servers: []string{"missing", "every", "dies"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`cannot run "/nonexistent/mcp-server"`, "", "exit status 3: cannot open the database"}
	for i, st := range resp.Servers {
		if want[i] == "" && (st.Error != "" || len(st.Tools) == 0) || !strings.Contains(st.Error, want[i]) {
			t.Errorf("%s: error %q, %d tools; want error containing %q", st.Server, st.Error, len(st.Tools), want[i])
		}
	}
	if _, err := c.Tools(testCtx(t), &mcpbridge.ToolsRequest{Servers: []string{"nope"}}); err != nil {
		t.Fatal(err)
	}
}

// goServer is an in-test MCP server over HTTP (streamable or SSE) that
// records the X-Coyote-Test header of every request.
type goServer struct {
	srv      *mcp.Server
	url      string
	requests atomic.Int32
	missing  atomic.Int32
}

func newGoServer(t *testing.T, sse bool) *goServer {
	g := &goServer{srv: mcp.NewServer(&mcp.Implementation{Name: "gotest", Version: "1"}, nil)}
	mcp.AddTool(g.srv, &mcp.Tool{Name: "greet", Description: "says hello"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Name string `json:"name,omitempty"`
	}) (*mcp.CallToolResult, any, error) {
		if in.Name == "" {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "who?"}}}, nil, nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello " + in.Name}}}, nil, nil
	})
	var h http.Handler
	get := func(*http.Request) *mcp.Server { return g.srv }
	if sse {
		h = mcp.NewSSEHandler(get, nil)
	} else {
		h = mcp.NewStreamableHTTPHandler(get, nil)
	}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.requests.Add(1)
		if r.Header.Get("X-Coyote-Test") != "static-value" {
			g.missing.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	g.url = hs.URL
	return g
}

func TestRemoteServersWithStaticHeaders(t *testing.T) {
	for _, typ := range []string{mcpbridge.TypeHTTP, mcpbridge.TypeSSE} {
		t.Run(typ, func(t *testing.T) {
			g := newGoServer(t, typ == mcpbridge.TypeSSE)
			c, _ := served(t, Options{})
			configure(t, c, mcpbridge.ServerConfig{Name: "go", Type: typ, URL: g.url, Headers: map[string]string{"X-Coyote-Test": "static-value"}})
			resp, err := c.Tools(testCtx(t), &mcpbridge.ToolsRequest{Servers: []string{"go"}})
			if err != nil || resp.Servers[0].Error != "" || !toolNames(resp.Servers[0])["greet"] {
				t.Fatalf("tools = %+v, %v", resp, err)
			}
			if r := call(t, c, "go", "greet", `{"name":"Ada"}`); r.Text != "hello Ada" || r.IsError {
				t.Fatalf("greet = %+v", r)
			}
			if r := call(t, c, "go", "greet", ``); r.Text != "who?" || !r.IsError {
				t.Fatalf("greet without a name = %+v", r)
			}
			if g.requests.Load() == 0 || g.missing.Load() != 0 {
				t.Fatalf("%d requests, %d without the static header", g.requests.Load(), g.missing.Load())
			}
		})
	}
}

func TestToolListIsRefreshedWhenTheServerSaysItChanged(t *testing.T) {
	g := newGoServer(t, false)
	c, _ := served(t, Options{})
	configure(t, c, mcpbridge.ServerConfig{Name: "go", Type: "http", URL: g.url, Headers: map[string]string{"X-Coyote-Test": "static-value"}})
	list := func() map[string]bool {
		resp, err := c.Tools(testCtx(t), &mcpbridge.ToolsRequest{Servers: []string{"go"}})
		if err != nil || resp.Servers[0].Error != "" {
			t.Fatalf("tools = %+v, %v", resp, err)
		}
		return toolNames(resp.Servers[0])
	}
	if n := list(); len(n) != 1 {
		t.Fatalf("tools: %v", n)
	}
	g.srv.AddTool(&mcp.Tool{Name: "later", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	})
	eventually(t, "the new tool to be listed", func() bool { return list()["later"] })
}

func TestRemoteServerAnswering401NeedsAuth(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://example.invalid/.well-known/oauth-protected-resource"`)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
	}))
	t.Cleanup(hs.Close)
	c, _ := served(t, Options{})
	configure(t, c, mcpbridge.ServerConfig{Name: "remote", Type: "http", URL: hs.URL})
	resp, err := c.Tools(testCtx(t), &mcpbridge.ToolsRequest{Servers: []string{"remote"}})
	if err != nil {
		t.Fatal(err)
	}
	st := resp.Servers[0]
	if !st.NeedsAuth || !strings.Contains(st.Error, "coyote --auth-mcp remote") {
		t.Fatalf("entry = %+v, want NeedsAuth with the hint", st)
	}
}

// fakeOAuth stands for plugins/mcp/oauth: a token it adds, and a flow
// that shows a URL.
type fakeOAuth struct{ token string }

func (f *fakeOAuth) RoundTripper(base http.RoundTripper) http.RoundTripper {
	return rtFunc(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+f.token)
		return base.RoundTrip(r)
	})
}

func (f *fakeOAuth) Authorize(_ context.Context, show func(string)) error {
	show("https://auth.example/authorize?x=1")
	return nil
}

type rtFunc func(*http.Request) (*http.Response, error)

func (f rtFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestOAuthSeam(t *testing.T) {
	var sawToken atomic.Bool
	g := newGoServer(t, false)
	h := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "Bearer tok" {
			sawToken.Store(true)
		}
		r.Header.Set("X-Coyote-Test", "static-value")
		proxy(w, r, g.url)
	}))
	t.Cleanup(h.Close)
	c, _ := served(t, Options{OAuth: func(string, mcpbridge.ServerConfig) OAuthClient { return &fakeOAuth{token: "tok"} }})
	configure(t, c, mcpbridge.ServerConfig{Name: "go", Type: "http", URL: h.URL})
	call(t, c, "go", "greet", `{"name":"x"}`)
	if !sawToken.Load() {
		t.Fatal("the OAuth round tripper was not used")
	}
	var events []mcpbridge.AuthEvent
	err := c.Authenticate(testCtx(t), &mcpbridge.AuthenticateRequest{Server: "go"}, func(ev *mcpbridge.AuthEvent) error {
		events = append(events, *ev)
		return nil
	})
	if err != nil || len(events) != 2 || events[0].AuthorizationURL != "https://auth.example/authorize?x=1" || events[1].Message == "" {
		t.Fatalf("events = %+v, %v", events, err)
	}
}

// proxy forwards one request to base (the go server), streaming the body.
func proxy(w http.ResponseWriter, r *http.Request, base string) {
	req, _ := http.NewRequestWithContext(r.Context(), r.Method, base+r.URL.RequestURI(), r.Body)
	req.Header = r.Header.Clone()
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			_, _ = w.Write(buf[:n])
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
		}
		if err != nil {
			return
		}
	}
}

// credentialLog records the credentials of every request a server gets.
type credentialLog struct {
	mu   sync.Mutex
	seen []string // "Authorization|X-Api-Key" of each request
}

func (l *credentialLog) record(r *http.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen = append(l.seen, r.Header.Get("Authorization")+"|"+r.Header.Get("X-Api-Key"))
}

func (l *credentialLog) leaked() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, s := range l.seen {
		if s != "|" {
			out = append(out, s)
		}
	}
	return out
}

// TestCredentialsGoOnlyToTheServersOrigin: a server that redirects to
// another origin, or whose SSE endpoint event names another origin, gets
// its request refused with a line saying so, and the other origin never
// sees the static header or the OAuth token.
func TestCredentialsGoOnlyToTheServersOrigin(t *testing.T) {
	for _, tc := range []struct {
		name, typ string
		home      func(elsewhere string) http.HandlerFunc
		want      string
	}{
		{"http server redirects with 307", mcpbridge.TypeHTTP, func(elsewhere string) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, elsewhere+r.URL.RequestURI(), http.StatusTemporaryRedirect)
			}
		}, "redirected to"},
		{"sse server redirects with 307", mcpbridge.TypeSSE, func(elsewhere string) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, elsewhere+r.URL.RequestURI(), http.StatusTemporaryRedirect)
			}
		}, "redirected to"},
		{"sse endpoint on another origin", mcpbridge.TypeSSE, func(elsewhere string) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = fmt.Fprintf(w, "event: endpoint\ndata: %s/messages?sessionid=1\n\n", elsewhere)
				w.(http.Flusher).Flush()
				<-r.Context().Done()
			}
		}, "named"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log credentialLog
			elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				log.record(r)
				http.Error(w, "nothing here", http.StatusNotFound)
			}))
			t.Cleanup(elsewhere.Close)
			home := httptest.NewServer(tc.home(elsewhere.URL))
			t.Cleanup(home.Close)
			c, _ := served(t, Options{OAuth: func(string, mcpbridge.ServerConfig) OAuthClient { return &fakeOAuth{token: "tok"} }})
			configure(t, c, mcpbridge.ServerConfig{Name: "moved", Type: tc.typ, URL: home.URL + "/mcp", Headers: map[string]string{"X-Api-Key": "static-key"}})
			resp, err := c.Tools(testCtx(t), &mcpbridge.ToolsRequest{Servers: []string{"moved"}})
			if err != nil {
				t.Fatal(err)
			}
			if leaked := log.leaked(); len(leaked) > 0 {
				t.Errorf("the other origin received credentials: %q", leaked)
			}
			e := resp.Servers[0].Error
			t.Logf("error: %s", e)
			for _, w := range []string{tc.want + " " + elsewhere.URL, "another origin", "change its url in mcp.json"} {
				if !strings.Contains(e, w) {
					t.Errorf("error %q lacks %q", e, w)
				}
			}
		})
	}
}

// TestSameOriginRedirectIsFollowedWithCredentials: a redirect within the
// server's origin keeps working, headers included.
func TestSameOriginRedirectIsFollowedWithCredentials(t *testing.T) {
	g := newGoServer(t, false)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/", http.StatusPermanentRedirect)
			return
		}
		proxy(w, r, g.url)
	}))
	t.Cleanup(hs.Close)
	c, _ := served(t, Options{})
	configure(t, c, mcpbridge.ServerConfig{Name: "go", Type: "http", URL: hs.URL + "/old", Headers: map[string]string{"X-Coyote-Test": "static-value"}})
	if r := call(t, c, "go", "greet", `{"name":"Ada"}`); r.Text != "hello Ada" {
		t.Fatalf("greet = %+v", r)
	}
	if g.requests.Load() == 0 || g.missing.Load() != 0 {
		t.Fatalf("%d requests, %d without the static header", g.requests.Load(), g.missing.Load())
	}
}
