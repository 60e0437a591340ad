// Package textutil owns the one rule for bytes that are not UTF-8, shared by
// everything that reads text a user gave: prompt text (arguments, standard
// input, --prompt) has such bytes replaced, and says so; a file that must
// be parsed (a role, a tool script) is refused with the line to fix. The
// plugins' wire format (protobuf) carries only UTF-8, so nothing invalid
// may get past the kernel. Cut is the one way the kernel shortens such
// text for a message or a table, by runes.
package textutil

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// Replacement is what each invalid byte sequence becomes in prompt text.
const Replacement = "\uFFFD"

// Valid returns s with every invalid byte sequence replaced by U+FFFD, and
// whether s had any.
func Valid(s string) (string, bool) {
	if utf8.ValidString(s) {
		return s, false
	}
	return strings.ToValidUTF8(s, Replacement), true
}

// Cut shortens s to at most n runes, ending it with "…" when it was
// longer, so that a value quoted in a message or a table cell keeps to
// its width; it never splits a rune.
func Cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n < 1 {
		return ""
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// BadLine returns the 1-based line of the first byte of data that is not
// UTF-8, or 0 when data is valid.
func BadLine(data []byte) int {
	if utf8.Valid(data) {
		return 0
	}
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			return bytes.Count(data[:i], []byte("\n")) + 1
		}
		i += size
	}
	return 0
}
