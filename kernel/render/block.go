package render

import (
	"strconv"
	"strings"
)

// fence is the fenced code block the stream is inside, if any.
type fence struct {
	open   bool
	ch     byte // '`' or '~'
	n      int  // length of the opening fence
	indent int  // indentation of the opening fence, removed from code lines
	quotes int  // block quote depth of the opening fence
	lang   *langDef
	state  int // highlighter state carried from line to line
}

// listLevel is one level of the list nesting: where its markers start and,
// for a numbered list, the number the next item shows.
type listLevel struct {
	indent int
	marker byte // the bullet character, or the delimiter after numbers
	next   int
}

// bullets are the unordered list markers, by nesting level.
var bullets = [...]string{"•", "◦", "▪", "▫"}

const (
	boxOpen = "☐"
	boxDone = "☑"
	ruler   = "─"
	bar     = "│"
)

// spaces returns n spaces.
func spaces(n int) string {
	const s = "                                                                "
	if n <= len(s) {
		return s[:n]
	}
	return strings.Repeat(" ", n)
}

// leadingSpaces counts the spaces that s starts with.
func leadingSpaces(s string) int {
	i := 0
	for i < len(s) && s[i] == ' ' {
		i++
	}
	return i
}

// quoteSplit removes up to max block quote markers (any number when max is
// negative) from the start of line and returns how many it removed and the
// rest.
func quoteSplit(line string, max int) (depth int, rest string) {
	rest = line
	for max < 0 || depth < max {
		i := leadingSpaces(rest)
		if i > 3 || i >= len(rest) || rest[i] != '>' {
			break
		}
		depth++
		rest = rest[i+1:]
		if rest != "" && rest[0] == ' ' {
			rest = rest[1:]
		}
	}
	return depth, rest
}

// openingFence recognises the line that opens a fenced code block and
// returns its fence character, length, indentation and language.
func openingFence(s string) (ch byte, n, indent int, info string, ok bool) {
	indent = leadingSpaces(s)
	t := s[indent:]
	if len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return 0, 0, 0, "", false
	}
	ch = t[0]
	for n < len(t) && t[n] == ch {
		n++
	}
	if n < 3 {
		return 0, 0, 0, "", false
	}
	info = strings.TrimSpace(t[n:])
	if ch == '`' && strings.IndexByte(info, '`') >= 0 {
		return 0, 0, 0, "", false
	}
	return ch, n, indent, info, true
}

// closesFence reports whether s closes the open code block.
func (f *fence) closesFence(s string) bool {
	t := strings.TrimLeft(s, " ")
	n := 0
	for n < len(t) && t[n] == f.ch {
		n++
	}
	return n >= f.n && strings.TrimRight(t[n:], " ") == ""
}

// infoLang is the language named by a fence's info string: its first word,
// with the decorations some writers add ("{.python}", "language-go").
func infoLang(info string) string {
	info = strings.TrimLeft(info, "{.")
	if i := strings.IndexAny(info, " \t,{}"); i >= 0 {
		info = info[:i]
	}
	info = strings.TrimPrefix(strings.ToLower(info), "language-")
	return info
}

// startFence enters a code block and renders its opening line.
func (s *Stream) startFence(line string, depth int, rest string, ch byte, n, indent int, info string) {
	s.fence = fence{open: true, ch: ch, n: n, indent: indent, quotes: depth, lang: lookupLang(infoLang(info))}
	s.fenceLine(line, depth, rest)
}

// fenceLine renders a line that opens or closes a code block, dimmed.
func (s *Stream) fenceLine(line string, depth int, rest string) {
	s.spans = s.spans[:0]
	var pre []span
	if s.opts.RawMarkdown {
		s.spans = append(s.spans, span{text: line})
	} else {
		pre = s.quotePrefix(depth)
		s.spans = append(s.spans, span{text: rest, st: style{fg: rRule}})
	}
	s.rbuf = s.layout(s.rbuf[:0], pre, pre, s.spans, 0, true)
	s.put(line, s.rbuf)
}

// codeLine renders a line inside a code block. It reports false when the
// line is not part of the block after all (the block quote holding the
// block ended); the block is then closed.
func (s *Stream) codeLine(line string) bool {
	depth, rest := quoteSplit(line, s.fence.quotes)
	if depth < s.fence.quotes {
		s.fence = fence{}
		return false
	}
	if s.fence.closesFence(rest) {
		s.fence = fence{}
		s.fenceLine(line, depth, rest)
		return true
	}
	k := 0
	for k < s.fence.indent && k < len(rest) && rest[k] == ' ' {
		k++
	}
	code := rest[k:]
	var pre []span
	if s.opts.RawMarkdown {
		pre = append(pre, span{text: line[:len(line)-len(code)]})
	} else {
		pre = s.quotePrefix(depth)
		if k > 0 {
			pre = append(pre, span{text: spaces(k)})
		}
	}
	s.spans = s.spans[:0]
	if s.pal == nil {
		s.spans = append(s.spans, span{text: code})
	} else {
		s.spans = s.hl.line(s.spans, s.fence.lang, code, &s.fence.state)
	}
	width := 0
	if s.opts.WrapCode {
		width = s.wrap
	}
	s.rbuf = s.layout(s.rbuf[:0], pre, pre, s.spans, width, true)
	s.put(line, s.rbuf)
	return true
}

// quotePrefix is what stands for depth levels of block quote at the start
// of a row.
func (s *Stream) quotePrefix(depth int) []span {
	if depth == 0 {
		return nil
	}
	pre := make([]span, depth)
	for i := range pre {
		pre[i] = span{text: bar + " ", st: style{fg: rQuote}}
	}
	return pre
}

// textLine renders a complete line outside code blocks, or holds it as the
// possible first row of a table.
func (s *Stream) textLine(line string) {
	depth, rest := quoteSplit(line, -1)
	if ch, n, indent, info, ok := openingFence(rest); ok {
		if indent == 0 {
			s.lists = s.lists[:0]
		}
		s.startFence(line, depth, rest, ch, n, indent, info)
		return
	}
	if s.opts.RawMarkdown {
		s.spans = append(s.spans[:0], span{text: line})
		s.rbuf = s.layout(s.rbuf[:0], nil, nil, s.spans, s.wrap, false)
		s.put(line, s.rbuf)
		return
	}
	if depth == 0 && hasPipe(rest) && s.fits(line) && s.tableStart(rest) {
		s.hold(line)
		return
	}
	s.rbuf = s.renderText(s.rbuf[:0], depth, rest)
	s.put(line, s.rbuf)
}

// renderText renders a line of text (no code block, no table) inside depth
// levels of block quote.
func (s *Stream) renderText(dst []byte, depth int, rest string) []byte {
	pre := s.quotePrefix(depth)
	ind := leadingSpaces(rest)
	body := rest[ind:]
	if body == "" {
		if depth > 0 {
			pre[depth-1].text = bar
		}
		return s.layout(dst, pre, pre, nil, 0, false)
	}
	base := style{}
	if depth > 0 {
		base.fg = rQuote
	}
	if ind < 4 {
		if level, text, ok := atxHeading(body); ok {
			if ind == 0 {
				s.lists = s.lists[:0]
			}
			return s.heading(dst, pre, ind, body[:level], text)
		}
		if isRule(body) {
			if ind == 0 {
				s.lists = s.lists[:0]
			}
			return s.rule(dst, pre, ind)
		}
	}
	if it, ok := listItem(body); ok {
		return s.item(dst, pre, ind, it, base)
	}
	if ind == 0 {
		s.lists = s.lists[:0]
	}
	if ind > 0 {
		pre = append(pre, span{text: spaces(ind)})
	}
	s.spans = s.inline(s.spans[:0], body, base)
	return s.layout(dst, pre, pre, s.spans, s.wrap, false)
}

// atxHeading recognises "## Title" and returns the level and the title
// without the optional closing hashes.
func atxHeading(b string) (level int, text string, ok bool) {
	for level < len(b) && b[level] == '#' {
		level++
	}
	if level == 0 || level > 6 || (level < len(b) && b[level] != ' ') {
		return 0, "", false
	}
	text = strings.TrimSpace(b[level:])
	if t := strings.TrimRight(text, "#"); t != text && (t == "" || t[len(t)-1] == ' ') {
		text = strings.TrimRight(t, " ")
	}
	return level, text, true
}

func (s *Stream) heading(dst []byte, pre []span, ind int, marks, text string) []byte {
	st := style{fg: rHeading, attr: aBold}
	first := pre
	if ind > 0 {
		first = append(first, span{text: spaces(ind)})
	}
	first = append(first, span{text: marks + " ", st: st})
	rest := append(pre[:len(pre):len(pre)], span{text: spaces(ind + len(marks) + 1)})
	s.spans = s.inline(s.spans[:0], text, st)
	if s.pal != nil {
		for i := range s.spans {
			s.spans[i].st.attr |= aBold
		}
	}
	return s.layout(dst, first, rest, s.spans, s.wrap, false)
}

// isRule recognises a thematic break: three or more of the same of - * _,
// with spaces in between.
func isRule(b string) bool {
	c := b[0]
	if c != '-' && c != '*' && c != '_' {
		return false
	}
	n := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case c:
			n++
		case ' ':
		default:
			return false
		}
	}
	return n >= 3
}

func (s *Stream) rule(dst []byte, pre []span, ind int) []byte {
	width := s.wrap
	if width == 0 {
		width = s.opts.Width
	}
	n := width - spansWidth(pre) - ind
	if width == 0 || n <= 0 {
		n = 40
	}
	if ind > 0 {
		pre = append(pre, span{text: spaces(ind)})
	}
	s.spans = append(s.spans[:0], span{text: strings.Repeat(ruler, n), st: style{fg: rRule}})
	return s.layout(dst, pre, pre, s.spans, 0, true)
}

// item is a list item's marker and text.
type item struct {
	ordered bool
	num     int
	marker  byte // '-', '*' or '+'; '.' or ')' after a number
	task    byte // 0 for none, ' ' open, 'x' done
	text    string
}

// listItem recognises a list item: "- ", "* ", "+ ", "1. " or "1) ",
// optionally followed by a task box "[ ] " or "[x] ".
func listItem(b string) (it item, ok bool) {
	var rest string
	switch c := b[0]; {
	case c == '-' || c == '*' || c == '+':
		if len(b) > 1 && b[1] != ' ' {
			return it, false
		}
		it.marker = c
		rest = b[1:]
	case c >= '0' && c <= '9':
		i := 0
		for i < len(b) && i < 10 && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i > 9 || i >= len(b) || (b[i] != '.' && b[i] != ')') || (i+1 < len(b) && b[i+1] != ' ') {
			return it, false
		}
		it.ordered, it.marker = true, b[i]
		it.num, _ = strconv.Atoi(b[:i])
		rest = b[i+1:]
	default:
		return it, false
	}
	rest = strings.TrimLeft(rest, " ")
	if len(rest) >= 3 && rest[0] == '[' && rest[2] == ']' && (len(rest) == 3 || rest[3] == ' ') {
		switch rest[1] {
		case ' ':
			it.task = ' '
		case 'x', 'X':
			it.task = 'x'
		}
		if it.task != 0 {
			rest = strings.TrimLeft(rest[3:], " ")
		}
	}
	it.text = rest
	return it, true
}

// item renders a list item, keeping its indentation, with a bullet that
// depends on its nesting level or its number in the list.
func (s *Stream) item(dst []byte, pre []span, ind int, it item, base style) []byte {
	for len(s.lists) > 0 && s.lists[len(s.lists)-1].indent > ind {
		s.lists = s.lists[:len(s.lists)-1]
	}
	// a sibling with another kind of marker starts a new list
	if n := len(s.lists); n == 0 || s.lists[n-1].indent < ind || s.lists[n-1].marker != it.marker {
		if n > 0 && s.lists[n-1].indent == ind {
			s.lists = s.lists[:n-1]
		}
		s.lists = append(s.lists, listLevel{indent: ind, marker: it.marker, next: it.num})
	}
	lv := &s.lists[len(s.lists)-1]
	var marker string
	switch {
	case it.ordered:
		marker = strconv.Itoa(lv.next) + string(it.marker)
		lv.next++
	case it.task == 0:
		marker = bullets[(len(s.lists)-1)%len(bullets)]
	}
	first := pre
	if ind > 0 {
		first = append(first, span{text: spaces(ind)})
	}
	if marker != "" {
		first = append(first, span{text: marker, st: style{fg: rBullet}}, span{text: " "})
	}
	switch it.task {
	case ' ':
		first = append(first, span{text: boxOpen, st: style{fg: rTaskOpen}}, span{text: " "})
	case 'x':
		first = append(first, span{text: boxDone, st: style{fg: rTaskDone}}, span{text: " "})
	}
	rest := append(pre[:len(pre):len(pre)], span{text: spaces(spansWidth(first) - spansWidth(pre))})
	s.spans = s.inline(s.spans[:0], it.text, base)
	return s.layout(dst, first, rest, s.spans, s.wrap, false)
}
