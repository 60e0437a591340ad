package memory

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// RenderOptions say how memory is shown to the model.
type RenderOptions struct {
	// Cap is the most characters the text may have (the note that it was
	// cut comes on top); CapKey is the setting it comes from, for the
	// note.
	Cap    int
	CapKey string
	// Inline puts the body of each entry's drill file after the indexes
	// (when the model cannot read them itself).
	Inline bool
	// Now decides which entries have expired.
	Now time.Time
}

// Rendered is memory as the model sees it.
type Rendered struct {
	Text string
	// Cut says Text was cut at the cap; Full is how many characters it
	// had before.
	Cut  bool
	Full int
}

var comment = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)<!--.*?-->`) })

// Render is the text the stores add to the system prompt: each index
// under its path (general to specific), without its comments and without
// the lines of entries that are expired, superseded or unusable; with
// Inline, the drill files' bodies follow, in index order. Past the cap the
// text is cut on a line and ends with a note saying so.
func Render(ms []*Memory, o RenderOptions) Rendered {
	var b strings.Builder
	for _, m := range ms {
		fmt.Fprintf(&b, "## %s memory: %s\n\n", titleCase(string(m.Store.Scope)), m.Store.Index())
		b.WriteString(m.promptIndex(o.Now))
		if m.IndexCut {
			fmt.Fprintf(&b, "[The rest of this index is left out: it passes %d KiB.]\n", MaxFile>>10)
		}
		b.WriteString("\n")
	}
	if o.Inline {
		wrote, seen := false, map[*Entry]bool{}
		for _, m := range ms {
			for _, l := range m.Links {
				e := m.Entries[l.File]
				if l.File == "" || e == nil || seen[e] || e.Status(o.Now) != Active || e.Body == "" {
					continue
				}
				seen[e] = true // once, however often it is linked
				if !wrote {
					b.WriteString("## Memory entries\n\n")
					wrote = true
				}
				name := e.Name
				if name == "" {
					name = l.Title
				}
				fmt.Fprintf(&b, "### %s (%s memory, %s)\n\n%s\n\n", name, m.Store.Scope, e.File, e.Body)
			}
		}
	}
	text := strings.TrimRight(b.String(), "\n") + "\n"
	r := Rendered{Text: text, Full: utf8.RuneCountInString(text)}
	if r.Full <= o.Cap {
		return r
	}
	r.Cut = true
	r.Text = cutRunes(text, o.Cap)
	how := "memory__list and memory__read show the rest"
	if o.Inline {
		how = "the rest is not shown"
	}
	r.Text += fmt.Sprintf("\n[Memory cut here: it has %d characters, more than the %d of %s; %s.]\n", r.Full, o.Cap, o.CapKey, how)
	return r
}

// promptIndex is the index as the prompt shows it: comments and the
// lines of entries not in use left out.
func (m *Memory) promptIndex(now time.Time) string {
	drop := map[int]bool{}
	for _, l := range m.Links {
		if l.File == "" {
			drop[l.Line] = true
			continue
		}
		if e := m.Entries[l.File]; e == nil || e.Status(now) != Active {
			drop[l.Line] = true
		}
	}
	lines := strings.Split(m.Index, "\n")
	kept := lines[:0:0]
	for i, line := range lines {
		if !drop[i] {
			kept = append(kept, line)
		}
	}
	text := comment().ReplaceAllString(strings.Join(kept, "\n"), "")
	// Blank runs left by what was dropped become one blank line.
	var out []string
	blank := true
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, " \t\r")
		if line == "" {
			if !blank {
				out = append(out, "")
			}
			blank = true
			continue
		}
		out = append(out, line)
		blank = false
	}
	s := strings.TrimSpace(strings.Join(out, "\n"))
	if s == "" {
		return "(empty)\n"
	}
	return s + "\n"
}

// cutRunes cuts s to at most n characters, on a line end when there is
// one in the second half.
func cutRunes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	i, count := 0, 0
	for i < len(s) && count < n {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		count++
	}
	cut := s[:i]
	if j := strings.LastIndexByte(cut, '\n'); j >= len(cut)/2 {
		cut = cut[:j+1]
	}
	return cut
}

func titleCase(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
