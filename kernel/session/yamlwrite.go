package session

import (
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// The session writer emits YAML itself: yaml.v3's encoder is about ten times
// slower (some 60 ms for a long session of 1,000 messages, over the 20 ms a
// save may take). It writes the block style
// the original program's serde_yaml (libyaml) writes: two-space indentation,
// sequences inside a mapping not indented, multi-line strings as literal
// blocks, and each string in the first of plain, single-quoted or
// double-quoted style that reads back as the same string.

// writer accumulates the YAML text of a session.
type writer struct {
	b []byte
}

func (w *writer) indent(n int) {
	for ; n > 0; n-- {
		w.b = append(w.b, ' ')
	}
}

// key writes a mapping key at column col, followed by the colon.
func (w *writer) key(col int, k string) {
	w.indent(col)
	w.keyText(col, k)
	w.b = append(w.b, ':')
}

// keyText writes a key that may need quoting. A key longer than YAML's
// limit for implicit keys (1024 characters as written) is written as an
// explicit key instead: "? key", then the colon on the next line.
func (w *writer) keyText(col int, k string) {
	mark := len(w.b)
	switch {
	case plainSafe(k):
		w.b = append(w.b, k...)
	case singleLinePrintable(k):
		w.singleQuoted(k)
	default:
		w.doubleQuoted(k)
	}
	if len(w.b)-mark <= 1000 {
		return
	}
	w.b = append(w.b[:mark], "? "...)
	w.doubleQuoted(k)
	w.b = append(w.b, '\n')
	w.indent(col)
}

// str writes a string value after "key:" or "-" at column col: a space and
// the scalar, then the newline. A literal block's lines go at col+2.
func (w *writer) str(col int, s string) {
	w.b = append(w.b, ' ')
	sc := scan(s)
	if sc.invalid {
		// YAML text is Unicode: bytes that are not UTF-8 cannot be
		// written, so they become U+FFFD.
		s = strings.ToValidUTF8(s, "\uFFFD")
		sc = scan(s)
	}
	switch {
	case !sc.multiline && !sc.special:
		if plainSafe(s) {
			w.b = append(w.b, s...)
		} else {
			w.singleQuoted(s)
		}
	case sc.multiline && !sc.special && !sc.spaceBreak && s[len(s)-1] != ' ' && s[len(s)-1] != '\t' &&
		strings.Trim(s, "\n") != "":
		w.literal(col+2, s)
		return // a literal ends with its own newline
	default:
		w.doubleQuoted(s)
	}
	w.b = append(w.b, '\n')
}

// scanned describes a string for choosing its style.
type scanned struct {
	multiline  bool // holds a line feed
	special    bool // holds a character only double quotes can write
	spaceBreak bool // a space or tab comes just before a line feed
	invalid    bool // is not UTF-8
}

func scan(s string) scanned {
	var sc scanned
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			continue // printable ASCII: the common case
		}
		switch {
		case c == '\n':
			sc.multiline = true
			if i > 0 && (s[i-1] == ' ' || s[i-1] == '\t') {
				sc.spaceBreak = true
			}
		case c == '\t':
		case c < 0x20 || c == 0x7f:
			sc.special = true
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				sc.invalid = true
			case !printableRune(r) || r == 0x85 || r == 0x2028 || r == 0x2029 || r == 0xFEFF:
				sc.special = true
			}
			i += size - 1
		}
	}
	return sc
}

// literal writes s as a literal block scalar whose lines are indented to
// col. The header says how to treat the final line breaks (strip, clip or
// keep) and, when the first line starts with a space or a tab or is empty,
// gives the indentation explicitly, since it could not be detected (a tab
// there is an error to a reader left to detect it).
func (w *writer) literal(col int, s string) {
	w.b = append(w.b, '|')
	if s[0] == ' ' || s[0] == '\t' || s[0] == '\n' {
		w.b = append(w.b, '2')
	}
	body := strings.TrimRight(s, "\n")
	switch trailing := len(s) - len(body); {
	case trailing == 0:
		w.b = append(w.b, '-')
	case trailing > 1:
		w.b = append(w.b, '+')
	}
	w.b = append(w.b, '\n')
	for line := range strings.SplitSeq(s[:len(body)], "\n") {
		if line != "" {
			w.indent(col)
			w.b = append(w.b, line...)
		}
		w.b = append(w.b, '\n')
	}
	// Kept line breaks beyond the one ending the last line.
	for i := 1; i < len(s)-len(body); i++ {
		w.b = append(w.b, '\n')
	}
}

func (w *writer) singleQuoted(s string) {
	w.b = append(w.b, '\'')
	for {
		i := strings.IndexByte(s, '\'')
		if i < 0 {
			break
		}
		w.b = append(w.b, s[:i+1]...)
		w.b = append(w.b, '\'')
		s = s[i+1:]
	}
	w.b = append(w.b, s...)
	w.b = append(w.b, '\'')
}

const hexDigits = "0123456789ABCDEF"

func (w *writer) doubleQuoted(s string) {
	w.b = append(w.b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			i++
			continue
		}
		r, size := rune(c), 1
		if c >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
			if printableRune(r) && r != 0x85 && r != 0x2028 && r != 0x2029 && r != 0xFEFF && !(r == utf8.RuneError && size == 1) {
				i += size
				continue
			}
		}
		w.b = append(w.b, s[start:i]...)
		switch r {
		case '"':
			w.b = append(w.b, `\"`...)
		case '\\':
			w.b = append(w.b, `\\`...)
		case '\n':
			w.b = append(w.b, `\n`...)
		case '\t':
			w.b = append(w.b, `\t`...)
		case '\r':
			w.b = append(w.b, `\r`...)
		case 0:
			w.b = append(w.b, `\0`...)
		case 0x85:
			w.b = append(w.b, `\N`...)
		case 0x2028:
			w.b = append(w.b, `\L`...)
		case 0x2029:
			w.b = append(w.b, `\P`...)
		default:
			switch {
			case r < 0x100:
				w.b = append(w.b, '\\', 'x', hexDigits[r>>4], hexDigits[r&15])
			case r < 0x10000:
				w.b = append(w.b, '\\', 'u', hexDigits[r>>12], hexDigits[r>>8&15], hexDigits[r>>4&15], hexDigits[r&15])
			default:
				w.b = append(w.b, '\\', 'U', '0', '0', '0', hexDigits[r>>16&15], hexDigits[r>>12&15], hexDigits[r>>8&15], hexDigits[r>>4&15], hexDigits[r&15])
			}
		}
		i += size
		start = i
	}
	w.b = append(w.b, s[start:]...)
	w.b = append(w.b, '"')
}

// printableRune is YAML's printable set (tab and line breaks included).
func printableRune(r rune) bool {
	switch {
	case r == 0x9 || r == 0xA || r == 0xD || (r >= 0x20 && r <= 0x7E) || r == 0x85:
		return true
	case r >= 0xA0 && r <= 0xD7FF, r >= 0xE000 && r <= 0xFFFD, r >= 0x10000 && r <= 0x10FFFF:
		return true
	}
	return false
}

// plainSafe reports whether s can be written without quotes and read back
// as the same string, by yaml.v3 and by the YAML 1.1 readers (libyaml,
// serde_yaml) alike. It is deliberately strict: a string that might read as
// a number, a boolean, null or a date, or that holds any character with a
// meaning in YAML where it stands, is quoted.
func plainSafe(s string) bool {
	return plainSyntax(s) && !looksScalar(s)
}

// plainSyntax reports whether s can stand unquoted as a value in block
// context: it starts with no indicator ("-" only when a non-space follows)
// and not with "---" or "..." (which, as a key at the start of a line, mark
// a document's start or end), holds no ": " or " #", no line break, tab or
// other control character, and neither starts nor ends with a space.
func plainSyntax(s string) bool {
	if s == "" || s == "<<" || s == "=" {
		return false
	}
	switch s[0] {
	case '-':
		if len(s) == 1 || s[1] == ' ' || strings.HasPrefix(s, "---") {
			return false
		}
	case '.':
		if strings.HasPrefix(s, "...") {
			return false
		}
	case '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`', ' ':
		return false
	}
	if s[len(s)-1] == ' ' || s[len(s)-1] == ':' {
		return false
	}
	prev := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c < 0x20 || c == 0x7f:
			return false // control characters, tabs and line breaks
		case c == ' ' && prev == ':':
			return false // ": " starts a mapping value
		case c == '#' && prev == ' ':
			return false // " #" starts a comment
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(s[i:])
			if !printableRune(r) || r == 0x85 || r == 0x2028 || r == 0x2029 || r == 0xFEFF || r == utf8.RuneError && size == 1 {
				return false
			}
			i += size - 1
		}
		prev = c
	}
	return true
}

// looksScalar reports whether a plain s might be read as something other
// than a string: null, a YAML 1.1 or 1.2 boolean, a number (in any base or
// notation) or a timestamp.
func looksScalar(s string) bool {
	switch s {
	case "~", "null", "Null", "NULL",
		"y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO",
		"true", "True", "TRUE", "false", "False", "FALSE",
		"on", "On", "ON", "off", "Off", "OFF":
		return true
	}
	c := s[0]
	if (c == '+' || c == '-' || c == '.') && len(s) > 1 {
		c = s[1]
		if c == '.' && len(s) > 2 { // "-.5", "+.inf"
			c = s[2]
		}
	}
	if c >= '0' && c <= '9' {
		return true
	}
	if len(s) > 5 {
		return false
	}
	l := strings.ToLower(s)
	return strings.HasSuffix(l, ".inf") || l == ".nan"
}

// singleLinePrintable reports whether s fits in single quotes: one line of
// printable characters.
func singleLinePrintable(s string) bool {
	sc := scan(s)
	return !sc.multiline && !sc.special && !sc.invalid
}

// The generic part of the writer emits yaml.Node trees: JSON values (tool
// arguments and outputs) and the fields this package does not know, kept
// from the file as read.

// valueAfterKey writes n after "key:" written at column col.
func (w *writer) valueAfterKey(col int, n *yaml.Node) {
	switch {
	case n.Kind == yaml.MappingNode && len(n.Content) > 0:
		w.b = append(w.b, '\n')
		w.mapping(col+2, n.Content, false)
	case n.Kind == yaml.SequenceNode && len(n.Content) > 0:
		w.b = append(w.b, '\n')
		w.sequence(col, n.Content, false)
	default:
		w.scalarOrEmpty(col, n)
	}
}

// valueAfterDash writes n after "-" written at column col.
func (w *writer) valueAfterDash(col int, n *yaml.Node) {
	switch {
	case n.Kind == yaml.MappingNode && len(n.Content) > 0:
		w.b = append(w.b, ' ')
		w.mapping(col+2, n.Content, true)
	case n.Kind == yaml.SequenceNode && len(n.Content) > 0:
		w.b = append(w.b, ' ')
		w.sequence(col+2, n.Content, true)
	default:
		w.scalarOrEmpty(col, n)
	}
}

// mapping writes key/value pairs (yaml.Node content order) at column col;
// with inline, the first key follows what is already on the line.
func (w *writer) mapping(col int, kv []*yaml.Node, inline bool) {
	for i := 0; i+1 < len(kv); i += 2 {
		if !(inline && i == 0) {
			w.indent(col)
		}
		w.keyText(col, kv[i].Value)
		w.b = append(w.b, ':')
		w.valueAfterKey(col, kv[i+1])
	}
}

// sequence writes items with their dashes at column col.
func (w *writer) sequence(col int, items []*yaml.Node, inline bool) {
	for i, it := range items {
		if !(inline && i == 0) {
			w.indent(col)
		}
		w.b = append(w.b, '-')
		w.valueAfterDash(col, it)
	}
}

// scalarOrEmpty writes a scalar, an empty collection or null.
func (w *writer) scalarOrEmpty(col int, n *yaml.Node) {
	switch n.Kind {
	case yaml.MappingNode:
		w.b = append(w.b, " {}\n"...)
		return
	case yaml.SequenceNode:
		w.b = append(w.b, " []\n"...)
		return
	case yaml.ScalarNode:
	default: // aliases are refused when reading; nothing else can reach here
		w.b = append(w.b, " null\n"...)
		return
	}
	switch n.ShortTag() {
	case "!!str", "!!binary":
		w.str(col, n.Value)
	case "!!null":
		w.b = append(w.b, " null\n"...)
	case "!!bool", "!!int", "!!float", "!!timestamp":
		// The text as read, which the reader resolved to this type, or as
		// produced from a JSON literal: plain, it reads back the same.
		if !plainSyntax(n.Value) {
			w.str(col, n.Value)
			return
		}
		w.b = append(w.b, ' ')
		w.b = append(w.b, n.Value...)
		w.b = append(w.b, '\n')
	default:
		// A local tag (!foo) has no meaning here: keep the text.
		w.str(col, n.Value)
	}
}
