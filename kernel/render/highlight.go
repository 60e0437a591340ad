package render

import (
	"strings"
	"unicode/utf8"
)

// The highlighter is a small hand-written lexer, one line at a time, with
// an int of state carried between lines (inside a block comment, a
// multi-line string, a YAML block scalar…). Most languages are described by
// data (langDef: words, comment and string delimiters, a few switches)
// and lexed by one generic loop; formats whose shape differs (JSON, YAML,
// TOML, markup, CSS, Markdown, Dockerfile, Makefile, diff) have their own
// loop. It does not aim at a parser's precision, only at colouring
// keywords, types, strings, comments and numbers the way a reader expects.

// lexKind selects the lexing loop of a language.
type lexKind uint8

const (
	lexGeneric lexKind = iota
	lexJSON
	lexYAML
	lexTOML
	lexMarkup
	lexCSS
	lexMarkdown
	lexDocker
	lexMake
	lexDiff
)

// strDef describes a string literal.
type strDef struct {
	open, close string
	esc         byte // the escape character, 0 for none
	dbl         bool // a doubled closing quote stands for the quote
	multi       bool // may continue on the next lines
}

// langDef describes a language for the highlighter.
type langDef struct {
	kind     lexKind
	words    map[string]role // keywords, types, built-ins, constants
	fold     bool            // words are case-insensitive (stored lower-case)
	decl     map[string]role // a keyword whose next identifier is a name being declared
	lineCmt  []string
	blockCmt [][2]string
	strs     []strDef
	prefixes []string // identifiers that may prefix a string (r"", b'', f"")
	sigils   string   // characters that start a variable ($x, @x)
	ops      string   // operator characters
	metas    []string // tokens shown as meta (<?php)

	annot      bool // @name is an annotation
	preproc    bool // # directives at the start of a line
	calls      bool // an identifier before ( is a function
	capsType   bool // a capitalised identifier is a type
	identDash  bool // identifiers may contain -
	identDolar bool // identifiers may contain $
	macroBang  bool // name! is a macro call
	lifetimes  bool // 'a is a lifetime, 'x' a character
	hashAttr   bool // #[attribute]
	symbols    bool // :symbol
	dashParams bool // -flag after a space is a parameter
	hashWord   bool // # starts a comment only at the start of a word
	cmdlets    bool // Verb-Noun identifiers are commands
}

const defaultOps = "=+-*/%<>!&|^~?:"

// hmark is a highlighted range of the line being lexed.
type hmark struct {
	from, to int
	r        role
}

// highlighter lexes lines; its marks are reused from line to line.
type highlighter struct {
	marks []hmark
}

// add marks s[from:to] as r, merging with the previous mark when they
// touch and agree.
func (h *highlighter) add(from, to int, r role) {
	if to <= from {
		return
	}
	if n := len(h.marks); n > 0 && h.marks[n-1].r == r && h.marks[n-1].to == from {
		h.marks[n-1].to = to
		return
	}
	h.marks = append(h.marks, hmark{from, to, r})
}

// line highlights one line of code in lang (nil: plain code), continuing
// from *state and updating it, and appends its spans to dst.
func (h *highlighter) line(dst []span, lang *langDef, s string, state *int) []span {
	if lang == nil {
		return append(dst, span{text: s, st: style{fg: rCode}})
	}
	h.marks = h.marks[:0]
	st := *state
	switch lang.kind {
	case lexJSON:
		st = h.json(s, st)
	case lexYAML:
		st = h.yaml(s, st)
	case lexTOML:
		st = h.toml(s, st)
	case lexMarkup:
		st = h.markup(s, st)
	case lexCSS:
		st = h.css(s, st)
	case lexMarkdown:
		st = h.markdown(s, st)
	case lexDocker:
		st = h.docker(lang, s, st)
	case lexMake:
		st = h.makefile(lang, s)
	case lexDiff:
		h.diff(s)
		st = 0
	default:
		st = h.generic(lang, s, 0, st)
	}
	*state = st
	at := 0
	for _, m := range h.marks {
		if m.to <= at {
			continue
		}
		m.from = max(m.from, at)
		if m.from > at {
			dst = append(dst, span{text: s[at:m.from], st: style{fg: rCode}})
		}
		dst = append(dst, span{text: s[m.from:m.to], st: style{fg: m.r}})
		at = m.to
	}
	if at < len(s) {
		dst = append(dst, span{text: s[at:], st: style{fg: rCode}})
	}
	return dst
}

func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isUpper(c byte) bool  { return c >= 'A' && c <= 'Z' }
func isHex(c byte) bool    { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// isWordByte reports whether c can be part of an identifier; bytes of
// non-ASCII characters always can, which also keeps the lexer from cutting
// inside a character.
func isWordByte(c byte) bool {
	return isLetter(c) || isDigit(c) || c == '_' || c >= utf8.RuneSelf
}

func (l *langDef) identStart(c byte) bool {
	return isLetter(c) || c == '_' || c >= utf8.RuneSelf || (l.identDolar && c == '$')
}

func (l *langDef) identByte(c byte) bool {
	return isWordByte(c) || (l.identDash && c == '-') || (l.identDolar && c == '$')
}

// scanWord returns the end of the identifier at s[i].
func (l *langDef) scanWord(s string, i int) int {
	j := i + 1
	for j < len(s) && l.identByte(s[j]) {
		j++
	}
	if l.identDash {
		for j > i+1 && s[j-1] == '-' {
			j--
		}
	}
	return j
}

func (l *langDef) lookup(w string) (role, bool) {
	if l.fold {
		w = strings.ToLower(w)
	}
	r, ok := l.words[w]
	return r, ok
}

// nextNonSpace is the first byte from s[i] that is not a space, or 0.
func nextNonSpace(s string, i int) byte {
	for i < len(s) && s[i] == ' ' {
		i++
	}
	if i < len(s) {
		return s[i]
	}
	return 0
}

// scanNumber returns the end of the number at s[i]: decimal with
// underscores, fraction and exponent, hex/binary/octal, and a suffix.
func scanNumber(s string, i int) int {
	j := i
	if s[j] == '0' && j+1 < len(s) && strings.IndexByte("xXbBoO", s[j+1]) >= 0 {
		j += 2
		for j < len(s) && (isHex(s[j]) || s[j] == '_') {
			j++
		}
	} else {
		for j < len(s) {
			c := s[j]
			switch {
			case isDigit(c) || c == '_':
				j++
				continue
			case c == '.' && j+1 < len(s) && isDigit(s[j+1]):
				j++
				continue
			case (c == 'e' || c == 'E') && j+1 < len(s) && (isDigit(s[j+1]) || (s[j+1] == '+' || s[j+1] == '-') && j+2 < len(s) && isDigit(s[j+2])):
				j += 2
				continue
			}
			break
		}
	}
	for j < len(s) && isWordByte(s[j]) {
		j++
	}
	return j
}

// str marks the string literal whose body starts at s[from] (after the
// opening delimiter at s[start]) up to its close, escapes in their own
// colour. It returns where lexing resumes and whether the string closed.
func (h *highlighter) str(s string, start, from int, d *strDef, r role) (int, bool) {
	h.add(start, from, r)
	j := from
	for j < len(s) {
		c := s[j]
		if d.esc != 0 && c == d.esc {
			h.add(from, j, r)
			e := min(j+2, len(s))
			if r == rString {
				h.add(j, e, rEscape)
			} else {
				h.add(j, e, r)
			}
			j, from = e, e
			continue
		}
		if c == d.close[0] && strings.HasPrefix(s[j:], d.close) {
			if d.dbl && strings.HasPrefix(s[j+len(d.close):], d.close) {
				j += 2 * len(d.close)
				continue
			}
			h.add(from, j+len(d.close), r)
			return j + len(d.close), true
		}
		j++
	}
	h.add(from, len(s), r)
	return len(s), false
}

// scanVar returns the end of the variable starting with a sigil at s[i]
// ($name, ${…}, $(NAME), $1, $@, @name, @@name), or i when there is none.
func scanVar(s string, i int) int {
	j := i + 1
	if j >= len(s) {
		return i
	}
	switch c := s[j]; {
	case c == '{':
		if e := strings.IndexByte(s[j:], '}'); e > 0 {
			return j + e + 1
		}
		return i
	case c == '(':
		k := j + 1
		for k < len(s) && (isWordByte(s[k]) || s[k] == '.') {
			k++
		}
		if k > j+1 && k < len(s) && s[k] == ')' {
			return k + 1
		}
		return i
	case s[i] == '$' && strings.IndexByte("@*#?$!-0123456789^<%+", c) >= 0:
		return j + 1
	case s[i] == '@' && c == '@':
		j++
	}
	k := j
	for k < len(s) && isWordByte(s[k]) {
		k++
	}
	if k == j || isDigit(s[j]) {
		return i
	}
	return k
}

// Generic lexer states: 0 is code; 1+k is inside block comment k; 64+k is
// inside string k.
const stString = 64

// generic lexes s from s[i] for a language described by data.
func (h *highlighter) generic(l *langDef, s string, i, st int) int {
	switch {
	case st >= stString && st-stString < len(l.strs):
		end, closed := h.str(s, i, i, &l.strs[st-stString], rString)
		if !closed {
			return st
		}
		i = end
	case st >= 1 && st-1 < len(l.blockCmt):
		cl := l.blockCmt[st-1][1]
		e := strings.Index(s[i:], cl)
		if e < 0 {
			h.add(i, len(s), rComment)
			return st
		}
		h.add(i, i+e+len(cl), rComment)
		i += e + len(cl)
	}
	ops := l.ops
	if ops == "" {
		ops = defaultOps
	}
	var declNext role
next:
	for i < len(s) {
		c := s[i]
		if c == ' ' {
			i++
			continue
		}
		for k, bc := range l.blockCmt {
			if c == bc[0][0] && strings.HasPrefix(s[i:], bc[0]) {
				e := strings.Index(s[i+len(bc[0]):], bc[1])
				if e < 0 {
					h.add(i, len(s), rComment)
					return 1 + k
				}
				end := i + len(bc[0]) + e + len(bc[1])
				h.add(i, end, rComment)
				i = end
				continue next
			}
		}
		for _, lc := range l.lineCmt {
			if c == lc[0] && strings.HasPrefix(s[i:], lc) && (!l.hashWord || lc != "#" || i == 0 || s[i-1] == ' ') {
				h.add(i, len(s), rComment)
				return 0
			}
		}
		for _, m := range l.metas {
			if c == m[0] && strings.HasPrefix(s[i:], m) {
				h.add(i, i+len(m), rMeta)
				i += len(m)
				continue next
			}
		}
		for k := range l.strs {
			d := &l.strs[k]
			if c != d.open[0] || !strings.HasPrefix(s[i:], d.open) || (isLetter(c) && i > 0 && l.identByte(s[i-1])) {
				continue
			}
			end, closed := h.str(s, i, i+len(d.open), d, rString)
			if !closed && d.multi {
				return stString + k
			}
			i = end
			declNext = 0
			continue next
		}
		switch {
		case l.preproc && c == '#' && strings.TrimLeft(s[:i], " ") == "":
			j := i + 1
			for j < len(s) && s[j] == ' ' {
				j++
			}
			w := j
			for j < len(s) && isWordByte(s[j]) {
				j++
			}
			h.add(i, j, rMeta)
			if word := s[w:j]; word == "include" || word == "import" {
				h.add(j, len(s), rString)
				return 0
			}
			i = j
			continue
		case l.hashAttr && c == '#' && (strings.HasPrefix(s[i:], "#[") || strings.HasPrefix(s[i:], "#![")):
			e := strings.IndexByte(s[i:], ']')
			if e < 0 {
				e = len(s) - i - 1
			}
			h.add(i, i+e+1, rMeta)
			i += e + 1
			continue
		case isDigit(c) || c == '.' && i+1 < len(s) && isDigit(s[i+1]):
			j := scanNumber(s, i)
			h.add(i, j, rNumber)
			i = j
			continue
		case l.sigils != "" && strings.IndexByte(l.sigils, c) >= 0:
			if j := scanVar(s, i); j > i {
				r := rVariable
				if wr, ok := l.lookup(s[i:j]); ok {
					r = wr
				}
				h.add(i, j, r)
				i = j
				continue
			}
		case l.annot && c == '@' && i+1 < len(s) && l.identStart(s[i+1]):
			j := i + 1
			for j < len(s) && (isWordByte(s[j]) || s[j] == '.') {
				j++
			}
			h.add(i, j, rMeta)
			i = j
			continue
		case l.symbols && c == ':' && i+1 < len(s) && l.identStart(s[i+1]) && (i == 0 || s[i-1] != ':' && !isWordByte(s[i-1])):
			j := l.scanWord(s, i+1)
			h.add(i, j, rBuiltin)
			i = j
			continue
		case l.lifetimes && c == '\'':
			if j := charLiteral(s, i); j > i {
				h.add(i, j, rString)
				i = j
				continue
			}
			if i+1 < len(s) && l.identStart(s[i+1]) {
				j := l.scanWord(s, i+1)
				h.add(i, j, rKeyword)
				i = j
				continue
			}
		case l.dashParams && c == '-' && (i == 0 || s[i-1] == ' ') && i+1 < len(s) && (isLetter(s[i+1]) || s[i+1] == '-'):
			j := i + 1
			for j < len(s) && (isWordByte(s[j]) || s[j] == '-') {
				j++
			}
			r := rVariable
			if wr, ok := l.lookup(s[i:j]); ok {
				r = wr
			}
			h.add(i, j, r)
			i = j
			continue
		}
		if l.identStart(c) {
			j := l.scanWord(s, i)
			word := s[i:j]
			if j < len(s) && (s[j] == '"' || s[j] == '\'') && l.isPrefix(word) {
				for k := range l.strs {
					d := &l.strs[k]
					if strings.HasPrefix(s[j:], d.open) {
						end, closed := h.str(s, i, j+len(d.open), d, rString)
						if !closed && d.multi {
							return stString + k
						}
						i = end
						continue next
					}
				}
			}
			r := rCode
			if wr, ok := l.lookup(word); ok {
				r = wr
				if l.fold {
					word = strings.ToLower(word)
				}
				declNext = l.decl[word]
			} else {
				switch {
				case declNext != 0:
					r = declNext
				case l.macroBang && j < len(s) && s[j] == '!':
					j++
					r = rFunction
				case l.calls && nextNonSpace(s, j) == '(':
					r = rFunction
				case l.cmdlets && strings.IndexByte(word, '-') > 0 && isUpper(word[0]):
					r = rFunction
				case l.capsType && isUpper(word[0]):
					r = rType
				}
				declNext = 0
			}
			h.add(i, j, r)
			i = j
			continue
		}
		if strings.IndexByte(ops, c) >= 0 {
			h.add(i, i+1, rOperator)
		}
		if c != '*' && c != '&' {
			declNext = 0
		}
		i++
	}
	return 0
}

func (l *langDef) isPrefix(w string) bool {
	w = strings.ToLower(w)
	for _, p := range l.prefixes {
		if p == w {
			return true
		}
	}
	return false
}

// charLiteral returns the end of a character literal at s[i] ('a', '\n',
// '\u{1F600}'), or i.
func charLiteral(s string, i int) int {
	j := i + 1
	if j >= len(s) {
		return i
	}
	if s[j] == '\\' {
		if e := strings.IndexByte(s[j+1:], '\''); e >= 0 {
			return j + 1 + e + 1
		}
		return i
	}
	_, size := utf8.DecodeRuneInString(s[j:])
	if j+size < len(s) && s[j+size] == '\'' {
		return j + size + 1
	}
	return i
}

// json lexes JSON (with // and /* */ comments, as in JSONC). State 1 is
// inside a block comment.
func (h *highlighter) json(s string, st int) int {
	i := 0
	if st == 1 {
		e := strings.Index(s, "*/")
		if e < 0 {
			h.add(0, len(s), rComment)
			return 1
		}
		h.add(0, e+2, rComment)
		i = e + 2
	}
	d := strDef{open: `"`, close: `"`, esc: '\\'}
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			end, _ := h.strEnd(s, i, &d)
			if nextNonSpace(s, end) == ':' {
				h.add(i, end, rTag)
				i = end
			} else {
				i, _ = h.str(s, i, i+1, &d, rString)
			}
		case strings.HasPrefix(s[i:], "//"):
			h.add(i, len(s), rComment)
			return 0
		case strings.HasPrefix(s[i:], "/*"):
			e := strings.Index(s[i+2:], "*/")
			if e < 0 {
				h.add(i, len(s), rComment)
				return 1
			}
			h.add(i, i+e+4, rComment)
			i += e + 4
		case isDigit(c) || c == '-' && i+1 < len(s) && isDigit(s[i+1]):
			start := i
			if c == '-' {
				start++
			}
			j := scanNumber(s, start)
			h.add(i, j, rNumber)
			i = j
		case isLetter(c):
			j := i
			for j < len(s) && isLetter(s[j]) {
				j++
			}
			switch s[i:j] {
			case "true", "false", "null":
				h.add(i, j, rBuiltin)
			}
			i = j
		default:
			i++
		}
	}
	return 0
}

// strEnd finds the end of the string at s[i] without marking it.
func (h *highlighter) strEnd(s string, i int, d *strDef) (int, bool) {
	for j := i + len(d.open); j < len(s); j++ {
		if d.esc != 0 && s[j] == d.esc {
			j++
			continue
		}
		if strings.HasPrefix(s[j:], d.close) {
			return j + len(d.close), true
		}
	}
	return len(s), false
}

var (
	dq = strDef{open: `"`, close: `"`, esc: '\\'}
	sq = strDef{open: `'`, close: `'`, dbl: true}
)

// YAML states: 0, or yamlBlock+n inside a block scalar (| or >) whose key
// sits at column n: lines indented deeper (and blank lines) are its text.
const yamlBlock = 1000

func (h *highlighter) yaml(s string, st int) int {
	ind := leadingSpaces(s)
	if st >= yamlBlock {
		if ind == len(s) || ind > st-yamlBlock {
			h.add(0, len(s), rString)
			return st
		}
	}
	i := ind
	rest := s[i:]
	switch {
	case rest == "":
		return 0
	case rest[0] == '#':
		h.add(i, len(s), rComment)
		return 0
	case rest == "---" || rest == "..." || strings.HasPrefix(rest, "--- "):
		h.add(i, i+3, rMeta)
		i += 3
	}
	for i < len(s) && s[i] == '-' && (i+1 == len(s) || s[i+1] == ' ') {
		h.add(i, i+1, rOperator)
		i++
		for i < len(s) && s[i] == ' ' {
			i++
		}
	}
	keyCol := i
	if colon := yamlKey(s, i); colon > 0 {
		h.add(i, colon, rTag)
		h.add(colon, colon+1, rOperator)
		i = colon + 1
	}
	return h.yamlValue(s, i, keyCol)
}

// yamlKey returns the position of the colon ending the mapping key at
// s[i], or 0.
func yamlKey(s string, i int) int {
	if i >= len(s) {
		return 0
	}
	j := i
	switch s[i] {
	case '"', '\'':
		e := strings.IndexByte(s[i+1:], s[i])
		if e < 0 {
			return 0
		}
		j = i + 1 + e + 1
		for j < len(s) && s[j] == ' ' {
			j++
		}
	case '{', '[', '&', '*', '!', '|', '>', '%', '@', '`', '#', ',':
		return 0
	default:
		for j < len(s) {
			if s[j] == ':' && (j+1 == len(s) || s[j+1] == ' ') {
				break
			}
			if s[j] == '#' && j > i && s[j-1] == ' ' {
				return 0
			}
			j++
		}
	}
	if j < len(s) && s[j] == ':' && (j+1 == len(s) || s[j+1] == ' ') {
		return j
	}
	return 0
}

func (h *highlighter) yamlValue(s string, i, keyCol int) int {
	for i < len(s) && s[i] == ' ' {
		i++
	}
	if i < len(s) && (s[i] == '|' || s[i] == '>') {
		j := i + 1
		for j < len(s) && strings.IndexByte("+-0123456789", s[j]) >= 0 {
			j++
		}
		if rest := strings.TrimLeft(s[j:], " "); rest == "" || rest[0] == '#' {
			h.add(i, j, rOperator)
			if rest != "" {
				h.add(len(s)-len(rest), len(s), rComment)
			}
			return yamlBlock + keyCol
		}
	}
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ':
			i++
		case c == '#' && (i == 0 || s[i-1] == ' '):
			h.add(i, len(s), rComment)
			return 0
		case c == '"':
			i, _ = h.str(s, i, i+1, &dq, rString)
		case c == '\'':
			i, _ = h.str(s, i, i+1, &sq, rString)
		case c == '&' || c == '*':
			j := i + 1
			for j < len(s) && s[j] != ' ' && s[j] != ',' && s[j] != ']' && s[j] != '}' {
				j++
			}
			h.add(i, j, rVariable)
			i = j
		case c == '!':
			j := i + 1
			for j < len(s) && s[j] != ' ' {
				j++
			}
			h.add(i, j, rMeta)
			i = j
		case strings.IndexByte("{}[],", c) >= 0:
			i++
		default:
			j := i
			for j < len(s) && strings.IndexByte("{}[],", s[j]) < 0 && !(s[j] == '#' && s[j-1] == ' ') {
				j++
			}
			word := strings.TrimRight(s[i:j], " ")
			if colon := yamlKey(s[:i+len(word)], i); colon > 0 {
				h.add(i, colon, rTag)
				j = colon + 1
			} else {
				h.add(i, i+len(word), scalarRole(word))
			}
			i = j
		}
	}
	return 0
}

// scalarRole colours a plain YAML or TOML scalar: numbers, booleans,
// null.
func scalarRole(w string) role {
	switch strings.ToLower(w) {
	case "true", "false", "yes", "no", "on", "off", "null", "~", ".inf", "-.inf", ".nan":
		return rBuiltin
	}
	if w != "" && (isDigit(w[0]) || (w[0] == '-' || w[0] == '+' || w[0] == '.') && len(w) > 1 && isDigit(w[1])) {
		for i := 0; i < len(w); i++ {
			if c := w[i]; !isDigit(c) && strings.IndexByte("+-._:eExXoObBabcdefABCDEFTZ ", c) < 0 {
				return rCode
			}
		}
		return rNumber
	}
	return rCode
}

// TOML states: 1 inside """ and 2 inside ”' strings.
var tomlStrs = [...]strDef{
	{open: `"""`, close: `"""`, esc: '\\', multi: true},
	{open: `'''`, close: `'''`, multi: true},
	{open: `"`, close: `"`, esc: '\\'},
	{open: `'`, close: `'`},
}

func (h *highlighter) toml(s string, st int) int {
	i := 0
	if st == 1 || st == 2 {
		end, closed := h.str(s, 0, 0, &tomlStrs[st-1], rString)
		if !closed {
			return st
		}
		i = end
	}
	if st == 0 {
		ind := leadingSpaces(s)
		if ind < len(s) && s[ind] == '[' {
			e := strings.LastIndexByte(s, ']')
			if e > ind {
				h.add(ind, e+1, rType)
				i = e + 1
			}
		}
	}
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ':
			i++
			continue
		case c == '#':
			h.add(i, len(s), rComment)
			return 0
		case c == '"' || c == '\'':
			for k := range tomlStrs {
				d := &tomlStrs[k]
				if strings.HasPrefix(s[i:], d.open) {
					if end, closed := h.strEnd(s, i, d); closed && !d.multi && nextNonSpace(s, end) == '=' {
						h.add(i, end, rTag)
						i = end
						break
					}
					end, closed := h.str(s, i, i+len(d.open), d, rString)
					if !closed && d.multi {
						return k + 1
					}
					i = end
					break
				}
			}
			continue
		case isWordByte(c) || c == '-' || c == '+' || c == '.':
			j := i
			for j < len(s) && (isWordByte(s[j]) || strings.IndexByte("-+.:", s[j]) >= 0) {
				j++
			}
			w := s[i:j]
			switch {
			case nextNonSpace(s, j) == '=':
				h.add(i, j, rTag)
			case w == "true" || w == "false":
				h.add(i, j, rBuiltin)
			case w == "inf" || w == "nan" || w == "+inf" || w == "-inf" || isDigit(w[0]) || len(w) > 1 && isDigit(w[1]):
				h.add(i, j, rNumber)
			}
			i = j
			continue
		case c == '=':
			h.add(i, i+1, rOperator)
		}
		i++
	}
	return 0
}

// Markup states: 0 text, 1 inside a tag, 2 inside a comment, 3 inside a
// CDATA section.
func (h *highlighter) markup(s string, st int) int {
	i := 0
	for i < len(s) {
		switch st {
		case 2, 3:
			cl := "-->"
			if st == 3 {
				cl = "]]>"
			}
			r := rComment
			if st == 3 {
				r = rMeta
			}
			e := strings.Index(s[i:], cl)
			if e < 0 {
				h.add(i, len(s), r)
				return st
			}
			h.add(i, i+e+len(cl), r)
			i += e + len(cl)
			st = 0
		case 1:
			c := s[i]
			switch {
			case c == '>':
				i++
				st = 0
			case c == '/' && i+1 < len(s) && s[i+1] == '>':
				i += 2
				st = 0
			case c == '"' || c == '\'':
				d := strDef{open: s[i : i+1], close: s[i : i+1]}
				i, _ = h.str(s, i, i+1, &d, rString)
			case c == '=':
				h.add(i, i+1, rOperator)
				i++
			case isLetter(c) || c == '_' || c == ':' || c == '@' || c == '[' || c == '(' || c == '*' || c == '#':
				j := i + 1
				for j < len(s) && (isWordByte(s[j]) || strings.IndexByte("-:._[]()", s[j]) >= 0) {
					j++
				}
				h.add(i, j, rAttr)
				i = j
			default:
				i++
			}
		default:
			e := strings.IndexAny(s[i:], "<&")
			if e < 0 {
				return 0
			}
			i += e
			rest := s[i:]
			switch {
			case strings.HasPrefix(rest, "<!--"):
				h.add(i, i+4, rComment)
				i += 4
				st = 2
			case strings.HasPrefix(rest, "<![CDATA["):
				h.add(i, i+9, rMeta)
				i += 9
				st = 3
			case strings.HasPrefix(rest, "<!") || strings.HasPrefix(rest, "<?"):
				e := strings.IndexByte(rest, '>')
				if e < 0 {
					h.add(i, len(s), rMeta)
					return 0
				}
				h.add(i, i+e+1, rMeta)
				i += e + 1
			case rest[0] == '<':
				j := i + 1
				if j < len(s) && s[j] == '/' {
					j++
				}
				k := j
				for k < len(s) && (isWordByte(s[k]) || strings.IndexByte("-:.", s[k]) >= 0) {
					k++
				}
				if k == j {
					i++
					continue
				}
				h.add(j, k, rTag)
				i = k
				st = 1
			default: // &entity;
				j := i + 1
				for j < len(s) && (isWordByte(s[j]) || s[j] == '#') {
					j++
				}
				if j < len(s) && s[j] == ';' && j > i+1 {
					h.add(i, j+1, rBuiltin)
					i = j + 1
				} else {
					i++
				}
			}
		}
	}
	return st
}

// CSS state: the brace depth, plus cssComment inside a comment.
const cssComment = 1 << 16

func (h *highlighter) css(s string, st int) int {
	depth := st &^ cssComment
	i := 0
	if st&cssComment != 0 {
		e := strings.Index(s, "*/")
		if e < 0 {
			h.add(0, len(s), rComment)
			return st
		}
		h.add(0, e+2, rComment)
		i = e + 2
	}
	value := false // after a property's colon
	for i < len(s) {
		c := s[i]
		rest := s[i:]
		selector := depth == 0
		if !selector {
			// nested rules (SCSS, CSS nesting): a brace before any colon
			b, col, semi := strings.IndexByte(rest, '{'), strings.IndexByte(rest, ':'), strings.IndexByte(rest, ';')
			selector = !value && b >= 0 && (col < 0 || b < col || col+1 < len(rest) && rest[col+1] != ' ') && (semi < 0 || b < semi)
		}
		switch {
		case c == ' ':
			i++
		case strings.HasPrefix(rest, "/*"):
			e := strings.Index(s[i+2:], "*/")
			if e < 0 {
				h.add(i, len(s), rComment)
				return depth | cssComment
			}
			h.add(i, i+e+4, rComment)
			i += e + 4
		case strings.HasPrefix(rest, "//") && (i == 0 || s[i-1] == ' '):
			h.add(i, len(s), rComment)
			return depth
		case c == '"' || c == '\'':
			d := strDef{open: s[i : i+1], close: s[i : i+1], esc: '\\'}
			i, _ = h.str(s, i, i+1, &d, rString)
		case c == '{':
			depth++
			value = false
			i++
		case c == '}':
			if depth > 0 {
				depth--
			}
			value = false
			i++
		case c == ';':
			value = false
			i++
		case c == '@':
			j := i + 1
			for j < len(s) && (isWordByte(s[j]) || s[j] == '-') {
				j++
			}
			h.add(i, j, rKeyword)
			i = j
		case c == '$' || strings.HasPrefix(rest, "--"):
			j := i + 1
			for j < len(s) && (isWordByte(s[j]) || s[j] == '-') {
				j++
			}
			h.add(i, j, rVariable)
			i = j
		case selector:
			j := i + 1
			switch {
			case c == '.' || c == '#' || c == ':':
				for j < len(s) && s[j] == ':' {
					j++
				}
				for j < len(s) && (isWordByte(s[j]) || s[j] == '-') {
					j++
				}
				r := rFunction
				if c == ':' {
					r = rAttr
				}
				h.add(i, j, r)
			case isLetter(c) || c == '-':
				for j < len(s) && (isWordByte(s[j]) || s[j] == '-') {
					j++
				}
				h.add(i, j, rTag)
			case strings.IndexByte(">+~*,&", c) >= 0:
				h.add(i, j, rOperator)
			}
			i = j
		case !value && (isLetter(c) || c == '-'):
			j := i + 1
			for j < len(s) && (isWordByte(s[j]) || s[j] == '-') {
				j++
			}
			if nextNonSpace(s, j) == ':' {
				h.add(i, j, rType)
				value = true
			}
			i = j
		case c == ':':
			value = true
			i++
		case isDigit(c) || (c == '.' || c == '-') && i+1 < len(s) && isDigit(s[i+1]):
			j := i + 1
			for j < len(s) && (isDigit(s[j]) || s[j] == '.') {
				j++
			}
			h.add(i, j, rNumber)
			k := j
			for k < len(s) && (isLetter(s[k]) || s[k] == '%') {
				k++
			}
			h.add(j, k, rKeyword)
			i = k
		case c == '#':
			j := i + 1
			for j < len(s) && isHex(s[j]) {
				j++
			}
			h.add(i, j, rNumber)
			i = j
		case c == '!':
			j := i + 1
			for j < len(s) && isLetter(s[j]) {
				j++
			}
			h.add(i, j, rKeyword)
			i = j
		case isLetter(c):
			j := i + 1
			for j < len(s) && (isWordByte(s[j]) || s[j] == '-') {
				j++
			}
			if j < len(s) && s[j] == '(' {
				h.add(i, j, rFunction)
			}
			i = j
		default:
			i++
		}
	}
	return depth
}

// markdown lexes Markdown source shown as code. State 1 is inside a fenced
// block.
func (h *highlighter) markdown(s string, st int) int {
	t := strings.TrimLeft(s, " ")
	at := len(s) - len(t)
	if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
		h.add(at, len(s), rMeta)
		return 1 - st
	}
	if st == 1 {
		h.add(0, len(s), rString)
		return 1
	}
	switch {
	case t == "":
		return 0
	case t[0] == '#':
		h.add(at, len(s), rKeyword)
		return 0
	case t[0] == '>':
		h.add(at, len(s), rComment)
		return 0
	case isRule(t):
		h.add(at, len(s), rComment)
		return 0
	}
	i := at
	if it, ok := listItem(t); ok {
		i = len(s) - len(it.text)
		h.add(at, i, rOperator)
	}
	for i < len(s) {
		switch c := s[i]; c {
		case '`':
			n := runLen(s, i, '`')
			if e, ok := codeClose(s, i+n, n); ok {
				h.add(i, e+n, rString)
				i = e + n
				continue
			}
			i += n
		case '*', '_':
			n := runLen(s, i, c)
			h.add(i, i+n, rOperator)
			i += n
		case '[':
			if label, _, end, ok := parseLink(s, i); ok {
				h.add(i, i+len(label)+2, rString)
				h.add(i+len(label)+2, end, rFunction)
				i = end
				continue
			}
			i++
		default:
			i++
		}
	}
	return 0
}

// Dockerfile: the instruction at the start of a line, then the line lexed
// as shell; a line ending in a backslash continues the instruction. State:
// the shell's own, plus dockerCont when continuing.
const dockerCont = 1 << 16

// dockerInstruction reports whether w (upper-case) is a Dockerfile
// instruction.
func dockerInstruction(w string) bool {
	switch w {
	case "FROM", "RUN", "CMD", "LABEL", "EXPOSE", "ENV", "ADD", "COPY", "ENTRYPOINT", "VOLUME", "USER",
		"WORKDIR", "ARG", "ONBUILD", "STOPSIGNAL", "HEALTHCHECK", "SHELL", "MAINTAINER":
		return true
	}
	return false
}

func (h *highlighter) docker(l *langDef, s string, st int) int {
	i := leadingSpaces(s)
	if st&dockerCont == 0 {
		if i < len(s) && s[i] == '#' {
			h.add(i, len(s), rComment)
			return 0
		}
		j := i
		for j < len(s) && isLetter(s[j]) {
			j++
		}
		if w := strings.ToUpper(s[i:j]); dockerInstruction(w) {
			h.add(i, j, rKeyword)
			if w == "FROM" {
				if k := strings.Index(strings.ToUpper(s), " AS "); k > j {
					h.generic(l, s[:k+1], j, 0)
					h.add(k+1, k+3, rKeyword)
					h.add(k+4, len(s), rType)
					return 0
				}
			}
			i = j
		}
	}
	sh := h.generic(l, s, i, st&^dockerCont)
	if strings.HasSuffix(strings.TrimRight(s, " "), "\\") {
		return sh | dockerCont
	}
	return sh
}

// makeFunc reports whether w is a GNU make function.
func makeFunc(w string) bool {
	switch w {
	case "subst", "patsubst", "strip", "findstring", "filter", "filter-out", "sort", "word", "words",
		"wordlist", "firstword", "lastword", "dir", "notdir", "suffix", "basename", "addsuffix",
		"addprefix", "join", "wildcard", "realpath", "abspath", "if", "or", "and", "foreach", "file",
		"call", "value", "eval", "origin", "flavor", "shell", "error", "warning", "info":
		return true
	}
	return false
}

// makeDirective reports whether w is a make directive.
func makeDirective(w string) bool {
	switch w {
	case "ifeq", "ifneq", "ifdef", "ifndef", "else", "endif", "include", "-include", "sinclude",
		"define", "endef", "export", "unexport", "override", "vpath", "private":
		return true
	}
	return false
}

// makefile lexes a Makefile line: recipe lines (indented) as shell, the
// rest as directives, assignments and rules.
func (h *highlighter) makefile(l *langDef, s string) int {
	ind := leadingSpaces(s)
	if strings.HasPrefix(s, "\t") || ind > 0 && ind < len(s) && s[ind] != '#' {
		h.generic(l, s, ind, 0)
		return 0
	}
	if ind < len(s) && s[ind] == '#' {
		h.add(ind, len(s), rComment)
		return 0
	}
	j := ind
	for j < len(s) && (isWordByte(s[j]) || s[j] == '-') {
		j++
	}
	if makeDirective(s[ind:j]) {
		h.add(ind, j, rKeyword)
		h.makeValue(s, j)
		return 0
	}
	// the first : or assignment outside $(…)
	depth := 0
	for k := ind; k < len(s); k++ {
		switch c := s[k]; c {
		case '(', '{':
			depth++
		case ')', '}':
			depth--
		case '#':
			if depth == 0 {
				h.makeValue(s, ind)
				return 0
			}
		case '=', ':', '?', '+', '!':
			if depth > 0 {
				continue
			}
			op := k
			for op < len(s) && strings.IndexByte(":?+!", s[op]) >= 0 {
				op++
			}
			name := strings.TrimRight(s[:k], " ")
			if op < len(s) && s[op] == '=' {
				h.add(ind, len(name), rVariable)
				h.add(k, op+1, rOperator)
				h.makeValue(s, op+1)
				return 0
			}
			if c == '=' {
				h.add(ind, len(name), rVariable)
				h.add(k, k+1, rOperator)
				h.makeValue(s, k+1)
				return 0
			}
			if c == ':' {
				r := rFunction
				if s[ind] == '.' {
					r = rMeta
				}
				h.add(ind, k, r)
				h.add(k, k+1, rOperator)
				rest := k + 1
				if semi := strings.IndexByte(s[rest:], ';'); semi >= 0 {
					h.makeValue(s[:rest+semi], rest)
					h.generic(l, s, rest+semi+1, 0)
					return 0
				}
				h.makeValue(s, rest)
				return 0
			}
		}
	}
	h.makeValue(s, ind)
	return 0
}

// makeValue lexes make variable references and comments from s[i].
func (h *highlighter) makeValue(s string, i int) {
	for i < len(s) {
		c := s[i]
		switch {
		case c == '#':
			h.add(i, len(s), rComment)
			return
		case c == '$' && i+1 < len(s):
			switch n := s[i+1]; {
			case n == '$':
				h.add(i, i+2, rEscape)
				i += 2
			case n == '(' || n == '{':
				cl := byte(')')
				if n == '{' {
					cl = '}'
				}
				depth, j := 0, i+1
				for j < len(s) {
					if s[j] == n {
						depth++
					} else if s[j] == cl {
						depth--
						if depth == 0 {
							break
						}
					}
					j++
				}
				end := min(j+1, len(s))
				w := i + 2
				k := w
				for k < len(s) && (isWordByte(s[k]) || s[k] == '-') {
					k++
				}
				if makeFunc(s[w:k]) && k < len(s) && s[k] == ' ' {
					h.add(i, w, rVariable)
					h.add(w, k, rBuiltin)
					h.makeValue(s[:max(end-1, k)], k)
					h.add(end-1, end, rVariable)
				} else {
					h.add(i, end, rVariable)
				}
				i = end
			default:
				h.add(i, i+2, rVariable)
				i += 2
			}
		default:
			i++
		}
	}
}

func (h *highlighter) diff(s string) {
	switch {
	case strings.HasPrefix(s, "+++") || strings.HasPrefix(s, "---") ||
		strings.HasPrefix(s, "diff ") || strings.HasPrefix(s, "index "):
		h.add(0, len(s), rMeta)
	case strings.HasPrefix(s, "@@"):
		h.add(0, len(s), rType)
	case strings.HasPrefix(s, "+") || strings.HasPrefix(s, ">"):
		h.add(0, len(s), rInserted)
	case strings.HasPrefix(s, "-") || strings.HasPrefix(s, "<"):
		h.add(0, len(s), rDeleted)
	}
}
