package rag

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/coyote-cli/coyote/kernel/textutil"
)

// The files section holds every chunk's text, the bulk of a RAG file that
// is not vectors; yaml.v3's encoder takes about half a second per 10,000
// chunks. This writer emits it directly, in the layout the original's
// serde_yaml writes: two-space indentation, sequences not indented under
// their key, multi-line text as literal blocks, and other strings plain,
// single-quoted or double-quoted, the first that reads back as the same
// string. FuzzScalarRoundTrip checks every string reads back unchanged.

// appendFiles appends the files section of f.
func appendFiles(b []byte, f *File) []byte {
	if len(f.Files) == 0 {
		return append(b, "files: {}\n"...)
	}
	b = append(b, "files:\n"...)
	for _, id := range f.fileIDs() {
		b = appendEntry(b, id, f.Files[id])
	}
	return b
}

// appendEntry appends one file of the files section.
func appendEntry(b []byte, id int, fe FileEntry) []byte {
	b = append(b, "  "...)
	b = strconv.AppendInt(b, int64(id), 10)
	b = append(b, ":\n    hash: "...)
	b = appendScalar(b, fe.Hash, 4)
	b = append(b, "    path: "...)
	b = appendScalar(b, fe.Path, 4)
	if len(fe.Documents) == 0 {
		return append(b, "    documents: []\n"...)
	}
	b = append(b, "    documents:\n"...)
	for _, d := range fe.Documents {
		b = append(b, "    - page_content: "...)
		b = appendScalar(b, d.PageContent, 6)
		if len(d.Metadata) == 0 {
			b = append(b, "      metadata: {}\n"...)
			continue
		}
		b = append(b, "      metadata:\n"...)
		for _, k := range sortedKeys(d.Metadata) {
			b = appendKey(b, k, 8)
			b = appendScalar(b, d.Metadata[k], 8)
		}
	}
	return b
}

// appendKey appends a mapping key at column col, up to the space after
// its colon.
func appendKey(b []byte, k string, col int) []byte {
	b = appendSpaces(b, col)
	k, _ = textutil.Valid(k)
	switch {
	case plainSafe(k):
		b = append(b, k...)
	case len(k) < 500:
		b = appendDoubleQuoted(b, k)
	default: // too long for an implicit key: "? key" then ": value"
		b = append(b, "? "...)
		b = appendDoubleQuoted(b, k)
		b = append(b, '\n')
		b = appendSpaces(b, col)
	}
	return append(b, ": "...)
}

// appendScalar appends a string value written after "key: ", and the
// newline; a literal block's lines go at column col+2 (col is the key's).
func appendScalar(b []byte, s string, col int) []byte {
	s, _ = textutil.Valid(s)
	switch {
	case plainSafe(s):
		b = append(b, s...)
	case strings.IndexByte(s, '\n') >= 0 && literalSafe(s):
		return appendLiteral(b, s, col)
	case singleQuotable(s):
		b = append(b, '\'')
		b = append(b, strings.ReplaceAll(s, "'", "''")...)
		b = append(b, '\'')
	default:
		b = appendDoubleQuoted(b, s)
	}
	return append(b, '\n')
}

func appendSpaces(b []byte, n int) []byte {
	for ; n > 0; n-- {
		b = append(b, ' ')
	}
	return b
}

// plainSafe reports whether s can be written without quotes and read back
// as the same string by any YAML reader: a conservative set of characters,
// starting with a letter, '/' or '_', and not a word YAML reads as a bool
// or null.
func plainSafe(s string) bool {
	if s == "" || len(s) > 200 {
		return false
	}
	if c := s[0]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '/' || c == '_') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '/' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	switch strings.ToLower(s) {
	case "y", "n", "yes", "no", "on", "off", "true", "false", "null":
		return false
	}
	return true
}

// yamlPrintable reports whether YAML readers take r as it is in a
// document (libyaml's printable set), and r is not a line break of YAML
// 1.1 or a byte order mark.
func yamlPrintable(r rune) bool {
	switch {
	case r == '\t' || r >= 0x20 && r <= 0x7e:
		return true
	case r == 0x85 || r == 0x2028 || r == 0x2029 || r == 0xfeff:
		return false
	case r >= 0xa0 && r <= 0xd7ff, r >= 0xe000 && r <= 0xfffd, r >= 0x10000 && r <= 0x10ffff:
		return true
	}
	return false
}

// singleQuotable: one line of printable characters.
func singleQuotable(s string) bool {
	for _, r := range s {
		if !yamlPrintable(r) {
			return false
		}
	}
	return s != "" && !strings.HasPrefix(s, " ") && !strings.HasSuffix(s, " ") && len(s) < 4096
}

// literalSafe: lines of printable characters with something else than
// white space.
func literalSafe(s string) bool {
	if strings.TrimSpace(s) == "" {
		return false
	}
	for _, r := range s {
		if r != '\n' && !yamlPrintable(r) {
			return false
		}
	}
	return true
}

// appendLiteral appends s as a literal block scalar, its lines at column
// col+2: "|" keeps one final newline, "|-" none, "|+" all; an explicit
// indentation is given when the first line starts with a space or is
// empty (the reader would guess it wrong).
func appendLiteral(b []byte, s string, col int) []byte {
	b = append(b, '|')
	if s[0] == ' ' || s[0] == '\n' {
		b = append(b, '2')
	}
	body := strings.TrimRight(s, "\n")
	switch trailing := len(s) - len(body); {
	case trailing == 0:
		b = append(b, '-')
	case trailing > 1:
		b = append(b, '+')
	}
	b = append(b, '\n')
	for line := range strings.SplitSeq(body, "\n") {
		if line != "" {
			b = appendSpaces(b, col+2)
			b = append(b, line...)
		}
		b = append(b, '\n')
	}
	for i := len(s) - len(body); i > 1; i-- {
		b = append(b, '\n')
	}
	return b
}

// appendDoubleQuoted appends s in double quotes, escaping what is not
// printable.
func appendDoubleQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	for _, r := range s {
		switch {
		case r == '"':
			b = append(b, `\"`...)
		case r == '\\':
			b = append(b, `\\`...)
		case r == '\n':
			b = append(b, `\n`...)
		case r == '\t':
			b = append(b, `\t`...)
		case r == '\r':
			b = append(b, `\r`...)
		case yamlPrintable(r):
			b = utf8.AppendRune(b, r)
		case r <= 0xffff:
			b = append(b, `\u`...)
			b = appendHex(b, uint32(r), 4)
		default:
			b = append(b, `\U`...)
			b = appendHex(b, uint32(r), 8)
		}
	}
	return append(b, '"')
}

func appendHex(b []byte, v uint32, digits int) []byte {
	const hex = "0123456789ABCDEF"
	for i := digits - 1; i >= 0; i-- {
		b = append(b, hex[(v>>(4*uint(i)))&0xf])
	}
	return b
}
