package repl

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// Candidate is one completion: the word, and what it is.
type Candidate struct {
	Value string
	Desc  string
}

// Complete returns what may replace the word before pos in line, and the
// length of that word (in bytes). Command words complete to the commands
// offered in state s; arguments complete from the command's live sources.
// It is the whole completion logic; the readline adapter only reformats.
func (r *REPL) Complete(line string, pos int, s State) (cands []Candidate, wordLen int) {
	if pos > len(line) {
		pos = len(line)
	}
	head := line[:pos]
	if !strings.HasPrefix(strings.TrimLeft(head, " "), ".") {
		return nil, 0
	}
	head = strings.TrimLeft(head, " ")
	words := strings.Fields(head)
	word := ""
	if !strings.HasSuffix(head, " ") && len(words) > 0 {
		word = words[len(words)-1]
		words = words[:len(words)-1]
	}
	if len(words) == 0 {
		cands = append(r.completeCommand(word, s), r.macroCandidates(word)...)
		sort.SliceStable(cands, func(i, j int) bool { return cands[i].Value < cands[j].Value })
		return byMatch(cands, word), len(word)
	}
	// The second word of a two-word command (".info role").
	if len(words) == 1 {
		for _, c := range r.reg.Offered(s) {
			first, second, ok := strings.Cut(c.Name, " ")
			if ok && first == words[0] && fuzzy(second, word) {
				cands = append(cands, Candidate{second, c.Help})
			}
		}
	}
	cmd, done := r.commandFor(words, s)
	if cmd != nil && cmd.Complete != nil {
		for _, c := range cmd.Complete(r, done) {
			if fuzzy(c.Value, word) {
				cands = append(cands, c)
			}
		}
	}
	return byMatch(dedupe(cands), word), len(word)
}

// fuzzy reports whether what is typed matches a value: its characters
// appear in the value in order (case aside), and the first one (after a
// command's dot) starts the value, so ".ssn" finds ".session" and "rbld"
// finds "rebuild".
func fuzzy(value, typed string) bool {
	if strings.HasPrefix(typed, ".") && strings.HasPrefix(value, ".") {
		value, typed = value[1:], typed[1:] // the dot anchors nothing
	}
	if typed == "" {
		return true
	}
	v, t := []rune(strings.ToLower(value)), []rune(strings.ToLower(typed))
	if len(v) == 0 || v[0] != t[0] {
		return false
	}
	i := 0
	for _, c := range v {
		if i < len(t) && c == t[i] {
			i++
		}
	}
	return i == len(t)
}

// byMatch keeps only the values that start with what is typed when there
// are any (a typed start narrows as it always did); the fuzzy matches
// are the candidates when no value starts so.
func byMatch(cands []Candidate, typed string) []Candidate {
	var prefixed []Candidate
	for _, c := range cands {
		if strings.HasPrefix(c.Value, typed) {
			prefixed = append(prefixed, c)
		}
	}
	if len(prefixed) > 0 {
		return prefixed
	}
	return cands
}

// completeCommand completes a command word: the first words of the
// commands offered in s, in registry order (Complete sorts them with the
// macros).
func (r *REPL) completeCommand(prefix string, s State) []Candidate {
	var out []Candidate
	seen := map[string]bool{}
	for _, c := range r.reg.Offered(s) {
		first, _, two := strings.Cut(c.Name, " ")
		if !fuzzy(first, prefix) || seen[first] {
			continue
		}
		seen[first] = true
		desc := c.Help
		if two {
			if one, ok := r.reg.byName[first]; ok {
				desc = one.Help
			}
		}
		out = append(out, Candidate{first, desc})
	}
	return out
}

// commandFor finds the command of the completed words and its completed
// arguments.
func (r *REPL) commandFor(words []string, s State) (*Command, []string) {
	if len(words) >= 2 {
		if c, ok := r.reg.byName[words[0]+" "+words[1]]; ok && c.offered(s) {
			return c, words[2:]
		}
	}
	if c, ok := r.reg.byName[words[0]]; ok && c.offered(s) {
		return c, words[1:]
	}
	return nil, nil
}

func dedupe(cs []Candidate) []Candidate {
	seen := map[string]bool{}
	out := cs[:0]
	for _, c := range cs {
		if !seen[c.Value] {
			seen[c.Value] = true
			out = append(out, c)
		}
	}
	return out
}

// values turns names into candidates.
func values(names []string, desc string) []Candidate {
	out := make([]Candidate, len(names))
	for i, n := range names {
		out[i] = Candidate{n, desc}
	}
	return out
}

// readlineCompleter adapts Complete to readline. One candidate, or a
// longer common start, is inserted by readline (a fuzzy match replaces the
// word). Several candidates are
// listed here, each with its description (readline's own menu can show
// names only), and the line is drawn again below the list.
type readlineCompleter struct{ r *REPL }

func (a readlineCompleter) Do(line []rune, pos int) ([][]rune, int) {
	s := string(line)
	bytePos := len(string(line[:min(pos, len(line))]))
	cands, n := a.r.Complete(s, bytePos, a.r.state())
	word := s[bytePos-n : bytePos]
	switch {
	case len(cands) == 0:
		return nil, 0
	case len(cands) == 1 && strings.HasPrefix(cands[0].Value, word):
		return [][]rune{[]rune(strings.TrimPrefix(cands[0].Value, word) + " ")}, len([]rune(word))
	case len(cands) == 1:
		// A fuzzy match replaces the word typed, which readline (it only
		// appends) cannot do: the line is set here, cursor at its end.
		if a.r.rl != nil {
			a.r.rl.Operation.SetBuffer(s[:bytePos-n] + cands[0].Value + " " + s[bytePos:])
		}
		return nil, 0
	}
	if common := commonPrefix(cands); len(common) > len(word) && strings.HasPrefix(common, word) {
		return [][]rune{[]rune(strings.TrimPrefix(common, word))}, len([]rune(word))
	}
	a.r.showCandidates(cands)
	return nil, 0
}

// commonPrefix is the longest start all candidates share.
func commonPrefix(cands []Candidate) string {
	p := cands[0].Value
	for _, c := range cands[1:] {
		for !strings.HasPrefix(c.Value, p) {
			p = p[:len(p)-1]
		}
	}
	return p
}

// showCandidates lists completions with their descriptions under the
// input line (the terminal is in raw mode: lines end with \r\n) and draws
// the line again.
func (r *REPL) showCandidates(cands []Candidate) {
	width := 0
	for _, c := range cands {
		width = max(width, len(c.Value))
	}
	var b strings.Builder
	b.WriteString("\r\n")
	for _, c := range cands {
		desc := c.Desc
		if desc != "" {
			desc = r.dim(desc)
		}
		fmt.Fprintf(&b, "  %-*s  %s\r\n", width, c.Value, desc)
	}
	_, _ = io.WriteString(r.o.IO.Out, b.String())
	if r.rl != nil {
		r.rl.Refresh()
	}
}
