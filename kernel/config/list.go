package config

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Names lists the stems of the files in dirs that end in ext (the first
// directory wins on a repeated name; hidden files are skipped), sorted:
// the roles, RAGs or macros of the config directory.
func Names(ext string, dirs ...string) []string {
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
	return names
}

// Agents lists the agents of an agents directory: its subdirectories
// holding a config.yaml or a graph.yaml, sorted.
func Agents(dir string) []string {
	entries, _ := os.ReadDir(dir)
	var out []string
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		for _, file := range []string{"config.yaml", "graph.yaml"} {
			if _, err := os.Stat(filepath.Join(dir, e.Name(), file)); err == nil {
				out = append(out, e.Name())
				break
			}
		}
	}
	return out
}
