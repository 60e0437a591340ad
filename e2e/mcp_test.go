package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
	"github.com/coyote-cli/coyote/internal/mcptest"
)

// toolResults are the tool messages of a request, in order.
func toolResults(req *fakellm.ChatRequest) []string {
	var out []string
	for _, m := range req.Messages {
		if m["role"] == "tool" {
			s, _ := m["content"].(string)
			out = append(out, s)
		}
	}
	return out
}

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
	dir := filepath.Join(e.configDir, "functions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mcp.json"), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	return e
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
	var offered []string
	for _, tool := range fake.Requests()[0].Tools {
		if fn, _ := tool["function"].(map[string]any); fn != nil {
			offered = append(offered, fmt.Sprint(fn["name"]))
		}
	}
	if got := strings.Join(offered, " "); !strings.Contains(got, "mcp_search_fs mcp_describe_fs mcp_invoke_fs") {
		t.Fatalf("offered %s", got)
	}
}

// TestMCPServersAreOfferedOnlyWhenEnabled: enabled_mcp_servers null
// offers no MCP function, and starts no server.
func TestMCPServersAreOfferedOnlyWhenEnabled(t *testing.T) {
	fake := &fakellm.OpenAI{Respond: func(*fakellm.ChatRequest) fakellm.Reply { return fakellm.Reply{Text: "ok"} }}
	e := mcpEnv(t, fake, "null", t.TempDir())
	e.mustSucceed(e.run("", "hi"))
	for _, tool := range fake.Requests()[0].Tools {
		if fn, _ := tool["function"].(map[string]any); fn != nil && strings.HasPrefix(fmt.Sprint(fn["name"]), "mcp_") {
			t.Fatalf("offered %v with enabled_mcp_servers null", fn["name"])
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
		for _, tool := range req.Tools {
			if fn, _ := tool["function"].(map[string]any); fn != nil && strings.HasPrefix(fmt.Sprint(fn["name"]), "mcp_") {
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
	p.exit()
}

// TestEditMCPConfigReadsTheServersAgain edits mcp.json from the REPL:
// a new server is listed at once; a broken file is named with its line
// and the servers read before stay.
func TestEditMCPConfigReadsTheServersAgain(t *testing.T) {
	fake := &fakellm.OpenAI{Respond: func(*fakellm.ChatRequest) fakellm.Reply { return fakellm.Reply{Text: "ok"} }}
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
