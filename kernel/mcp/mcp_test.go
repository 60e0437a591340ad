package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/coyote-cli/coyote/kernel/mcpconf"
	"github.com/coyote-cli/coyote/kernel/redact"
	"github.com/coyote-cli/coyote/kernel/vault"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/mcpbridge"
)

// recorder is a Bridge that answers from a table and records what it was
// told; the real plugin is exercised by the plugin's and e2e tests.
type recorder struct {
	mu         sync.Mutex
	configured []*mcpbridge.ConfigureRequest
	tools      map[string]mcpbridge.ServerTools
	calls      []mcpbridge.CallRequest
	result     mcpbridge.CallResult
}

func (r *recorder) Configure(_ context.Context, req *mcpbridge.ConfigureRequest) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.configured = append(r.configured, req)
	return nil
}

func (r *recorder) Tools(_ context.Context, req *mcpbridge.ToolsRequest) (*mcpbridge.ToolsResponse, error) {
	resp := &mcpbridge.ToolsResponse{}
	for _, s := range req.Servers {
		resp.Servers = append(resp.Servers, r.tools[s])
	}
	return resp, nil
}

func (r *recorder) Call(_ context.Context, req *mcpbridge.CallRequest) (*mcpbridge.CallResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, *req)
	res := r.result
	return &res, nil
}

func (r *recorder) Stop(context.Context, *mcpbridge.StopRequest) error { return nil }

func manager(t *testing.T, mcpJSON string, b *recorder) *Manager {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, []byte(mcpJSON), 0o600); err != nil {
		t.Fatal(err)
	}
	return New(Options{
		Load: func() (*mcpconf.Set, error) { return mcpconf.Load(path, "", true) },
		Secret: func(name string) (string, error) {
			if name == "TOKEN" {
				return "s3cret", nil
			}
			return "", vault.ErrNotFound
		},
		Bridge: func() (mcpbridge.Bridge, error) { return b, nil },
	})
}

const twoServers = `{"mcpServers":{
  "fs":{"command":"fs-server","args":["/tmp"]},
  "web":{"type":"http","url":"https://mcp.example/mcp","headers":{"Authorization":"Bearer {{TOKEN}}"}},
  "gh":{"type":"http","url":"https://gh.example/mcp","headers":{"Authorization":"Bearer {{GH_TOKEN}}"}}
}}`

func TestEnabledResolvesAllListsAliasesAndUnknownNames(t *testing.T) {
	m := manager(t, twoServers, &recorder{})
	for _, tc := range []struct {
		name          string
		value         any
		mapping       map[string]string
		want, unknown []string
	}{
		{name: "null enables none", value: nil},
		{name: "all", value: "all", want: []string{"fs", "web", "gh"}},
		{name: "list in mcp.json order", value: []string{"web", "fs"}, want: []string{"fs", "web"}},
		{name: "comma string", value: "gh, fs", want: []string{"fs", "gh"}},
		{name: "alias", value: []string{"dev"}, mapping: map[string]string{"dev": "fs,web"}, want: []string{"fs", "web"}},
		{name: "unknown", value: []string{"fs", "nope"}, want: []string{"fs"}, unknown: []string{"nope"}},
		{name: "empty list", value: []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, unknown, err := m.Enabled(tc.value, tc.mapping)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) || !reflect.DeepEqual(unknown, tc.unknown) {
				t.Fatalf("got %v unknown %v, want %v unknown %v", got, unknown, tc.want, tc.unknown)
			}
		})
	}
}

func TestTheBridgeIsConfiguredOnceWithSecretsResolvedAndBrokenServersLeftOut(t *testing.T) {
	b := &recorder{tools: map[string]mcpbridge.ServerTools{"fs": {Server: "fs", Tools: []mcpbridge.Tool{{Name: "read_file"}}}}}
	m := manager(t, twoServers, b)
	for range 3 {
		if _, err := m.Tools(context.Background(), []string{"fs", "gh"}); err != nil {
			t.Fatal(err)
		}
	}
	if len(b.configured) != 1 {
		t.Fatalf("configured %d times", len(b.configured))
	}
	var names []string
	for _, s := range b.configured[0].Servers {
		names = append(names, s.Name)
		if s.Name == "web" && s.Headers["Authorization"] != "Bearer s3cret" {
			t.Fatalf("web headers %v", s.Headers)
		}
	}
	if !reflect.DeepEqual(names, []string{"fs", "web"}) {
		t.Fatalf("configured %v", names)
	}
	res, _ := m.Tools(context.Background(), []string{"fs", "gh"})
	if res[0].Error != "" || len(res[0].Tools) != 1 || !strings.Contains(res[1].Error, "GH_TOKEN") {
		t.Fatalf("tools %+v", res)
	}
	m.Reconfigure()
	_, _ = m.Tools(context.Background(), []string{"fs"})
	if len(b.configured) != 2 {
		t.Fatal("Reconfigure did not configure again")
	}
}

func call(t *testing.T, m *Manager, name, args string) (string, error) {
	t.Helper()
	for _, f := range m.Funcs([]string{"fs", "web"}) {
		if f.Name == name {
			if !json.Valid(f.Parameters) {
				t.Fatalf("%s: parameters are not JSON", name)
			}
			return f.Call(context.Background(), json.RawMessage(args))
		}
	}
	t.Fatalf("no function %s", name)
	return "", nil
}

func TestSearchDescribeAndInvoke(t *testing.T) {
	b := &recorder{
		tools: map[string]mcpbridge.ServerTools{
			"fs": {Server: "fs", Tools: []mcpbridge.Tool{
				{Name: "list_directory", Description: "List the entries of a directory."},
				{Name: "read_file", Description: "Read a file's contents.", InputSchema: []byte(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
				{Name: "write_file", Description: "Create or overwrite a file."},
			}},
			"web": {Server: "web", NeedsAuth: true},
		},
		result: mcpbridge.CallResult{Text: "hello from the file"},
	}
	m := manager(t, twoServers, b)

	out, err := call(t, m, "mcp_search_fs", `{"query":"read a file","top_k":1}`)
	if err != nil || out != `{"server":"fs","tools":[{"name":"read_file","description":"Read a file's contents."}]}` {
		t.Fatalf("search: %s, %v", out, err)
	}
	out, err = call(t, m, "mcp_search_fs", `{"query":"zzz"}`)
	if err != nil || strings.Count(out, `"name"`) != 3 {
		t.Fatalf("a query matching nothing lists the tools: %s, %v", out, err)
	}
	out, err = call(t, m, "mcp_describe_fs", `{"tool":"read_file"}`)
	if err != nil || !strings.Contains(out, `"input_schema":{"type":"object","properties":{"path":{"type":"string"}}}`) {
		t.Fatalf("describe: %s, %v", out, err)
	}
	if _, err := call(t, m, "mcp_describe_fs", `{"tool":"nope"}`); err == nil || !strings.Contains(err.Error(), "mcp_search_fs") {
		t.Fatalf("describe unknown: %v", err)
	}
	out, err = call(t, m, "mcp_invoke_fs", `{"tool":"read_file","arguments":{"path":"/tmp/a"}}`)
	if err != nil || out != "hello from the file" {
		t.Fatalf("invoke: %s, %v", out, err)
	}
	if got := b.calls[0]; got.Server != "fs" || got.Tool != "read_file" || string(got.Arguments) != `{"path":"/tmp/a"}` {
		t.Fatalf("call %+v", got)
	}
	b.result = mcpbridge.CallResult{Text: "no such file", IsError: true}
	_, err = call(t, m, "mcp_invoke_fs", `{"tool":"read_file","arguments":{"path":"/nope"}}`)
	var te *ToolError
	if !errors.As(err, &te) || te.Text != "no such file" {
		t.Fatalf("tool error: %v", err)
	}
	_, err = call(t, m, "mcp_search_web", `{"query":"x"}`)
	var na *NeedsAuthError
	if !errors.As(err, &na) || !strings.Contains(err.Error(), "coyote --auth-mcp web") {
		t.Fatalf("needs auth: %v", err)
	}
}

func TestSearchCapsTopK(t *testing.T) {
	var ts []mcpbridge.Tool
	for i := range 30 {
		ts = append(ts, mcpbridge.Tool{Name: "tool" + string(rune('a'+i%26)) + "_x", Description: "does x"})
	}
	if got := Search(ts, "x", MaxTopK); len(got) != MaxTopK {
		t.Fatalf("%d results", len(got))
	}
}

func TestReloadReadsTheFileAgainAndKeepsTheOldServersOnABadOne(t *testing.T) {
	b := &recorder{tools: map[string]mcpbridge.ServerTools{}}
	path := filepath.Join(t.TempDir(), "mcp.json")
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"mcpServers":{"a":{"command":"x"}}}`)
	m := New(Options{Load: func() (*mcpconf.Set, error) { return mcpconf.Load(path, "", true) }, Bridge: func() (mcpbridge.Bridge, error) { return b, nil }})
	if _, err := m.Tools(context.Background(), []string{"a"}); err != nil {
		t.Fatal(err)
	}
	write(`{"mcpServers":{"a":{"command":"x"},"b":{"command":"y"}}}`)
	if err := m.Reload(); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Tools(context.Background(), []string{"b"}); err != nil {
		t.Fatal(err)
	}
	if len(b.configured) != 2 || len(b.configured[1].Servers) != 2 {
		t.Fatalf("configured %+v", b.configured)
	}
	write(`{"mcpServers":{"a":{"command":"x","nope":1}}}`)
	if err := m.Reload(); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("bad file: %v", err)
	}
	set, err := m.Servers()
	if err != nil || len(set.Names()) != 2 {
		t.Fatalf("after a bad reload: %v %v", set, err)
	}
}

// TestInvokingABrokenServerFirstNamesWhy: a server whose secret is missing
// is refused with the secret's name even when the bridge has not been
// configured yet, and the call never reaches the bridge.
func TestInvokingABrokenServerFirstNamesWhy(t *testing.T) {
	b := &recorder{}
	m := manager(t, twoServers, b)
	var invoke func(context.Context, json.RawMessage) (string, error)
	for _, f := range m.Funcs([]string{"gh"}) {
		if f.Name == "mcp_invoke_gh" {
			invoke = f.Call
		}
	}
	_, err := invoke(context.Background(), json.RawMessage(`{"tool":"x"}`))
	if err == nil || !strings.Contains(err.Error(), "GH_TOKEN") {
		t.Fatalf("err = %v", err)
	}
	if len(b.calls) != 0 {
		t.Fatalf("the bridge was called: %+v", b.calls)
	}
}

// countingTools counts Tools requests per server.
type countingTools struct {
	recorder
	asked chan []string
}

func (c *countingTools) Tools(ctx context.Context, req *mcpbridge.ToolsRequest) (*mcpbridge.ToolsResponse, error) {
	c.asked <- req.Servers
	return c.recorder.Tools(ctx, req)
}

// TestPrewarmStartsEachServerOnce: every turn prewarms the enabled
// servers; only those not started yet are asked for.
func TestPrewarmStartsEachServerOnce(t *testing.T) {
	b := &countingTools{recorder: recorder{tools: map[string]mcpbridge.ServerTools{}}, asked: make(chan []string, 10)}
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, []byte(`{"mcpServers":{"fs":{"command":"a"},"web":{"command":"b"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	m := New(Options{Load: func() (*mcpconf.Set, error) { return mcpconf.Load(path, "", true) }, Bridge: func() (mcpbridge.Bridge, error) { return b, nil }})
	m.Prewarm([]string{"fs"})
	if got := <-b.asked; !reflect.DeepEqual(got, []string{"fs"}) {
		t.Fatalf("asked %v", got)
	}
	m.Prewarm([]string{"fs", "web"})
	if got := <-b.asked; !reflect.DeepEqual(got, []string{"web"}) {
		t.Fatalf("asked %v, want only the server not started yet", got)
	}
	m.Prewarm([]string{"fs", "web"})
	m.Reconfigure()
	m.Prewarm([]string{"fs"})
	if got := <-b.asked; !reflect.DeepEqual(got, []string{"fs"}) {
		t.Fatalf("after Reconfigure asked %v", got)
	}
	if len(b.asked) != 0 {
		t.Fatalf("a prewarm of warm servers asked again: %v", <-b.asked)
	}
}

// failingBridge answers every request with a text that repeats the
// secrets it was configured with, as a connection error or a server's
// stderr would.
type failingBridge struct {
	recorder
	text string
}

func (f *failingBridge) Tools(_ context.Context, req *mcpbridge.ToolsRequest) (*mcpbridge.ToolsResponse, error) {
	resp := &mcpbridge.ToolsResponse{}
	for _, s := range req.Servers {
		resp.Servers = append(resp.Servers, mcpbridge.ServerTools{Server: s, Error: f.text})
	}
	return resp, nil
}

func (f *failingBridge) Call(_ context.Context, req *mcpbridge.CallRequest) (*mcpbridge.CallResult, error) {
	if req.Tool == "fails" {
		return &mcpbridge.CallResult{Text: f.text, IsError: true}, nil
	}
	return nil, fmt.Errorf("%s: %w", f.text, sdk.ErrUnavailable)
}

// TestNoSecretReachesTheModel: whatever the bridge says back, the texts
// the model gets (search, describe and invoke errors, a tool's failure)
// show a vault secret as its placeholder, in any of the forms a URL
// gives it, and errors keep their identity.
func TestNoSecretReachesTheModel(t *testing.T) {
	t.Cleanup(redact.Reset)
	const secret = "s3cr/t+value"
	leak := `Post "https://mcp.example/mcp?api_key=` + url.QueryEscape(secret) + `": refused; path /` + url.PathEscape(secret) + `; stderr: bad key ` + secret
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, []byte(`{"mcpServers":{
	  "fs":{"command":"fs-server","args":["--key","{{API_KEY}}"]},
	  "web":{"type":"http","url":"https://mcp.example/mcp?api_key={{API_KEY}}"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	b := &failingBridge{text: leak}
	m := New(Options{
		Load: func() (*mcpconf.Set, error) { return mcpconf.Load(path, "", true) },
		Secret: func(name string) (string, error) {
			redact.Add(name, secret) // as Options.Secret must
			return secret, nil
		},
		Bridge: func() (mcpbridge.Bridge, error) { return b, nil },
	})
	var texts []string
	for _, c := range []struct{ name, args string }{
		{"mcp_search_web", `{"query":"x"}`},
		{"mcp_describe_fs", `{"tool":"x"}`},
		{"mcp_invoke_web", `{"tool":"x"}`},
		{"mcp_invoke_fs", `{"tool":"fails"}`},
	} {
		_, err := call(t, m, c.name, c.args)
		if err == nil {
			t.Fatalf("%s succeeded", c.name)
		}
		if c.name == "mcp_invoke_web" && !errors.Is(err, sdk.ErrUnavailable) {
			t.Errorf("%s: the error lost its identity: %v", c.name, err)
		}
		texts = append(texts, err.Error())
	}
	st, err := m.Tools(context.Background(), []string{"fs"})
	if err != nil {
		t.Fatal(err)
	}
	texts = append(texts, st[0].Error)
	for _, s := range texts {
		for _, form := range []string{secret, url.QueryEscape(secret), url.PathEscape(secret)} {
			if strings.Contains(s, form) {
				t.Errorf("%q repeats the secret as %q", s, form)
			}
		}
		if !strings.Contains(s, "{{API_KEY}}") {
			t.Errorf("%q does not show the placeholder", s)
		}
	}
}

// TestAWorkspaceFileIsDecidedWhenOneOfItsServersIsEnabled: the trust
// decision is asked once, when an enabled server comes from the
// workspace file (not for the user's servers alone); a refused file's
// servers are neither used nor told to the bridge, and hide nothing; an
// approved one's server replaces the user's, which is said once.
func TestAWorkspaceFileIsDecidedWhenOneOfItsServersIsEnabled(t *testing.T) {
	dir := t.TempDir()
	user, ws := filepath.Join(dir, "user.json"), filepath.Join(dir, "ws.json")
	if err := os.WriteFile(user, []byte(`{"mcpServers":{"fs":{"command":"mine"},"other":{"command":"o"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ws, []byte(`{"mcpServers":{"fs":{"command":"theirs","env":{"K":"{{TOKEN}}"}},"leak":{"command":"sh"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, approve := range []bool{false, true} {
		t.Run(fmt.Sprint("approve=", approve), func(t *testing.T) {
			b := &recorder{}
			asked := 0
			var notices []string
			m := New(Options{
				Load: func() (*mcpconf.Set, error) { return mcpconf.Load(user, ws, false) },
				Trust: func(set *mcpconf.Set) error {
					asked++
					if approve {
						return nil
					}
					return errors.New("declined")
				},
				Notice: func(s string) { notices = append(notices, s) },
				Secret: func(string) (string, error) { return "v", nil },
				Bridge: func() (mcpbridge.Bridge, error) { return b, nil },
			})
			names, unknown, err := m.Enabled("other", nil)
			if err != nil || asked != 0 || !reflect.DeepEqual(names, []string{"other"}) || len(unknown) > 0 {
				t.Fatalf("a user server alone: %v %v %v, asked %d", names, unknown, err, asked)
			}
			for range 2 {
				names, unknown, err = m.Enabled("all", nil)
				if err != nil || len(unknown) > 0 {
					t.Fatal(err, unknown)
				}
			}
			if asked != 1 {
				t.Fatalf("asked %d times, want once", asked)
			}
			if _, err := m.Tools(context.Background(), names); err != nil {
				t.Fatal(err)
			}
			var told []string
			for _, s := range b.configured[len(b.configured)-1].Servers {
				told = append(told, s.Name+"="+s.Command)
			}
			if approve {
				if !reflect.DeepEqual(names, []string{"other", "fs", "leak"}) || !reflect.DeepEqual(told, []string{"other=o", "fs=theirs", "leak=sh"}) {
					t.Fatalf("approved: enabled %v, told %v", names, told)
				}
				if len(notices) != 1 || !strings.Contains(notices[0], "MCP server fs is the workspace's ("+ws+"), which replaces yours ("+user+")") {
					t.Fatalf("notices %q", notices)
				}
				return
			}
			if !reflect.DeepEqual(names, []string{"fs", "other"}) || !reflect.DeepEqual(told, []string{"fs=mine", "other=o"}) {
				t.Fatalf("declined: enabled %v, told %v", names, told)
			}
			if len(notices) != 1 || notices[0] != "ignoring the workspace's MCP servers: declined" {
				t.Fatalf("notices %q", notices)
			}
			if err := m.Authenticate(context.Background(), "leak", io.Discard); err == nil || !strings.Contains(err.Error(), "not approved") {
				t.Fatalf("authenticate a refused workspace server: %v", err)
			}
		})
	}
}

// authBridge is a bridge whose OAuth flow sends events and succeeds.
type authBridge struct {
	recorder
	events []mcpbridge.AuthEvent
}

func (b *authBridge) Authenticate(_ context.Context, _ *mcpbridge.AuthenticateRequest, send func(*mcpbridge.AuthEvent) error) error {
	for i := range b.events {
		if err := send(&b.events[i]); err != nil {
			return err
		}
	}
	return nil
}

// TestAuthenticateShowsTheBridgesTextWithoutWhatATerminalActsOn: the URL
// to open is built from an authorization server's metadata and the
// messages come from the plugin; Authenticate shows them as text only.
func TestAuthenticateShowsTheBridgesTextWithoutWhatATerminalActsOn(t *testing.T) {
	t.Setenv("BROWSER", "true") // the URL is "opened" by true(1)
	b := &authBridge{events: []mcpbridge.AuthEvent{
		{AuthorizationURL: "https://as.example/authorize?state=x\x1b]0;pwned\x07"},
		{Message: "done\r\x1b[2Kspoofed \u202egnp.exe\u0085end"},
	}}
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, []byte(`{"mcpServers":{"web":{"type":"http","url":"https://mcp.example/mcp"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	m := New(Options{
		Load:   func() (*mcpconf.Set, error) { return mcpconf.Load(path, "", true) },
		Bridge: func() (mcpbridge.Bridge, error) { return b, nil },
	})
	var out strings.Builder
	if err := m.Authenticate(context.Background(), "web", &out); err != nil {
		t.Fatal(err)
	}
	want := "Open this URL to authorize MCP server web (Ctrl+C cancels):\n" +
		"  https://as.example/authorize?state=x]0;pwned\n" +
		"done[2Kspoofed gnp.exeend\n" +
		"MCP server web is authorized.\n"
	if out.String() != want {
		t.Errorf("Authenticate wrote %q, want %q", out.String(), want)
	}
}
