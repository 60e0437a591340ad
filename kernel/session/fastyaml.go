package session

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// Session files are read by a small reader of their own before yaml.v3.
// A load may take 20 ms, and for a session of 1,000 messages (the 1.17 MB
// file of BenchmarkLoad1000) yaml.v3's parser alone takes some 40 ms, the
// whole load 40-52 ms. The files this package writes use a small part of
// YAML: fastParse reads that part in about 7 ms (the load in 10-12 ms) into
// the very tree yaml.v3 builds (the same kinds, tags, values, styles, lines
// and columns), so the decoder does not know which reader ran. It reads:
//
//   - a document that is a block mapping at column 0; blank lines anywhere;
//   - block mappings and block sequences indented with spaces, a sequence
//     at its key's column or further in, "- " followed by a mapping or a
//     sequence on the same line;
//   - keys on one line: plain, single- or double-quoted, under 1,000 bytes;
//   - scalars on one line: single- or double-quoted, or plain when they
//     are null, true or false, a decimal number in JSON's grammar, or text
//     that can only be a string;
//   - literal block scalars (|, with chomping and indentation indicators);
//   - [], {} and empty values (null).
//
// On anything else (comments, other flow collections, anchors, aliases,
// tags, folded scalars, quoted or plain scalars over several lines,
// document markers, tabs outside scalars, carriage returns, control
// characters, plain scalars such as 0x1F or 2025-01-02, deep nesting) it
// gives up, and the whole file goes to yaml.v3, which reads it or reports
// the error. fastyaml_test.go holds it to yaml.v3's tree on every input.

// fastParse returns the document node yaml.v3 would build from data, or
// false when data is not in the subset it reads.
func fastParse(data []byte) (*yaml.Node, bool) {
	if !yamlText(data) {
		return nil, false
	}
	p := &fastParser{s: string(data), line: 1}
	p.skipBlank()
	if p.i == len(p.s) || p.s[p.i] == ' ' {
		return nil, false
	}
	root := p.mapping(p.i, 0)
	if root == nil || p.i != len(p.s) {
		return nil, false
	}
	return &yaml.Node{Kind: yaml.DocumentNode, Line: root.Line, Column: root.Column, Content: []*yaml.Node{root}}, true
}

// yamlText reports whether data is UTF-8 made of the characters yaml.v3
// accepts, without the ones that would need its full rules: carriage
// returns, the line breaks NEL, LS and PS, and byte order marks.
func yamlText(data []byte) bool {
	for i := 0; i < len(data); {
		if asciiText[data[i]] {
			i++
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		if r < utf8.RuneSelf || r == utf8.RuneError && size == 1 || !printableRune(r) || r == 0x85 || r == 0x2028 || r == 0x2029 || r == 0xFEFF {
			return false
		}
		i += size
	}
	return true
}

// asciiText marks printable ASCII, tab and line feed.
var asciiText = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = true
	}
	t['\t'], t['\n'] = true, true
	return t
}()

const (
	fastMaxDepth = 100  // collections inside one another
	fastMaxKey   = 1000 // bytes; YAML allows 1024 characters
)

type fastParser struct {
	s     string
	i     int // where the current line starts
	line  int // the current line's number, 1-based
	depth int
	buf   []byte
}

// node makes a node. Values that need no unescaping share the file's text.
func (p *fastParser) node(kind yaml.Kind, tag, value string, style yaml.Style, line, column int) *yaml.Node {
	return &yaml.Node{Kind: kind, Style: style, Tag: tag, Value: value, Line: line, Column: column}
}

// lineEnd is the index of the line feed ending the current line, or
// len(s).
func (p *fastParser) lineEnd() int {
	if j := strings.IndexByte(p.s[p.i:], '\n'); j >= 0 {
		return p.i + j
	}
	return len(p.s)
}

// next moves past the current line, which ends at end, and the blank lines
// after it.
func (p *fastParser) next(end int) {
	p.i = end
	if end < len(p.s) {
		p.i++
		p.line++
	}
	p.skipBlank()
}

// skipBlank moves past lines of nothing but spaces.
func (p *fastParser) skipBlank() {
	for {
		j := p.i
		for j < len(p.s) && p.s[j] == ' ' {
			j++
		}
		if j == len(p.s) {
			p.i = j
			return
		}
		if p.s[j] != '\n' {
			return
		}
		p.i = j + 1
		p.line++
	}
}

// indent counts the spaces starting the current line.
func (p *fastParser) indent() int {
	j := p.i
	for j < len(p.s) && p.s[j] == ' ' {
		j++
	}
	return j - p.i
}

// column is the 1-based column of index i of the current line. yaml.v3
// counts characters, not bytes.
func (p *fastParser) column(i int) int {
	for j := p.i; j < i; j++ {
		if p.s[j] >= utf8.RuneSelf {
			return utf8.RuneCountInString(p.s[p.i:i]) + 1
		}
	}
	return i - p.i + 1
}

// dash reports whether a sequence entry starts at index i: a dash, then a
// space or the end of the line.
func (p *fastParser) dash(i int) bool {
	return p.s[i] == '-' && (i+1 == len(p.s) || p.s[i+1] == ' ' || p.s[i+1] == '\n')
}

// mapping reads a block mapping whose keys are at column col (0-based),
// the first at index k of the current line.
func (p *fastParser) mapping(k, col int) *yaml.Node {
	if p.depth++; p.depth > fastMaxDepth {
		return nil
	}
	n := p.node(yaml.MappingNode, "!!map", "", 0, p.line, col+1)
	for {
		end := p.lineEnd()
		v, tag, style, colon := p.key(k, end)
		if tag == "" {
			return nil
		}
		key := p.node(yaml.ScalarNode, tag, v, style, p.line, p.column(k))
		val := p.value(colon+1, end, col)
		if val == nil {
			return nil
		}
		n.Content = append(n.Content, key, val)
		if p.i == len(p.s) {
			break
		}
		ind := p.indent()
		if ind < col {
			break
		}
		if ind > col || p.dash(p.i+ind) {
			return nil
		}
		k = p.i + ind
	}
	p.depth--
	return n
}

// key reads "key:" at index k of the current line, which ends at end. It
// returns the key's value, tag and style and the index of the colon, or an
// empty tag when there is no key it can read.
func (p *fastParser) key(k, end int) (v, tag string, style yaml.Style, colon int) {
	switch c := p.s[k]; c {
	case '\'', '"':
		q := 0
		if v, q = p.quoted(k, end); q < 0 || q == end || p.s[q] != ':' {
			return "", "", 0, 0
		}
		tag, style, colon = "!!str", quoteStyle(c), q
	default:
		if colon = strings.Index(p.s[k:end], ": "); colon >= 0 {
			colon += k
		} else if p.s[end-1] == ':' {
			colon = end - 1
		} else {
			return "", "", 0, 0
		}
		v = p.s[k:colon]
		tag = plainTag(v)
	}
	if colon-k > fastMaxKey || colon+1 < end && p.s[colon+1] != ' ' {
		return "", "", 0, 0
	}
	return v, tag, style, colon
}

func quoteStyle(c byte) yaml.Style {
	if c == '"' {
		return yaml.DoubleQuotedStyle
	}
	return yaml.SingleQuotedStyle
}

// value reads what follows the colon of a key at column col: the rest of
// the current line from index i (the line ends at end), and the lines
// after it when that is empty.
func (p *fastParser) value(i, end, col int) *yaml.Node {
	j := i
	for j < end && p.s[j] == ' ' {
		j++
	}
	if j < end {
		return p.scalar(j, end, col)
	}
	line, column := p.line, p.column(i) // yaml.v3 places a null just after the colon
	p.next(end)
	if p.i < len(p.s) {
		ind := p.indent()
		switch k := p.i + ind; {
		case ind >= col && p.dash(k):
			return p.sequence(k, ind)
		case ind > col:
			return p.mapping(k, ind) // or a scalar alone on its line: not read
		}
	}
	return p.node(yaml.ScalarNode, "!!null", "", 0, line, column)
}

// sequence reads a block sequence whose dashes are at column col, the
// first at index k of the current line.
func (p *fastParser) sequence(k, col int) *yaml.Node {
	if p.depth++; p.depth > fastMaxDepth {
		return nil
	}
	n := p.node(yaml.SequenceNode, "!!seq", "", 0, p.line, col+1)
	for {
		end := p.lineEnd()
		j := k + 1
		for j < end && p.s[j] == ' ' {
			j++
		}
		if j == end {
			return nil // the entry is on the next lines, or null
		}
		var item *yaml.Node
		jcol := col + j - k // only spaces and dashes before j
		if p.dash(j) {
			item = p.sequence(j, jcol)
		} else if _, tag, _, _ := p.key(j, end); tag != "" {
			item = p.mapping(j, jcol)
		} else {
			item = p.scalar(j, end, col)
		}
		if item == nil {
			return nil
		}
		n.Content = append(n.Content, item)
		if p.i == len(p.s) {
			break
		}
		ind := p.indent()
		if ind > col {
			return nil
		}
		if ind < col || !p.dash(p.i+ind) {
			break
		}
		k = p.i + ind
	}
	p.depth--
	return n
}

// scalar reads the scalar at index j of the current line, which ends at
// end, in a collection at column col, and moves to the next line that is
// not blank.
func (p *fastParser) scalar(j, end, col int) *yaml.Node {
	line, column := p.line, p.column(j)
	var n *yaml.Node
	switch c := p.s[j]; c {
	case '|':
		n = p.literal(j, end, col)
	case '\'', '"':
		if v, q := p.quoted(j, end); q == end {
			n = p.node(yaml.ScalarNode, "!!str", v, quoteStyle(c), line, column)
		}
	case '[':
		if p.s[j:end] == "[]" {
			n = p.node(yaml.SequenceNode, "!!seq", "", yaml.FlowStyle, line, column)
		}
	case '{':
		if p.s[j:end] == "{}" {
			n = p.node(yaml.MappingNode, "!!map", "", yaml.FlowStyle, line, column)
		}
	default:
		v := p.s[j:end]
		if tag := plainTag(v); tag != "" {
			n = p.node(yaml.ScalarNode, tag, v, 0, line, column)
		}
	}
	if n == nil {
		return nil
	}
	if n.Style != yaml.LiteralStyle {
		p.next(end)
	}
	// A line further in would continue the scalar, or be an error.
	if p.i < len(p.s) && p.indent() > col {
		return nil
	}
	return n
}

// plainTag is the tag yaml.v3 gives the plain scalar v, or "" when v
// cannot stand as a plain scalar on one line or its tag takes more of
// YAML's rules to tell (0x1F, 1_000, 2025-01-02).
func plainTag(v string) string {
	if !plainSyntax(v) {
		return ""
	}
	switch v {
	case "~", "null", "Null", "NULL":
		return "!!null"
	case "true", "True", "TRUE", "false", "False", "FALSE":
		return "!!bool"
	case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF", ".nan", ".NaN", ".NAN":
		return "!!float"
	}
	switch c := v[0]; {
	case c == '.':
		if _, err := strconv.ParseFloat(v, 64); err == nil {
			return "!!float"
		}
		return "!!str"
	case c == '+' || c == '-':
		// Only a digit, or a point and a digit, after the sign (once
		// underscores are dropped) starts a number.
		u := strings.ReplaceAll(v[1:], "_", "")
		if u == "" || !isDigit(u[0]) && (u[0] != '.' || len(u) == 1 || !isDigit(u[1])) {
			return "!!str"
		}
	case !isDigit(c):
		return "!!str"
	}
	if !jsonNumber(v) {
		return ""
	}
	// As yaml.v3 goes: a 64-bit integer, or else a float, or else (out of
	// range) a string.
	if _, err := strconv.ParseInt(v, 10, 64); err == nil {
		return "!!int"
	}
	if _, err := strconv.ParseUint(v, 10, 64); err == nil {
		return "!!int"
	}
	if _, err := strconv.ParseFloat(v, 64); err == nil {
		return "!!float"
	}
	return "!!str"
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// quoted reads the quoted scalar at index k, which must end on the current
// line (ending at end). It returns the value and the index after the
// closing quote, or -1.
func (p *fastParser) quoted(k, end int) (string, int) {
	s, b := p.s, p.buf[:0]
	start := k + 1 // of the text not yet in b
	for i := k + 1; i < end; {
		c := s[i]
		switch {
		case c == s[k] && c == '\'' && i+1 < end && s[i+1] == '\'':
			b = append(b, s[start:i+1]...)
			i += 2
			start = i
		case c == s[k]:
			if start == k+1 {
				return s[start:i], i + 1
			}
			b = append(b, s[start:i]...)
			p.buf = b
			return string(b), i + 1
		case c == '\\' && s[k] == '"':
			if i+1 == end {
				return "", -1
			}
			b = append(b, s[start:i]...)
			e := s[i+1]
			i += 2
			if r, ok := escapes[e]; ok {
				b = utf8.AppendRune(b, r)
			} else {
				width := 0
				switch e {
				case 'x':
					width = 2
				case 'u':
					width = 4
				case 'U':
					width = 8
				}
				if width == 0 || i+width > end {
					return "", -1
				}
				r, err := strconv.ParseUint(s[i:i+width], 16, 32)
				if err != nil || r > utf8.MaxRune || r >= 0xD800 && r <= 0xDFFF {
					return "", -1
				}
				b = utf8.AppendRune(b, rune(r))
				i += width
			}
			start = i
		default:
			i++
		}
	}
	return "", -1
}

// escapes are YAML's one-character escapes in double quotes.
var escapes = map[byte]rune{
	'0': 0, 'a': '\a', 'b': '\b', 't': '\t', '\t': '\t', 'n': '\n', 'v': '\v', 'f': '\f', 'r': '\r',
	'e': 0x1b, ' ': ' ', '"': '"', '\'': '\'', '\\': '\\', 'N': 0x85, '_': 0xa0, 'L': 0x2028, 'P': 0x2029,
}

// literal reads the literal block scalar whose header (|, |-, |2+...) is
// at index j of the current line, which ends at end, in a collection at
// column col, and moves to the next line that is not blank. It follows
// yaml.v3 (libyaml): without an indentation indicator, the most indented
// of the leading empty lines and the first line of text give the
// indentation; a line less indented ends the scalar; the chomping
// indicator decides what becomes of the final line breaks.
func (p *fastParser) literal(j, end, col int) *yaml.Node {
	n := p.node(yaml.ScalarNode, "!!str", "", yaml.LiteralStyle, p.line, p.column(j))
	chomp, indent := byte(0), 0
	for h := j + 1; h < end; h++ {
		switch c := p.s[h]; {
		case (c == '-' || c == '+') && chomp == 0:
			chomp = c
		case c >= '1' && c <= '9' && indent == 0:
			indent = col + int(c-'0')
		default:
			return nil
		}
	}
	s, b := p.s, p.buf[:0]
	i := end // where the line being read starts
	if i < len(s) {
		i++
		p.line++
	}
	// breaks counts the empty lines not yet written, lead says the last
	// line of text ended with a line break, most is the deepest
	// indentation seen before the first line of text.
	breaks, lead, most := 0, false, 0
	for {
		// Take the indentation and the empty lines.
		sp := 0
		for {
			sp = 0
			for i+sp < len(s) && s[i+sp] == ' ' && (indent == 0 || sp < indent) {
				sp++
			}
			most = max(most, sp)
			if i+sp == len(s) || s[i+sp] != '\n' {
				if i+sp < len(s) && s[i+sp] == '\t' && (indent == 0 || sp < indent) {
					return nil // yaml.v3 refuses a tab here
				}
				break
			}
			breaks++
			i += sp + 1
			p.line++
		}
		if indent == 0 {
			indent = max(most, col+1)
		}
		if sp != indent || i+sp == len(s) {
			break
		}
		// A line of text.
		if lead {
			b = append(b, '\n')
		}
		for ; breaks > 0; breaks-- {
			b = append(b, '\n')
		}
		e := strings.IndexByte(s[i:], '\n')
		if e < 0 {
			b = append(b, s[i+sp:]...)
			i, lead = len(s), false
			break
		}
		b = append(b, s[i+sp:i+e]...)
		i, lead = i+e+1, true
		p.line++
	}
	if lead && chomp != '-' {
		b = append(b, '\n')
	}
	for ; breaks > 0 && chomp == '+'; breaks-- {
		b = append(b, '\n')
	}
	n.Value = string(b)
	p.buf = b
	p.i = i
	p.skipBlank()
	return n
}
