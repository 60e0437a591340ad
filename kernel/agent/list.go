package agent

import (
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/coyote-cli/coyote/kernel/config"
)

// Entry is one agent of the agents directory, as --list-agents and .list
// agents show it.
type Entry struct {
	Name        string
	Description string
	// Agent is the agent as loaded (nil when it does not load); Err says
	// why it does not.
	Agent *Agent
	Err   error
}

// List reads every agent of agentsDir (its subdirectories holding a
// config.yaml or a graph.yaml), sorted by name. An agent that does not
// load is listed with its error.
func List(agentsDir string, env config.Env) []Entry {
	dirs, _ := os.ReadDir(agentsDir)
	var names []string
	for _, d := range dirs {
		name := d.Name()
		if !d.IsDir() || strings.HasPrefix(name, ".") {
			continue
		}
		dir := filepath.Join(agentsDir, name)
		if isFile(filepath.Join(dir, "config.yaml")) || isFile(filepath.Join(dir, "graph.yaml")) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	// Each agent is read on its own: parsing is most of the time, and the
	// cores share it.
	out := make([]Entry, len(names))
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(runtime.GOMAXPROCS(0), len(names)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				a, err := Load(agentsDir, names[i], env)
				out[i] = Entry{Name: names[i], Err: err}
				if err == nil {
					out[i].Agent, out[i].Description = a, a.Config.Description
				}
			}
		}()
	}
	for i := range names {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}
