package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mcpServerJSON returns one server of an mcp.json, re-encoded compactly
// ("" when the file or the server is missing).
func mcpServerJSON(t *testing.T, path, name string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var file struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, data)
	}
	raw, ok := file.MCPServers[name]
	if !ok {
		return ""
	}
	return compactJSON(t, string(raw))
}

func compactJSON(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad JSON %s: %v", s, err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// TestMCPManagementFlagMatrix runs every refused combination of the
// --mcp-* flags through the real binary: each exits 1 with one line
// saying what is wrong, and writes nothing.
func TestMCPManagementFlagMatrix(t *testing.T) {
	refused := []struct {
		args []string
		want string
	}{
		// At most one action.
		{[]string{"--mcp-list", "--mcp-get", "x"}, "use only one of --mcp-add, --mcp-remove, --mcp-list and --mcp-get"},
		{[]string{"--mcp-add", "a", "--mcp-remove", "a", "--", "x"}, "use only one of"},
		{[]string{"--mcp-get", "a", "--mcp-remove", "a"}, "use only one of"},
		{[]string{"--mcp-list", "--mcp-add", "a", "--mcp-get", "a", "--mcp-remove", "a"}, "use only one of"},
		// Modifiers without an action.
		{[]string{"--url", "http://x"}, "--url only goes with --mcp-add"},
		{[]string{"--transport", "http"}, "--transport only goes with --mcp-add"},
		{[]string{"--env", "A=1"}, "--env only goes with --mcp-add"},
		{[]string{"--header", "A: b"}, "--header only goes with --mcp-add"},
		{[]string{"--cwd", "/tmp"}, "--cwd only goes with --mcp-add"},
		{[]string{"--client-id", "x"}, "--client-id only goes with --mcp-add"},
		{[]string{"--client-secret", "x"}, "--client-secret only goes with --mcp-add"},
		{[]string{"--callback-port", "1"}, "--callback-port only goes with --mcp-add"},
		{[]string{"--redirect-host", "h"}, "--redirect-host only goes with --mcp-add"},
		{[]string{"--mcp-force"}, "--mcp-force only goes with --mcp-add or --mcp-remove"},
		{[]string{"--scope", "user"}, "--scope only goes with --mcp-add, --mcp-remove, --mcp-list or --mcp-get"},
		{[]string{"--url", "http://x", "hello"}, "--url only goes with --mcp-add"},
		// Add-only modifiers with another action.
		{[]string{"--mcp-list", "--url", "http://x"}, "--url only goes with --mcp-add, not with --mcp-list"},
		{[]string{"--mcp-get", "a", "--env", "A=1"}, "--env only goes with --mcp-add, not with --mcp-get"},
		{[]string{"--mcp-remove", "a", "--header", "A: b"}, "--header only goes with --mcp-add, not with --mcp-remove"},
		{[]string{"--mcp-remove", "a", "--transport", "http"}, "--transport only goes with --mcp-add, not with --mcp-remove"},
		{[]string{"--mcp-list", "--mcp-force"}, "--mcp-force only goes with --mcp-add or --mcp-remove, not with --mcp-list"},
		{[]string{"--mcp-get", "a", "--mcp-force"}, "--mcp-force only goes with --mcp-add or --mcp-remove, not with --mcp-get"},
		{[]string{"--mcp-list", "--", "npx", "srv"}, "a command after -- only goes with --mcp-add, not with --mcp-list"},
		{[]string{"--mcp-list", "extra"}, `unexpected argument "extra": --mcp-list takes no text`},
		{[]string{"--mcp-add", "a", "extra", "--", "npx"}, `unexpected argument "extra": put a stdio server's command after --`},
		{[]string{"--mcp-list", "--add-secret", "X"}, "cannot be combined with the secret flags"},
		// Values.
		{[]string{"--mcp-list", "--scope", "global"}, `--scope must be user or workspace, not "global"`},
		{[]string{"--mcp-add", "a", "--transport", "websocket", "--url", "http://x"}, `--transport must be stdio, http or sse, not "websocket"`},
		{[]string{"--mcp-add", "a b", "--", "x"}, `invalid MCP server name "a b": use only letters, digits, '-' and '_'`},
		{[]string{"--mcp-add", "a.b", "--", "x"}, `invalid MCP server name "a.b"`},
		{[]string{"--mcp-add", "a/b", "--url", "http://x"}, `invalid MCP server name "a/b"`},
		{[]string{"--mcp-add", "", "--", "x"}, "the MCP server name is empty"},
		// stdio.
		{[]string{"--mcp-add", "a", "--transport", "stdio"}, "a stdio MCP server needs a command: put it after --"},
		{[]string{"--mcp-add", "a", "--transport", "stdio", "--env", "A=1"}, "a stdio MCP server needs a command"},
		{[]string{"--mcp-add", "a", "--url", "http://x", "--", "npx"}, "a stdio MCP server takes no --url"},
		{[]string{"--mcp-add", "a", "--transport", "stdio", "--url", "http://x", "--", "npx"}, "a stdio MCP server takes no --url"},
		{[]string{"--mcp-add", "a", "--header", "A: b", "--", "npx"}, "a stdio MCP server takes no --header"},
		{[]string{"--mcp-add", "a", "--client-id", "x", "--", "npx"}, "a stdio MCP server takes no OAuth flags (got --client-id)"},
		{[]string{"--mcp-add", "a", "--client-secret", "x", "--", "npx"}, "a stdio MCP server takes no OAuth flags (got --client-secret)"},
		{[]string{"--mcp-add", "a", "--callback-port", "80", "--", "npx"}, "a stdio MCP server takes no OAuth flags (got --callback-port)"},
		{[]string{"--mcp-add", "a", "--redirect-host", "h", "--", "npx"}, "a stdio MCP server takes no OAuth flags (got --redirect-host)"},
		{[]string{"--mcp-add", "a", "--env", "NOEQUALS", "--", "npx"}, `invalid --env "NOEQUALS": write KEY=VALUE`},
		{[]string{"--mcp-add", "a", "--env", "=v", "--", "npx"}, `invalid --env "=v": the KEY is empty`},
		// http and sse.
		{[]string{"--mcp-add", "a"}, "an http MCP server needs --url URL (or give a stdio server's command after --)"},
		{[]string{"--mcp-add", "a", "--transport", "http"}, "an http MCP server needs --url URL"},
		{[]string{"--mcp-add", "a", "--transport", "sse", "--header", "A: b"}, "an sse MCP server needs --url URL"},
		{[]string{"--mcp-add", "a", "--transport", "sse", "--", "npx"}, "an sse MCP server takes no command after --: give its endpoint with --url"},
		{[]string{"--mcp-add", "a", "--transport", "http", "--url", "http://x", "--", "npx"}, "an http MCP server takes no command after --"},
		{[]string{"--mcp-add", "a", "--url", "http://x", "--env", "A=1"}, "an http MCP server takes no --env: use --header instead"},
		{[]string{"--mcp-add", "a", "--transport", "sse", "--url", "http://x", "--cwd", "/tmp"}, "an sse MCP server takes no --cwd"},
		{[]string{"--mcp-add", "a", "--url", "http://x", "--header", "NoColon"}, `invalid --header "NoColon": write "Name: Value"`},
		{[]string{"--mcp-add", "a", "--url", "http://x", "--header", " : v"}, `invalid --header " : v": the header name is empty`},
		// A line break in a header would start another header.
		{[]string{"--mcp-add", "a", "--url", "http://x", "--header", "X-A: b\r\nX-Evil: 1"}, `invalid --header "X-A: b\r\nX-Evil: 1": the value has a line break or a control character`},
		{[]string{"--mcp-add", "a", "--url", "http://x", "--header", "X A: b"}, `invalid --header "X A: b": "X A" is not a header name`},
		{[]string{"--mcp-add", "a", "--url", "http://x", "--redirect-host", "evil.example/x?"}, `invalid --redirect-host "evil.example/x?": give a host name or IP address`},
		{[]string{"--mcp-add", "a", "--url", "http://x", "--redirect-host", "local host"}, `invalid --redirect-host "local host"`},
		{[]string{"--mcp-add", "a", "--url", "http://x", "--callback-port", "99999"}, `invalid --callback-port "99999": give a port number from 0 to 65535`},
		{[]string{"--mcp-add", "a", "--url", "http://x", "--callback-port", "abc"}, `invalid --callback-port "abc"`},
		{[]string{"--mcp-add", "a", "--url", "ftp://x"}, `MCP server "a": "url" must be an http:// or https:// URL, not "ftp://x"`},
		{[]string{"--mcp-add", "a", "--url", ""}, `MCP server "a": an http server needs a "url"`},
		// Servers that are not there.
		{[]string{"--mcp-remove", "nope", "--mcp-force"}, `MCP server "nope" is not in `},
		{[]string{"--mcp-get", "nope"}, `MCP server "nope" is not in `},
		{[]string{"--mcp-get", "a", "--scope", "workspace"}, "this workspace has no MCP servers: no "},
		{[]string{"--mcp-remove", "a", "--scope", "workspace"}, "this workspace has no MCP servers"},
	}
	e := newEnv(t, "")
	dir := t.TempDir()
	for _, tt := range refused {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := e.runIn(dir, "", tt.args...)
			line := oneLineError(t, r)
			if !strings.Contains(line, tt.want) {
				t.Fatalf("stderr %q\nwant %q", line, tt.want)
			}
		})
	}
	if _, err := os.Stat(e.userMCP()); err == nil {
		t.Fatal("a refused command wrote the user file")
	}
	if _, err := os.Stat(filepath.Join(dir, ".coyote")); err == nil {
		t.Fatal("a refused command created the workspace directory")
	}
}

// TestMCPAddWritesWhatTheFlagsSay adds one server per row through the
// real binary and checks the server written to the user file.
func TestMCPAddWritesWhatTheFlagsSay(t *testing.T) {
	tests := []struct {
		name string
		args []string
		json string
	}{
		{"stdio from trailing command", []string{"--", "npx", "some-server", "--flag", "arg1"},
			`{"type":"stdio","command":"npx","args":["some-server","--flag","arg1"]}`},
		{"stdio without args", []string{"--", "iwec"}, `{"type":"stdio","command":"iwec"}`},
		{"stdio explicit with env and cwd", []string{"--transport", "stdio", "--env", "API_KEY={{API_KEY}}", "--env", "MODE=dev", "--env", "EQ=a=b", "--env", "MODE=prod", "--env", "EMPTY=", "--cwd", "/srv", "--", "npx", "srv"},
			`{"type":"stdio","command":"npx","args":["srv"],"env":{"API_KEY":"{{API_KEY}}","MODE":"prod","EQ":"a=b","EMPTY":""},"cwd":"/srv"}`},
		{"http with header", []string{"--transport", "http", "--url", "https://mcp.notion.com/mcp", "--header", "Authorization: Bearer {{NOTION_TOKEN}}"},
			`{"type":"http","url":"https://mcp.notion.com/mcp","headers":{"Authorization":"Bearer {{NOTION_TOKEN}}"}}`},
		{"http by default with --url", []string{"--url", "https://h/mcp?a=1&b=2"}, `{"type":"http","url":"https://h/mcp?a=1&b=2"}`},
		{"sse with headers", []string{"--transport", "sse", "--url", "http://localhost:9/sse", "--header", "X-A:   spaced", "--header", "X-B:", "--header", "X-A: again"},
			`{"type":"sse","url":"http://localhost:9/sse","headers":{"X-A":"again","X-B":""}}`},
		{"oauth", []string{"--url", "https://h/mcp", "--client-id", "cid", "--client-secret", "{{CS}}", "--callback-port", "8765", "--redirect-host", "127.0.0.1"},
			`{"type":"http","url":"https://h/mcp","oauth":{"clientId":"cid","clientSecret":"{{CS}}","callbackPort":8765,"redirectHost":"127.0.0.1"}}`},
		{"oauth client id only", []string{"--transport", "sse", "--url", "https://h/sse", "--client-id", "cid"},
			`{"type":"sse","url":"https://h/sse","oauth":{"clientId":"cid"}}`},
		{"empty trailing command with url", []string{"--url", "https://h", "--"}, `{"type":"http","url":"https://h"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, "")
			r := e.runIn(t.TempDir(), "", append([]string{"--mcp-add", "srv"}, tt.args...)...)
			e.mustSucceed(r)
			user := e.userMCP()
			if !strings.Contains(r.stderr, "Added MCP server srv to "+user) {
				t.Fatalf("stderr %q", r.stderr)
			}
			if got, want := mcpServerJSON(t, user, "srv"), compactJSON(t, tt.json); got != want {
				t.Fatalf("wrote %s\nwant  %s", got, want)
			}
			// --mcp-get prints it back as written.
			g := e.run("", "--mcp-get", "srv")
			e.mustSucceed(g)
			if compactJSON(t, g.stdout) != compactJSON(t, tt.json) {
				t.Fatalf("--mcp-get printed %s", g.stdout)
			}
		})
	}
}

func TestMCPListGetRemoveAcrossScopes(t *testing.T) {
	e := newEnv(t, "")
	proj := t.TempDir()
	// A hand-written user file with values of every kind: it must keep
	// them through the edits below.
	user := e.writeUserMCP(`{"mcpServers": {
  "fs": {"command": "npx", "args": ["-y", "fs-server"], "env": {"DEBUG": true, "LEVEL": 3}},
  "github": {"type": "http", "url": "https://api.example.com/mcp"}
}}`)
	// ./.mcp.json is the workspace file when .coyote has none.
	ws := filepath.Join(proj, ".mcp.json")
	if err := os.WriteFile(ws, []byte(`{"mcpServers": {"github": {"type": "sse", "url": "http://localhost:7/sse"}, "local": {"command": "./run.sh"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}

	r := e.runIn(proj, "", "--mcp-list")
	e.mustSucceed(r)
	want := "User (" + user + ")\n" +
		"  fs      stdio  npx -y fs-server\n" +
		"  github  http   https://api.example.com/mcp  (hidden by the workspace's github)\n" +
		"\n" +
		"Workspace (" + ws + ")\n" +
		"  github  sse    http://localhost:7/sse  (hides the user's github)\n" +
		"  local   stdio  ./run.sh\n" +
		"  (not approved yet: these servers are not used until approved; run with --trust-workspace, or .workspace trust in the REPL)\n"
	if r.stdout != want {
		t.Fatalf("--mcp-list\n%s\nwant\n%s", r.stdout, want)
	}
	r = e.runIn(proj, "", "--mcp-list", "--scope", "user")
	if r.stdout != "User ("+user+")\n  fs      stdio  npx -y fs-server\n  github  http   https://api.example.com/mcp\n" {
		t.Fatalf("--mcp-list --scope user\n%s", r.stdout)
	}

	r = e.runIn(proj, "", "--mcp-get", "github")
	e.mustSucceed(r)
	if compactJSON(t, r.stdout) != `{"type":"sse","url":"http://localhost:7/sse"}` || !strings.Contains(r.stderr, ws+" (workspace scope") {
		t.Fatalf("--mcp-get: %q %q", r.stdout, r.stderr)
	}
	r = e.runIn(proj, "", "--mcp-get", "github", "--no-workspace-mcp")
	if compactJSON(t, r.stdout) != `{"type":"http","url":"https://api.example.com/mcp"}` {
		t.Fatalf("--mcp-get --no-workspace-mcp: %q", r.stdout)
	}

	// --scope workspace writes the existing workspace file.
	r = e.runIn(proj, "", "--mcp-add", "extra", "--scope", "workspace", "--", "extra-server")
	e.mustSucceed(r)
	if mcpServerJSON(t, ws, "extra") != `{"command":"extra-server","type":"stdio"}` {
		t.Fatalf("--scope workspace did not write the existing workspace file %s: %s", ws, r.stderr)
	}

	// Removing without a scope needs one when both files have the server.
	line := oneLineError(t, e.runIn(proj, "", "--mcp-remove", "github", "--mcp-force"))
	if !strings.Contains(line, "choose one with --scope user or --scope workspace") {
		t.Fatalf("stderr %q", line)
	}
	// No terminal and no --mcp-force: refused with the hint.
	line = oneLineError(t, e.runIn(proj, "", "--mcp-remove", "github", "--scope", "user"))
	if !strings.Contains(line, "add --mcp-force to remove it without asking") {
		t.Fatalf("stderr %q", line)
	}
	r = e.runIn(proj, "", "--mcp-remove", "github", "--scope", "user", "--mcp-force")
	e.mustSucceed(r)
	if !strings.Contains(r.stderr, "Removed MCP server github from "+user) {
		t.Fatalf("stderr %q", r.stderr)
	}
	data, _ := os.ReadFile(user)
	if mcpServerJSON(t, user, "github") != "" || mcpServerJSON(t, user, "fs") != `{"args":["-y","fs-server"],"command":"npx","env":{"DEBUG":true,"LEVEL":3}}` {
		t.Fatalf("user file after remove:\n%s", data)
	}
	if !strings.Contains(string(data), `"DEBUG": true`) || strings.Index(string(data), `"command"`) > strings.Index(string(data), `"env"`) {
		t.Fatalf("the other server was not kept as written:\n%s", data)
	}
	// Overwrite without a terminal needs --mcp-force.
	line = oneLineError(t, e.runIn(proj, "", "--mcp-add", "fs", "--", "other"))
	if !strings.Contains(line, `MCP server "fs" is already in `+user+": add --mcp-force to replace it") {
		t.Fatalf("stderr %q", line)
	}
	// A broken file is named with its line and never overwritten.
	if err := os.WriteFile(ws, []byte("{\"mcpServers\": {\n  \"x\": {\"command\": \"a\", \"timeout\": 3}}}"), 0o644); err != nil {
		t.Fatal(err)
	}
	line = oneLineError(t, e.runIn(proj, "", "--mcp-list"))
	if line != "Error: "+ws+`:2: MCP server "x": unknown field "timeout" (known: type, command, args, env, cwd, url, headers, oauth)` {
		t.Fatalf("stderr %q", line)
	}
	line = oneLineError(t, e.runIn(proj, "", "--mcp-add", "y", "--scope", "workspace", "--", "b"))
	if !strings.Contains(line, ws+":2:") {
		t.Fatalf("stderr %q", line)
	}
	if b, _ := os.ReadFile(ws); !strings.Contains(string(b), "timeout") {
		t.Fatal("the broken file was overwritten")
	}
	// Leftover temporary files would show up here (the lock file stays).
	entries, _ := os.ReadDir(filepath.Dir(user))
	if len(entries) != 2 || entries[0].Name() != ".mcp.json.lock" {
		t.Fatalf("functions dir: %v", entries)
	}
}

func TestMCPAddOnATerminalAsksAndReadsSecretsWithoutEcho(t *testing.T) {
	e := newEnv(t, "vault_password_file: "+vaultPassword(t)+"\n")
	p := e.startPTY("--mcp-add", "gh", "--url", "https://h/mcp", "--header", "Authorization: Bearer {{GH_TOKEN}}")
	p.expect("MCP server gh uses the secret GH_TOKEN, which is not in the vault. Add it now? [Y/n] ", replTimeout)
	p.send("\r")
	p.expect("Value of GH_TOKEN: ", replTimeout)
	p.send("tok-s3cret\r")
	p.expect("Added MCP server gh to ", replTimeout)
	if code := p.waitExit(replTimeout); code != 0 {
		t.Fatalf("exit %d\n%s", code, p.output())
	}
	if strings.Contains(p.output(), "tok-s3cret") {
		t.Fatal("the secret was echoed")
	}
	if r := e.run("", "--get-secret", "GH_TOKEN"); r.stdout != "tok-s3cret\n" {
		t.Fatalf("vault has %q (%s)", r.stdout, r.stderr)
	}

	// Replacing asks first; "n" keeps the old server.
	p = e.startPTY("--mcp-add", "gh", "--transport", "sse", "--url", "https://h/sse")
	p.expect("MCP server \"gh\" is already in ", replTimeout)
	p.expect("Replace it? [y/N] ", replTimeout)
	p.send("n\r")
	p.expect("Aborted: nothing changed.", replTimeout)
	if code := p.waitExit(replTimeout); code != 0 {
		t.Fatalf("exit %d", code)
	}
	user := e.userMCP()
	if !strings.Contains(mcpServerJSON(t, user, "gh"), `"type":"http"`) {
		t.Fatal("declining replaced the server")
	}
	p = e.startPTY("--mcp-remove", "gh")
	p.expect("Remove MCP server gh from "+user+"? [y/N] ", replTimeout)
	p.send("y\r")
	p.expect("Removed MCP server gh", replTimeout)
	if code := p.waitExit(replTimeout); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if mcpServerJSON(t, user, "gh") != "" {
		t.Fatal("not removed")
	}
}

// --mcp-list may be pasted into a bug report: a URL's password is masked.
func TestMCPListMasksAURLPassword(t *testing.T) {
	e := newEnv(t, testingConfig)
	e.writeUserMCP(`{"mcpServers": {"corp": {"type": "http", "url": "https://bob:hunter2secret@mcp.example.com/mcp?x=1"}}}`)
	r := e.run("", "--mcp-list", "--scope", "user")
	e.mustSucceed(r)
	if !strings.Contains(r.stdout, "https://bob:***@mcp.example.com/mcp?x=1") || strings.Contains(r.stdout, "hunter2secret") {
		t.Fatalf("--mcp-list:\n%s", r.stdout)
	}
	// And so does .list mcp-servers in the REPL.
	p := e.startPTY()
	p.expect("t:m)> ", replTimeout)
	p.enter(".list mcp-servers", "https://bob:***@mcp.example.com/mcp?x=1")
	p.exit()
	if strings.Contains(p.output(), "hunter2secret") {
		t.Fatalf(".list mcp-servers:\n%s", p.output())
	}
}
