package render

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// vterm is a tiny terminal emulator, enough to know what a user would see
// once the stream is done: printable text with auto-wrap at the width
// (a wide character that does not fit wraps early; the cursor waits at the
// last column until the next character), carriage return, newline (which
// returns the carriage, as a terminal in cooked mode does), ESC[nA, ESC[2K,
// ESC[J, SGR and OSC 8. Each cell remembers the SGR sequence and hyperlink
// in effect when it was written. With a height, the cursor cannot move
// above the rows still on the screen, as on a real terminal.
type vterm struct {
	width, height int
	rows          [][]vcell
	row, col      int
	pending       bool // the cursor waits at the last column
	sgr, url      string
	pen           int32            // index of (sgr, url) in pens
	pens          []string         // "sgr|url" pairs seen so far
	penIDs        map[string]int32 // and their indexes
	zws           []string         // zero-width runes drawn over cells
	err           error
}

type vcell struct {
	r   rune  // 0 for a blank never written, -1 for the second column of a wide character
	pen int32 // the SGR and hyperlink it was written with
	zw  int32 // zero-width runes drawn over it: an index in zws, 0 for none
}

func newVTerm(width, height int) *vterm {
	return &vterm{width: width, height: height, rows: [][]vcell{nil}, pens: []string{"|"}, penIDs: map[string]int32{"|": 0}}
}

// setPen records the SGR and hyperlink now in effect.
func (t *vterm) setPen() {
	k := t.sgr + "|" + t.url
	id, ok := t.penIDs[k]
	if !ok {
		id = int32(len(t.pens))
		t.pens = append(t.pens, k)
		t.penIDs[k] = id
	}
	t.pen = id
}

func (t *vterm) fail(format string, args ...any) {
	if t.err == nil {
		t.err = fmt.Errorf(format, args...)
	}
}

// top is the first row the cursor can still reach.
func (t *vterm) top() int {
	if t.height <= 0 {
		return 0
	}
	return max(0, len(t.rows)-t.height)
}

func (t *vterm) Write(p []byte) (int, error) {
	t.feed(string(p))
	return len(p), nil
}

func (t *vterm) feed(s string) {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\r':
			t.col, t.pending = 0, false
			i++
		case c == '\n':
			t.col, t.pending = 0, false
			t.row++
			for len(t.rows) <= t.row {
				t.rows = append(t.rows, nil)
			}
			i++
		case c == 0x1b && i+1 < len(s) && s[i+1] == '[':
			j := i + 2
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ';') {
				j++
			}
			if j >= len(s) {
				t.fail("truncated CSI %q", s[i:])
				return
			}
			t.csi(s[i+2:j], s[j])
			i = j + 1
		case c == 0x1b && strings.HasPrefix(s[i:], "\x1b]8;;"):
			e := strings.Index(s[i:], "\x1b\\")
			if e < 0 {
				t.fail("unterminated OSC 8 %q", s[i:])
				return
			}
			t.url = s[i+5 : i+e]
			t.setPen()
			i += e + 2
		case c < 0x20 || c == 0x7f:
			t.fail("unexpected control byte %#x at %q", c, s[i:min(len(s), i+10)])
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				t.fail("invalid UTF-8 at %q", s[i:min(len(s), i+10)])
			}
			if r >= 0x80 && r < 0xa0 {
				t.fail("C1 control %U", r)
			}
			t.print(r, s[i:i+size], runeWidth(r))
			i += size
		}
	}
}

func (t *vterm) csi(params string, final byte) {
	switch final {
	case 'm':
		if params == "" || params == "0" {
			t.sgr = ""
		} else {
			t.sgr = params
		}
		t.setPen()
	case 'A':
		n := 1
		if params != "" {
			n, _ = strconv.Atoi(params)
		}
		t.row = max(t.row-n, t.top())
		t.pending = false
	case 'K':
		if params != "2" {
			t.fail("unexpected ESC[%sK", params)
		}
		t.rows[t.row] = nil
	case 'J':
		if params != "" && params != "0" {
			t.fail("unexpected ESC[%sJ", params)
		}
		if t.col < len(t.rows[t.row]) {
			t.rows[t.row] = t.rows[t.row][:t.col]
		}
		t.rows = t.rows[:t.row+1]
	default:
		t.fail("unexpected CSI %q%c", params, final)
	}
}

func (t *vterm) print(r rune, text string, w int) {
	if w == 0 {
		if t.col > 0 && t.col <= len(t.rows[t.row]) {
			c := &t.rows[t.row][t.col-1]
			if c.zw == 0 {
				t.zws = append(t.zws, "")
				c.zw = int32(len(t.zws))
			}
			t.zws[c.zw-1] += text
		}
		return
	}
	if t.pending || (t.width > 0 && t.col+w > t.width) {
		t.row++
		t.col, t.pending = 0, false
		for len(t.rows) <= t.row {
			t.rows = append(t.rows, nil)
		}
	}
	line := t.rows[t.row]
	for len(line) < t.col+w {
		line = append(line, vcell{})
	}
	line[t.col] = vcell{r: r, pen: t.pen}
	if w == 2 {
		line[t.col+1] = vcell{r: -1, pen: t.pen}
	}
	t.rows[t.row] = line
	t.col += w
	if t.width > 0 && t.col >= t.width {
		t.col, t.pending = t.width, true
	}
}

// screen is the final screen as text: one line per row, trailing blanks
// and blank rows at the end removed. With styles, every change of SGR or
// hyperlink is marked in the text as ‹sgr|url›.
func (t *vterm) screen(styles bool) string {
	var b strings.Builder
	var lines []string
	for _, row := range t.rows {
		b.Reset()
		pen := int32(0)
		for _, c := range row {
			if c.r < 0 {
				continue
			}
			if styles && c.pen != pen {
				pen = c.pen
				sgr, url, _ := strings.Cut(t.pens[pen], "|")
				b.WriteString("‹" + sgr)
				if url != "" {
					b.WriteString("|" + url)
				}
				b.WriteString("›")
			}
			if c.r == 0 {
				b.WriteByte(' ')
			} else {
				b.WriteRune(c.r)
			}
			if c.zw > 0 {
				b.WriteString(t.zws[c.zw-1])
			}
		}
		lines = append(lines, strings.TrimRight(b.String(), " "))
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}
