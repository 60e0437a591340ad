package render

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Inline markdown is parsed per line: code spans, backslash escapes,
// emphasis (*, _, and ~~ for strikethrough, with CommonMark's flanking
// rules and its delimiter matching), links and images, autolinks and bare
// http(s) URLs. Emphasis does not continue from one line to the next.

const (
	nText = iota
	nCode
	nDelim
	nLink
)

// Effects a delimiter has once matched, indexed by what they toggle.
const (
	eBold = iota
	eItalic
	eStrike
	nEffects
)

// inode is a piece of a parsed line.
type inode struct {
	kind     uint8
	text     string // text, code, or a link's destination
	sub      []span // a link's text, parsed
	bare     bool   // a link written as its URL
	ch       byte   // a delimiter's character
	n, orig  int    // a delimiter run's remaining and original length
	canOpen  bool
	canClose bool
	active   bool
	opens    [nEffects]int8
	closes   [nEffects]int8
}

// maxScan bounds how far ahead a code span or a link's closing bracket is
// looked for, which keeps pathological lines linear.
const maxScan = 4096

// inline parses text and appends its spans, drawn on top of base. Without
// colours the text is kept as written.
func (s *Stream) inline(dst []span, text string, base style) []span {
	if s.pal == nil {
		return append(dst, span{text: text, st: base})
	}
	s.nodes = tokenize(s.nodes[:0], text, s.opts.Hyperlinks)
	matchEmphasis(s.nodes)
	return emitNodes(dst, s.nodes, base, s.opts.Hyperlinks)
}

// parseSpans parses the text of a link on its own (its emphasis cannot
// pair with delimiters outside it).
func parseSpans(text string, links bool) []span {
	nodes := tokenize(nil, text, links)
	matchEmphasis(nodes)
	return emitNodes(nil, nodes, style{}, links)
}

func isASCIIPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}

func isPunctRune(r rune) bool {
	if r < utf8.RuneSelf {
		return isASCIIPunct(byte(r))
	}
	return unicode.IsPunct(r) || unicode.IsSymbol(r)
}

func isSpaceRune(r rune) bool {
	return r == ' ' || r == '\t' || (r >= utf8.RuneSelf && unicode.IsSpace(r))
}

// runLen counts the bytes equal to c from t[i].
func runLen(t string, i int, c byte) int {
	j := i
	for j < len(t) && t[j] == c {
		j++
	}
	return j - i
}

// codeClose finds the run of exactly n backticks that closes a code span
// opened before from, returning its start.
func codeClose(t string, from, n int) (int, bool) {
	limit := min(len(t), from+maxScan)
	for j := from; j < limit; {
		if t[j] != '`' {
			j++
			continue
		}
		m := runLen(t, j, '`')
		if m == n {
			return j, true
		}
		j += m
	}
	return 0, false
}

// tokenizer splits a line into text, code, delimiter and link nodes.
type tokenizer struct {
	nodes []inode
	t     string
	start int // t[start:] is text not yet in a node
}

func (z *tokenizer) flush(i int) {
	if i > z.start {
		z.nodes = append(z.nodes, inode{kind: nText, text: z.t[z.start:i]})
	}
}

func tokenize(nodes []inode, t string, links bool) []inode {
	z := tokenizer{nodes: nodes, t: t}
	for i := 0; i < len(t); {
		c := t[i]
		switch c {
		case '\\':
			if i+1 < len(t) && isASCIIPunct(t[i+1]) {
				z.flush(i)
				z.nodes = append(z.nodes, inode{kind: nText, text: t[i+1 : i+2]})
				i += 2
				z.start = i
				continue
			}
		case '`':
			n := runLen(t, i, '`')
			if end, ok := codeClose(t, i+n, n); ok {
				z.flush(i)
				code := t[i+n : end]
				if len(code) >= 2 && code[0] == ' ' && code[len(code)-1] == ' ' && strings.Trim(code, " ") != "" {
					code = code[1 : len(code)-1]
				}
				z.nodes = append(z.nodes, inode{kind: nCode, text: code})
				i = end + n
				z.start = i
				continue
			}
			i += n
			continue
		case '*', '_', '~':
			n := runLen(t, i, c)
			if c == '~' && n != 2 {
				i += n
				continue
			}
			prev, next := ' ', ' '
			if i > 0 {
				prev, _ = utf8.DecodeLastRuneInString(t[:i])
			}
			if i+n < len(t) {
				next, _ = utf8.DecodeRuneInString(t[i+n:])
			}
			left := !isSpaceRune(next) && (!isPunctRune(next) || isSpaceRune(prev) || isPunctRune(prev))
			right := !isSpaceRune(prev) && (!isPunctRune(prev) || isSpaceRune(next) || isPunctRune(next))
			open, closes := left, right
			if c == '_' {
				open = left && (!right || isPunctRune(prev))
				closes = right && (!left || isPunctRune(next))
			}
			if open || closes {
				z.flush(i)
				z.nodes = append(z.nodes, inode{kind: nDelim, text: t[i : i+n], ch: c, n: n, orig: n, canOpen: open, canClose: closes, active: true})
				z.start = i + n
			}
			i += n
			continue
		case '!', '[':
			at := i
			if c == '!' {
				if i+1 >= len(t) || t[i+1] != '[' {
					break
				}
				at++
			}
			if label, dest, end, ok := parseLink(t, at); ok {
				z.flush(i)
				z.nodes = append(z.nodes, inode{kind: nLink, text: dest, sub: parseSpans(label, links)})
				i = end
				z.start = i
				continue
			}
			i = at + 1
			continue
		case '<':
			if j := strings.IndexByte(t[i+1:min(len(t), i+1+maxScan)], '>'); j > 0 {
				if u := t[i+1 : i+1+j]; isAutolink(u) {
					dest := u
					if !strings.Contains(u, ":") {
						dest = "mailto:" + u
					}
					z.flush(i)
					z.nodes = append(z.nodes, inode{kind: nLink, text: dest, sub: []span{{text: u}}, bare: true})
					i += j + 2
					z.start = i
					continue
				}
			}
		case 'h':
			if i > 0 && !strings.ContainsRune(" ([*_~\"'", rune(t[i-1])) {
				break
			}
			if end := bareURL(t, i); end > i {
				z.flush(i)
				u := t[i:end]
				z.nodes = append(z.nodes, inode{kind: nLink, text: u, sub: []span{{text: u}}, bare: true})
				i = end
				z.start = i
				continue
			}
		}
		i++
	}
	z.flush(len(t))
	return z.nodes
}

// parseLink parses "[label](destination "title")" at t[i] == '['.
func parseLink(t string, i int) (label, dest string, end int, ok bool) {
	depth, j := 0, i
	limit := min(len(t), i+maxScan)
scan:
	for j < limit {
		switch t[j] {
		case '\\':
			j += 2
			continue
		case '`':
			n := runLen(t, j, '`')
			if e, ok := codeClose(t, j+n, n); ok {
				j = e + n
			} else {
				j += n
			}
			continue
		case '[':
			depth++
		case ']':
			depth--
			if depth == 0 {
				break scan
			}
		}
		j++
	}
	if depth != 0 || j+1 >= len(t) || t[j+1] != '(' {
		return "", "", 0, false
	}
	label = t[i+1 : j]
	k := j + 2
	for k < len(t) && t[k] == ' ' {
		k++
	}
	if k < len(t) && t[k] == '<' {
		e := strings.IndexByte(t[k:], '>')
		if e < 0 {
			return "", "", 0, false
		}
		dest = t[k+1 : k+e]
		k += e + 1
	} else {
		start, parens := k, 0
	dest:
		for k < len(t) {
			switch t[k] {
			case '\\':
				k++
			case '(':
				parens++
			case ')':
				if parens == 0 {
					break dest
				}
				parens--
			case ' ':
				break dest
			}
			k++
		}
		if k > len(t) {
			k = len(t)
		}
		dest = t[start:k]
	}
	for k < len(t) && t[k] == ' ' {
		k++
	}
	if k < len(t) && (t[k] == '"' || t[k] == '\'' || t[k] == '(') {
		closer := t[k]
		if closer == '(' {
			closer = ')'
		}
		e := strings.IndexByte(t[k+1:], closer)
		if e < 0 {
			return "", "", 0, false
		}
		k += e + 2
		for k < len(t) && t[k] == ' ' {
			k++
		}
	}
	if k >= len(t) || t[k] != ')' {
		return "", "", 0, false
	}
	return label, dest, k + 1, true
}

// isAutolink recognises the inside of <https://…> and <someone@example.com>.
func isAutolink(u string) bool {
	if strings.ContainsAny(u, " <") {
		return false
	}
	if c := strings.IndexByte(u, ':'); c >= 2 && c <= 32 {
		for i := 0; i < c; i++ {
			b := u[i]
			if !(b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || i > 0 && (b >= '0' && b <= '9' || b == '+' || b == '.' || b == '-')) {
				return false
			}
		}
		return true
	}
	at := strings.IndexByte(u, '@')
	return at > 0 && strings.IndexByte(u[at:], '.') > 1
}

// bareURL returns the end of an http(s) URL written without markup at
// t[i], or i if there is none. Trailing punctuation and an unbalanced
// closing parenthesis are left out, as they usually end the sentence.
func bareURL(t string, i int) int {
	rest := t[i:]
	var n int
	switch {
	case strings.HasPrefix(rest, "https://"):
		n = 8
	case strings.HasPrefix(rest, "http://"):
		n = 7
	default:
		return i
	}
	j := i + n
	for j < len(t) && t[j] != ' ' && t[j] != '<' && t[j] != '`' {
		j++
	}
	for j > i+n {
		c := t[j-1]
		if strings.IndexByte("?!.,:;*_~'\"", c) >= 0 {
			j--
			continue
		}
		if c == ')' && strings.Count(t[i:j], "(") < strings.Count(t[i:j], ")") {
			j--
			continue
		}
		break
	}
	if j == i+n {
		return i
	}
	return j
}

// delimIndex numbers the delimiter characters, to index CommonMark's
// "openers bottom" (by character, closer length modulo 3, and whether the
// closer can also open).
func delimIndex(c byte) int {
	switch c {
	case '*':
		return 0
	case '_':
		return 1
	}
	return 2
}

// matchEmphasis pairs delimiter runs into emphasis, strong emphasis and
// strikethrough, following CommonMark's "process emphasis" procedure.
func matchEmphasis(nodes []inode) {
	var bottom [3][3][2]int
	for a := range bottom {
		for b := range bottom[a] {
			bottom[a][b] = [2]int{-1, -1}
		}
	}
	for ci := range nodes {
		c := &nodes[ci]
		if c.kind != nDelim || !c.canClose {
			continue
		}
		for c.n > 0 {
			co := 0
			if c.canOpen {
				co = 1
			}
			b := &bottom[delimIndex(c.ch)][c.orig%3][co]
			found := -1
			for oi := ci - 1; oi > *b; oi-- {
				o := &nodes[oi]
				if o.kind != nDelim || !o.active || o.ch != c.ch || !o.canOpen || o.n == 0 {
					continue
				}
				if c.ch == '~' {
					if o.n != c.n {
						continue
					}
				} else if (o.canClose || c.canOpen) && (o.orig+c.orig)%3 == 0 && !(o.orig%3 == 0 && c.orig%3 == 0) {
					continue
				}
				found = oi
				break
			}
			if found < 0 {
				*b = ci - 1
				break
			}
			o := &nodes[found]
			use, eff := 1, eItalic
			switch {
			case c.ch == '~':
				use, eff = 2, eStrike
			case o.n >= 2 && c.n >= 2:
				use, eff = 2, eBold
			}
			o.opens[eff]++
			c.closes[eff]++
			o.n -= use
			c.n -= use
			if o.n == 0 {
				o.active = false
			}
			for k := found + 1; k < ci; k++ {
				if nodes[k].kind == nDelim {
					nodes[k].active = false
				}
			}
		}
		if c.n == 0 {
			c.active = false
		}
	}
}

// emitNodes turns parsed nodes into spans drawn on top of base.
func emitNodes(dst []span, nodes []inode, base style, links bool) []span {
	var on [nEffects]int
	cur := func() style {
		st := base
		if on[eBold] > 0 {
			st.attr |= aBold
		}
		if on[eItalic] > 0 {
			st.attr |= aItalic
		}
		if on[eStrike] > 0 {
			st.attr |= aStrike
		}
		return st
	}
	for i := range nodes {
		nd := &nodes[i]
		switch nd.kind {
		case nText:
			dst = append(dst, span{text: nd.text, st: cur()})
		case nCode:
			st := cur()
			st.fg = rInlineCode
			dst = append(dst, span{text: nd.text, st: st})
		case nDelim:
			for e := range on {
				on[e] -= int(nd.closes[e])
			}
			if nd.n > 0 {
				dst = append(dst, span{text: nd.text[:nd.n], st: cur()})
			}
			for e := range on {
				on[e] += int(nd.opens[e])
			}
		case nLink:
			outer := cur()
			plain := ""
			for _, sp := range nd.sub {
				st := sp.st
				st.attr |= outer.attr | aUnderline
				if st.fg == rNone {
					st.fg = rLink
				}
				sp.st = st
				if links {
					sp.url = nd.text
				}
				plain += sp.text
				dst = append(dst, sp)
			}
			if len(nd.sub) == 0 {
				st := outer
				st.fg, st.attr = rLink, st.attr|aUnderline
				url := ""
				if links {
					url = nd.text
				}
				dst = append(dst, span{text: nd.text, st: st, url: url})
				plain = nd.text
			}
			if !links && !nd.bare && plain != nd.text && nd.text != "" {
				st := outer
				st.fg = rURL
				dst = append(dst, span{text: " (" + nd.text + ")", st: st})
			}
		}
	}
	return dst
}
