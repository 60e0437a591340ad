// Package plugins is the kernel's plugin host: it finds plugin binaries by
// name without running them, launches one process per plugin the first time
// it is needed (only binaries the plugin lock lists, when there is one),
// keeps it for the life of the kernel, notices when it dies or stops
// answering, restarts it on the next call (backing off when it keeps
// dying), and makes sure no plugin process, nor anything it started in its
// process group, outlives the kernel or holds it.
//
// Each plugin kind declares itself (Declare, kind.go); launch, replay of
// setup into a new process and per-process state are written once for all
// kinds. It knows plugin kinds and the SDK contracts, never a particular
// provider or store: a configured type maps to a binary name and an SDK
// interface.
package plugins

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
)

// binaryPrefix starts the file name of every plugin binary.
const binaryPrefix = "coyote-"

// Found is a plugin binary found in a plugin directory.
type Found struct {
	// Binary is the file name without extension, e.g. coyote-provider-openai.
	Binary string
	Kind   string
	// Name is the <name> part; empty for a bare coyote-mcp or coyote-sandbox.
	Name string
	Path string
	// Shadowed lists binaries of the same name later in the search path,
	// which are never used.
	Shadowed []string
	// AliasOf names the plugin this one is a symbolic link to, when that
	// plugin is found too (one binary serving several client types).
	AliasOf string
}

// BinaryName is the file name of the plugin of a kind and name.
func BinaryName(kind, name string) string {
	if name == "" {
		return binaryPrefix + kind
	}
	return binaryPrefix + kind + "-" + name
}

// ParseBinaryName splits a plugin file name into kind and name.
func ParseBinaryName(file string) (kind, name string, ok bool) {
	if runtime.GOOS == "windows" {
		file = strings.TrimSuffix(file, ".exe")
	}
	rest, found := strings.CutPrefix(file, binaryPrefix)
	if !found {
		return "", "", false
	}
	kind, name, _ = strings.Cut(rest, "-")
	// A kind served per name (coyote-provider-<type>) needs the name; a
	// singleton kind's binary is the bare coyote-<kind>.
	if k := kinds[kind]; k != nil && (k.singleton || name != "") {
		return kind, name, true
	}
	return "", "", false
}

// SearchPath lists the plugin directories in the order they are searched:
// each entry of $COYOTE_PLUGINS_DIR, <config dir>/plugins,
// <dir of the coyote executable>/plugins and
// <dir of the coyote executable>/../lib/coyote/plugins.
func SearchPath(configDir string, getenv func(string) string) []string {
	var dirs []string
	seen := map[string]bool{}
	add := func(d string) {
		if d == "" {
			return
		}
		d = filepath.Clean(d)
		key := d
		if real, err := filepath.EvalSymlinks(d); err == nil {
			key = real
		}
		if !seen[key] { // the same directory twice would shadow itself
			seen[key] = true
			dirs = append(dirs, d)
		}
	}
	for _, d := range filepath.SplitList(getenv("COYOTE_PLUGINS_DIR")) {
		add(d)
	}
	if configDir != "" {
		add(filepath.Join(configDir, "plugins"))
	}
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		dir := filepath.Dir(exe)
		add(filepath.Join(dir, "plugins"))
		add(filepath.Join(dir, "..", "lib", "coyote", "plugins"))
	}
	return dirs
}

// Discover lists every plugin in dirs without running any, sorted by kind
// and name. The first binary of a name wins; later ones are listed as
// shadowed.
func Discover(dirs []string) []Found {
	byBinary := map[string]*Found{}
	var order []string
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			kind, name, ok := ParseBinaryName(e.Name())
			if !ok {
				continue
			}
			path := filepath.Join(dir, e.Name())
			if !isExecutable(path) {
				continue
			}
			binary := BinaryName(kind, name)
			if f, seen := byBinary[binary]; seen {
				f.Shadowed = append(f.Shadowed, path)
				continue
			}
			byBinary[binary] = &Found{Binary: binary, Kind: kind, Name: name, Path: path}
			order = append(order, binary)
		}
	}
	out := make([]Found, 0, len(order))
	for _, b := range order {
		out = append(out, *byBinary[b])
	}
	markAliases(out)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return out[i].Kind < out[j].Kind
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// markAliases marks each plugin that is a symbolic link to another found
// plugin as its alias.
func markAliases(found []Found) {
	targets := map[string]string{} // resolved path of a regular file → binary
	for _, f := range found {
		if st, err := os.Lstat(f.Path); err == nil && st.Mode()&os.ModeSymlink == 0 {
			if rp, err := filepath.EvalSymlinks(f.Path); err == nil {
				targets[rp] = f.Binary
			}
		}
	}
	for i, f := range found {
		if st, err := os.Lstat(f.Path); err != nil || st.Mode()&os.ModeSymlink == 0 {
			continue
		}
		if rp, err := filepath.EvalSymlinks(f.Path); err == nil && targets[rp] != "" {
			found[i].AliasOf = targets[rp]
		}
	}
}

// Find looks for one plugin, stat-ing only the candidate file in each
// directory.
func Find(dirs []string, kind, name string) (Found, error) {
	binary := BinaryName(kind, name)
	file := binary
	if runtime.GOOS == "windows" {
		file += ".exe"
	}
	for _, dir := range dirs {
		path := filepath.Join(dir, file)
		if isExecutable(path) {
			return Found{Binary: binary, Kind: kind, Name: name, Path: path}, nil
		}
	}
	return Found{}, &NotFoundError{Binary: binary, Dirs: dirs}
}

// NotFoundError says which plugin was looked for and where.
type NotFoundError struct {
	Binary string
	Dirs   []string
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("plugin %s not found (searched %s); run `coyote plugins` to see the installed plugins",
		e.Binary, strings.Join(e.Dirs, ", "))
}

func isExecutable(path string) bool {
	st, err := os.Stat(path)
	if err != nil || st.IsDir() {
		return false
	}
	if runtime.GOOS == "windows" {
		return true
	}
	return st.Mode().Perm()&0o111 != 0
}
