package agent

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/coyote-cli/coyote/kernel/config"
)

// Entry is one agent of the agents directory, as --list-agents and .list
// agents show it.
type Entry struct {
	Name        string
	Description string
	// Err says why the agent does not load (nil when it does).
	Err error
}

// List reads every agent of agentsDir (its subdirectories holding a
// config.yaml or a graph.yaml), sorted by name. An agent that does not
// load is listed with its error.
func List(agentsDir string, env config.Env) []Entry {
	dirs, _ := os.ReadDir(agentsDir)
	var out []Entry
	for _, d := range dirs {
		name := d.Name()
		if !d.IsDir() || strings.HasPrefix(name, ".") {
			continue
		}
		dir := filepath.Join(agentsDir, name)
		if !isFile(filepath.Join(dir, "config.yaml")) && !isFile(filepath.Join(dir, "graph.yaml")) {
			continue
		}
		a, err := Load(agentsDir, name, env)
		e := Entry{Name: name, Err: err}
		if err == nil {
			e.Description = a.Config.Description
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}
