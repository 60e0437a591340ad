package bundlemark

import (
	"path/filepath"

	"github.com/coyote-cli/coyote/assets"
	agentbundled "github.com/coyote-cli/coyote/kernel/agent/bundled"
	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/macro"
	"github.com/coyote-cli/coyote/kernel/skill"
	toolbundled "github.com/coyote-cli/coyote/kernel/tools/bundled"
)

// MarkerName is the marker's file name in the config directory.
const MarkerName = ".bundled-assets"

// Marker is the marker's path for p.
func Marker(p config.Paths) string { return filepath.Join(p.ConfigDir, MarkerName) }

// Coyote is what the binary installs into the user's directories: the
// tool scripts, the agents, the built-in macros and the skills. Each
// Install copies only what is missing and never replaces a user's file.
func Coyote(p config.Paths) []Part {
	discard := func(install func(string) ([]string, error), dir string) func() error {
		return func() error { _, err := install(dir); return err }
	}
	return []Part{
		{Name: "tools", Files: assets.Functions(), Dir: p.FunctionsDir, Install: discard(toolbundled.Install, p.FunctionsDir)},
		{Name: "agents", Files: assets.Agents(), Dir: p.AgentsDir, Install: discard(agentbundled.Install, p.AgentsDir)},
		{Name: "macros", Files: assets.Macros(), Dir: p.MacrosDir, Install: discard(macro.Install, p.MacrosDir)},
		{Name: "skills", Files: assets.Skills(), Dir: p.SkillsDir, Install: discard(skill.Install, p.SkillsDir)},
	}
}
