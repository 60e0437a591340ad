// Package termtext owns one rule: text that Coyote did not write itself (a
// model's reply, the command -e would run, a tool's question, the name
// and arguments of a tool call, an error a server sent) may be shown on a
// terminal, never act on it. A terminal acts on control characters: an
// escape sequence can move the cursor, erase a line that was already
// shown, set the window title or write to the clipboard, and a carriage
// return lets later text cover earlier text. Bidirectional formatting
// characters reorder what is shown, so that what is read differs from what
// is there. Hidden is that rule; such text is shown with those characters
// removed (Strip), written as visible escapes (Escape) where the exact
// bytes matter, or quoted whole (Quote) where the user must read it
// exactly before deciding something. Coyote's own colours and cursor movements are added by the
// caller afterwards and are not this package's concern.
//
// kernel/render drops control characters in its own streaming renderer.
package termtext

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
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

// Hidden reports whether showing r on a terminal would make what is shown
// differ from what is there: a control character other than newline and
// tab (IsControl), or a bidirectional formatting character (IsBidi). Strip
// drops these, Escape writes them as escapes, and -e refuses to run a
// command that has one.
func Hidden(r rune) bool {
	return IsControl(r) && r != '\n' && r != '\t' || IsBidi(r)
}

// Strip returns s without the characters Hidden reports: controls a
// terminal would act on (newlines and tabs are kept) and text-direction
// characters. Invalid UTF-8 becomes U+FFFD (a lone byte 0x9b is a CSI to
// a terminal that reads 8-bit controls).
func Strip(s string) string {
	if plainASCII(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s { // invalid UTF-8 decodes as U+FFFD
		if !Hidden(r) {
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

// Quote returns s as it is when every character of it is shown as itself
// (Printable), else quoted with Go's escapes ("\x1b", "\u202e", "\n").
// It is for a name or a line the user must read exactly before deciding
// something (a workspace file a trust question is about, an MCP server's
// command): no escape sequence, carriage return, text-direction or
// invisible character (a zero-width space, say) can hide or rewrite what
// is shown, and the quotes say that something was there.
func Quote(s string) string {
	if Printable(s) {
		return s
	}
	return strconv.Quote(s)
}

// Printable reports whether s is valid UTF-8 made only of characters that
// show as themselves: letters, marks, numbers, punctuation, symbols and
// the ASCII space (unicode.IsPrint). It is stricter than !Hidden: no other
// white space, and no invisible format character.
func Printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// Escape returns s with each character Hidden reports (a control
// character other than newline and tab, a bidirectional formatting
// character) written as a visible escape in Go's notation (\r, \x1b, \u009b, \u202e), and how many it
// wrote. Invalid UTF-8 becomes U+FFFD. Text a program will read (code
// that -c prints to a pipe) keeps every other character as it is.
func Escape(s string) (string, int) {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if Hidden(r) {
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
