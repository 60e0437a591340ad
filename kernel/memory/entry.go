package memory

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// Limits on what is read: an index or a drill file longer than MaxFile
// bytes is read up to there (on a line), and a write of a longer one is
// refused.
const MaxFile = 64 << 10

// DateFormats are the date formats front matter may use: a day
// (2025-06-30, which means the whole day, in local time), a day and time
// (2025-06-30 14:05 or 2025-06-30T14:05:00, local time) or RFC 3339
// (2025-06-30T14:05:00Z, 2025-06-30T14:05:00+02:00).
var DateFormats = []string{time.DateOnly, "2006-01-02 15:04", "2006-01-02T15:04", time.DateTime, "2006-01-02T15:04:05", time.RFC3339}

// ParseDate reads a date of front matter (DateFormats). A day alone is
// returned as its last instant when end is true (an entry that expires on
// a day is good for the whole of it), else as its first.
func ParseDate(s string, end bool) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, f := range DateFormats {
		var t time.Time
		var err error
		if f == time.RFC3339 {
			t, err = time.Parse(f, s)
		} else {
			t, err = time.ParseInLocation(f, s, time.Local)
		}
		if err == nil {
			if f == time.DateOnly && end {
				t = t.AddDate(0, 0, 1).Add(-time.Nanosecond)
			}
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a date (write YYYY-MM-DD, YYYY-MM-DD HH:MM or RFC 3339)", s)
}

// Entry is a drill file as read.
type Entry struct {
	// File is the drill file's name in its store; Path its path.
	File, Path string
	// Name, Description and Type are its front matter's (Type is free:
	// user, project, feedback, reference, …).
	Name, Description, Type string
	// Created, Updated and Expires are its dates (zero when not set).
	Created, Updated, Expires time.Time
	// SupersededBy names the drill file that replaces this one.
	SupersededBy string
	// Body is the text after the front matter.
	Body string
	// Cut says the file was longer than MaxFile and Body is cut.
	Cut bool
	// Problem says why the entry cannot be used (its file is missing or
	// unreadable, its front matter broken, a date bad); "" when it can.
	Problem string
}

// front is the front matter of a drill file, as written.
type front struct {
	Name         string `yaml:"name"`
	Description  string `yaml:"description"`
	Type         string `yaml:"type"`
	Created      string `yaml:"created,omitempty"`
	Updated      string `yaml:"updated,omitempty"`
	SupersededBy string `yaml:"superseded_by,omitempty"`
	Expires      string `yaml:"expires,omitempty"`
}

// Status is what an entry is worth now.
type Status string

// The statuses: an active entry reaches the prompt, the others do not.
const (
	Active     Status = "active"
	Expired    Status = "expired"
	Superseded Status = "superseded"
	Invalid    Status = "invalid"
)

// Status says whether the entry is in use at now.
func (e *Entry) Status(now time.Time) Status {
	switch {
	case e.Problem != "":
		return Invalid
	case e.SupersededBy != "":
		return Superseded
	case !e.Expires.IsZero() && now.After(e.Expires):
		return Expired
	}
	return Active
}

// parseEntry reads a drill file's text; a problem with it is set in the
// entry's Problem, naming the file.
func parseEntry(file, path string, data []byte) *Entry {
	e := &Entry{File: file, Path: path}
	if !utf8.Valid(data) {
		e.Problem = path + " is not UTF-8 text; the entry is left out"
		return e
	}
	fm, body, ok := splitFront(string(data))
	e.Body = strings.TrimSpace(body)
	if !ok {
		e.Problem = path + ": the front matter opened by --- is not closed by a --- line; the entry is left out"
		return e
	}
	f, simple := simpleFront(fm)
	if !simple {
		if err := yaml.Unmarshal([]byte(fm), &f); err != nil {
			e.Problem = fmt.Sprintf("%s: broken front matter (%s); the entry is left out", path, oneLine(err.Error()))
			return e
		}
	}
	e.Name, e.Description, e.Type = strings.TrimSpace(f.Name), strings.TrimSpace(f.Description), strings.TrimSpace(f.Type)
	e.SupersededBy = strings.TrimSpace(f.SupersededBy)
	for _, d := range []struct {
		key, val string
		to       *time.Time
		end      bool
	}{{"created", f.Created, &e.Created, false}, {"updated", f.Updated, &e.Updated, false}, {"expires", f.Expires, &e.Expires, true}} {
		if strings.TrimSpace(d.val) == "" {
			continue
		}
		t, err := ParseDate(d.val, d.end)
		if err != nil {
			e.Problem = fmt.Sprintf("%s: %s: %v; the entry is left out", path, d.key, err)
			return e
		}
		*d.to = t
	}
	return e
}

// frontKeys are the front matter's keys, for simpleFront.
var frontKeys = map[string]func(*front) *string{
	"name": func(f *front) *string { return &f.Name }, "description": func(f *front) *string { return &f.Description },
	"type": func(f *front) *string { return &f.Type }, "created": func(f *front) *string { return &f.Created },
	"updated": func(f *front) *string { return &f.Updated }, "superseded_by": func(f *front) *string { return &f.SupersededBy },
	"expires": func(f *front) *string { return &f.Expires },
}

// simpleFront reads front matter made only of "key: value" lines whose
// values YAML reads as the same plain text (what Write writes, and what
// people mostly write), which is most of the time spent reading memory
// with a YAML parser. It reports false for anything else (other keys,
// nesting, block scalars, escapes, comments), which the YAML parser
// reads.
func simpleFront(fm string) (front, bool) {
	var f front
	for line := range strings.Lines(fm) {
		line = strings.TrimRight(line, " \t\r\n")
		if line == "" {
			continue
		}
		key, val, ok := strings.Cut(line, ":")
		field := frontKeys[key]
		if !ok || field == nil {
			return front{}, false
		}
		val = strings.TrimLeft(val, " \t")
		if val != "" && line[len(key)+1] != ' ' {
			return front{}, false
		}
		switch {
		case val == "" || val == "~" || val == "null":
			val = ""
		case len(val) >= 2 && (val[0] == '"' || val[0] == '\'') && val[len(val)-1] == val[0]:
			inner := val[1 : len(val)-1]
			if strings.ContainsAny(inner, "\"'\\") {
				return front{}, false
			}
			val = inner
		case strings.ContainsAny(val[:1], "[]{}|>&*!%@`'\"#,?:-") || strings.Contains(val, ": ") || strings.Contains(val, " #"):
			return front{}, false
		}
		*field(&f) = val
	}
	return f, true
}

// splitFront separates a drill file's front matter (between a first line
// of --- and the next one) from its body; ok is false when the front
// matter is not closed. A file without front matter is all body.
func splitFront(text string) (fm, body string, ok bool) {
	text = strings.TrimPrefix(text, "\ufeff")
	first, rest, found := strings.Cut(text, "\n")
	if strings.TrimRight(first, " \t\r") != "---" {
		return "", text, true
	}
	if !found {
		return "", "", false
	}
	for pos := 0; pos <= len(rest); {
		line, after, more := strings.Cut(rest[pos:], "\n")
		if strings.TrimRight(line, " \t\r") == "---" {
			return rest[:pos], after, true
		}
		if !more {
			break
		}
		pos += len(line) + 1
	}
	return "", "", false
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.TrimPrefix(s, "yaml: ")), " ")
}

// readLimited reads up to MaxFile bytes of a regular file, cut on a line
// when it is longer.
func readLimited(path string) (data []byte, cut bool, err error) {
	ok, err := regularFile(path)
	if err != nil {
		return nil, false, err
	}
	if !ok {
		return nil, false, fmt.Errorf("%s does not exist", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	size := int64(MaxFile)
	if st, err := f.Stat(); err == nil && st.Size() < size {
		size = st.Size()
	}
	buf := make([]byte, size+1) // one more, to tell a file that grew past MaxFile
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, false, err
	}
	buf = buf[:n]
	if n > int(size) { // longer than MaxFile, or grown since Stat
		buf = buf[:size]
		if i := bytes.LastIndexByte(buf, '\n'); i > 0 {
			buf = buf[:i+1]
		}
		cut = true
	}
	return buf, cut, nil
}

// Memory is a store as read: its index and the drill files it links.
type Memory struct {
	Store Store
	// Index is MEMORY.md's text; IndexCut says it was longer than
	// MaxFile.
	Index    string
	IndexCut bool
	// Links are the index's entry lines, in order.
	Links []Link
	// Entries are the drill files the links name, by file name (a link
	// that is not a valid name has none).
	Entries map[string]*Entry
}

// Link is an entry line of an index: "- [title](file.md): description".
type Link struct {
	// Line is the line's number in the index, from 0.
	Line int
	// Title and Target are the link's text and destination as written;
	// File is Target checked (CheckName), "" when it is not a drill file
	// of the store (Problem says why).
	Title, Target, File string
	Problem             string
}

var linkLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*(?:[-*+]|\d+[.)])\s+\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
})

// parseLinks finds the entry lines of an index, outside its comments.
func parseLinks(index string) []Link {
	// A comment keeps its line ends, so that lines keep their numbers.
	index = comment().ReplaceAllStringFunc(index, func(c string) string { return strings.Repeat("\n", strings.Count(c, "\n")) })
	var out []Link
	for i, line := range strings.Split(index, "\n") {
		m := linkLine().FindStringSubmatch(line)
		if m == nil {
			continue
		}
		l := Link{Line: i, Title: m[1], Target: m[2]}
		target := strings.TrimPrefix(m[2], "./")
		if strings.Contains(target, "://") || strings.HasPrefix(target, "#") {
			continue // a web link or an anchor, not an entry
		}
		if f, err := CheckName(target); err != nil || !strings.HasSuffix(target, ".md") {
			l.Problem = fmt.Sprintf("links %q, which is not a file of the memory directory; memory does not follow it", m[2])
		} else {
			l.File = f
		}
		out = append(out, l)
	}
	return out
}

// Read reads the store's index and the drill files it links. A missing
// index is an error; problems with drill files are in their entries.
func Read(s Store) (*Memory, error) {
	data, cut, err := readLimited(s.Index())
	if err != nil {
		return nil, fmt.Errorf("read %s memory: %w", s.Scope, err)
	}
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("%s is not UTF-8 text; the %s memory is left out", s.Index(), s.Scope)
	}
	m := &Memory{Store: s, Index: string(data), IndexCut: cut, Entries: map[string]*Entry{}}
	m.Links = parseLinks(m.Index)
	for _, l := range m.Links {
		if l.File == "" || m.Entries[l.File] != nil {
			continue
		}
		p := filepath.Join(s.Dir, l.File)
		data, cut, err := readLimited(p)
		if err != nil {
			m.Entries[l.File] = &Entry{File: l.File, Path: p,
				Problem: fmt.Sprintf("%s (linked from %s): %s; the entry is left out", p, s.Index(), problemOf(err, p))}
			continue
		}
		e := parseEntry(l.File, p, data)
		e.Cut = cut
		m.Entries[l.File] = e
	}
	return m, nil
}

// problemOf says what is wrong with reading p, without repeating p.
func problemOf(err error, p string) string {
	msg := err.Error()
	if strings.HasSuffix(msg, "does not exist") {
		return "the file does not exist"
	}
	return strings.TrimPrefix(strings.TrimPrefix(msg, p+": "), p+" ")
}

// Warnings are the one-line problems of the entries the index links,
// in index order: each names its file and says the entry is left out.
func (m *Memory) Warnings() []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range m.Links {
		if l.File == "" {
			continue
		}
		if e := m.Entries[l.File]; e != nil && e.Problem != "" && !seen[e.Problem] {
			seen[e.Problem] = true
			out = append(out, e.Problem)
		}
	}
	return out
}
