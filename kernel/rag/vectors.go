package rag

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

	"gopkg.in/yaml.v3"

	"github.com/coyote-cli/coyote/kernel/yamlerr"
)

// The vectors section of a RAG file maps chunk ids to the base64 of the
// chunk's vector as little-endian float32 values. It belongs to the yaml
// store and is the bulk of a yaml RAG's file (some 2 KB a chunk at 384
// dimensions), so the file is read without parsing it: a line scan sets it
// aside, and it is decoded only when asked.

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

// Vectors decodes the vectors section: chunk id → vector. A file without
// one gives an empty map.
func (f *File) Vectors() (map[string][]float32, error) {
	enc, line, err := f.vectorStrings()
	if err != nil {
		return nil, err
	}
	// The vectors share one allocation, sized from the base64 lengths.
	size := 0
	for i := range enc {
		enc[i].value = bytes.TrimSpace(enc[i].value)
		size += base64.StdEncoding.DecodedLen(len(enc[i].value)) / 4
	}
	slab := make([]float32, 0, size)
	out := make(map[string][]float32, len(enc))
	var buf []byte
	for _, e := range enc {
		start := len(slab)
		if slab, buf, err = appendVector(slab, buf, e.value); err != nil {
			l := 0
			if line > 0 && e.line > 0 {
				l = line + e.line - 1
			}
			return nil, &FileError{Path: f.Path, Line: l, Field: "vectors." + e.id, Msg: err.Error()}
		}
		out[e.id] = slab[start:len(slab):len(slab)]
	}
	return out, nil
}

// SetVectors replaces the vectors section (ids in chunk order). Save then
// writes these instead of keeping the section on disk.
func (f *File) SetVectors(vectors map[string][]float32) {
	f.vectorsSet = true
	f.vectors = appendVectors(make([]byte, 0, vectorsSize(vectors)), vectors)
}

type vectorString struct {
	id    string
	value []byte
	line  int // within the section, 1-based; 0 when unknown
}

// vectorStrings reads the section's entries without decoding the base64:
// a fast scan of the form this package and the original write, and
// yaml.v3 for anything else. line is the file line the section starts on.
func (f *File) vectorStrings() (out []vectorString, line int, err error) {
	line = f.lines["vectors"]
	raw := f.vectors
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, line, nil
	}
	if out, ok := scanVectors(raw); ok {
		return out, line, nil
	}
	var doc struct {
		Vectors map[string]string `yaml:"vectors"`
	}
	var n yaml.Node
	if err := yamlerr.Unmarshal(raw, &n); err != nil {
		return nil, line, &FileError{Path: f.Path, Line: line, Field: "vectors", Msg: strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	if err := n.Decode(&doc); err != nil {
		return nil, line, &FileError{Path: f.Path, Line: line, Field: "vectors", Msg: "must be a mapping of chunk ids to base64 vectors: " + strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	for id, v := range doc.Vectors {
		out = append(out, vectorString{id: id, value: []byte(v)})
	}
	slices.SortFunc(out, func(a, b vectorString) int { return CompareChunkIDs(a.id, b.id) })
	return out, line, nil
}

// scanVectors reads a section of the form
//
//	vectors:
//	  0-0: AAAAAA==
//
// (or "vectors: {}"); ok is false for anything else.
func scanVectors(raw []byte) (out []vectorString, ok bool) {
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
		out = append(out, vectorString{id: id, value: v, line: n})
	}
	return out, true
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
	_, _, ok := ParseChunkID(string(k))
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

// splitSections finds top-level entries of a RAG file by its lines,
// without parsing YAML. It returns the file with each entry named in names
// replaced by "<name>: {}" and as many newlines as it had (so the lines
// after it keep their numbers), those entries verbatim, and the lines it
// took for top-level keys, for the caller to check against the parser's.
// ok is false for a layout the scan does not handle (flow style, several
// documents, directives, a name twice); the caller parses the whole file
// then.
func splitSections(data []byte, names ...string) (rest []byte, raw map[string][]byte, keyLines []int, ok bool) {
	cuts, keyLines, ok := findSections(data, names...)
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
		section := data[c.start:c.end]
		raw[c.name] = section
		rest = append(rest, data[prev:c.start]...)
		rest = append(rest, c.name+": {}"...)
		for range bytes.Count(section, []byte("\n")) {
			rest = append(rest, '\n')
		}
		prev = c.end
	}
	rest = append(rest, data[prev:]...)
	return rest, raw, keyLines, true
}

// section is where a top-level entry of a RAG file starts and ends.
type section struct {
	name       string
	start, end int
}

// findSections is splitSections' line scan: the entries named, in file
// order, and the lines of all top-level keys.
func findSections(data []byte, names ...string) (cuts []section, keyLines []int, ok bool) {
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
			if k := len(cuts) - 1; k >= 0 && cuts[k].end < 0 {
				cuts[k].end = off
			}
			for _, name := range names {
				if t, found := bytes.CutPrefix(l, []byte(name+":")); found && (len(t) == 0 || isSpace(t[0])) {
					for _, c := range cuts {
						if c.name == name {
							return nil, nil, false
						}
					}
					cuts = append(cuts, section{name: name, start: off, end: -1})
				}
			}
		}
		off = next
	}
	if k := len(cuts) - 1; k >= 0 && cuts[k].end < 0 {
		cuts[k].end = len(data)
	}
	return cuts, keyLines, true
}

// ReplaceVectors returns data, the text of a RAG file, with its vectors
// section holding vectors instead (added at the end when it has none):
// every other line stays as it is, and nothing but the lines is parsed, so
// a file of 100,000 chunks is rewritten without a YAML tree of it. ok is
// false for a layout the line scan does not handle; the caller rewrites
// the file another way then.
func ReplaceVectors(data []byte, vectors map[string][]float32) ([]byte, bool) {
	cuts, _, ok := findSections(data, "vectors")
	if !ok {
		return nil, false
	}
	start, end := len(data), len(data)
	if len(cuts) == 1 {
		start, end = cuts[0].start, cuts[0].end
	}
	out := make([]byte, 0, start+(len(data)-end)+vectorsSize(vectors)+1)
	out = append(out, data[:start]...)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	out = appendVectors(out, vectors)
	return append(out, data[end:]...), true
}

// vectorsSize is about the length of the vectors section of vectors.
func vectorsSize(vectors map[string][]float32) int {
	for _, v := range vectors {
		return len(vectors) * (16 + base64.StdEncoding.EncodedLen(4*len(v)))
	}
	return 16
}

// appendVectors appends a vectors section: ids in chunk order, plain when
// they are chunk ids, quoted otherwise.
func appendVectors(b []byte, vectors map[string][]float32) []byte {
	if len(vectors) == 0 {
		return append(b, "vectors: {}\n"...)
	}
	ids := make([]string, 0, len(vectors))
	for id := range vectors {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, CompareChunkIDs)
	b = append(b, "vectors:\n"...)
	var raw []byte // a vector's little-endian bytes
	for _, id := range ids {
		b = append(b, "  "...)
		if _, _, ok := ParseChunkID(id); ok {
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

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}
