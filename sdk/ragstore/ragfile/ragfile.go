// Package ragfile reads and rewrites a RAG's file, rags/<name>.yaml, by its
// lines, for a store that keeps data in that file beside the kernel's.
//
// The kernel owns the RAG file: its settings, document paths and, under
// `files`, each indexed file's chunks. A store may keep a top-level section
// of its own in the same file (the yaml store keeps the vectors under
// `vectors`, the original program's layout). Such a store must rewrite
// only its section and leave every other line as the kernel wrote it, and
// it should not build a YAML tree of a file that can hold 100,000 chunks.
// This package does that by scanning lines, without a YAML parser:
//
//	data, _ := os.ReadFile(req.Path)
//	// Read your section (raw["vectors"]), and let a YAML parser read the
//	// rest, which is small:
//	rest, raw, _, ok := ragfile.Split(data, "vectors")
//	...
//	// Rewrite it:
//	out, ok := ragfile.Replace(data, "vectors", ragfile.AppendVectors(nil, vectors))
//
// When ok is false the file has a layout the line scan does not handle
// (YAML flow style, several documents, directives); parse the whole file
// with a YAML parser then. Files written by the kernel and by the
// original program always scan.
//
// # The vectors section
//
// The original's yaml store keeps each chunk's vector under `vectors`,
// keyed by chunk id, as the base64 of its float32 values, little-endian
// (sdk/ragstore's EncodeVector):
//
//	vectors:
//	  0-0: AACAPw==
//	  0-1: AAAAQA==
//
// AppendVectors writes that form, ids in chunk order; DecodeVectors reads
// it back.
//
// # The files section
//
// FileChunks counts the chunks each file of the kernel's files section
// lists, by the same line scan, so that a store can keep data for exactly
// the chunks the kernel lists without parsing their text.
package ragfile

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/coyote-cli/coyote/sdk/ragstore/rank"
)

// Section is where a top-level entry of a RAG file starts and ends, as
// byte offsets: data[Start:End] is its key line and every line under it.
type Section struct {
	Name       string
	Start, End int
}

// Sections finds the top-level entries named in names, in file order, and
// the 1-based lines of all top-level keys (for a caller that checks them
// against a YAML parser's). ok is false for a layout the scan does not
// handle, or a name that appears twice.
func Sections(data []byte, names ...string) (cuts []Section, keyLines []int, ok bool) {
	off := 0
	for n := 1; off < len(data); n++ {
		lineEnd := bytes.IndexByte(data[off:], '\n')
		next := len(data)
		if lineEnd >= 0 {
			next = off + lineEnd + 1
		}
		l := data[off:next]
		switch c := l[0]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '#':
		case bytes.HasPrefix(l, []byte("---")):
			// a document start before the first key (serde_yaml 0.8 wrote
			// one); anything else after it, or a second one, is left to
			// the parser
			if len(keyLines) > 0 || len(bytes.TrimSpace(l)) != 3 {
				return nil, nil, false
			}
		case c == '-' && (len(l) == 1 || isSpace(l[1])):
			// a sequence item of the key above, written unindented
		case c == '.' || c == '%' || c == '{' || c == '[' || c == '&' || c == '*' || c == '!' || c == '?' || c == '|' || c == '>' || c >= 0x80:
			return nil, nil, false
		default:
			keyLines = append(keyLines, n)
			if k := len(cuts) - 1; k >= 0 && cuts[k].End < 0 {
				cuts[k].End = off
			}
			for _, name := range names {
				if t, found := bytes.CutPrefix(l, []byte(name+":")); found && (len(t) == 0 || isSpace(t[0])) {
					for _, c := range cuts {
						if c.Name == name {
							return nil, nil, false
						}
					}
					cuts = append(cuts, Section{Name: name, Start: off, End: -1})
				}
			}
		}
		off = next
	}
	if k := len(cuts) - 1; k >= 0 && cuts[k].End < 0 {
		cuts[k].End = len(data)
	}
	return cuts, keyLines, true
}

// Split returns data with each entry named in names replaced by
// "<name>: {}" followed by as many newlines as the entry had (so the lines
// after it keep their numbers), those entries verbatim by name, and the
// lines of all top-level keys. ok is false as for Sections.
func Split(data []byte, names ...string) (rest []byte, raw map[string][]byte, keyLines []int, ok bool) {
	cuts, keyLines, ok := Sections(data, names...)
	if !ok {
		return nil, nil, nil, false
	}
	if len(cuts) == 0 {
		return data, nil, keyLines, true
	}
	raw = map[string][]byte{}
	rest = make([]byte, 0, 4096)
	prev := 0
	for _, c := range cuts {
		section := data[c.Start:c.End]
		raw[c.Name] = section
		rest = append(rest, data[prev:c.Start]...)
		rest = append(rest, c.Name+": {}"...)
		for range bytes.Count(section, []byte("\n")) {
			rest = append(rest, '\n')
		}
		prev = c.End
	}
	rest = append(rest, data[prev:]...)
	return rest, raw, keyLines, true
}

// Replace returns data with its top-level entry name replaced by section
// (a whole entry, key line included, ending in a newline), or with section
// added at the end when data has no such entry. Every other line stays as
// it is. ok is false as for Sections.
func Replace(data []byte, name string, section []byte) ([]byte, bool) {
	cuts, _, ok := Sections(data, name)
	if !ok {
		return nil, false
	}
	start, end := len(data), len(data)
	if len(cuts) == 1 {
		start, end = cuts[0].Start, cuts[0].End
	}
	out := make([]byte, 0, start+len(section)+(len(data)-end)+1)
	out = append(out, data[:start]...)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	out = append(out, section...)
	return append(out, data[end:]...), true
}

// VectorsSize is about the length of the vectors section of vectors, to
// size a buffer for AppendVectors.
func VectorsSize(vectors map[string][]float32) int {
	for _, v := range vectors {
		return len(vectors) * (16 + base64.StdEncoding.EncodedLen(4*len(v)))
	}
	return 16
}

// AppendVectors appends a vectors section holding vectors: ids in chunk
// order (rank.CompareChunkIDs), plain when they are chunk ids and quoted
// otherwise; "vectors: {}" when there are none.
func AppendVectors(b []byte, vectors map[string][]float32) []byte {
	if len(vectors) == 0 {
		return append(b, "vectors: {}\n"...)
	}
	ids := make([]string, 0, len(vectors))
	for id := range vectors {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, rank.CompareChunkIDs)
	b = append(b, "vectors:\n"...)
	var raw []byte // a vector's little-endian bytes
	for _, id := range ids {
		b = append(b, "  "...)
		if _, _, ok := rank.ParseChunkID(id); ok {
			b = append(b, id...)
		} else {
			q, _ := json.Marshal(validUTF8(id)) // a JSON string is a YAML double-quoted scalar
			b = append(b, q...)
		}
		b = append(b, ": "...)
		raw = raw[:0]
		for _, x := range vectors[id] {
			raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(x))
		}
		b = base64.StdEncoding.AppendEncode(b, raw)
		b = append(b, '\n')
	}
	return b
}

// VectorError is a vector of the section that cannot be decoded.
type VectorError struct {
	// ID is the chunk id of the vector.
	ID string
	// Line is the line of the vector within the section, 1-based (the
	// key line is 1): a reader that knows the section's first line in
	// the file adds it, less one, to name the file's line.
	Line int
	Err  error
}

func (e *VectorError) Error() string { return fmt.Sprintf("vectors.%s: %v", e.ID, e.Err) }
func (e *VectorError) Unwrap() error { return e.Err }

// DecodeVectors reads a vectors section (as Split returns it, key line
// included) in the plain layout AppendVectors and the original write:
// chunk id → vector. An empty section, "vectors: {}" and "vectors: null"
// give an empty map. ok is false for another layout (quoted ids, flow
// style): read that one with a YAML parser, as a mapping of ids to base64
// strings, and decode each with ragstore.DecodeVector. A vector that is
// not base64 of float32 values is a *VectorError.
func DecodeVectors(section []byte) (vectors map[string][]float32, ok bool, err error) {
	if len(bytes.TrimSpace(section)) == 0 {
		return map[string][]float32{}, true, nil
	}
	entries, ok := scanVectors(section)
	if !ok {
		return nil, false, nil
	}
	// The vectors share one allocation, sized from the base64 lengths.
	size := 0
	for i := range entries {
		size += base64.StdEncoding.DecodedLen(len(entries[i].value)) / 4
	}
	slab := make([]float32, 0, size)
	out := make(map[string][]float32, len(entries))
	var buf []byte
	for _, e := range entries {
		start := len(slab)
		if slab, buf, err = appendVector(slab, buf, e.value); err != nil {
			return nil, true, &VectorError{ID: e.id, Line: e.line, Err: err}
		}
		out[e.id] = slab[start:len(slab):len(slab)]
	}
	return out, true, nil
}

type vectorText struct {
	id    string
	value []byte
	line  int // within the section, 1-based
}

// scanVectors reads a section of the form
//
//	vectors:
//	  0-0: AAAAAA==
//
// (or "vectors: {}"); ok is false for anything else.
func scanVectors(raw []byte) (out []vectorText, ok bool) {
	first, rest, _ := bytes.Cut(raw, []byte("\n"))
	tail, found := bytes.CutPrefix(first, []byte("vectors:"))
	if !found {
		return nil, false
	}
	switch string(bytes.TrimSpace(tail)) {
	case "":
	case "{}", "null", "~":
		return nil, len(bytes.TrimSpace(rest)) == 0
	default:
		return nil, false
	}
	indent := -1
	seen := map[string]bool{}
	for n := 2; len(rest) > 0; n++ {
		var l []byte
		l, rest, _ = bytes.Cut(rest, []byte("\n"))
		t := bytes.TrimSpace(l)
		if len(t) == 0 || t[0] == '#' {
			continue
		}
		in := len(l) - len(bytes.TrimLeft(l, " "))
		if in == 0 || indent >= 0 && in != indent {
			return nil, false
		}
		indent = in
		k, v, found := bytes.Cut(t, []byte(": "))
		if !found || !plainID(k) || !base64Chars(v) || seen[string(k)] {
			return nil, false
		}
		id := string(k)
		seen[id] = true
		out = append(out, vectorText{id: id, value: v, line: n})
	}
	return out, true
}

// appendVector decodes enc, in ragstore.EncodeVector's form, and appends
// its floats to dst, using buf for the bytes.
func appendVector(dst []float32, buf, enc []byte) ([]float32, []byte, error) {
	n := base64.StdEncoding.DecodedLen(len(enc))
	if cap(buf) < n {
		buf = make([]byte, n)
	}
	n, err := base64.StdEncoding.Decode(buf[:n], enc)
	if err != nil {
		return dst, buf, fmt.Errorf("not base64: %w", err)
	}
	if n%4 != 0 {
		return dst, buf, fmt.Errorf("%d bytes are not a whole number of float32 values", n)
	}
	start := len(dst)
	dst = slices.Grow(dst, n/4)[:start+n/4]
	v := dst[start:]
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(buf[4*i:]))
	}
	return dst, buf, nil
}

func plainID(k []byte) bool {
	if len(k) == 0 {
		return false
	}
	for _, c := range k {
		if !(c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	_, _, ok := rank.ParseChunkID(string(k))
	return ok
}

var isBase64Char = func() (t [256]bool) {
	for _, c := range []byte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=") {
		t[c] = true
	}
	return t
}()

func base64Chars(v []byte) bool {
	for _, c := range v {
		if !isBase64Char[c] {
			return false
		}
	}
	return true
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}
