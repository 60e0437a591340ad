package render

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Options say what the terminal can do and how the user wants replies to
// look (config.yaml's wrap, wrap_code, highlight, raw_markdown and theme).
type Options struct {
	// Width is the terminal's width in columns; 0 when unknown. The
	// stream needs it to erase a line being streamed that the terminal
	// has wrapped; when unknown, such a line is assumed to fit one row.
	Width int
	// Height is the terminal's height in rows; 0 when unknown (24 is then
	// assumed where a limit is needed). Rows that have scrolled off the
	// screen cannot be rewritten, so the stream keeps what it may still
	// rewrite within this height.
	Height int
	// Wrap is "no" (or empty), "auto" for the terminal's width, or a
	// number of columns (capped at the terminal's width when known).
	Wrap string
	// WrapCode wraps the lines of code blocks too (only when Wrap wraps).
	WrapCode bool
	// Highlight enables colours and text attributes. Without it the
	// output carries no escape sequence other than the cursor movements
	// that rewrite the line being streamed, and inline markup (emphasis,
	// code spans, links) is left as written, since it could not be shown
	// otherwise; blocks (lists, quotes, rules, tables) are still laid out.
	Highlight bool
	// RawMarkdown keeps the text exactly as written, only highlighting
	// the code inside fenced code blocks.
	RawMarkdown bool
	// Theme is "dark" (the default) or "light".
	Theme string
	// Custom, when set, is the palette of the user's .tmTheme file for
	// Theme (see ParseTmTheme), used instead of the built-in one.
	Custom *Theme
	// TrueColor selects 24-bit colours (COLORTERM=truecolor); otherwise
	// the 256-colour palette is used.
	TrueColor bool
	// Hyperlinks makes links clickable with OSC 8 escape sequences.
	Hyperlinks bool
}

// ErrClosed is returned by Write and Close on a closed stream.
var ErrClosed = errors.New("render: stream already closed")

// defaultHeight is the number of terminal rows assumed when Options.Height
// is 0.
const defaultHeight = 24

// Stream renders a markdown reply to a terminal as it arrives. Each delta is
// shown at once, as plain text, at the end of the current line; when the
// line is complete it is rewritten rendered (carriage return, erase, then
// the styled and wrapped text), so the screen ends up holding the rendered
// reply. A Stream is not safe for concurrent use.
type Stream struct {
	w    io.Writer
	opts Options
	pal  *palette // nil when Highlight is false
	wrap int      // the column to wrap text at; 0 = no wrapping
	err  error
	done bool

	out  []byte // the bytes for w, written once per call
	rbuf []byte // a rendered line, before it is put on the screen

	line  []byte // the current incomplete line, sanitised
	col   int    // the display width of line, for tab stops
	carry []byte // an incomplete UTF-8 sequence at the end of a delta

	// What the terminal shows of lines not yet rendered: the raw echo of
	// the current line (echoed bytes of line, ending echoRows rows below
	// where it started, at column echoCol) and held whole lines (a table
	// being buffered), held rows above the current one.
	echoed   int
	echoCol  int
	echoRows int
	frozen   bool // the echo stopped: more rows could not be rewritten
	held     int

	fence fence
	lists []listLevel
	table table

	// scratch space, reused from line to line
	spans  []span
	pieces []piece
	rows   []piece
	ends   []int
	nodes  []inode
	hl     highlighter
}

// New returns a stream that renders to w.
func New(w io.Writer, opts Options) *Stream {
	s := &Stream{w: w, opts: opts}
	if opts.Highlight {
		s.pal = paletteFor(opts.Theme, opts.TrueColor)
		if opts.Custom != nil {
			s.pal = opts.Custom.palette(opts.TrueColor)
		}
	}
	s.wrap = wrapWidth(opts.Wrap, opts.Width)
	return s
}

// wrapWidth turns the wrap setting into a column count, 0 for none. A
// setting that is neither "auto" nor a positive number means no wrapping.
func wrapWidth(wrap string, width int) int {
	switch wrap = strings.TrimSpace(wrap); wrap {
	case "auto":
		return width
	case "", "no":
		return 0
	}
	n, err := strconv.Atoi(wrap)
	if err != nil || n <= 0 {
		return 0
	}
	if width > 0 && n > width {
		return width
	}
	return n
}

// Write shows delta at once and renders every line it completes.
func (s *Stream) Write(delta string) error {
	if s.done {
		return ErrClosed
	}
	if s.err != nil {
		return s.err
	}
	s.feed(delta)
	s.echo()
	return s.flush()
}

// Close renders what is left: the last line if the reply did not end with a
// newline, and a table still being buffered. It leaves the cursor at the
// start of a line.
func (s *Stream) Close() error {
	if s.done {
		return ErrClosed
	}
	s.done = true
	if s.err != nil {
		return s.err
	}
	if len(s.carry) > 0 {
		s.carry = s.carry[:0]
		s.line = append(s.line, "\uFFFD"...)
	}
	if len(s.line) > 0 {
		s.endLine()
	}
	s.endTable()
	return s.flush()
}

func (s *Stream) flush() error {
	if len(s.out) == 0 {
		return nil
	}
	_, err := s.w.Write(s.out)
	s.out = s.out[:0]
	if err != nil {
		s.err = fmt.Errorf("render: write reply: %w", err)
	}
	return s.err
}

// feed appends delta to the current line, sanitised: control characters
// (escape sequences from the model included) are dropped, tabs become
// spaces up to the next multiple of 4 columns, invalid UTF-8 becomes U+FFFD.
// Every newline completes a line.
func (s *Stream) feed(d string) {
	if len(s.carry) > 0 {
		d = string(s.carry) + d
		s.carry = s.carry[:0]
	}
	start := 0 // d[start:i] is plain text still to append
	for i := 0; i < len(d); {
		c := d[i]
		if c >= 0x20 && c < 0x7F {
			s.col++
			i++
			continue
		}
		s.line = append(s.line, d[start:i]...)
		if c < utf8.RuneSelf {
			switch c {
			case '\n':
				s.endLine()
			case '\t':
				n := 4 - s.col%4
				s.line = append(s.line, "    "[:n]...)
				s.col += n
			}
			i++
			start = i
			continue
		}
		if !utf8.FullRuneInString(d[i:]) {
			s.carry = append(s.carry, d[i:]...)
			return
		}
		r, size := utf8.DecodeRuneInString(d[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			s.line = append(s.line, "\uFFFD"...)
			s.col++
		case r < 0xA0: // C1 controls
		default:
			s.line = append(s.line, d[i:i+size]...)
			s.col += runeWidth(r)
		}
		i += size
		start = i
	}
	s.line = append(s.line, d[start:]...)
}

// endLine renders the completed current line and starts a new one.
func (s *Stream) endLine() {
	line := string(s.line)
	s.commit(line)
	s.line = s.line[:0]
	s.col = 0
	s.echoed, s.echoCol, s.echoRows, s.frozen = 0, 0, 0, false
}

// maxUp is how many rows above the cursor may still be rewritten.
func (s *Stream) maxUp() int {
	h := s.opts.Height
	if h <= 0 {
		h = defaultHeight
	}
	return h - 1
}

// echo shows the part of the current line not yet on the screen, as it is,
// tracking where the terminal wraps it so that it can be erased later. It
// stops once the line would grow taller than the rows that can be rewritten;
// the rest then appears when the line is complete.
func (s *Stream) echo() {
	if s.frozen || s.echoed == len(s.line) {
		return
	}
	width := s.opts.Width
	i := s.echoed
	for i < len(s.line) {
		rw, size := 1, 1
		if c := s.line[i]; c >= utf8.RuneSelf {
			var r rune
			r, size = utf8.DecodeRune(s.line[i:])
			rw = runeWidth(r)
		}
		if width > 0 && s.echoCol+rw > width {
			if s.held+s.echoRows+1 >= s.maxUp() {
				s.frozen = true
				break
			}
			s.echoRows++
			s.echoCol = 0
		}
		s.echoCol += rw
		i += size
	}
	s.out = append(s.out, s.line[s.echoed:i]...)
	s.echoed = i
}

// rowsOf is how many terminal rows s takes when printed from column 0.
func (s *Stream) rowsOf(text string) int {
	width := s.opts.Width
	if width <= 0 {
		return 1
	}
	rows, col := 1, 0
	for _, r := range text {
		rw := 1
		if r >= utf8.RuneSelf {
			rw = runeWidth(r)
		}
		if col+rw > width {
			rows++
			col = 0
		}
		col += rw
	}
	return rows
}

// clearShown erases the echo of the current line and the held lines,
// leaving the cursor at the start of the first row they took.
func (s *Stream) clearShown() {
	up := s.held + s.echoRows
	switch {
	case up > 0:
		s.out = append(s.out, "\r\x1b["...)
		s.out = strconv.AppendInt(s.out, int64(up), 10)
		s.out = append(s.out, "A\x1b[J"...)
	case s.echoed > 0:
		s.out = append(s.out, "\r\x1b[2K"...)
	}
	s.held, s.echoed, s.echoCol, s.echoRows, s.frozen = 0, 0, 0, 0, false
}

// put replaces what the terminal shows of the current line with rendered,
// one or more rows each ending with a newline. When rendered is exactly the
// echo, only the newline is written.
func (s *Stream) put(line string, rendered []byte) {
	if s.held == 0 && s.echoRows == 0 && s.echoed == len(line) &&
		len(rendered) == len(line)+1 && string(rendered[:len(line)]) == line {
		s.out = append(s.out, '\n')
		s.echoed, s.echoCol = 0, 0
		return
	}
	s.clearShown()
	s.out = append(s.out, rendered...)
}

// fits reports whether the whole line can be held on the screen and still
// be rewritten later.
func (s *Stream) fits(line string) bool {
	return s.held+s.rowsOf(line) < s.maxUp()
}

// hold leaves the current line on the screen as it is, to be rewritten
// later with the lines that follow (a table being buffered).
func (s *Stream) hold(line string) {
	s.out = append(s.out, line[s.echoed:]...)
	s.out = append(s.out, '\n')
	s.held += s.rowsOf(line)
	s.echoed, s.echoCol, s.echoRows, s.frozen = 0, 0, 0, false
}

// commit renders one complete line.
func (s *Stream) commit(line string) {
	if s.table.phase != tableNone && s.tableLine(line) {
		return
	}
	if s.fence.open && s.codeLine(line) {
		return
	}
	s.textLine(line)
}
