package prompt

import (
	"unicode/utf8"

	termwidth "github.com/coyote-cli/coyote/kernel/render"
)

// Width is the number of terminal columns s takes when printed: escape
// sequences (colours, OSC hyperlinks) and other control characters take
// none, East Asian wide and full-width characters and the common emoji
// take two, combining marks and zero-width format characters none, and
// everything else one, by the renderer's table (render.RuneWidth).
func Width(s string) int {
	w := 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == 0x1b:
			i += escapeLen(s[i:])
		case c < 0x20 || c == 0x7f:
			i++
		case c < utf8.RuneSelf:
			w++
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			w += termwidth.RuneWidth(r)
			i += size
		}
	}
	return w
}

// escapeLen is the length of the escape sequence at the start of s, which
// begins with ESC: a CSI sequence (ESC [ parameters final), an OSC string
// (ESC ] ... ended by BEL or ESC \, or by the end of s), or ESC and one
// printable ASCII character. A malformed sequence ends where it stops
// making sense, so the text after it is still counted.
func escapeLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[':
		i := 2
		for i < len(s) && 0x20 <= s[i] && s[i] <= 0x3f {
			i++
		}
		if i < len(s) && 0x40 <= s[i] && s[i] <= 0x7e {
			i++
		}
		return i
	case ']':
		for i := 2; i < len(s); i++ {
			switch {
			case s[i] == 0x07:
				return i + 1
			case s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\':
				return i + 2
			}
		}
		return len(s)
	}
	if 0x20 <= s[1] && s[1] < 0x7f {
		return 2
	}
	return 1
}
