// Package bundled installs the agents that ship inside the coyote binary
// (assets.Agents: <name>/config.yaml and <name>/tools.sh) into the user's
// agents directory.
//
// It owns that copy and nothing else: it never replaces, updates or
// deletes a file, and it leaves alone every agent directory that already
// defines an agent other than the bundled one, so that a user's agent (or
// one of the original's) of the same name always wins whole, instead of
// being mixed with ours. Loading an agent's config, building its tools'
// wrappers and running them belong to kernel/agent and kernel/tools/script.
package bundled

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"

	"github.com/coyote-cli/coyote/assets"
	"github.com/coyote-cli/coyote/sdk/fsx"
)

// configFile is the file that makes a directory a (bundled) agent.
const configFile = "config.yaml"

// definitionFiles are the files whose presence in agents/<name>/ says
// that the directory holds an agent: its config (config.yaml or
// graph.yaml) and its tools script (the first of tools.sh, .py, .ts, .js
// wins, so adding ours would shadow the user's).
var definitionFiles = []string{"config.yaml", "graph.yaml", "tools.sh", "tools.py", "tools.ts", "tools.js"}

// Names lists the bundled agents, in lexical order.
func Names() []string {
	return names(assets.Agents())
}

// Install copies the bundled agents into agentsDir and returns the copied
// files' paths relative to it (slash-separated, "<agent>/<file>", in
// lexical order). Scripts get mode 0755, the rest 0644.
//
// An agent is copied when its directory does not define an agent yet (no
// config.yaml, graph.yaml or tools.* in it: it is missing, or holds only
// sessions or data), or when what defines it is the bundled agent: its
// config.yaml is the bundled one unchanged (its tools.sh may be edited),
// or, without a config.yaml, the files there are bundled ones unchanged
// (an install cut short). Only missing files are copied, config.yaml
// last, so that an interrupted install is completed by the next one.
// Any other agent of the same name is the user's, and nothing is added
// to it. Files are written through a temporary file and a link (see
// fsx.CreateNew), so a file that appears meanwhile is not replaced.
// Calling Install again copies only what has gone missing since, so it is
// cheap to call at every start; note that it also brings back a bundled
// agent, or file, that the user deleted.
func Install(agentsDir string) (installed []string, err error) {
	return install(assets.Agents(), agentsDir)
}

func install(files fs.FS, dir string) ([]string, error) {
	var installed []string
	for _, name := range names(files) {
		ours, err := isOurs(files, dir, name)
		if err != nil {
			return installed, err
		}
		if !ours {
			continue
		}
		sub, err := fs.Sub(files, name)
		if err != nil {
			return installed, fmt.Errorf("install agent %s: %w", name, err)
		}
		agentDir := filepath.Join(dir, name)
		// The config last: it is what makes the directory an agent.
		for _, step := range []struct {
			perm fs.FileMode
			keep func(string) bool
		}{
			{0o755, func(f string) bool { return f != configFile && isScript(f) }},
			{0o644, func(f string) bool { return f != configFile && !isScript(f) }},
			{0o644, func(f string) bool { return f == configFile }},
		} {
			got, err := fsx.InstallMissing(sub, agentDir, step.perm, step.keep)
			for _, f := range got {
				installed = append(installed, name+"/"+f)
			}
			if err != nil {
				return installed, fmt.Errorf("install agent %s: %w", name, err)
			}
		}
	}
	slices.Sort(installed)
	return installed, nil
}

// isOurs reports whether agents/<name> may receive the bundled agent's
// missing files: it defines no agent yet, or only the bundled one.
func isOurs(files fs.FS, dir, name string) (bool, error) {
	agentDir := filepath.Join(dir, name)
	if st, err := os.Stat(agentDir); errors.Is(err, fs.ErrNotExist) {
		return true, nil
	} else if err != nil {
		return false, fmt.Errorf("install agent %s: %w", name, err)
	} else if !st.IsDir() {
		return false, fmt.Errorf("install agent %s: %s is not a directory", name, agentDir)
	}
	var present []string
	for _, f := range definitionFiles {
		if _, err := os.Lstat(filepath.Join(agentDir, f)); err == nil {
			present = append(present, f)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return false, fmt.Errorf("install agent %s: %w", name, err)
		}
	}
	// Ours when every definition file there is one we ship, and the
	// config is ours unchanged; without a config (an install cut short
	// before it), when each of them is ours unchanged.
	hasConfig := slices.Contains(present, configFile)
	for _, f := range present {
		if hasConfig && f != configFile {
			if _, err := fs.Stat(files, path.Join(name, f)); err != nil {
				return false, nil // a definition file we do not ship: the user's
			}
			continue
		}
		same, err := sameFile(files, path.Join(name, f), filepath.Join(agentDir, f))
		if err != nil || !same {
			return false, err
		}
	}
	return true, nil
}

// sameFile reports whether the file at path has the content of the
// bundled file name (false when we ship no such file).
func sameFile(files fs.FS, name, path string) (bool, error) {
	want, err := fs.ReadFile(files, name)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	have, err := os.ReadFile(path)
	if err != nil {
		return false, nil // a dangling link, say: not ours to judge
	}
	return bytes.Equal(have, want), nil
}

// isScript reports whether a bundled file is a program (gets mode 0755).
func isScript(name string) bool {
	switch path.Ext(name) {
	case ".sh", ".py", ".js", ".ts":
		return true
	}
	return false
}

// names lists the directories at the top of files that hold a config.yaml.
func names(files fs.FS) []string {
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if _, err := fs.Stat(files, path.Join(e.Name(), configFile)); err == nil {
			out = append(out, e.Name())
		}
	}
	return out
}
