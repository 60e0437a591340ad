package prompt

import "unicode/utf8"

// Width is the number of terminal columns s takes when printed: escape
// sequences (colours, OSC hyperlinks) and other control characters take
// none, East Asian wide and full-width characters and the common emoji
// take two, combining marks and zero-width format characters none, and
// everything else one. The tables are block-level approximations of
// Unicode's East Asian Width, good enough for a prompt; ambiguous-width
// characters count one, as in terminals outside a CJK locale.
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
			w += runeWidth(r)
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

// runeWidth is the number of columns a non-ASCII rune takes.
func runeWidth(r rune) int {
	switch {
	case r < 0xa0:
		return 0 // C1 controls
	case r < 0x300:
		return 1
	case inRanges(r, zeroWidth[:]):
		return 0
	case r >= 0x1100 && inRanges(r, doubleWidth[:]):
		return 2
	}
	return 1
}

// span is an inclusive range of code points.
type span struct{ lo, hi rune }

// inRanges reports whether r is in one of the sorted, disjoint spans.
func inRanges(r rune, t []span) bool {
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

// zeroWidth holds the combining marks and format characters most likely
// in a prompt: they draw nothing, or draw over the previous character.
var zeroWidth = [...]span{
	{0x0300, 0x036f}, // combining diacritical marks
	{0x0483, 0x0489}, // Cyrillic combining marks
	{0x0591, 0x05bd}, // Hebrew points
	{0x0610, 0x061a}, // Arabic marks
	{0x064b, 0x065f},
	{0x0e31, 0x0e31}, // Thai vowel and tone marks
	{0x0e34, 0x0e3a},
	{0x0e47, 0x0e4e},
	{0x1160, 0x11ff},   // Hangul medial vowels and final consonants
	{0x1ab0, 0x1aff},   // combining diacritical marks extended
	{0x1dc0, 0x1dff},   // combining diacritical marks supplement
	{0x200b, 0x200f},   // zero-width space, joiners, direction marks
	{0x202a, 0x202e},   // bidirectional embeddings
	{0x2060, 0x2064},   // word joiner, invisible operators
	{0x20d0, 0x20ff},   // combining marks for symbols
	{0x302a, 0x302d},   // ideographic tone marks
	{0x3099, 0x309a},   // kana voicing marks
	{0xfe00, 0xfe0f},   // variation selectors
	{0xfe20, 0xfe2f},   // combining half marks
	{0xfeff, 0xfeff},   // byte order mark
	{0x1f3fb, 0x1f3ff}, // emoji skin tones
	{0xe0000, 0xe007f}, // tags
	{0xe0100, 0xe01ef}, // variation selectors supplement
}

// doubleWidth holds the East Asian wide and full-width blocks and the
// emoji that terminals draw two columns wide.
var doubleWidth = [...]span{
	{0x1100, 0x115f}, // Hangul initial consonants
	{0x231a, 0x231b}, // watch, hourglass
	{0x2329, 0x232a}, // angle brackets
	{0x23e9, 0x23ec},
	{0x23f0, 0x23f0},
	{0x23f3, 0x23f3},
	{0x25fd, 0x25fe},
	{0x2614, 0x2615}, // umbrella, hot beverage
	{0x2648, 0x2653}, // zodiac
	{0x267f, 0x267f},
	{0x2693, 0x2693},
	{0x26a1, 0x26a1}, // high voltage
	{0x26aa, 0x26ab},
	{0x26bd, 0x26be},
	{0x26c4, 0x26c5},
	{0x26ce, 0x26ce},
	{0x26d4, 0x26d4},
	{0x26ea, 0x26ea},
	{0x26f2, 0x26f3},
	{0x26f5, 0x26f5},
	{0x26fa, 0x26fa},
	{0x26fd, 0x26fd},
	{0x2705, 0x2705}, // check mark
	{0x270a, 0x270b},
	{0x2728, 0x2728}, // sparkles
	{0x274c, 0x274c}, // cross mark
	{0x274e, 0x274e},
	{0x2753, 0x2755},
	{0x2757, 0x2757},
	{0x2795, 0x2797},
	{0x27b0, 0x27b0},
	{0x27bf, 0x27bf},
	{0x2b1b, 0x2b1c},
	{0x2b50, 0x2b50}, // star
	{0x2b55, 0x2b55},
	{0x2e80, 0x3029}, // CJK radicals … ideographic punctuation
	{0x302e, 0x303e},
	{0x3041, 0x3098}, // hiragana
	{0x309b, 0x33ff}, // katakana, bopomofo, CJK compatibility
	{0x3400, 0x4dbf}, // CJK extension A
	{0x4e00, 0x9fff}, // CJK unified ideographs
	{0xa000, 0xa4cf}, // Yi
	{0xa960, 0xa97f}, // Hangul Jamo extended A
	{0xac00, 0xd7a3}, // Hangul syllables
	{0xf900, 0xfaff}, // CJK compatibility ideographs
	{0xfe10, 0xfe19}, // vertical forms
	{0xfe30, 0xfe6f}, // CJK compatibility forms, small forms
	{0xff00, 0xff60}, // full-width forms
	{0xffe0, 0xffe6},
	{0x16fe0, 0x16fe4},
	{0x17000, 0x18cff}, // Tangut
	{0x1b000, 0x1b2ff}, // kana supplement and extensions
	{0x1f004, 0x1f004},
	{0x1f0cf, 0x1f0cf},
	{0x1f18e, 0x1f18e},
	{0x1f191, 0x1f19a},
	{0x1f200, 0x1f2ff}, // enclosed ideographic supplement
	{0x1f300, 0x1f3fa}, // pictographs (the skin tones are zero width)
	{0x1f400, 0x1f64f}, // pictographs, emoticons
	{0x1f680, 0x1f6ff}, // transport and map symbols
	{0x1f7e0, 0x1f7eb}, // coloured circles and squares
	{0x1f90c, 0x1f9ff}, // supplemental symbols and pictographs
	{0x1fa70, 0x1faff}, // symbols and pictographs extended A
	{0x20000, 0x2fffd}, // CJK extensions B…
	{0x30000, 0x3fffd}, // CJK extension G…
}
