package macro

import (
	"io/fs"
	"strings"

	"github.com/coyote-cli/coyote/assets"
	"github.com/coyote-cli/coyote/sdk/fsx"
)

// Install copies each built-in macro (assets.Macros) that globalDir lacks
// into it, creating the directory if needed, and returns the names of the
// files it wrote, sorted. A file already there, edited or not, is never
// replaced: each copy goes to a temporary file in globalDir that is then
// hard-linked to its name, which fails rather than overwrite a file that
// appeared meanwhile. A built-in macro the user deleted comes back at the
// next call; the caller decides how often to call it.
func Install(globalDir string) ([]string, error) {
	return install(assets.Macros(), globalDir)
}

func install(files fs.FS, dir string) ([]string, error) {
	return fsx.InstallMissing(files, dir, 0o644, func(name string) bool {
		return !strings.Contains(name, "/") && strings.HasSuffix(name, ext)
	})
}
