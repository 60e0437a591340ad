package macro

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/coyote-cli/coyote/kernel/trust"
)

// Dirs are the two places macros live.
type Dirs struct{ Global, Workspace string } // Workspace "" = workspace macros off

// ext is the extension of a macro file; only these files are macros.
const ext = ".yaml"

// Catalog discovers macros in both directories. It caches parsed files by path, size and mtime, so a
// resolution on every Tab only reads the two directories and stats the files. Safe for concurrent use.
//
// A file rewritten within the file system's mtime resolution with the
// same size is not noticed until its mtime or size changes.
type Catalog struct {
	mu    sync.Mutex
	files map[string]cached // by path
}

// cached is one parsed file and what it was parsed from.
type cached struct {
	dir   string
	size  int64
	mtime time.Time
	m     *Macro // Source and Path set; ShadowedBy never set
}

// NewCatalog returns an empty catalog.
func NewCatalog() *Catalog { return &Catalog{files: map[string]cached{}} }

// Discover returns every macro file of both dirs sorted by name (workspace first on ties), each
// global one hidden by a workspace one marked ShadowedBy; warnings for invalid files (one line each,
// naming the file).
//
// The returned macros are copies the caller may keep, but their Variables
// and Steps are shared with the cache and must not be modified. A missing
// directory holds no macros; one that cannot be read gives a warning.
// Entries whose names start with a dot, directories, and files not ending
// in .yaml are not macros.
func (c *Catalog) Discover(d Dirs) (list []*Macro, warnings []string) {
	ws, wwarn := c.scan(d.Workspace, SourceWorkspace)
	gl, gwarn := c.scan(d.Global, SourceGlobal)
	warnings = append(wwarn, gwarn...)
	inWorkspace := make(map[string]bool, len(ws))
	for _, m := range ws {
		inWorkspace[m.Name] = true
	}
	for _, m := range gl {
		if inWorkspace[m.Name] {
			m.ShadowedBy = SourceWorkspace
		}
	}
	list = append(ws, gl...)
	sort.SliceStable(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	for _, m := range list {
		if m.Err != nil {
			warnings = append(warnings, "invalid macro "+m.Err.Error())
		}
	}
	return list, warnings
}

// Find returns the macro a name invokes: the workspace one, else the global one (invalid ones too, so
// the caller can report their Err).
//
// It looks at the two candidate files only, not at whole directories.
func (c *Catalog) Find(d Dirs, name string) (*Macro, bool) {
	if name == "" || strings.HasPrefix(name, ".") || strings.ContainsAny(name, `/\`) || name != filepath.Base(name) {
		return nil, false
	}
	for _, dir := range []struct{ path, source string }{{d.Workspace, SourceWorkspace}, {d.Global, SourceGlobal}} {
		if dir.path == "" {
			continue
		}
		path := filepath.Join(dir.path, name+ext)
		st, err := os.Stat(path)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		m := c.load(dir.path, name, path, st, dir.source)
		return m, true
	}
	return nil, false
}

// scan lists one directory's macros, parsing only files that are new or
// changed since the last scan, and forgets cached files that are gone.
func (c *Catalog) scan(dir, source string) ([]*Macro, []string) {
	if dir == "" {
		return nil, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		c.forget(dir, nil)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, []string{fmt.Sprintf("cannot read the %s macros directory: %v", source, err)}
	}
	list := make([]*Macro, 0, len(entries))
	seen := make(map[string]bool, len(entries))
	for _, e := range entries {
		fname := e.Name()
		name, ok := strings.CutSuffix(fname, ext)
		if !ok || strings.HasPrefix(fname, ".") || e.IsDir() {
			continue
		}
		path := filepath.Join(dir, fname)
		var st fs.FileInfo
		if e.Type()&fs.ModeSymlink != 0 {
			st, err = os.Stat(path)
		} else {
			st, err = e.Info()
		}
		if err != nil || !st.Mode().IsRegular() {
			continue // vanished meanwhile, a dangling link, or not a file
		}
		seen[path] = true
		list = append(list, c.load(dir, name, path, st, source))
	}
	c.forget(dir, seen)
	return list, nil
}

// load returns a copy of the cached macro of path, parsing the file first
// when it is new or its size or mtime changed.
func (c *Catalog) load(dir, name, path string, st fs.FileInfo, source string) *Macro {
	c.mu.Lock()
	e, ok := c.files[path]
	c.mu.Unlock()
	if !ok || e.size != st.Size() || !e.mtime.Equal(st.ModTime()) {
		e = cached{dir: dir, size: st.Size(), mtime: st.ModTime(), m: parseFile(name, path, source)}
		c.mu.Lock()
		c.files[path] = e
		c.mu.Unlock()
	}
	cp := *e.m
	return &cp
}

// forget drops the cached files of dir that are not in seen.
func (c *Catalog) forget(dir string, seen map[string]bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for path, e := range c.files {
		if e.dir == dir && !seen[path] {
			delete(c.files, path)
		}
	}
}

// parseFile reads and parses one macro file; errors name the file's path.
func parseFile(name, path, source string) *Macro {
	data, err := os.ReadFile(path)
	var m *Macro
	if err != nil {
		m = &Macro{Name: name, Isolated: true, Err: &FileError{File: path, Msg: "cannot read: " + unwrapPath(err).Error()}}
	} else {
		m, _ = Parse(name, data)
		m.Sum = trust.SumOf(data)
		var fe *FileError
		if errors.As(m.Err, &fe) {
			fe.File = path
		}
	}
	m.Source, m.Path = source, path
	return m
}

// unwrapPath drops the path an *fs.PathError repeats.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
