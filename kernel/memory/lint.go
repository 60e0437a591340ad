package memory

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// Lint checks a store as read and returns its problems, one line each,
// naming the file: an index too long, links that are not drill files,
// files linked twice, drill files missing or unusable (broken front
// matter, a bad date), entries expired or superseded (and successors that
// do not exist), entries without a description, and drill files the index
// does not link. files are the store's drill files (Files).
func Lint(m *Memory, files []string, now time.Time) []string {
	var out []string
	add := func(format string, a ...any) { out = append(out, fmt.Sprintf(format, a...)) }
	idx := m.Store.Index()
	if m.IndexCut {
		add("%s passes %d KiB: only its start is read; shorten it", idx, MaxFile>>10)
	}
	linked := map[string]int{}
	for _, l := range m.Links {
		if l.Problem != "" {
			add("%s line %d %s", idx, l.Line+1, l.Problem)
			continue
		}
		if linked[l.File]++; linked[l.File] == 2 {
			add("%s links %s more than once; keep one line", idx, l.File)
		}
	}
	for _, l := range m.Links {
		e := m.Entries[l.File]
		if l.File == "" || e == nil || linked[l.File] < 0 {
			continue
		}
		linked[l.File] = -1 // reported once
		switch e.Status(now) {
		case Invalid:
			out = append(out, e.Problem)
			continue
		case Expired:
			add("%s expired on %s: delete it, or change its expires date", e.Path, e.Expires.Format(time.DateOnly))
		case Superseded:
			add("%s is superseded by %s: delete it once nothing in it is still needed", e.Path, e.SupersededBy)
		}
		if e.SupersededBy != "" {
			if _, err := CheckName(e.SupersededBy); err != nil {
				add("%s: superseded_by %q is not a file of the memory directory", e.Path, e.SupersededBy)
			} else if ok, _ := regularFile(filepath.Join(m.Store.Dir, e.SupersededBy)); !ok {
				add("%s: superseded_by names %s, which does not exist", e.Path, e.SupersededBy)
			}
		}
		if e.Description == "" {
			add("%s has no description in its front matter", e.Path)
		}
		if e.Cut {
			add("%s passes %d KiB: only its start is read; split it", e.Path, MaxFile>>10)
		}
	}
	for _, f := range files {
		if _, ok := linked[f]; !ok {
			add("%s is not linked from %s: add its line, or delete it", filepath.Join(m.Store.Dir, f), idx)
		}
	}
	return out
}

// LintStore reads a store and lints it.
func LintStore(s Store, now time.Time) ([]string, error) {
	m, err := Read(s)
	if err != nil {
		return nil, err
	}
	files, err := Files(s)
	if err != nil {
		return nil, err
	}
	return Lint(m, files, now), nil
}

// List describes a store's entries for the model, one line each: the
// file, its status, name, type, dates and description; drill files the
// index does not link are listed too.
func List(s Store, now time.Time) (string, error) {
	m, err := Read(s)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s memory (%s):\n", titleCase(string(s.Scope)), s.Dir)
	seen := map[string]bool{}
	for _, l := range m.Links {
		if l.File == "" || seen[l.File] {
			continue
		}
		seen[l.File] = true
		e := m.Entries[l.File]
		st := e.Status(now)
		fmt.Fprintf(&b, "- %s [%s]", l.File, st)
		if st == Invalid {
			fmt.Fprintf(&b, " %s\n", strings.TrimPrefix(e.Problem, e.Path+": "))
			continue
		}
		name := e.Name
		if name == "" {
			name = l.Title
		}
		fmt.Fprintf(&b, " %s", name)
		var facts []string
		if e.Type != "" {
			facts = append(facts, e.Type)
		}
		if !e.Updated.IsZero() {
			facts = append(facts, "updated "+e.Updated.Format(time.DateOnly))
		}
		if !e.Expires.IsZero() {
			facts = append(facts, "expires "+e.Expires.Format(time.DateOnly))
		}
		if e.SupersededBy != "" {
			facts = append(facts, "superseded by "+e.SupersededBy)
		}
		if len(facts) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(facts, "; "))
		}
		if e.Description != "" {
			fmt.Fprintf(&b, ": %s", e.Description)
		}
		b.WriteString("\n")
	}
	files, err := Files(s)
	if err != nil {
		return "", err
	}
	for _, f := range files {
		if !seen[f] {
			fmt.Fprintf(&b, "- %s [not in the index]\n", f)
		}
	}
	if len(seen) == 0 && len(files) == 0 {
		b.WriteString("(no entries)\n")
	}
	return b.String(), nil
}
