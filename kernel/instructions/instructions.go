// Package instructions owns the workspace instruction files: the chain of
// COYOTE.md, AGENTS.md, CLAUDE.md, GEMINI.md (or the names configured) from
// the config directory and from the repository root down to the working
// directory, read with limits, and the text they add to the system prompt.
// It does not decide whether they are on (kernel/convo resolves
// workspace_instructions) and never writes to them, except --init-instructions'
// new COYOTE.md.
package instructions

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/coyote-cli/coyote/sdk/fsx"
)

// DefaultNames are the instruction files looked for in each directory, in
// order of preference.
var DefaultNames = []string{"COYOTE.md", "AGENTS.md", "CLAUDE.md", "GEMINI.md"}

// Limits on what is read: a file longer than MaxFile bytes is cut there,
// and the chain stops adding files past MaxTotal bytes.
const (
	MaxFile  = 32 << 10
	MaxTotal = 96 << 10
)

// File is one instruction file in force.
type File struct {
	Path string
	Text string
	// Cut says the file was longer than what Text holds.
	Cut bool
	// Size is the file's whole size.
	Size int64
}

// Find returns the instruction files in force for a run in cwd: the first
// non-empty file of names in configDir (the user's own, for every
// project), then in each directory from the repository root (the nearest
// ancestor with .git; cwd alone outside a repository) down to cwd. Files
// that cannot be used (unreadable, not UTF-8) are left out, each with a
// one-line warning naming it; files past the limits are cut, with a
// warning too.
func Find(cwd, configDir string, names []string) (files []File, warnings []string) {
	if len(names) == 0 {
		names = DefaultNames
	}
	dirs := []string{}
	if configDir != "" {
		dirs = append(dirs, configDir)
	}
	for _, d := range chain(cwd) {
		if d != configDir {
			dirs = append(dirs, d)
		}
	}
	total := 0
	for _, dir := range dirs {
		f, warn, ok := first(dir, names)
		if warn != "" {
			warnings = append(warnings, warn)
		}
		if !ok {
			continue
		}
		if total+len(f.Text) > MaxTotal {
			keep := max(MaxTotal-total, 0)
			f.Text, f.Cut = cutAt(f.Text, keep), true
			warnings = append(warnings, fmt.Sprintf("%s: the workspace instructions pass %d KiB; the rest of this file and the files after it are left out", f.Path, MaxTotal>>10))
			if keep > 0 {
				files = append(files, f)
			}
			return files, warnings
		}
		if f.Cut {
			warnings = append(warnings, fmt.Sprintf("%s is %d KiB; only its first %d KiB are used as instructions", f.Path, f.Size>>10, MaxFile>>10))
		}
		total += len(f.Text)
		files = append(files, f)
	}
	return files, warnings
}

// chain lists the directories from the repository root holding cwd down to
// cwd; cwd alone when no ancestor has .git.
func chain(cwd string) []string {
	cwd = filepath.Clean(cwd)
	var up []string
	for d := cwd; ; {
		up = append(up, d)
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			return []string{cwd} // not in a repository
		}
		d = parent
	}
	for i, j := 0, len(up)-1; i < j; i, j = i+1, j-1 {
		up[i], up[j] = up[j], up[i]
	}
	return up
}

// first reads the first usable file of names in dir.
func first(dir string, names []string) (File, string, bool) {
	for _, n := range names {
		p := filepath.Join(dir, n)
		st, err := os.Stat(p)
		if err != nil || !st.Mode().IsRegular() || st.Size() == 0 {
			continue
		}
		f, err := os.Open(p)
		if err != nil {
			return File{}, fmt.Sprintf("%s: %v; left out of the instructions", p, err), false
		}
		buf := make([]byte, min(st.Size(), MaxFile))
		n, err := io.ReadFull(f, buf)
		f.Close()
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
			return File{}, fmt.Sprintf("%s: %v; left out of the instructions", p, err), false
		}
		buf = buf[:n]
		cut := st.Size() > int64(n)
		if cut {
			// Cut on a line, and never inside a UTF-8 sequence.
			if i := bytes.LastIndexByte(buf, '\n'); i > 0 {
				buf = buf[:i+1]
			}
		}
		if !utf8.Valid(buf) {
			return File{}, fmt.Sprintf("%s is not UTF-8 text; left out of the instructions", p), false
		}
		text := strings.TrimSpace(string(buf))
		if text == "" {
			continue
		}
		return File{Path: p, Text: text, Cut: cut, Size: st.Size()}, "", true
	}
	return File{}, "", false
}

// cutAt cuts s to at most n bytes on a line end.
func cutAt(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	if i := strings.LastIndexByte(s, '\n'); i > 0 {
		s = s[:i]
	}
	return strings.ToValidUTF8(s, "")
}

// Text is what the files add to the system prompt: a short preamble, then
// each file under its path, general to specific.
func Text(files []File) string {
	if len(files) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("# Workspace instructions\n\nThe user keeps rules for their work in the files below (the later, more specific files take precedence). Follow them unless the user says otherwise.\n")
	for _, f := range files {
		b.WriteString("\n## " + f.Path + "\n\n" + f.Text + "\n")
		if f.Cut {
			b.WriteString("\n[The rest of this file was left out: it is too long.]\n")
		}
	}
	return b.String()
}

// Scaffold is the COYOTE.md that --init-instructions writes.
const Scaffold = `# Project instructions for Coyote

<!-- Coyote adds this file to the system prompt when it runs in this
directory or below. Keep it short: rules the model should always follow. -->

## About this project

- What it is, and the main languages and tools.

## Conventions

- How to build and test: ` + "`make test`" + `
- Style rules the code follows.

## Things to avoid

- Files or directories never to change.
`

// Init writes Scaffold to dir/COYOTE.md, refusing to replace a file that
// exists; it returns the path written.
func Init(dir string) (string, error) {
	p := filepath.Join(dir, "COYOTE.md")
	created, err := fsx.CreateNew(p, []byte(Scaffold), 0o644)
	if err != nil {
		return p, fmt.Errorf("write %s: %w", p, err)
	}
	if !created {
		return p, fmt.Errorf("%s exists already: edit it, or remove it first", p)
	}
	return p, nil
}
