package render

// span is a run of text drawn in one style. url is set on the text of a
// link when hyperlinks are on.
type span struct {
	text string
	st   style
	url  string
}

// piece is a run of a span that is all spaces or has no space, with its
// width: the unit of word wrapping.
type piece struct {
	text string
	st   style
	url  string
	w    int
	sp   bool
}

func spansWidth(ss []span) int {
	n := 0
	for i := range ss {
		n += strWidth(ss[i].text)
	}
	return n
}

// appendPieces cuts spans into pieces. With words, runs of spaces and of
// other characters become separate pieces; otherwise each span is one.
func appendPieces(ps []piece, spans []span, words bool) []piece {
	for _, sp := range spans {
		t := sp.text
		if !words {
			if t != "" {
				ps = append(ps, piece{text: t, st: sp.st, url: sp.url, w: strWidth(t)})
			}
			continue
		}
		for len(t) > 0 {
			isSp := t[0] == ' '
			j := 1
			for j < len(t) && (t[j] == ' ') == isSp {
				j++
			}
			ps = append(ps, piece{text: t[:j], st: sp.st, url: sp.url, w: strWidth(t[:j]), sp: isSp})
			t = t[j:]
		}
	}
	return ps
}

// breakRows lays pieces out in rows of at most lim1 columns (the first
// row) and lim2 (the others); a limit of 0 means no limit. With words,
// rows break between words, the spaces at a break vanish, and only a word
// wider than a whole row is cut; otherwise rows break at the limit
// exactly. The pieces of the rows are appended to out, the end of each
// row (an index into out) to ends; there is always at least one row.
func breakRows(out []piece, ends []int, in []piece, lim1, lim2 int, words bool) ([]piece, []int) {
	n := len(in)
	if words {
		for n > 0 && in[n-1].sp {
			n--
		}
	}
	lim, col := lim1, 0
	for i := 0; i < n; i++ {
		p := in[i]
		if words && p.sp && col > 0 && lim > 0 {
			ww := 0
			for j := i + 1; j < n && !in[j].sp; j++ {
				ww += in[j].w
			}
			if col+p.w+ww > lim {
				ends = append(ends, len(out))
				lim, col = lim2, 0
				continue
			}
		}
		for lim > 0 && col+p.w > lim && p.text != "" {
			head, tail, hw := cutWidth(p.text, lim-col)
			if hw > lim-col && col > 0 {
				ends = append(ends, len(out))
				lim, col = lim2, 0
				continue
			}
			out = append(out, piece{text: head, st: p.st, url: p.url, w: hw, sp: p.sp})
			ends = append(ends, len(out))
			lim, col = lim2, 0
			p.text, p.w = tail, p.w-hw
			if words && p.sp {
				p.text, p.w = "", 0
			}
		}
		if p.text != "" {
			out = append(out, p)
			col += p.w
		}
	}
	return out, append(ends, len(out))
}

// layout lays body out in rows that fit width columns (0 = no limit),
// each starting with first (the first row) or rest (the others), and
// appends them to dst, each ending with a newline. With words, rows break
// between words; otherwise anywhere (code).
func (s *Stream) layout(dst []byte, first, rest, body []span, width int, hard bool) []byte {
	words := !hard
	s.pieces = appendPieces(s.pieces[:0], body, words)
	lim1, lim2 := 0, 0
	if width > 0 {
		lim1 = max(width-spansWidth(first), 1)
		lim2 = max(width-spansWidth(rest), 1)
	}
	s.rows, s.ends = breakRows(s.rows[:0], s.ends[:0], s.pieces, lim1, lim2, words)
	start := 0
	for r, end := range s.ends {
		pre := rest
		if r == 0 {
			pre = first
		}
		var p painter
		for _, sp := range pre {
			dst = s.paint(dst, &p, sp.text, sp.st, sp.url)
		}
		for _, pc := range s.rows[start:end] {
			dst = s.paint(dst, &p, pc.text, pc.st, pc.url)
		}
		dst = s.endRow(dst, &p)
		start = end
	}
	return dst
}

// painter is the style and hyperlink in effect while a row is written.
type painter struct {
	st  style
	url string
}

// paint appends text in style st (a hyperlink to url if not empty),
// switching styles only when they change.
func (s *Stream) paint(dst []byte, p *painter, text string, st style, url string) []byte {
	if text == "" {
		return dst
	}
	if s.pal != nil {
		if url != p.url {
			if p.url != "" {
				dst = append(dst, "\x1b]8;;\x1b\\"...)
			}
			if url != "" {
				dst = append(dst, "\x1b]8;;"...)
				dst = append(dst, url...)
				dst = append(dst, "\x1b\\"...)
			}
			p.url = url
		}
		if st != p.st {
			dst = s.pal.sgr(dst, st)
			p.st = st
		}
	}
	return append(dst, text...)
}

// endRow ends a row: it closes any hyperlink, resets the style, and
// writes the newline.
func (s *Stream) endRow(dst []byte, p *painter) []byte {
	if p.url != "" {
		dst = append(dst, "\x1b]8;;\x1b\\"...)
	}
	if p.st != (style{}) {
		dst = append(dst, "\x1b[0m"...)
	}
	*p = painter{}
	return append(dst, '\n')
}
