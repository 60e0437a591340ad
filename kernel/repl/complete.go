package repl

import (
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
		return append(r.completeCommand(word, s), r.macroCandidates(word)...), len(word)
	}
	// The second word of a two-word command (".info role").
	if len(words) == 1 {
		for _, c := range r.reg.Offered(s) {
			first, second, ok := strings.Cut(c.Name, " ")
			if ok && first == words[0] && strings.HasPrefix(second, word) {
				cands = append(cands, Candidate{second, c.Help})
			}
		}
	}
	cmd, done := r.commandFor(words, s)
	if cmd != nil && cmd.Complete != nil {
		for _, c := range cmd.Complete(r, done) {
			if strings.HasPrefix(c.Value, word) {
				cands = append(cands, c)
			}
		}
	}
	return dedupe(cands), len(word)
}

// completeCommand completes a command word: the first words of the
// commands offered in s.
func (r *REPL) completeCommand(prefix string, s State) []Candidate {
	var out []Candidate
	seen := map[string]bool{}
	for _, c := range r.reg.Offered(s) {
		first, _, two := strings.Cut(c.Name, " ")
		if !strings.HasPrefix(first, prefix) || seen[first] {
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
	sort.Slice(out, func(i, j int) bool { return out[i].Value < out[j].Value })
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

// readlineCompleter adapts Complete to readline: it offers the rest of
// each candidate after the typed word.
type readlineCompleter struct{ r *REPL }

func (a readlineCompleter) Do(line []rune, pos int) ([][]rune, int) {
	s := string(line)
	bytePos := len(string(line[:min(pos, len(line))]))
	cands, n := a.r.Complete(s, bytePos, a.r.state())
	word := s[bytePos-n : bytePos]
	out := make([][]rune, 0, len(cands))
	for _, c := range cands {
		out = append(out, []rune(strings.TrimPrefix(c.Value, word)+" "))
	}
	return out, len([]rune(word))
}
