package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
	"github.com/coyote-cli/coyote/internal/mcptest"
)

// mcpEnv is an environment whose mcp.json has the real filesystem server
// from npm as "fs", serving a directory with one file.
func mcpEnv(t *testing.T, fake *fakellm.OpenAI, enabled, data string) *env {
	t.Helper()
	node, args := mcptest.Server(t, mcptest.Filesystem)
	if err := os.WriteFile(filepath.Join(data, "notes.txt"), []byte("The secret word is pumpernickel.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	url := fakellm.StartOpenAI(t, fake)
	e := newEnv(t, fakeConfig(url, "enabled_mcp_servers: "+enabled))
	cfg := map[string]any{"mcpServers": map[string]any{"fs": map[string]any{"command": node, "args": append(args, data)}}}
	raw, _ := json.Marshal(cfg)
	e.writeUserMCP(string(raw))
	return e
}

// userMCP is the path of the user's mcp.json.
func (e *env) userMCP() string { return filepath.Join(e.configDir, "functions", "mcp.json") }

// writeUserMCP writes the user's mcp.json and returns its path.
func (e *env) writeUserMCP(text string) string {
	e.t.Helper()
	path := e.userMCP()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		e.t.Fatal(err)
	}
	return path
}

// TestTheModelReadsAFileThroughTheFilesystemMCPServer: the fake model
// searches the server's tools, asks for the schema of the read tool it
// found, invokes it on the real @modelcontextprotocol/server-filesystem,
// and answers with the file's content.
func TestTheModelReadsAFileThroughTheFilesystemMCPServer(t *testing.T) {
	data := t.TempDir()
	fake := &fakellm.OpenAI{Respond: func(req *fakellm.ChatRequest) fakellm.Reply {
		res := toolResults(req)
		switch len(res) {
		case 0:
			return fakellm.Reply{ToolCalls: []fakellm.ToolCall{{ID: "c1", Name: "mcp_search_fs", Arguments: `{"query":"read the contents of a text file","top_k":3}`}}}
		case 1:
			var found struct {
				Tools []struct{ Name string } `json:"tools"`
			}
			if err := json.Unmarshal([]byte(res[0]), &found); err != nil || len(found.Tools) == 0 {
				return fakellm.Reply{Text: "search failed: " + res[0]}
			}
			args, _ := json.Marshal(map[string]string{"tool": found.Tools[0].Name})
			return fakellm.Reply{ToolCalls: []fakellm.ToolCall{{ID: "c2", Name: "mcp_describe_fs", Arguments: string(args)}}}
		case 2:
			var tool struct {
				Name        string         `json:"name"`
				InputSchema map[string]any `json:"input_schema"`
			}
			if err := json.Unmarshal([]byte(res[1]), &tool); err != nil || !strings.Contains(fmt.Sprint(tool.InputSchema["properties"]), "path") {
				return fakellm.Reply{Text: "describe failed: " + res[1]}
			}
			args, _ := json.Marshal(map[string]any{"tool": tool.Name, "arguments": map[string]string{"path": filepath.Join(data, "notes.txt")}})
			return fakellm.Reply{ToolCalls: []fakellm.ToolCall{{ID: "c3", Name: "mcp_invoke_fs", Arguments: string(args)}}}
		}
		return fakellm.Reply{Text: "The file says: " + res[len(res)-1]}
	}}
	e := mcpEnv(t, fake, "fs", data)
	r := e.run("", "what", "does", "notes.txt", "say?")
	e.mustSucceed(r)
	if !strings.Contains(r.stdout, "The file says: The secret word is pumpernickel.") {
		t.Fatalf("stdout %q\nstderr %q", r.stdout, r.stderr)
	}
	if got := strings.Join(offered(&fake.Requests()[0]), " "); !strings.Contains(got, "mcp_search_fs mcp_describe_fs mcp_invoke_fs") {
		t.Fatalf("offered %s", got)
	}
}

// TestMCPServersAreOfferedOnlyWhenEnabled: enabled_mcp_servers null
// offers no MCP function, and starts no server.
func TestMCPServersAreOfferedOnlyWhenEnabled(t *testing.T) {
	fake := answering("ok")
	e := mcpEnv(t, fake, "null", t.TempDir())
	e.mustSucceed(e.run("", "hi"))
	for _, name := range offered(&fake.Requests()[0]) {
		if strings.HasPrefix(name, "mcp_") {
			t.Fatalf("offered %v with enabled_mcp_servers null", name)
		}
	}
	if strings.Contains(e.log(), "coyote-mcp") {
		t.Fatal("the MCP bridge started though no server is enabled")
	}
}

// TestMCPEnableAndDisableInTheREPL turns a server on and off for the run
// with .mcp, as .list mcp-servers and the offered functions show.
func TestMCPEnableAndDisableInTheREPL(t *testing.T) {
	fake := &fakellm.OpenAI{Respond: func(req *fakellm.ChatRequest) fakellm.Reply {
		n := 0
		for _, name := range offered(req) {
			if strings.HasPrefix(name, "mcp_") {
				n++
			}
		}
		return fakellm.Reply{Text: fmt.Sprintf("I see %d MCP functions.", n)}
	}}
	e := mcpEnv(t, fake, "null", t.TempDir())
	p := e.startREPL()
	p.enter(".list mcp-servers", "  fs ")
	p.enter(".mcp enable fs", replPrompt)
	p.enter(".list mcp-servers", "* fs ")
	p.enter("hello", "I see 3 MCP functions.")
	p.enter(".mcp disable fs", replPrompt)
	p.enter("hello again", "I see 0 MCP functions.")
	p.enter(".mcp enable nope", `no MCP server "nope"`)
	// With MCP support off, enabling says why nothing changes.
	p.enter(".set mcp_server_support false", replPrompt)
	p.enter(".mcp enable fs", "mcp_server_support is off", ".set mcp_server_support true", replPrompt)
	p.enter("hello once more", "I see 0 MCP functions.")
	p.exit()
}

// TestEditMCPConfigReadsTheServersAgain edits mcp.json from the REPL:
// a new server is listed at once; a broken file is named with its line
// and the servers read before stay.
func TestEditMCPConfigReadsTheServersAgain(t *testing.T) {
	fake := answering("ok")
	e := mcpEnv(t, fake, "null", t.TempDir())
	tmp := t.TempDir()
	good := filepath.Join(tmp, "good.json")
	bad := filepath.Join(tmp, "bad.json")
	if err := os.WriteFile(good, []byte(`{"mcpServers":{"added":{"command":"true"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("{\"mcpServers\":{\n\"broken\":{\"command\":\"x\",\"colour\":1}}}"), 0o600); err != nil {
		t.Fatal(err)
	}
	next := filepath.Join(tmp, "next")
	editor := filepath.Join(tmp, "editor")
	if err := os.WriteFile(editor, []byte("#!/bin/sh\ncp \"$(cat "+next+")\" \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.set("EDITOR=" + editor)
	p := e.startREPL()
	if err := os.WriteFile(next, []byte(good), 0o600); err != nil {
		t.Fatal(err)
	}
	p.enter(".edit mcp-config", "are read again")
	p.enter(".list mcp-servers", "  added ")
	if err := os.WriteFile(next, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	p.enter(".edit mcp-config", `mcp.json:2: MCP server "broken": unknown field "colour"`)
	p.enter(".list mcp-servers", "  added ")
	p.exit()
}

// TestACrashedMCPServerIsReportedByNameAndStartedAgain: the fake model
// asks the test server for its pid, makes it crash mid-call, then asks
// for its pid again. The crash comes back to the model as an error that
// names the server and quotes its last stderr line, and the next call
// runs on a new server process.
func TestACrashedMCPServerIsReportedByNameAndStartedAgain(t *testing.T) {
	calls := []string{"pid", "crash", "pid"}
	fake := &fakellm.OpenAI{Respond: func(req *fakellm.ChatRequest) fakellm.Reply {
		res := toolResults(req)
		if len(res) == len(calls) {
			return fakellm.Reply{Text: "results: " + strings.Join(res, " | ")}
		}
		args, _ := json.Marshal(map[string]string{"tool": calls[len(res)]})
		return fakellm.Reply{ToolCalls: []fakellm.ToolCall{{ID: fmt.Sprint("c", len(res)), Name: "mcp_invoke_crashy", Arguments: string(args)}}}
	}}
	url := fakellm.StartOpenAI(t, fake)
	e := newEnv(t, fakeConfig(url, "enabled_mcp_servers: crashy"))
	e.writeUserMCP(`{"mcpServers":{"crashy":{"command":"` + filepath.Join(testPluginDir, "mcpserver") + `"}}}`)
	r := e.run("", "go")
	e.mustSucceed(r)
	reqs := fake.Requests()
	res := toolResults(&reqs[len(reqs)-1])
	if len(res) != 3 {
		t.Fatalf("tool results %q\nstdout %q", res, r.stdout)
	}
	if _, err := strconv.Atoi(res[0]); err != nil || res[2] == res[0] {
		t.Fatalf("pid before the crash %q, after %q: want two process ids", res[0], res[2])
	}
	if _, err := strconv.Atoi(res[2]); err != nil {
		t.Fatalf("the call after the crash: %q", res[2])
	}
	var crash struct {
		Error string `json:"tool_call_error"`
	}
	if err := json.Unmarshal([]byte(res[1]), &crash); err != nil {
		t.Fatalf("the crash reached the model as %q: %v", res[1], err)
	}
	for _, want := range []string{`MCP server "crashy"`, "exit status 3", "fatal: the test asked me to crash", "started again on next use"} {
		if !strings.Contains(crash.Error, want) {
			t.Fatalf("the crash reached the model as %q, want %q in it", crash.Error, want)
		}
	}
}
