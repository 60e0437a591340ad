package skill

import (
	"path"
	"strings"

	"github.com/coyote-cli/coyote/assets"
	"github.com/coyote-cli/coyote/sdk/fsx"
)

// Install copies each bundled skill file (assets.Skills:
// <name>/SKILL.md) that dir, the config directory's skills/, lacks into
// it, and returns the copied names (slash-separated, sorted). A file
// already there, edited or not, is never replaced (fsx.InstallMissing);
// a bundled skill the user deleted comes back at the next call.
func Install(dir string) ([]string, error) {
	return fsx.InstallMissing(assets.Skills(), dir, 0o644, func(name string) bool {
		return path.Base(name) == FileName && strings.Count(name, "/") == 1
	})
}
