package render

import (
	"unicode/utf8"
)

// rng is an inclusive range of code points.
type rng struct{ lo, hi rune }

// inTable reports whether r falls in one of the sorted ranges.
func inTable(r rune, t []rng) bool {
	lo, hi := 0, len(t)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		switch {
		case r < t[m].lo:
			hi = m
		case r > t[m].hi:
			lo = m + 1
		default:
			return true
		}
	}
	return false
}

// RuneWidth is how many terminal columns r takes; control characters
// count 0.
func RuneWidth(r rune) int {
	if r < 0x20 || 0x7f <= r && r < 0xa0 {
		return 0
	}
	return runeWidth(r)
}

// runeWidth is how many terminal columns r takes: 2 for East Asian wide and
// full-width characters (and emoji drawn as such), 0 for combining marks and
// format characters, 1 otherwise. Ambiguous-width characters count 1, as in
// every terminal outside a CJK locale.
func runeWidth(r rune) int {
	switch {
	case r < 0x300:
		return 1
	case r < 0x1100:
		if inTable(r, zeroRanges[:]) {
			return 0
		}
		return 1
	case inTable(r, wideRanges[:]):
		return 2
	case inTable(r, zeroRanges[:]):
		return 0
	}
	return 1
}

// strWidth is the number of columns s takes on a terminal. s holds no
// control characters (the stream drops them on the way in).
func strWidth(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			n++
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		n += runeWidth(r)
		i += size
	}
	return n
}

// cutWidth splits s after as many whole runes as fit in cols columns. At
// least one rune goes into head when s is not empty, so that a caller that
// cuts repeatedly always makes progress (a wide rune in a one-column space).
func cutWidth(s string, cols int) (head, tail string, w int) {
	i := 0
	for i < len(s) {
		rw, size := 1, 1
		if c := s[i]; c >= utf8.RuneSelf {
			var r rune
			r, size = utf8.DecodeRuneInString(s[i:])
			rw = runeWidth(r)
		}
		if w+rw > cols && i > 0 {
			break
		}
		w += rw
		i += size
	}
	return s[:i], s[i:], w
}
