// Package install copies bundles of agents, roles, skills, macros and tool
// scripts into the user's config directory, from a git repository
// (--install-from URL#ref) or from the files bundled in the binary
// (--install KIND), and merges a bundle's mcp.json into the user's one
// server at a time.
//
// An install is planned before anything is written: Plan walks the
// bundle, leaves out the files the user already has unchanged, and asks
// its Resolver about each file that differs (keep, replace, keep all,
// replace all, abort). Abort returns ErrAborted with nothing written.
// Apply then stages every file (a temporary file next to its
// destination) and only when all are staged moves them into place; a
// failure while staging removes the staged files, and a failure while
// moving puts back what was moved, so an install is all or nothing.
//
// It never prompts itself (the caller's Resolver does), never touches a
// file outside the destinations it is given, and copies only regular
// files: links and other special files of a bundle are skipped.
package install

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Kinds are the parts of a bundle, as --filter names them.
var Kinds = []string{"agents", "roles", "skills", "macros", "functions", "mcp_config"}

// ErrAborted is returned when the Resolver chose to abort.
var ErrAborted = errors.New("install aborted: nothing was changed")

// Choice is the answer to a conflict: a file of the bundle whose
// destination exists with other content.
type Choice int

// The answers: keep or replace this file; keep or replace this one and
// every later one without asking; stop and write nothing.
const (
	Keep Choice = iota
	Replace
	KeepAll
	ReplaceAll
	Abort
)

// Part is one folder of a bundle and where it is installed.
type Part struct {
	// Kind is the part's --filter name (agents, roles, …).
	Kind string
	// FS holds the part's files at its root.
	FS fs.FS
	// Label is the part's folder as shown in messages ("agents",
	// "functions/tools"): a file is shown as Label/name.
	Label string
	// Dir is the destination folder.
	Dir string
}

// File is one file an install writes.
type File struct {
	Part *Part
	// Name is the file's slash path inside its part.
	Name string
	// Dest is where it is written.
	Dest string
	// Replaces is set when Dest exists (with other content).
	Replaces bool
	// Mode is the new file's permissions: 0755 for scripts, else 0644.
	Mode fs.FileMode
}

// Shown is the file as messages name it: "agents/coder/config.yaml".
func (f File) Shown() string { return path.Join(f.Part.Label, f.Name) }

// Resolver decides a conflict: the file f (f.Replaces is set) exists at
// f.Dest with other content.
type Resolver func(f File) (Choice, error)

// Plan is what an install will do.
type Plan struct {
	// Files are the files to write (new ones and chosen replacements), in
	// the order of the parts and then of their names.
	Files []File
	// Kept are the differing files the user keeps, as shown.
	Kept []string
	// Skipped are the bundle's entries that are not regular files (links,
	// devices), as shown; they are never copied.
	Skipped []string
	// Same counts the files the user already has unchanged.
	Same int
}

// MakePlan walks the parts and plans the install, asking resolve about
// each conflict (a nil resolve keeps every changed file). It returns
// ErrAborted when resolve says Abort, and no plan.
func MakePlan(parts []Part, resolve Resolver) (*Plan, error) {
	p := &Plan{}
	all := Choice(-1) // KeepAll or ReplaceAll once chosen
	for i := range parts {
		part := &parts[i]
		if !exists(part.FS) {
			continue // the bundle has no such folder
		}
		err := fs.WalkDir(part.FS, ".", func(name string, d fs.DirEntry, err error) error {
			if err != nil {
				return fmt.Errorf("read %s: %w", path.Join(part.Label, name), err)
			}
			if d.IsDir() {
				if name != "." && (d.Name() == ".git" || d.Name() == ".coyote-install") {
					return fs.SkipDir
				}
				return nil
			}
			f := File{Part: part, Name: name, Dest: filepath.Join(part.Dir, filepath.FromSlash(name))}
			if !d.Type().IsRegular() {
				p.Skipped = append(p.Skipped, f.Shown())
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return fmt.Errorf("read %s: %w", f.Shown(), err)
			}
			f.Mode = fileMode(name, info.Mode())
			same, exists, err := sameContent(part.FS, name, f.Dest)
			if err != nil {
				return err
			}
			switch {
			case same:
				p.Same++
				return nil
			case !exists:
				p.Files = append(p.Files, f)
				return nil
			}
			f.Replaces = true
			choice := all
			if choice < 0 {
				if resolve == nil {
					choice = Keep
				} else if choice, err = resolve(f); err != nil {
					return err
				}
			}
			switch choice {
			case KeepAll:
				all = KeepAll
				fallthrough
			case Keep:
				p.Kept = append(p.Kept, f.Shown())
			case ReplaceAll:
				all = ReplaceAll
				fallthrough
			case Replace:
				p.Files = append(p.Files, f)
			default:
				return ErrAborted
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return p, nil
}

// exists reports whether an FS's root can be read.
func exists(fsys fs.FS) bool {
	_, err := fs.Stat(fsys, ".")
	return err == nil
}

// fileMode is 0755 for a script (an executable file, or one named as a
// script), else 0644.
func fileMode(name string, m fs.FileMode) fs.FileMode {
	switch path.Ext(name) {
	case ".sh", ".py", ".js", ".ts":
		return 0o755
	}
	if m&0o111 != 0 {
		return 0o755
	}
	return 0o644
}

// sameContent reports whether dest holds exactly the bundle's file, and
// whether it exists at all. A destination that is a folder is an error.
func sameContent(fsys fs.FS, name, dest string) (same, exists bool, err error) {
	st, err := os.Lstat(dest)
	if errors.Is(err, fs.ErrNotExist) {
		return false, false, nil
	}
	if err != nil {
		return false, false, err
	}
	if st.IsDir() {
		return false, true, fmt.Errorf("cannot install %s: it is a folder", dest)
	}
	mine, err := os.ReadFile(dest)
	if err != nil {
		return false, true, err
	}
	theirs, err := fs.ReadFile(fsys, name)
	if err != nil {
		return false, true, err
	}
	return bytes.Equal(mine, theirs), true, nil
}

// tempPrefix names the staged and backup files, so that a crash leaves
// files a user can recognise (and that MakePlan never copies).
const tempPrefix = ".coyote-install-"

// Apply writes the plan's files: each is first staged as a temporary file
// next to its destination; when every one is staged, they are moved into
// place, a replaced file being kept aside until all are moved. When
// anything fails, what was staged is removed and what was moved is put
// back, so the destinations are as before. It returns the written
// destinations.
func Apply(p *Plan) (written []string, err error) {
	var done []staged
	var made []string // folders created, to remove again on failure
	cleanup := func() {
		for _, s := range done {
			_ = os.Remove(s.tmp)
		}
		for _, d := range slices.Backward(made) {
			_ = os.Remove(d) // only when still empty
		}
	}
	for _, f := range p.Files {
		dir := filepath.Dir(f.Dest)
		newDirs, err := mkdirAll(dir)
		made = append(made, newDirs...)
		if err != nil {
			cleanup()
			return nil, fmt.Errorf("install %s: %w", f.Shown(), err)
		}
		tmp, err := stage(f, dir)
		if err != nil {
			cleanup()
			return nil, fmt.Errorf("install %s: %w", f.Shown(), err)
		}
		done = append(done, staged{f: f, tmp: tmp})
	}
	// Move into place. A replaced file is first linked aside, so that it
	// can be put back when a later move fails.
	for i := range done {
		s := &done[i]
		if s.f.Replaces {
			s.backup = s.tmp + ".old"
			if err := os.Link(s.f.Dest, s.backup); err != nil {
				s.backup = ""
				err = fmt.Errorf("install %s: keep the old file aside: %w", s.f.Shown(), err)
				rollback(done[:i])
				cleanup()
				return nil, err
			}
		}
		if err := os.Rename(s.tmp, s.f.Dest); err != nil {
			if s.backup != "" {
				_ = os.Remove(s.backup)
			}
			rollback(done[:i])
			cleanup()
			return nil, fmt.Errorf("install %s: %w", s.f.Shown(), err)
		}
	}
	for _, s := range done {
		if s.backup != "" {
			_ = os.Remove(s.backup)
		}
		written = append(written, s.f.Dest)
	}
	return written, nil
}

// rollback undoes moved files: a replaced one gets its old content back,
// a new one is removed.
func rollback(moved []staged) {
	for _, s := range slices.Backward(moved) {
		if s.backup != "" {
			_ = os.Rename(s.backup, s.f.Dest)
		} else {
			_ = os.Remove(s.f.Dest)
		}
	}
}

// staged is a file of Apply: its temporary file, and where the file it
// replaces is kept until every file is in place.
type staged struct {
	f           File
	tmp, backup string
}

// stage writes the bundle's file to a synced temporary file in dir.
func stage(f File, dir string) (string, error) {
	data, err := fs.ReadFile(f.Part.FS, f.Name)
	if err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dir, tempPrefix+"*")
	if err != nil {
		return "", err
	}
	name := tmp.Name()
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(f.Mode)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(name)
		return "", err
	}
	return name, nil
}

// mkdirAll creates dir and its missing parents (0700) and returns those
// it created, outermost first.
func mkdirAll(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	slices.Reverse(missing)
	for i, d := range missing {
		if err := os.Mkdir(d, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return missing[:i], err
		}
	}
	return missing, nil
}

// ParseFilter reads --filter values (repeatable, or comma-separated) into
// the kinds they name; no value means every kind.
func ParseFilter(values []string) (map[string]bool, error) {
	want := map[string]bool{}
	for _, v := range values {
		for _, k := range strings.Split(v, ",") {
			k = strings.TrimSpace(k)
			if k == "" {
				continue
			}
			if !slices.Contains(Kinds, k) {
				return nil, fmt.Errorf("--filter %q: choose among %s", k, strings.Join(Kinds, ", "))
			}
			want[k] = true
		}
	}
	if len(want) == 0 {
		for _, k := range Kinds {
			want[k] = true
		}
	}
	return want, nil
}
