package render

import (
	"strings"
)

// A table is recognised GitHub's way: a row of cells separated by pipes,
// then a delimiter row (---, :--, --:, :-:) with as many cells. The first
// row is held on the screen as written until the next line decides; the
// rows of a table are held until it ends (a line without a pipe), then the
// whole table is rewritten with aligned columns. A table taller than the
// screen cannot be rewritten once its top has scrolled away, so once it
// would be, the rows so far are printed aligned and the remaining rows are
// printed one by one in the same columns.

const (
	tableNone = iota
	tableCandidate
	tableBuffered
	tableStreamed
)

type table struct {
	phase  int
	indent int
	raw    string // the candidate first row, as written
	header []string
	aligns []byte // 'l', 'c' or 'r' per column
	rows   [][]string
	widths []int // the columns' widths, fixed once streamed
}

// hasPipe reports whether s has a pipe that is not escaped.
func hasPipe(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '|':
			return true
		}
	}
	return false
}

// splitCells splits a table row into its cells, trimmed, with escaped
// pipes unescaped.
func splitCells(row string) []string {
	t := strings.TrimSpace(row)
	t = strings.TrimPrefix(t, "|")
	if strings.HasSuffix(t, "|") && !strings.HasSuffix(t, "\\|") {
		t = t[:len(t)-1]
	}
	var cells []string
	start := 0
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '\\':
			i++
		case '|':
			cells = append(cells, cleanCell(t[start:i]))
			start = i + 1
		}
	}
	return append(cells, cleanCell(t[start:]))
}

func cleanCell(c string) string {
	c = strings.TrimSpace(c)
	if strings.Contains(c, "\\|") {
		c = strings.ReplaceAll(c, "\\|", "|")
	}
	return c
}

// delimiterRow returns the alignments of a delimiter row, or false.
func delimiterRow(cells []string) ([]byte, bool) {
	aligns := make([]byte, len(cells))
	for i, c := range cells {
		l, r := strings.HasPrefix(c, ":"), strings.HasSuffix(c, ":")
		d := strings.Trim(c, ":")
		if d == "" || strings.Trim(d, "-") != "" {
			return nil, false
		}
		switch {
		case l && r:
			aligns[i] = 'c'
		case r:
			aligns[i] = 'r'
		default:
			aligns[i] = 'l'
		}
	}
	return aligns, true
}

// tableStart makes rest (a line outside block quotes) a candidate first
// row of a table if it is a paragraph line with a pipe.
func (s *Stream) tableStart(rest string) bool {
	ind := leadingSpaces(rest)
	body := rest[ind:]
	if body == "" || !hasPipe(body) {
		return false
	}
	if _, ok := listItem(body); ok {
		return false
	}
	if ind < 4 {
		if _, _, ok := atxHeading(body); ok || isRule(body) {
			return false
		}
	}
	s.table = table{phase: tableCandidate, indent: ind, raw: rest, header: splitCells(body)}
	return true
}

// continuesTable reports whether line is a further row of the table.
func continuesTable(line string) bool {
	depth, rest := quoteSplit(line, -1)
	if depth > 0 || strings.TrimSpace(rest) == "" || !hasPipe(rest) {
		return false
	}
	_, _, _, _, fenced := openingFence(rest)
	return !fenced
}

// tableLine handles a complete line while a table is pending. It reports
// whether the line was taken as part of the table; if not, the table has
// been printed (or its candidate row rendered as text) and the line is
// still to be rendered.
func (s *Stream) tableLine(line string) bool {
	t := &s.table
	switch t.phase {
	case tableCandidate:
		if depth, rest := quoteSplit(line, -1); depth == 0 {
			if aligns, ok := delimiterRow(splitCells(rest)); ok && len(aligns) == len(t.header) && s.fits(line) {
				t.aligns = aligns
				t.phase = tableBuffered
				s.hold(line)
				return true
			}
		}
		raw := t.raw
		s.table = table{}
		s.clearShown()
		s.out = s.renderText(s.out, 0, raw)
		return false
	case tableBuffered:
		if continuesTable(line) {
			t.rows = append(t.rows, s.rowCells(line))
			if s.fits(line) {
				s.hold(line)
				return true
			}
			s.clearShown()
			t.widths = s.streamWidths()
			s.out = s.tableTop(s.out)
			for _, r := range t.rows {
				s.out = s.tableRow(s.out, r, false)
			}
			t.rows = nil
			t.phase = tableStreamed
			return true
		}
		s.clearShown()
		s.out = s.tableAll(s.out)
		s.table = table{}
		return false
	case tableStreamed:
		s.clearShown()
		if continuesTable(line) {
			s.out = s.tableRow(s.out, s.rowCells(line), false)
			return true
		}
		s.out = s.tableBorder(s.out, "└", "┴", "┘")
		s.table = table{}
		return false
	}
	return false
}

// endTable prints a table still pending at the end of the reply.
func (s *Stream) endTable() {
	t := &s.table
	switch t.phase {
	case tableCandidate:
		raw := t.raw
		s.table = table{}
		s.clearShown()
		s.out = s.renderText(s.out, 0, raw)
	case tableBuffered:
		s.clearShown()
		s.out = s.tableAll(s.out)
	case tableStreamed:
		s.out = s.tableBorder(s.out, "└", "┴", "┘")
	}
	s.table = table{}
}

// rowCells splits a body row into exactly as many cells as the header has.
func (s *Stream) rowCells(line string) []string {
	cells := splitCells(line)
	n := len(s.table.header)
	if len(cells) > n {
		cells = cells[:n]
	}
	for len(cells) < n {
		cells = append(cells, "")
	}
	return cells
}

// tableAll renders the whole buffered table.
func (s *Stream) tableAll(dst []byte) []byte {
	t := &s.table
	t.widths = s.tableWidths()
	dst = s.tableTop(dst)
	for _, r := range t.rows {
		dst = s.tableRow(dst, r, false)
	}
	return s.tableBorder(dst, "└", "┴", "┘")
}

func (s *Stream) tableTop(dst []byte) []byte {
	dst = s.tableBorder(dst, "┌", "┬", "┐")
	dst = s.tableRow(dst, s.table.header, true)
	return s.tableBorder(dst, "├", "┼", "┤")
}

// cellSpans parses a cell; header cells are bold.
func (s *Stream) cellSpans(text string, header bool) []span {
	base := style{}
	if header {
		base.attr = aBold
	}
	sp := s.inline(nil, text, base)
	if header && s.pal != nil {
		for i := range sp {
			sp[i].st.attr |= aBold
		}
	}
	return sp
}

// tableWidths computes the columns' widths: each as wide as its widest
// cell, then the widest columns narrowed until the table fits the wrap
// width, or the terminal's width when not wrapping.
func (s *Stream) tableWidths() []int {
	t := &s.table
	widths := make([]int, len(t.header))
	measure := func(cells []string, header bool) {
		for i, c := range cells {
			widths[i] = max(widths[i], spansWidth(s.cellSpans(c, header)))
		}
	}
	measure(t.header, true)
	for _, r := range t.rows {
		measure(r, false)
	}
	for i := range widths {
		widths[i] = max(widths[i], 1)
	}
	avail := s.wrap
	if avail == 0 {
		avail = s.opts.Width
	}
	if avail <= 0 {
		return widths
	}
	total := t.indent + 3*len(widths) + 1
	for _, w := range widths {
		total += w
	}
	// narrow the widest column, first down to 6, then 3, then 1
	for _, least := range [...]int{6, 3, 1} {
		for total > avail {
			widest := -1
			for i, w := range widths {
				if w > least && (widest < 0 || w > widths[widest]) {
					widest = i
				}
			}
			if widest < 0 {
				break
			}
			widths[widest]--
			total--
		}
	}
	return widths
}

// streamWidths are the widths of a table printed before it ended: the
// widths so far, widened in proportion to use the whole width when it is
// known, which leaves room for the rows still to come.
func (s *Stream) streamWidths() []int {
	widths := s.tableWidths()
	avail := s.wrap
	if avail == 0 {
		avail = s.opts.Width
	}
	used := s.table.indent + 3*len(widths) + 1
	sum := 0
	for _, w := range widths {
		sum += w
	}
	if avail <= 0 || used+sum >= avail {
		return widths
	}
	room := avail - used
	given := 0
	for i, w := range widths {
		widths[i] = w * room / sum
		given += widths[i]
	}
	for i := 0; given < room; i = (i + 1) % len(widths) {
		widths[i]++
		given++
	}
	return widths
}

func (s *Stream) tableBorder(dst []byte, left, mid, right string) []byte {
	t := &s.table
	var b strings.Builder
	b.WriteString(left)
	for i, w := range t.widths {
		if i > 0 {
			b.WriteString(mid)
		}
		b.WriteString(strings.Repeat(ruler, w+2))
	}
	b.WriteString(right)
	var p painter
	dst = s.paint(dst, &p, spaces(t.indent), style{}, "")
	dst = s.paint(dst, &p, b.String(), style{fg: rRule}, "")
	return s.endRow(dst, &p)
}

// tableRow renders one row; a cell wider than its column wraps inside it,
// making the row several lines tall.
func (s *Stream) tableRow(dst []byte, cells []string, header bool) []byte {
	t := &s.table
	type cellRows struct {
		pieces []piece
		ends   []int
	}
	laid := make([]cellRows, len(t.widths))
	height := 1
	for i, w := range t.widths {
		c := ""
		if i < len(cells) {
			c = cells[i]
		}
		ps := appendPieces(nil, s.cellSpans(c, header), true)
		laid[i].pieces, laid[i].ends = breakRows(nil, nil, ps, w, w, true)
		height = max(height, len(laid[i].ends))
	}
	border := style{fg: rRule}
	for line := 0; line < height; line++ {
		var p painter
		dst = s.paint(dst, &p, spaces(t.indent), style{}, "")
		for i, w := range t.widths {
			lead := bar + " "
			if i > 0 {
				lead = " " + bar + " "
			}
			dst = s.paint(dst, &p, lead, border, "")
			var row []piece
			if c := laid[i]; line < len(c.ends) {
				start := 0
				if line > 0 {
					start = c.ends[line-1]
				}
				row = c.pieces[start:c.ends[line]]
			}
			cw := 0
			for _, pc := range row {
				cw += pc.w
			}
			pad := max(w-cw, 0)
			left := 0
			switch t.aligns[i] {
			case 'r':
				left = pad
			case 'c':
				left = pad / 2
			}
			dst = s.paint(dst, &p, spaces(left), style{}, "")
			for _, pc := range row {
				dst = s.paint(dst, &p, pc.text, pc.st, pc.url)
			}
			dst = s.paint(dst, &p, spaces(pad-left), style{}, "")
		}
		dst = s.paint(dst, &p, " "+bar, border, "")
		dst = s.endRow(dst, &p)
	}
	return dst
}
