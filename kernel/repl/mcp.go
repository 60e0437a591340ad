package repl

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/coyote-cli/coyote/kernel/mcpconf"
	"github.com/coyote-cli/coyote/kernel/termtext"
	"github.com/coyote-cli/coyote/sdk/fsx"
)

// mcpActions are the words .mcp takes before a server name.
var mcpActions = []string{"enable", "disable", "auth"}

// cmdMCP is `.mcp enable|disable|auth <server>`.
func (r *REPL) cmdMCP(c *call) error {
	if len(c.args) != 2 || !slices.Contains(mcpActions, c.args[0]) {
		return errors.New("usage: .mcp enable|disable|auth <server>")
	}
	m := r.conv.MCP()
	if m == nil {
		return errors.New("MCP is not available in this run")
	}
	set, err := m.Servers()
	if err != nil {
		return err
	}
	server := c.args[1]
	entry, ok := set.Lookup(server)
	if !ok {
		return fmt.Errorf("no MCP server %q: add one with coyote --mcp-add %s, or list them with .list mcp-servers", server, server)
	}
	if c.args[0] == "auth" {
		return r.whileInterruptible(c.ctx, func(ctx context.Context) error {
			return m.Authenticate(ctx, server, r.out)
		})
	}
	enabled, err := r.conv.MCPServers()
	if err != nil {
		return err
	}
	on := slices.Contains(enabled, server)
	switch {
	case c.args[0] == "enable" && on:
		r.printf("MCP server %s is enabled already.\n", server)
		return nil
	case c.args[0] == "disable" && !on:
		r.printf("MCP server %s is not enabled.\n", server)
		return nil
	case c.args[0] == "enable":
		enabled = append(enabled, server)
	default:
		enabled = slices.DeleteFunc(enabled, func(s string) bool { return s == server })
	}
	value := strings.Join(enabled, ",")
	if value == "" {
		value = "[]" // none here, whatever an outer level enables
	}
	if err := r.dispatch(c.ctx, ".set enabled_mcp_servers "+value); err != nil {
		return err
	}
	if c.args[0] == "enable" && !r.conv.Config().Bool("mcp_server_support") {
		r.println("Note: mcp_server_support is off, so no MCP server is used; turn it on with .set mcp_server_support true")
	}
	if c.args[0] == "enable" && entry.Scope == mcpconf.ScopeWorkspace && set.WorkspaceTrust() == mcpconf.WorkspaceIgnored {
		r.printf("Note: MCP server %s comes from the workspace file %s, which is not approved, so it is not used; .workspace trust approves it.\n", server, termtext.Quote(entry.Path))
	}
	return nil
}

// listMCPServers is `.list mcp-servers`: every server of mcp.json, the
// enabled ones marked, with its scope and transport.
func (r *REPL) listMCPServers() error {
	m := r.conv.MCP()
	if m == nil {
		r.println("No MCP servers: MCP is not available in this run.")
		return nil
	}
	set, err := m.Servers()
	if err != nil {
		return err
	}
	if len(set.Entries) == 0 {
		r.println("No MCP servers: add one with coyote --mcp-add NAME -- COMMAND ARGS…, or --mcp-add NAME --transport http --url URL.")
		return nil
	}
	enabled, err := r.conv.MCPServers()
	if err != nil {
		return err
	}
	type id struct{ scope, name string }
	active := map[id]bool{}
	for _, e := range set.Active() {
		active[id{e.Scope, e.Name}] = true
	}
	usable, state := set.WorkspaceUsable(), set.WorkspaceTrust()
	for _, e := range set.Entries {
		mark := "  "
		if active[id{e.Scope, e.Name}] && slices.Contains(enabled, e.Name) {
			mark = "* "
		}
		note := ""
		switch {
		case e.Shadowed && usable:
			note = " (shadowed by the workspace's)"
		case e.Shadows && usable:
			note = " (replaces yours)"
		case e.Scope == mcpconf.ScopeWorkspace && state == mcpconf.WorkspacePending:
			note = " (not approved yet: asked when first used; .workspace shows it)"
		case e.Scope == mcpconf.ScopeWorkspace && state == mcpconf.WorkspaceIgnored:
			note = " (not approved, not used: .workspace trust)"
		}
		r.printf("%s%-20s %-9s %-5s %s%s\n", mark, e.Name, e.Scope, e.Transport(), termtext.Quote(e.Target()), note)
	}
	return nil
}

// completeMCP completes .mcp's action and server.
func completeMCP(r *REPL, done []string) []Candidate {
	switch len(done) {
	case 0:
		return values(mcpActions, "")
	case 1:
		return values(mcpNames(r), "")
	}
	return nil
}

// mcpNames are the active servers of mcp.json.
func mcpNames(r *REPL) []string {
	m := r.conv.MCP()
	if m == nil {
		return nil
	}
	set, err := m.Servers()
	if err != nil {
		return nil
	}
	return set.Names()
}

// cmdEditMCPConfig is `.edit mcp-config`: the user's mcp.json in the
// editor (created when missing), read again when the editor closes.
func (r *REPL) cmdEditMCPConfig(*call) error {
	if err := r.noEditorInMacro(); err != nil {
		return err
	}
	path := mcpconf.UserFile(r.conv.Paths())
	if _, err := fsx.CreateNew(path, []byte("{\n  \"mcpServers\": {}\n}\n"), 0o600); err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	if err := r.editFile(path); err != nil {
		return err
	}
	m := r.conv.MCP()
	if m == nil {
		return nil
	}
	if err := m.Reload(); err != nil {
		return fmt.Errorf("%w (the servers read before stay in use; fix the file with .edit mcp-config)", err)
	}
	r.println("Saved. The MCP servers are read again; those whose settings did not change keep running.")
	return nil
}
