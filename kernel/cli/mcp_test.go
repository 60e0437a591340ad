package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/kernel/iostreams"
	"github.com/coyote-cli/coyote/kernel/mcpconf"
	"github.com/coyote-cli/coyote/kernel/vault"
)

// mcpTestEnv is an isolated config directory and workspace, with the
// current directory in the workspace.
type mcpTestEnv struct {
	t         *testing.T
	configDir string
	wsDir     string
	pwFile    string
}

func newMCPTestEnv(t *testing.T) *mcpTestEnv {
	root := t.TempDir()
	e := &mcpTestEnv{t: t, configDir: filepath.Join(root, "config"), wsDir: filepath.Join(root, "proj"), pwFile: filepath.Join(root, "vault-pw")}
	if err := os.MkdirAll(e.wsDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(e.configDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.configDir, "config.yaml"), []byte("vault_password_file: "+e.pwFile+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(e.wsDir)
	return e
}

func (e *mcpTestEnv) userFile() string { return filepath.Join(e.configDir, "functions", "mcp.json") }

func (e *mcpTestEnv) env(key string) string {
	switch key {
	case "COYOTE_CONFIG_DIR":
		return e.configDir
	case "COYOTE_CACHE_DIR":
		return filepath.Join(e.configDir, "cache")
	}
	return ""
}

// run runs coyote with args; tty makes stdin a terminal whose typed lines
// are input.
func (e *mcpTestEnv) run(tty bool, input string, args ...string) (stdout, stderr string, err error) {
	e.t.Helper()
	io, in, out, errOut := iostreams.Test()
	in.WriteString(input)
	io.SetTTY(tty, false, false)
	f := &Factory{IO: io, Env: e.env}
	cmd := NewRootCmd(f, nil)
	joinedArgs, _ := joinOptionalValues(cmd.LocalFlags(), args)
	cmd.SetArgs(joinedArgs)
	err = cmd.Execute()
	return out.String(), errOut.String(), err
}

func (e *mcpTestEnv) read(path string) *mcpconf.File {
	e.t.Helper()
	f, err := mcpconf.ReadFile(path)
	if err != nil {
		e.t.Fatal(err)
	}
	return f
}

func TestMCPAddAsksBeforeReplacingOnATerminal(t *testing.T) {
	e := newMCPTestEnv(t)
	if _, _, err := e.run(false, "", "--mcp-add", "fs", "--", "old-server"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		tty     bool
		input   string
		force   bool
		command string // the command in the file afterwards
		errText string
		stderr  string
	}{
		{"no terminal", false, "", false, "old-server", "add --mcp-force to replace it", ""},
		{"answer no", true, "n\n", false, "old-server", "", "Aborted: nothing changed."},
		{"empty answer is no", true, "\n", false, "old-server", "", "Aborted"},
		{"answer yes", true, "y\n", false, "new-server", "", "Replaced MCP server fs"},
		{"forced", false, "", true, "forced-server", "", "Replaced MCP server fs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := []string{"--mcp-add", "fs"}
			if tt.force {
				args = append(args, "--mcp-force")
			}
			cmdName := tt.command
			if cmdName == "old-server" {
				cmdName = "unused"
			}
			args = append(args, "--", cmdName)
			_, stderr, err := e.run(tt.tty, tt.input, args...)
			if tt.errText != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errText) {
					t.Fatalf("err = %v, want %q", err, tt.errText)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(stderr, tt.stderr) {
				t.Fatalf("stderr %q, want %q", stderr, tt.stderr)
			}
			if tt.tty && !strings.Contains(stderr, "Replace it? [y/N]") {
				t.Fatalf("no question asked: %q", stderr)
			}
			if got := e.read(e.userFile()).Get("fs").Command; got != tt.command {
				t.Fatalf("command %q, want %q", got, tt.command)
			}
		})
	}
}

func TestMCPRemoveAsksUnlessForced(t *testing.T) {
	e := newMCPTestEnv(t)
	for _, n := range []string{"a", "b", "c"} {
		if _, _, err := e.run(false, "", "--mcp-add", n, "--", "srv-"+n); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, server string
		tty          bool
		input        string
		force        bool
		left         []string
		errText      string
	}{
		{"no terminal", "a", false, "", false, []string{"a", "b", "c"}, "add --mcp-force to remove it without asking"},
		{"answer no", "a", true, "no\n", false, []string{"a", "b", "c"}, ""},
		{"answer yes", "b", true, "YES\n", false, []string{"a", "c"}, ""},
		{"forced", "a", false, "", true, []string{"c"}, ""},
		{"missing", "zz", false, "", true, []string{"c"}, `MCP server "zz" is not in ` + e.userFile()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := []string{"--mcp-remove", tt.server}
			if tt.force {
				args = append(args, "--mcp-force")
			}
			_, stderr, err := e.run(tt.tty, tt.input, args...)
			if tt.errText != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errText) {
					t.Fatalf("err = %v, want %q", err, tt.errText)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if tt.tty && !strings.Contains(stderr, "Remove MCP server "+tt.server+" from "+e.userFile()+"? [y/N]") {
				t.Fatalf("question not asked: %q", stderr)
			}
			var left []string
			for _, s := range e.read(e.userFile()).Servers {
				left = append(left, s.Name)
			}
			if strings.Join(left, ",") != strings.Join(tt.left, ",") {
				t.Fatalf("left %q, want %q", left, tt.left)
			}
		})
	}
}

func TestMCPAddOffersToStoreMissingSecrets(t *testing.T) {
	e := newMCPTestEnv(t)
	v := vault.Open(e.configDir, e.pwFile)
	if err := vault.CreatePasswordFile(e.pwFile, "a long enough password"); err != nil {
		t.Fatal(err)
	}
	if err := v.Set("HAVE", "x"); err != nil {
		t.Fatal(err)
	}
	add := []string{"--mcp-add", "gh", "--transport", "http", "--url", "https://h/mcp",
		"--header", "Authorization: Bearer {{GH_TOKEN}}", "--header", "X-Have: {{HAVE}}", "--client-secret", "{{GH_SECRET}}"}

	// Without a terminal the server is added and the missing secrets named.
	_, stderr, err := e.run(false, "", add...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, "uses the secrets GH_TOKEN, GH_SECRET, which are not in the vault yet: add each with coyote --add-secret NAME") {
		t.Fatalf("stderr %q", stderr)
	}
	if e.read(e.userFile()).Get("gh") == nil {
		t.Fatal("server not added")
	}

	// Declining on a terminal adds nothing.
	_, stderr, err = e.run(true, "n\n", append(add, "--mcp-force")...)
	if err == nil || !strings.Contains(err.Error(), "needs the secret GH_TOKEN; add it with coyote --add-secret GH_TOKEN") {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(stderr, "MCP server gh uses the secret GH_TOKEN, which is not in the vault. Add it now? [Y/n]") {
		t.Fatalf("stderr %q", stderr)
	}

	// Accepting (an empty answer is yes) stores each value in the vault.
	_, stderr, err = e.run(true, "\nvalue-one\ny\nvalue-two\n", append(add, "--mcp-force")...)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stderr, "value-one") || !strings.Contains(stderr, "Added secret GH_SECRET.") {
		t.Fatalf("stderr %q", stderr)
	}
	for name, want := range map[string]string{"GH_TOKEN": "value-one", "GH_SECRET": "value-two", "HAVE": "x"} {
		if got, err := v.Get(name); err != nil || got != want {
			t.Fatalf("%s = %q, %v", name, got, err)
		}
	}
	// The file keeps the placeholders, never the values.
	data, _ := os.ReadFile(e.userFile())
	if bytes.Contains(data, []byte("value-one")) || !bytes.Contains(data, []byte("{{GH_TOKEN}}")) {
		t.Fatalf("file %s", data)
	}
}

func TestMCPWorkspaceScopeAndShadowing(t *testing.T) {
	e := newMCPTestEnv(t)
	if _, _, err := e.run(false, "", "--mcp-add", "fs", "--", "user-fs"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.run(false, "", "--mcp-add", "only", "--", "user-only"); err != nil {
		t.Fatal(err)
	}
	// No workspace file yet: --scope workspace has nothing to list.
	out, _, err := e.run(false, "", "--mcp-list", "--scope", "workspace")
	if err != nil || !strings.Contains(out, "Workspace: no MCP servers (no "+filepath.Join(e.wsDir, ".coyote", "mcp.json")) {
		t.Fatalf("out %q, err %v", out, err)
	}
	_, stderr, err := e.run(false, "", "--mcp-add", "fs", "--scope", "workspace", "--transport", "sse", "--url", "http://localhost:1/sse")
	wsFile := filepath.Join(e.wsDir, ".coyote", "mcp.json")
	if err != nil || !strings.Contains(stderr, "Added MCP server fs to "+wsFile) {
		t.Fatalf("stderr %q, err %v", stderr, err)
	}
	out, _, err = e.run(false, "", "--mcp-list")
	if err != nil {
		t.Fatal(err)
	}
	want := "User (" + e.userFile() + ")\n" +
		"  fs    stdio  user-fs  (hidden by the workspace's fs)\n" +
		"  only  stdio  user-only\n" +
		"\n" +
		"Workspace (" + wsFile + ")\n" +
		"  fs    sse    http://localhost:1/sse  (hides the user's fs)\n"
	if out != want {
		t.Fatalf("list\n%s\nwant\n%s", out, want)
	}
	out, _, _ = e.run(false, "", "--mcp-list", "--no-workspace-mcp")
	if strings.Contains(out, "\nWorkspace (") || strings.Contains(out, "hidden") {
		t.Fatalf("--no-workspace-mcp list: %q", out)
	}
	// --mcp-get shows the server in use, and which file it is from.
	out, stderr, err = e.run(false, "", "--mcp-get", "fs")
	if err != nil || out != "{\n  \"type\": \"sse\",\n  \"url\": \"http://localhost:1/sse\"\n}\n" || !strings.Contains(stderr, wsFile+" (workspace scope, hiding the user server") {
		t.Fatalf("get: out %q stderr %q err %v", out, stderr, err)
	}
	out, _, _ = e.run(false, "", "--mcp-get", "fs", "--scope", "user")
	if !strings.Contains(out, `"command": "user-fs"`) {
		t.Fatalf("get --scope user: %q", out)
	}
	out, _, _ = e.run(false, "", "--mcp-get", "fs", "--no-workspace-mcp")
	if !strings.Contains(out, `"command": "user-fs"`) {
		t.Fatalf("get --no-workspace-mcp: %q", out)
	}
	// Removing a server that is in both files needs a scope.
	if _, _, err := e.run(false, "", "--mcp-remove", "fs", "--mcp-force"); err == nil || !strings.Contains(err.Error(), "choose one with --scope user or --scope workspace") {
		t.Fatalf("err = %v", err)
	}
	if _, _, err := e.run(false, "", "--mcp-remove", "fs", "--mcp-force", "--scope", "workspace"); err != nil {
		t.Fatal(err)
	}
	if e.read(wsFile).Get("fs") != nil || e.read(e.userFile()).Get("fs") == nil {
		t.Fatal("removed from the wrong file")
	}
	// Adding to the user scope a server the workspace hides says so.
	if _, _, err := e.run(false, "", "--mcp-add", "w", "--scope", "workspace", "--", "ws-w"); err != nil {
		t.Fatal(err)
	}
	_, stderr, _ = e.run(false, "", "--mcp-add", "w", "--", "user-w")
	if !strings.Contains(stderr, "the workspace's MCP server w ("+wsFile+") hides it") {
		t.Fatalf("stderr %q", stderr)
	}
}

func TestMCPFlagsDoNotChangePromptParsing(t *testing.T) {
	tests := []struct {
		args []string
		text []string
	}{
		{[]string{"hello", "--", "x"}, []string{"hello", "--", "x"}},
		{[]string{"--", "x", "--env"}, []string{"x", "--env"}},
		{[]string{"explain", "--url", "and", "--env"}, []string{"explain", "--url", "and", "--env"}},
		{[]string{"--no-workspace-mcp", "hi"}, []string{"hi"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			io, _, _, _ := iostreams.Test()
			var got *rootOptions
			cmd := NewRootCmd(&Factory{IO: io}, func(_ context.Context, o *rootOptions) error { got = o; return nil })
			joinedArgs, _ := joinOptionalValues(cmd.LocalFlags(), tt.args)
			cmd.SetArgs(joinedArgs)
			if err := cmd.Execute(); err != nil {
				t.Fatal(err)
			}
			if got == nil || strings.Join(got.Text, " ") != strings.Join(tt.text, " ") || got.MCP.active() {
				t.Fatalf("options %+v", got)
			}
		})
	}
}
