// Package bundled installs the tool scripts that ship inside the coyote
// binary (assets.Functions: tools/*.sh and utils/*.sh) into the user's
// functions directory.
//
// It owns that copy and nothing else: it writes only files that do not
// exist yet, so a file the user has edited, or one of the same name from
// the original's functions directory, always wins; it never deletes or
// updates a file. Parsing the tools' comment tags, generating their
// wrappers in bin/ and running them belong to kernel/tools/script.
package bundled

import (
	"io/fs"

	"github.com/coyote-cli/coyote/assets"
	"github.com/coyote-cli/coyote/sdk/fsx"
)

// Install copies every bundled file that is missing from functionsDir into
// it, creating directories as needed, and returns the copied files' paths
// relative to functionsDir (slash-separated, in lexical order). Scripts get
// mode 0755. Each file is written to a temporary file in its directory and
// then linked into place, so a reader sees either no file or the whole
// file, and a file that appears meanwhile is not replaced. Calling it again
// copies only what has gone missing since, so it is cheap to call at every
// start; note that it also brings back a bundled file the user deleted.
func Install(functionsDir string) (installed []string, err error) {
	return install(assets.Functions(), functionsDir)
}

func install(files fs.FS, dir string) ([]string, error) {
	return fsx.InstallMissing(files, dir, 0o755, nil)
}
