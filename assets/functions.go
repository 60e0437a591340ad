package assets

import (
	"embed"
	"io/fs"
)

//go:embed functions/tools/*.sh functions/utils/*.sh
var functions embed.FS

// Functions is the bundled tool scripts, laid out as in a user's functions
// directory: tools/<name>.sh (one tool each, argc comment tags and a main
// function) and utils/<name>.sh (helpers the tools source, such as the
// confirmation guards). kernel/tools/bundled copies them into the functions
// directory, where a user's copy of the same name wins.
func Functions() fs.FS {
	sub, err := fs.Sub(functions, "functions")
	if err != nil {
		panic(err) // the directory is embedded; this cannot happen
	}
	return sub
}

//go:embed functions/mcp.json
var mcpConfig []byte

// MCPConfig is the bundled mcp.json: common MCP servers, ready to be
// merged into the user's functions/mcp.json by --install mcp_config.
// A server there starts only when enabled_mcp_servers (of the config, a
// role, an agent or a session) names it, so the entries cost nothing
// until then; the ones that need a token name it as a {{SECRET}}.
func MCPConfig() []byte { return mcpConfig }
