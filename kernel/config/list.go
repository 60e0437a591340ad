package config

import (
	"os"
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
