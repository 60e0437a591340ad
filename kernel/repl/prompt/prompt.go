package prompt

import "strings"

// DefaultLeft is the left prompt used when left_prompt is unset or empty:
// the model, then the session (with the agent before it and the role
// after it) or the agent and role, then the RAG, closed by ")" in a
// session and ">" outside one.
const DefaultLeft = `{color.red}{model}){color.green}{?session {?agent {agent}>}{session}{?role /}}{!session {?agent {agent}>}}{role}{?rag @{rag}}{color.cyan}{?session )}{!session >}{color.reset} `

// DefaultRight is the right prompt used when right_prompt is unset or
// empty: the reasoning effort, and in a session the tokens it holds and
// their share of the model's input limit.
const DefaultRight = `{color.cyan}{?reasoning_effort [{reasoning_effort}] }{color.purple}{?session {?consume_tokens {consume_tokens}{?consume_percent ({consume_percent}%)}}{!consume_tokens {consume_tokens}}}{color.reset}`

// Template is a parsed prompt template. The zero value and nil render as
// "". A Template is never modified after Parse, so one may be rendered
// from several goroutines at once.
type Template struct {
	nodes []node
	size  int // a guess at the rendered length, to allocate once
}

// Parse parses a prompt template. It never fails: text that is not a
// well-formed form is kept literally (see the package comment).
func Parse(src string) *Template {
	p := parser{src: src, closeAt: matchBraces(src)}
	t := &Template{nodes: p.nodes(0, len(src))}
	t.size = sizeOf(t.nodes)
	return t
}

// Left parses the left_prompt setting: DefaultLeft when src is empty.
func Left(src string) *Template {
	if src == "" {
		src = DefaultLeft
	}
	return Parse(src)
}

// Right parses the right_prompt setting: DefaultRight when src is empty.
func Right(src string) *Template {
	if src == "" {
		src = DefaultRight
	}
	return Parse(src)
}

// Render fills the template in with vars. color says whether {color.X}
// emits its ANSI escape or nothing.
func (t *Template) Render(vars map[string]string, color bool) string {
	if t == nil || len(t.nodes) == 0 {
		return ""
	}
	var b strings.Builder
	b.Grow(t.size)
	render(&b, t.nodes, vars, color)
	return b.String()
}

// Uses reports whether the template refers to the variable name, as
// {name} or in a condition, so that a caller can skip computing a costly
// variable nobody shows.
func (t *Template) Uses(name string) bool {
	return t != nil && uses(t.nodes, name)
}

func uses(nodes []node, name string) bool {
	for i := range nodes {
		n := &nodes[i]
		if (n.kind == variable || n.kind == ifSet || n.kind == ifUnset) && n.s == name || uses(n.body, name) {
			return true
		}
	}
	return false
}

type kind uint8

const (
	literal  kind = iota // s is the text
	variable             // s is the name, raw the source "{name}"
	colour               // s is the escape sequence
	ifSet                // s is the name, body the text
	ifUnset              // s is the name, body the text
)

type node struct {
	kind  kind
	known bool // variable: one of the names the REPL passes
	s     string
	raw   string
	body  []node
}

func render(b *strings.Builder, nodes []node, vars map[string]string, color bool) {
	for i := range nodes {
		n := &nodes[i]
		switch n.kind {
		case literal:
			b.WriteString(n.s)
		case variable:
			if v, ok := vars[n.s]; ok {
				b.WriteString(v)
			} else if !n.known {
				b.WriteString(n.raw)
			}
		case colour:
			if color {
				b.WriteString(n.s)
			}
		case ifSet:
			if vars[n.s] != "" {
				render(b, n.body, vars, color)
			}
		case ifUnset:
			if vars[n.s] == "" {
				render(b, n.body, vars, color)
			}
		}
	}
}

// sizeOf guesses the rendered length of nodes: their literal text and
// escapes, and 16 bytes for each variable.
func sizeOf(nodes []node) int {
	n := 0
	for i := range nodes {
		switch nodes[i].kind {
		case literal, colour:
			n += len(nodes[i].s)
		case variable:
			n += 16
		default:
			n += sizeOf(nodes[i].body)
		}
	}
	return n
}

type parser struct {
	src string
	// closeAt[i], for a '{' at i, is 1 + the index of the '}' that
	// closes it, or 0 when nothing does.
	closeAt []int
}

// matchBraces pairs each '{' with its '}' as brackets nest. Braces left
// without a partner are literal text.
func matchBraces(src string) []int {
	var closeAt []int
	var open []int
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '{':
			open = append(open, i)
		case '}':
			if len(open) == 0 {
				continue
			}
			if closeAt == nil {
				closeAt = make([]int, len(src))
			}
			closeAt[open[len(open)-1]] = i + 1
			open = open[:len(open)-1]
		}
	}
	return closeAt
}

// nodes parses src[lo:hi]. Every brace pair inside it is either a form or
// literal text; in the second case its content is parsed like any text.
func (p *parser) nodes(lo, hi int) []node {
	var out []node
	start := lo // the literal text not yet emitted begins here
	for i := lo; i < hi; i++ {
		if p.src[i] != '{' || p.closeAt == nil || p.closeAt[i] == 0 {
			continue
		}
		end := p.closeAt[i] - 1
		n, ok := p.form(i+1, end)
		if !ok {
			continue
		}
		if start < i {
			out = append(out, node{kind: literal, s: p.src[start:i]})
		}
		out = append(out, n)
		i, start = end, end+1
	}
	if start < hi {
		out = append(out, node{kind: literal, s: p.src[start:hi]})
	}
	return out
}

// form parses the content src[lo:hi] of a brace pair, reporting false when
// it is not one of the template's forms.
func (p *parser) form(lo, hi int) (node, bool) {
	c := p.src[lo:hi]
	switch {
	case c == "":
		return node{}, false
	case c[0] == '?' || c[0] == '!':
		k := ifSet
		if c[0] == '!' {
			k = ifUnset
		}
		n := nameLen(c[1:])
		if n == 0 {
			return node{}, false
		}
		name, rest := c[1:1+n], 1+n
		if rest == len(c) {
			return node{kind: k, s: name}, true
		}
		if c[rest] != ' ' {
			return node{}, false
		}
		return node{kind: k, s: name, body: p.nodes(lo+rest+1, hi)}, true
	case strings.HasPrefix(c, "color."):
		esc, ok := colorEscape(c[len("color."):])
		if !ok {
			return node{}, false
		}
		return node{kind: colour, s: esc}, true
	case nameLen(c) == len(c):
		return node{kind: variable, s: c, raw: p.src[lo-1 : hi+1], known: knownName(c)}, true
	}
	return node{}, false
}

// nameLen is the length of the variable name at the start of s: ASCII
// letters, digits and underscores.
func nameLen(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return i
		}
	}
	return len(s)
}

// knownName reports whether the REPL passes a variable of this name, so
// that an unset one renders as "" rather than as written.
func knownName(name string) bool {
	switch name {
	case "model", "client_name", "model_name", "max_input_tokens", "temperature", "top_p",
		"dry_run", "stream", "save", "wrap", "role", "session", "dirty", "agent", "rag",
		"reasoning_effort", "consume_tokens", "consume_percent", "user_messages_len", "cost":
		return true
	}
	return false
}

// colorEscape is the ANSI escape sequence of a colour name.
func colorEscape(name string) (string, bool) {
	switch name {
	case "reset":
		return "\x1b[0m", true
	case "black":
		return "\x1b[30m", true
	case "red":
		return "\x1b[31m", true
	case "green":
		return "\x1b[32m", true
	case "yellow":
		return "\x1b[33m", true
	case "blue":
		return "\x1b[34m", true
	case "purple":
		return "\x1b[35m", true
	case "cyan":
		return "\x1b[36m", true
	case "white":
		return "\x1b[37m", true
	case "light_black":
		return "\x1b[90m", true
	case "light_red":
		return "\x1b[91m", true
	case "light_green":
		return "\x1b[92m", true
	case "light_yellow":
		return "\x1b[93m", true
	case "light_blue":
		return "\x1b[94m", true
	case "light_purple":
		return "\x1b[95m", true
	case "light_cyan":
		return "\x1b[96m", true
	case "light_white":
		return "\x1b[97m", true
	}
	return "", false
}
