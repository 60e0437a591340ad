package assets

import (
	"embed"
	"io/fs"
)

//go:embed agents/*/config.yaml agents/*/tools.sh
var agents embed.FS

// Agents is the bundled agents, laid out as in a user's agents directory:
// <name>/config.yaml (the agent's settings and instructions) and
// <name>/tools.sh (its tools, one per @cmd function). kernel/agent/bundled
// copies them into the agents directory, where a user's agent of the same
// name wins.
func Agents() fs.FS {
	sub, err := fs.Sub(agents, "agents")
	if err != nil {
		panic(err) // the directory is embedded; this cannot happen
	}
	return sub
}
