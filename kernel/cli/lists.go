package cli

import (
	"fmt"
	"path/filepath"

	"github.com/coyote-cli/coyote/kernel/config"
)

// listNames prints the stems of the files in dirs that end in ext, one
// per line (config.Names).
func listNames(f *Factory, ext string, dirs ...string) error {
	for _, n := range config.Names(ext, dirs...) {
		fmt.Fprintln(f.IO.Out, n)
	}
	return nil
}

// runListRags prints the RAGs (rags/<name>.yaml).
func runListRags(f *Factory) error {
	p, err := f.Paths()
	if err != nil {
		return err
	}
	return listNames(f, ".yaml", p.RagsDir)
}

// runListMacros prints the macros, the workspace's first (they shadow the
// user's of the same name).
func runListMacros(f *Factory, opts *rootOptions) error {
	p, err := f.Paths()
	if err != nil {
		return err
	}
	ensureBundled(f) // the built-in macros are listed as the original lists them
	if opts.NoWorkspaceMacros {
		return listNames(f, ".yaml", p.MacrosDir)
	}
	return listNames(f, ".yaml", filepath.Join(p.WorkspaceDir, "macros"), p.MacrosDir)
}
