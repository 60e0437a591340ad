package cli

import (
	"fmt"
	"os"

	"github.com/coyote-cli/coyote/kernel/memory"
)

// runInitMemory sets up the global or the workspace memory
// (--init-memory): its MEMORY.md, written when missing and never
// replaced, and for the workspace a .gitignore that keeps it out of git.
func runInitMemory(f *Factory, scope string) error {
	sc, err := memory.ParseScope(scope)
	if err != nil {
		return &UsageError{Err: fmt.Errorf("--init-memory: %w", err)}
	}
	var s memory.Store
	if sc == memory.Global {
		p, err := f.Paths()
		if err != nil {
			return err
		}
		s = memory.GlobalStore(p.ConfigDir)
	} else {
		cwd, err := os.Getwd()
		if err != nil {
			return err
		}
		s = memory.WorkspaceStore(cwd)
	}
	path, created, err := memory.Init(s)
	if err != nil {
		return err
	}
	if !created {
		fmt.Fprintf(f.IO.Out, "%s exists already; it is left as it is.\n", path)
		return nil
	}
	fmt.Fprintf(f.IO.Out, "Wrote %s: the %s memory is on; the model keeps it with the memory__* functions.\n", path, sc)
	return nil
}
