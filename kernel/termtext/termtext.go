// Package termtext owns one rule: text that Coyote did not write itself (a
// model's reply, the command -e would run, a tool's question, the name
// and arguments of a tool call) may be shown on a terminal, never act on
// it. A terminal acts on control characters: an escape sequence can move
// the cursor, erase a line that was already shown, set the window title or
// write to the clipboard, and a carriage return lets later text cover
// earlier text. So such text is shown with its control characters removed
// (Strip, Writer) or written as visible escapes (Escape) where the exact
// bytes matter. Coyote's own colours and cursor movements are added by the
// caller afterwards and are not this package's concern.
//
// kernel/render applies the same rule in its own streaming renderer.
package termtext

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// IsControl reports whether a terminal acts on r rather than showing it:
// the C0 controls (U+0000 to U+001F, newline and tab included), DEL
// (U+007F) and the C1 controls (U+0080 to U+009F; U+009B is a CSI on
// its own).
func IsControl(r rune) bool {
	return r < 0x20 || r >= 0x7f && r < 0xa0
}

// IsBidi reports whether r is a bidirectional formatting character
// (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069): it
// changes the order in which the text around it is shown, so that what is
// read differs from what is there.
func IsBidi(r rune) bool {
	switch {
	case r == 0x061c, r == 0x200e, r == 0x200f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// kept reports whether a control character stays in shown text: newline
// and tab only.
func kept(r rune) bool { return r == '\n' || r == '\t' }

// Strip returns s without the control characters a terminal would act on,
// keeping newlines and tabs. Invalid UTF-8 becomes U+FFFD (a lone byte
// 0x9b is a CSI to a terminal that reads 8-bit controls).
func Strip(s string) string {
	if plainASCII(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s { // invalid UTF-8 decodes as U+FFFD
		if !IsControl(r) || kept(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// plainASCII reports whether s is printable ASCII, newlines and tabs: the
// common case, which needs no copy.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 || c >= 0x7f) && c != '\n' && c != '\t' {
			return false
		}
	}
	return true
}

// Escape returns s with each control character other than newline and
// tab, and each bidirectional formatting character, written as a visible
// escape in Go's notation (\r, \x1b, \u009b, \u202e), and how many it
// wrote. Invalid UTF-8 becomes U+FFFD. Text a program will read (code
// that -c prints to a pipe) keeps every other character as it is.
func Escape(s string) (string, int) {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if IsControl(r) && !kept(r) || IsBidi(r) {
			b.WriteString(EscapeRune(r))
			n++
			continue
		}
		b.WriteRune(r)
	}
	return b.String(), n
}

// EscapeRune writes r in Go's escape notation: \a \b \f \r \v for those
// controls, \xNN for other ASCII, \uNNNN above.
func EscapeRune(r rune) string {
	switch r {
	case '\a':
		return `\a`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	case '\v':
		return `\v`
	}
	if r < utf8.RuneSelf {
		return fmt.Sprintf(`\x%02x`, r)
	}
	return fmt.Sprintf(`\u%04x`, r)
}

// Writer strips control characters, as Strip does, from text written to
// it in pieces (a reply as it streams in) before passing it on. A
// character split between two writes is held until the next one; Flush
// writes what is held at the end. A Writer is not safe for concurrent use.
type Writer struct {
	w     io.Writer
	carry []byte
	buf   []byte
}

// NewWriter returns a Writer that writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write strips p and writes the rest. It reports len(p) on success: every
// byte was taken, shown or dropped.
func (w *Writer) Write(p []byte) (int, error) {
	n := len(p)
	w.buf = w.buf[:0]
	if len(w.carry) > 0 {
		p = append(w.carry, p...)
		w.carry = nil
	}
	for i := 0; i < len(p); {
		c := p[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != 0x7f || c == '\n' || c == '\t' {
				w.buf = append(w.buf, c)
			}
			i++
			continue
		}
		if !utf8.FullRune(p[i:]) {
			w.carry = append([]byte(nil), p[i:]...)
			break
		}
		r, size := utf8.DecodeRune(p[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			w.buf = utf8.AppendRune(w.buf, utf8.RuneError)
		case !IsControl(r):
			w.buf = append(w.buf, p[i:i+size]...)
		}
		i += size
	}
	if len(w.buf) > 0 {
		if _, err := w.w.Write(w.buf); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// Flush writes a character left incomplete by the last Write as U+FFFD.
func (w *Writer) Flush() error {
	if len(w.carry) == 0 {
		return nil
	}
	w.carry = nil
	_, err := io.WriteString(w.w, "\uFFFD")
	return err
}
