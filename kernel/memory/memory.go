// Package memory owns what the model remembers between conversations: two
// stores, the global one (<config dir>/memory) and the workspace one
// (<repository root>/.coyote/memory, kept out of git), each an index,
// MEMORY.md, with one line per entry linking a drill file of the same
// directory (markdown with front matter: name, description, type,
// created, updated, superseded_by, expires). It reads them (with limits,
// and one warning line per unusable file), renders them for the system
// prompt under a cap, checks them (Lint), and changes them for the
// memory__* functions: atomically, and under a per-file lock, so that two
// coyote processes writing memory at once lose nothing.
//
// It does not decide whether memory is on (kernel/convo resolves the
// memory setting and --no-memory), and it never follows a link out of a
// store's directory.
package memory

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/coyote-cli/coyote/sdk/fsx"
)

// IndexName is the index of a store.
const IndexName = "MEMORY.md"

// Scope names a store: global or workspace.
type Scope string

// The two stores.
const (
	Global    Scope = "global"
	Workspace Scope = "workspace"
)

// ParseScope reads a scope as a user or a model writes it.
func ParseScope(s string) (Scope, error) {
	switch Scope(strings.ToLower(strings.TrimSpace(s))) {
	case Global:
		return Global, nil
	case Workspace:
		return Workspace, nil
	}
	return "", fmt.Errorf("unknown memory %q: say global or workspace", s)
}

// Store is one memory: a directory holding MEMORY.md and its drill files.
type Store struct {
	Scope Scope
	Dir   string
}

// Index is the store's MEMORY.md.
func (s Store) Index() string { return filepath.Join(s.Dir, IndexName) }

// Exists reports whether the store's MEMORY.md exists: a store is in use
// only once it has one (--init-memory writes it).
func (s Store) Exists() bool {
	st, err := os.Stat(s.Index())
	return err == nil && st.Mode().IsRegular()
}

// GlobalStore is the user's memory, for every project.
func GlobalStore(configDir string) Store {
	return Store{Scope: Global, Dir: filepath.Join(configDir, "memory")}
}

// WorkspaceStore is the memory of the repository holding cwd: at its root
// (the nearest ancestor with .git), or in cwd outside a repository.
func WorkspaceStore(cwd string) Store {
	return Store{Scope: Workspace, Dir: filepath.Join(RepoRoot(cwd), ".coyote", "memory")}
}

// RepoRoot is the nearest ancestor of cwd (or cwd) holding .git, or cwd
// when there is none.
func RepoRoot(cwd string) string {
	cwd = filepath.Clean(cwd)
	for d := cwd; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return cwd
		}
		d = parent
	}
}

// InForce returns the stores of a run in cwd that have a MEMORY.md, the
// global one first.
func InForce(configDir, cwd string) []Store {
	var out []Store
	for _, s := range []Store{GlobalStore(configDir), WorkspaceStore(cwd)} {
		if s.Exists() {
			out = append(out, s)
		}
	}
	return out
}

// header is the start of a new MEMORY.md; %s is the store's scope.
const header = `<!-- Coyote's %s memory index. Each entry is one line linking a file of
this directory, for example:
- [Preferred test command](test-command.md): run "make test", never go test alone
The model keeps it with the memory__* functions; you may edit it too.
Comments like this one are not shown to the model. -->
`

// gitignore keeps the workspace memory out of git: every file of its
// directory, this one included.
const gitignore = "# Coyote's workspace memory is personal: git ignores this directory.\n*\n"

// Init makes sure the store has a MEMORY.md, writing one with a short
// header when it is missing and never replacing one; the workspace store
// also gets a .gitignore that keeps its directory out of git (unless it
// has one). It returns the index's path and whether it was written.
func Init(s Store) (path string, created bool, err error) {
	path = s.Index()
	if s.Scope == Workspace {
		if _, err := fsx.CreateNew(filepath.Join(s.Dir, ".gitignore"), []byte(gitignore), 0o644); err != nil {
			return path, false, fmt.Errorf("write %s: %w", filepath.Join(s.Dir, ".gitignore"), err)
		}
	}
	if st, err := os.Lstat(path); err == nil && !st.Mode().IsRegular() {
		return path, false, fmt.Errorf("%s exists and is not a regular file", path)
	}
	created, err = fsx.CreateNew(path, fmt.Appendf(nil, header, s.Scope), fsx.PrivateFileMode)
	if err != nil {
		return path, false, fmt.Errorf("write %s: %w", path, err)
	}
	return path, created, nil
}

// MaxNameLen bounds a drill file's name.
const MaxNameLen = 100

var validName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*\.md$`) })

// ErrBadName is the error of a drill file name that is not a plain file
// name of the store's directory.
var ErrBadName = errors.New("bad memory file name")

// CheckName validates a drill file's name: a plain file name of letters,
// digits, dots, dashes and underscores, starting with a letter or digit
// and ending in .md (added when missing), never MEMORY.md, never a path.
// It returns the name with .md.
func CheckName(name string) (string, error) {
	n := strings.TrimSpace(name)
	if n != "" && !strings.HasSuffix(strings.ToLower(n), ".md") {
		n += ".md"
	}
	switch {
	case n == "":
		return "", fmt.Errorf("%w: a file name is needed (like test-command.md)", ErrBadName)
	case strings.ContainsAny(n, `/\`) || strings.Contains(n, ".."):
		return "", fmt.Errorf("%w %q: give a file name of the memory directory, not a path", ErrBadName, name)
	case len(n) > MaxNameLen:
		return "", fmt.Errorf("%w %q: at most %d characters", ErrBadName, name, MaxNameLen)
	case strings.EqualFold(n, IndexName):
		return "", fmt.Errorf("%w %q: that is the index (edit it with memory__edit_index)", ErrBadName, name)
	case !validName().MatchString(n):
		return "", fmt.Errorf("%w %q: use letters, digits, '.', '-' and '_' only, starting with a letter or digit, ending in .md", ErrBadName, name)
	}
	return n, nil
}

// path is the drill file name of the store, checked.
func (s Store) path(name string) (string, string, error) {
	n, err := CheckName(name)
	if err != nil {
		return "", "", err
	}
	return n, filepath.Join(s.Dir, n), nil
}

// regularFile reports whether p is a regular file (not a symbolic link,
// which could lead out of the store).
func regularFile(p string) (bool, error) {
	st, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !st.Mode().IsRegular() {
		return false, fmt.Errorf("%s is not a regular file (a link or a directory); memory does not follow it", p)
	}
	return true, nil
}
