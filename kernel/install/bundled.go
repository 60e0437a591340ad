package install

import (
	"github.com/coyote-cli/coyote/assets"
	"github.com/coyote-cli/coyote/kernel/config"
)

// BundledKinds are the kinds --install reinstalls from the binary.
var BundledKinds = []string{"agents", "macros", "functions", "skills", "mcp_config"}

// BundledParts are the binary's own files of a kind (agents, macros,
// functions or skills) and where they go. mcp_config has no files: see
// assets.MCPConfig and MergeMCP.
func BundledParts(kind string, p config.Paths) []Part {
	switch kind {
	case "agents":
		return []Part{{Kind: kind, FS: assets.Agents(), Label: "agents", Dir: p.AgentsDir}}
	case "macros":
		return []Part{{Kind: kind, FS: assets.Macros(), Label: "macros", Dir: p.MacrosDir}}
	case "functions":
		return []Part{{Kind: kind, FS: assets.Functions(), Label: "functions", Dir: p.FunctionsDir}}
	case "skills":
		return []Part{{Kind: kind, FS: assets.Skills(), Label: "skills", Dir: p.SkillsDir}}
	}
	return nil
}
