package memory

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/coyote-cli/coyote/sdk/fsx"
)

// Every change below is made under the lock of each file it touches
// (fsx.LockFile: drill files first, in name order, then MEMORY.md, so
// that two writers never wait on each other), on the file as it is now,
// and written atomically: two coyote processes changing one store at once
// both keep their changes.

// ErrNotSetUp is the error of a change to a store without a MEMORY.md.
var ErrNotSetUp = errors.New("memory is not set up")

func (s Store) notSetUp() error {
	return fmt.Errorf("%w: the %s memory has no %s (coyote --init-memory %s creates it)", ErrNotSetUp, s.Scope, s.Index(), s.Scope)
}

// Draft is what a write puts in a drill file.
type Draft struct {
	Name, Description, Type, Body string
	// Expires (a date of DateFormats) and SupersededBy (a drill file)
	// are optional.
	Expires, SupersededBy string
}

// Write creates or replaces the drill file name with d, keeping its
// created date when it exists and setting updated to now, and puts its
// line in the index ("- [Name](file.md): Description"), replacing the
// line that linked it before. It returns the file's name and whether it
// was new.
func Write(s Store, name string, d Draft, now time.Time) (file string, created bool, err error) {
	file, p, err := s.path(name)
	if err != nil {
		return "", false, err
	}
	d.Name, d.Description, d.Type = oneLineText(d.Name), oneLineText(d.Description), oneLineText(d.Type)
	d.Body = strings.TrimSpace(d.Body)
	if d.Name == "" {
		d.Name = strings.TrimSuffix(file, ".md")
	}
	if d.Description == "" {
		return "", false, errors.New("a description is needed: one line saying what the entry holds, for the index")
	}
	if d.Body == "" {
		return "", false, errors.New("the entry's content is empty")
	}
	if d.Type == "" {
		d.Type = "note"
	}
	if d.Expires = strings.TrimSpace(d.Expires); d.Expires != "" {
		if _, err := ParseDate(d.Expires, true); err != nil {
			return "", false, fmt.Errorf("expires: %w", err)
		}
	}
	if d.SupersededBy = strings.TrimSpace(d.SupersededBy); d.SupersededBy != "" {
		if d.SupersededBy, err = CheckName(d.SupersededBy); err != nil {
			return "", false, fmt.Errorf("superseded_by: %w", err)
		}
	}
	if !s.Exists() {
		return "", false, s.notSetUp()
	}
	lock, err := fsx.LockFile(p, fsx.DefaultLockWait)
	if err != nil {
		return "", false, err
	}
	defer lock.Unlock()
	f := front{Name: d.Name, Description: d.Description, Type: d.Type, Created: now.Format(time.DateOnly),
		Updated: now.Format(time.DateOnly), SupersededBy: d.SupersededBy, Expires: d.Expires}
	exists, err := regularFile(p)
	if err != nil {
		return "", false, err
	}
	if exists {
		if old, _, err := readLimited(p); err == nil {
			if e := parseEntry(file, p, old); !e.Created.IsZero() {
				f.Created = e.Created.Format(time.DateOnly)
			}
		}
	}
	fm, err := yaml.Marshal(f)
	if err != nil {
		return "", false, err
	}
	data := "---\n" + string(fm) + "---\n\n" + d.Body + "\n"
	if len(data) > MaxFile {
		return "", false, fmt.Errorf("the entry has %d bytes, more than the %d KiB a memory file may hold: split it or keep it shorter", len(data), MaxFile>>10)
	}
	if err := fsx.WritePrivate(p, []byte(data)); err != nil {
		return "", false, err
	}
	line := fmt.Sprintf("- [%s](%s): %s", strings.NewReplacer("[", "(", "]", ")").Replace(d.Name), file, d.Description)
	err = updateIndex(s, func(index string) (string, error) { return setLine(index, file, line), nil })
	return file, !exists, err
}

// updateIndex changes MEMORY.md with edit, under its lock, on the text as
// it is now; the store must have one.
func updateIndex(s Store, edit func(index string) (string, error)) error {
	if ok, err := regularFile(s.Index()); err != nil || !ok {
		if err != nil {
			return err
		}
		return s.notSetUp()
	}
	return fsx.Update(s.Index(), fsx.DefaultLockWait, func(cur []byte, exists bool) ([]byte, error) {
		if !exists {
			return nil, s.notSetUp()
		}
		next, err := edit(string(cur))
		if err != nil {
			return nil, err
		}
		if len(next) > MaxFile {
			return nil, fmt.Errorf("the index would have %d bytes, more than the %d KiB it may hold: make its lines shorter or delete entries", len(next), MaxFile>>10)
		}
		if next == string(cur) {
			return nil, nil
		}
		return []byte(next), nil
	})
}

// setLine puts line in place of the index's first line linking file (and
// drops any other), or appends it.
func setLine(index, file, line string) string {
	lines := strings.Split(index, "\n")
	done := false
	drop := map[int]bool{}
	for _, l := range parseLinks(index) {
		if l.File != file {
			continue
		}
		if done {
			drop[l.Line] = true
			continue
		}
		lines[l.Line], done = line, true
	}
	if !done {
		text := strings.TrimRight(index, "\n")
		if text != "" {
			text += "\n"
		}
		return text + line + "\n"
	}
	return joinKept(lines, drop)
}

func joinKept(lines []string, drop map[int]bool) string {
	out := lines[:0:0]
	for i, l := range lines {
		if !drop[i] {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// oneLineText collapses whitespace (newlines too) to single spaces.
func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }

// ReadFile returns a drill file of the store, or its index for
// MEMORY.md.
func ReadFile(s Store, name string) (string, error) {
	p := s.Index()
	if !strings.EqualFold(strings.TrimSpace(name), IndexName) {
		var err error
		if _, p, err = s.path(name); err != nil {
			return "", err
		}
	}
	data, cut, err := readLimited(p)
	if err != nil {
		if ok, _ := regularFile(p); !ok && p != s.Index() {
			return "", fmt.Errorf("the %s memory has no file %s (memory__list shows the files)", s.Scope, filepath.Base(p))
		}
		return "", err
	}
	text := string(data)
	if cut {
		text += fmt.Sprintf("\n[The rest of the file is left out: it passes %d KiB.]\n", MaxFile>>10)
	}
	return text, nil
}

// EditIndex replaces old, which must appear exactly once in MEMORY.md,
// with new.
func EditIndex(s Store, old, new string) error {
	if old == "" {
		return errors.New("old_text is empty: give the exact text to replace")
	}
	return updateIndex(s, func(index string) (string, error) {
		switch n := strings.Count(index, old); n {
		case 0:
			return "", errors.New("old_text is not in the index (read it with memory__read MEMORY.md)")
		case 1:
			return strings.Replace(index, old, new, 1), nil
		default:
			return "", fmt.Errorf("old_text appears %d times in the index: give more of the text around it", n)
		}
	})
}

// AppendIndex adds text as lines at the end of MEMORY.md.
func AppendIndex(s Store, text string) error {
	text = strings.Trim(text, "\n")
	if strings.TrimSpace(text) == "" {
		return errors.New("nothing to append")
	}
	return updateIndex(s, func(index string) (string, error) {
		index = strings.TrimRight(index, "\n")
		if index != "" {
			index += "\n"
		}
		return index + text + "\n", nil
	})
}

// ReplaceIndex replaces MEMORY.md's whole text.
func ReplaceIndex(s Store, content string) error {
	if strings.TrimSpace(content) == "" {
		return errors.New("the new index is empty: delete entries with memory__delete instead")
	}
	return updateIndex(s, func(string) (string, error) { return strings.TrimRight(content, "\n") + "\n", nil })
}

// Delete removes a drill file and the index lines linking it. A name
// that is neither a file nor linked is an error.
func Delete(s Store, name string) error {
	file, p, err := s.path(name)
	if err != nil {
		return err
	}
	if !s.Exists() {
		return s.notSetUp()
	}
	lock, err := fsx.LockFile(p, fsx.DefaultLockWait)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	exists, err := regularFile(p)
	if err != nil {
		return err
	}
	linked := false
	err = updateIndex(s, func(index string) (string, error) {
		drop := map[int]bool{}
		for _, l := range parseLinks(index) {
			if l.File == file {
				drop[l.Line], linked = true, true
			}
		}
		if !exists && !linked {
			return "", fmt.Errorf("the %s memory has no file %s (memory__list shows the files)", s.Scope, file)
		}
		return joinKept(strings.Split(index, "\n"), drop), nil
	})
	if err != nil || !exists {
		return err
	}
	return os.Remove(p)
}

// Rename renames a drill file (never over another) and changes the index
// links and the superseded_by of other entries to the new name.
func Rename(s Store, from, to string) error {
	fromFile, fromPath, err := s.path(from)
	if err != nil {
		return err
	}
	toFile, toPath, err := s.path(to)
	if err != nil {
		return err
	}
	if fromFile == toFile {
		return errors.New("the new name is the old one")
	}
	if !s.Exists() {
		return s.notSetUp()
	}
	paths := []string{fromPath, toPath}
	slices.Sort(paths)
	for _, p := range paths {
		lock, err := fsx.LockFile(p, fsx.DefaultLockWait)
		if err != nil {
			return err
		}
		defer lock.Unlock()
	}
	if ok, err := regularFile(fromPath); err != nil || !ok {
		if err != nil {
			return err
		}
		return fmt.Errorf("the %s memory has no file %s (memory__list shows the files)", s.Scope, fromFile)
	}
	if _, err := os.Lstat(toPath); err == nil {
		return fmt.Errorf("the %s memory has a file %s already: delete it first, or pick another name", s.Scope, toFile)
	}
	err = updateIndex(s, func(index string) (string, error) {
		lines := strings.Split(index, "\n")
		for _, l := range parseLinks(index) {
			if l.File != fromFile {
				continue
			}
			line := lines[l.Line]
			if i := strings.Index(line, "]("); i >= 0 {
				lines[l.Line] = line[:i] + strings.Replace(line[i:], l.Target, toFile, 1)
			}
		}
		if err := os.Rename(fromPath, toPath); err != nil {
			return "", err
		}
		return strings.Join(lines, "\n"), nil
	})
	if err != nil {
		return err
	}
	// Entries that name the old file as their successor now name the new
	// one; each under its own lock (taken after the index's is let go).
	files, err := Files(s)
	if err != nil {
		return err
	}
	for _, f := range files {
		if f == toFile {
			continue
		}
		p := filepath.Join(s.Dir, f)
		err := fsx.Update(p, fsx.DefaultLockWait, func(cur []byte, exists bool) ([]byte, error) {
			if !exists || parseEntry(f, p, cur).SupersededBy != fromFile {
				return nil, nil
			}
			fm, body, _ := splitFront(string(cur))
			fm = supersededLine().ReplaceAllString(fm, "superseded_by: "+toFile)
			return []byte("---\n" + fm + "---\n" + body), nil
		})
		if err != nil {
			return fmt.Errorf("renamed %s to %s, but could not update %s: %w", fromFile, toFile, f, err)
		}
	}
	return nil
}

var supersededLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^superseded_by:.*$`) })

// Files lists the store's drill files: the .md files of its directory
// but MEMORY.md, by name.
func Files(s Store) ([]string, error) {
	des, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, de := range des {
		n := de.Name()
		if de.Type().IsRegular() && strings.HasSuffix(n, ".md") && n != IndexName && !strings.HasPrefix(n, ".") {
			out = append(out, n)
		}
	}
	return out, nil
}
