package main

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/coyote-cli/coyote/kernel/bundlemark"
	"github.com/coyote-cli/coyote/kernel/config"
)

// bundledCheck measures what every run pays to learn that the bundled
// tools, agents, macros and skills are installed: the bundle's
// fingerprint, a read of the marker and a stat of each directory
// (kernel/bundlemark), after a first run installed them.
func bundledCheck(work string, runs int) (time.Duration, error) {
	dir := filepath.Join(work, "bundled-bench")
	p := config.Paths{ConfigDir: dir, FunctionsDir: filepath.Join(dir, "functions"), AgentsDir: filepath.Join(dir, "agents"),
		MacrosDir: filepath.Join(dir, "macros"), SkillsDir: filepath.Join(dir, "skills")}
	if _, err := bundlemark.Ensure(bundlemark.Marker(p), bundlemark.Coyote(p)); err != nil {
		return 0, err
	}
	var failed error
	d := median(runs*10, func() time.Duration {
		start := time.Now()
		installed, err := bundlemark.Ensure(bundlemark.Marker(p), bundlemark.Coyote(p))
		el := time.Since(start)
		if installed || err != nil {
			failed = fmt.Errorf("bundled bench: installed again (%v)", err)
		}
		return el
	})
	return d, failed
}
