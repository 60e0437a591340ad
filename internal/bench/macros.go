package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/coyote-cli/coyote/kernel/macro"
)

// macroResolve measures what every Tab and every unknown command costs
// with 200 macro files (100 global, 100 workspace, 20 names in both): read
// both directories, check each file against the catalog's cache, and
// resolve every macro's state under a role allowlist. The catalog is warm,
// as it is in a running REPL.
func macroResolve(work string, runs int) (time.Duration, error) {
	dirs := macro.Dirs{Global: filepath.Join(work, "macros-bench", "global"), Workspace: filepath.Join(work, "macros-bench", "ws")}
	body := "description: Review the working tree against a branch\nisolated: false\nvariables:\n  - name: base\n    default: main\nsteps:\n  - \"Review against {{base}}\"\n"
	for i := range 100 {
		for dir, n := range map[string]int{dirs.Global: i, dirs.Workspace: i + 80} {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return 0, err
			}
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("m%03d.yaml", n)), []byte(body), 0o644); err != nil {
				return 0, err
			}
		}
	}
	policy := macro.Policy{{Kind: macro.KindRole, Where: "coder", Set: true, List: []string{"m001", "m090", "m150"}}, {Kind: macro.KindGlobal}}
	builtin := func(name string) bool { return name == "help" || name == "info" }
	c := macro.NewCatalog()
	if list, _ := c.Discover(dirs); len(list) != 200 {
		return 0, fmt.Errorf("macro bench: %d macros discovered, want 200", len(list))
	}
	return median(runs*10, func() time.Duration {
		start := time.Now()
		list, _ := c.Discover(dirs)
		macro.Resolve(list, policy, builtin)
		return time.Since(start)
	}), nil
}
