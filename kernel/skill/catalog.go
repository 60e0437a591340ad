package skill

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// Dirs are the two places skills live: the config directory's skills/
// and the workspace's .coyote/skills/ ("" for none).
type Dirs struct{ Global, Workspace string }

// Entry is an installed skill, found without reading its file.
type Entry struct {
	Name, Path, Source string
}

// Catalog finds skills and reads their front matter, caching each by
// path, size and mtime, so that deciding which skills are available costs
// two directory reads and a stat per skill after the first time. Safe for
// concurrent use.
type Catalog struct {
	mu      sync.Mutex
	headers map[string]cachedHeader
}

type cachedHeader struct {
	size  int64
	mtime time.Time
	s     *Skill
	err   error
}

// NewCatalog returns an empty catalog.
func NewCatalog() *Catalog { return &Catalog{headers: map[string]cachedHeader{}} }

// Installed lists the skills of both directories by name, the
// workspace's copy of a name winning: each subdirectory (not starting
// with a dot) that holds a SKILL.md file. A missing directory holds
// none; one that cannot be read gives a warning.
func (c *Catalog) Installed(d Dirs) (list []Entry, warnings []string) {
	byName := map[string]Entry{}
	for _, dir := range []struct{ path, source string }{{d.Global, SourceGlobal}, {d.Workspace, SourceWorkspace}} {
		if dir.path == "" {
			continue
		}
		entries, err := os.ReadDir(dir.path)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				warnings = append(warnings, fmt.Sprintf("cannot read the %s skills directory: %v", dir.source, err))
			}
			continue
		}
		for _, e := range entries {
			name := e.Name()
			if strings.HasPrefix(name, ".") || !e.IsDir() && e.Type()&fs.ModeSymlink == 0 || CheckName(name) != nil {
				continue
			}
			path := filepath.Join(dir.path, name, FileName)
			if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
				continue
			}
			byName[name] = Entry{Name: name, Path: path, Source: dir.source} // the workspace comes second: it wins
		}
	}
	for _, e := range byName {
		list = append(list, e)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	return list, warnings
}

// Find returns the installed skill of a name: the workspace's, else the
// global one. It stats the two candidate files only.
func (c *Catalog) Find(d Dirs, name string) (Entry, bool) {
	if CheckName(name) != nil {
		return Entry{}, false
	}
	for _, dir := range []struct{ path, source string }{{d.Workspace, SourceWorkspace}, {d.Global, SourceGlobal}} {
		if dir.path == "" {
			continue
		}
		path := filepath.Join(dir.path, name, FileName)
		if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
			return Entry{Name: name, Path: path, Source: dir.source}, true
		}
	}
	return Entry{}, false
}

// Header reads the front matter of an installed skill (Body is empty),
// from the cache when the file has not changed. The returned skill is
// shared: do not modify it.
func (c *Catalog) Header(e Entry) (*Skill, error) {
	st, err := os.Stat(e.Path)
	if err != nil {
		return nil, fmt.Errorf("skill %s: %w", e.Name, unwrapPath(err))
	}
	c.mu.Lock()
	h, ok := c.headers[e.Path]
	c.mu.Unlock()
	if ok && h.size == st.Size() && h.mtime.Equal(st.ModTime()) {
		return h.s, h.err
	}
	h = cachedHeader{size: st.Size(), mtime: st.ModTime()}
	data, err := readHeader(e.Path)
	if err != nil {
		h.err = &FileError{File: e.Path, Msg: "cannot read: " + unwrapPath(err).Error()}
	} else if h.s, h.err = parseHeader(e.Name, e.Path, data); h.s != nil {
		h.s.Source = e.Source
	}
	c.mu.Lock()
	c.headers[e.Path] = h
	c.mu.Unlock()
	return h.s, h.err
}

// Load reads the whole skill of a name (the workspace's copy first). A
// name with no SKILL.md is ErrNotFound.
func (c *Catalog) Load(d Dirs, name string) (*Skill, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	e, ok := c.Find(d, name)
	if !ok {
		return nil, fmt.Errorf("skill %q: %w (skills/%s/%s)", name, ErrNotFound, name, FileName)
	}
	data, err := os.ReadFile(e.Path)
	if err != nil {
		return nil, &FileError{File: e.Path, Msg: "cannot read: " + unwrapPath(err).Error()}
	}
	s, err := Parse(name, e.Path, data)
	if err != nil {
		return nil, err
	}
	s.Source = e.Source
	return s, nil
}

// readHeader reads a SKILL.md up to the end of its front matter: the
// first line when it is not "---", else up to the closing "---" line (or
// the whole file when there is none, which parse reports).
func readHeader(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 4096)
	var buf bytes.Buffer
	for n := 0; ; n++ {
		line, err := r.ReadBytes('\n')
		buf.Write(line)
		trimmed := bytes.TrimRight(line, " \t\r\n")
		if n == 0 {
			trimmed = bytes.TrimPrefix(trimmed, []byte("\ufeff"))
		}
		if n == 0 && !bytes.Equal(trimmed, []byte("---")) || n > 0 && bytes.Equal(trimmed, []byte("---")) {
			return buf.Bytes(), nil
		}
		if err == io.EOF {
			return buf.Bytes(), nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// unwrapPath drops the path an *fs.PathError repeats.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
