package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// listNames prints the names of the files in dirs that end in ext (first
// directory wins on a repeated name), one per line, sorted.
func listNames(f *Factory, ext string, dirs ...string) error {
	seen := map[string]bool{}
	var names []string
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			name, ok := strings.CutSuffix(e.Name(), ext)
			if !ok || e.IsDir() || strings.HasPrefix(name, ".") || seen[name] {
				continue
			}
			seen[name] = true
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintln(f.IO.Out, n)
	}
	return nil
}

// runListAgents prints the agents: directories of the agents directory
// holding a config.yaml or a graph.yaml.
func runListAgents(f *Factory) error {
	p, err := f.Paths()
	if err != nil {
		return err
	}
	entries, _ := os.ReadDir(p.AgentsDir)
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		for _, file := range []string{"config.yaml", "graph.yaml"} {
			if _, err := os.Stat(filepath.Join(p.AgentsDir, e.Name(), file)); err == nil {
				fmt.Fprintln(f.IO.Out, e.Name())
				break
			}
		}
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
	if opts.NoWorkspaceMacros {
		return listNames(f, ".yaml", p.MacrosDir)
	}
	return listNames(f, ".yaml", filepath.Join(p.WorkspaceDir, "macros"), p.MacrosDir)
}
