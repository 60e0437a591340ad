package rag

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"

	"gopkg.in/yaml.v3"
)

// A RAG file of 100,000 chunks is some 50 MB of text, most of it the
// chunks under `files` (and, for the yaml store, the vectors). Indexing
// and asking questions need each file's id, hash, path and number of
// chunks, not the text: scanFile reads the file by lines, keeping the
// settings and those facts, and where each file's entry lies, so that
// the text can be copied into the next version of the file or read one
// file at a time. It reads the layout the kernel and the original program
// write (as sdk/ragstore/ragfile's scans do); for anything else ok is
// false and the file is parsed whole.

// diskEntry is an indexed file as the RAG file on disk lists it, without
// its chunks.
type diskEntry struct {
	ID         int
	Hash, Path string
	Chunks     int
	// Off and End are where its entry lies in the file: from its
	// "  <id>:" line up to the next file's.
	Off, End int64
}

// span is where a top-level entry lies in a file, key line included.
type span struct {
	Off, End int64
	Found    bool
}

// fileScan is a RAG file read by lines.
type fileScan struct {
	// rest is the file with its files and vectors entries replaced by
	// "<key>: {}" and as many newlines as the entry had, so that a YAML
	// parser reads the settings with the file's line numbers.
	rest     []byte
	keyLines []int // the 1-based lines of the top-level keys
	files    []diskEntry
	filesAt  span
	vectors  span
	size     int64
}

// scanFile reads a RAG file by lines; ok is false for a layout it does not
// read (parse the file whole then).
func scanFile(r io.Reader) (sc *fileScan, ok bool, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	sc = &fileScan{}
	var fs filesState
	current := "" // the top-level entry the lines belong to
	var off int64
	var long []byte // a line longer than the reader's buffer
	for n := 1; ; n++ {
		line, rerr := br.ReadSlice('\n')
		if errors.Is(rerr, bufio.ErrBufferFull) {
			long = append(long[:0], line...)
			for errors.Is(rerr, bufio.ErrBufferFull) {
				line, rerr = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return nil, false, rerr
		}
		if len(line) == 0 {
			break
		}
		top, name, good := topLevel(line, len(sc.keyLines) > 0)
		if !good {
			return nil, false, nil
		}
		if top {
			sc.keyLines = append(sc.keyLines, n)
			sc.end(current, off, &fs)
			if fs.bad {
				return nil, false, nil
			}
			current = ""
			if name == "files" || name == "vectors" {
				at := &sc.filesAt
				if name == "vectors" {
					at = &sc.vectors
				}
				if at.Found {
					return nil, false, nil // twice
				}
				*at = span{Off: off, Found: true}
				current = name
				sc.rest = append(sc.rest, name+": {}\n"...)
				if name == "files" {
					fs = filesState{seen: map[int]bool{}}
					if !fs.head(line) {
						return nil, false, nil
					}
				}
			}
		}
		switch current {
		case "files":
			if !top && !fs.line(line, off, sc) {
				return nil, false, nil
			}
			if !top {
				sc.rest = append(sc.rest, '\n')
			}
		case "vectors":
			if !top {
				sc.rest = append(sc.rest, '\n')
			}
		default:
			sc.rest = append(sc.rest, line...)
		}
		off += int64(len(line))
		if rerr != nil {
			break
		}
	}
	sc.size = off
	sc.end(current, off, &fs)
	if fs.bad {
		return nil, false, nil
	}
	return sc, true, nil
}

// end closes the entry current at off.
func (sc *fileScan) end(current string, off int64, fs *filesState) {
	switch current {
	case "files":
		sc.filesAt.End = off
		fs.close(off, sc)
	case "vectors":
		sc.vectors.End = off
	}
}

// topLevel classifies a line as ragfile.Sections does: top is set for a
// top-level key (name is then "files" or "vectors" for those, "" for
// another); good is false for a line the scan does not read.
func topLevel(l []byte, afterKey bool) (top bool, name string, good bool) {
	switch c := l[0]; {
	case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '#':
		return false, "", true
	case bytes.HasPrefix(l, []byte("---")):
		return false, "", !afterKey && len(bytes.TrimSpace(l)) == 3
	case c == '-' && (len(l) == 1 || isBlankByte(l[1])):
		return false, "", true
	case c == '.' || c == '%' || c == '{' || c == '[' || c == '&' || c == '*' || c == '!' || c == '?' || c == '|' || c == '>' || c >= 0x80:
		return false, "", false
	}
	for _, k := range []string{"files", "vectors"} {
		if t, found := bytes.CutPrefix(l, []byte(k+":")); found && (len(t) == 0 || isBlankByte(t[0])) {
			return true, k, true
		}
	}
	return true, "", true
}

func isBlankByte(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// filesState reads the files entry line by line, in the layout
// ragfile.FileChunks reads (the kernel's and the original's).
type filesState struct {
	bad      bool // a line the scan does not read
	empty    bool // "files: {}": no line may follow
	seen     map[int]bool
	entry    *diskEntry
	inDocs   bool // the entry's documents are being listed
	hasItems bool // its documents list has had an item
	inValue  bool // a key or item of the entry's came before
	// inScalar: the line above was "hash: …" or "path: …", which a
	// deeper line would continue (a plain scalar over lines).
	inScalar bool
}

// head reads the "files:" line.
func (s *filesState) head(line []byte) bool {
	v := bytes.TrimSpace(bytes.TrimPrefix(line, []byte("files:")))
	switch string(v) {
	case "":
	case "{}", "null", "~":
		s.empty = true
	default:
		s.bad = true
	}
	return !s.bad
}

// line reads one line under "files:" at offset off.
func (s *filesState) line(line []byte, off int64, sc *fileScan) bool {
	body := bytes.TrimRight(line, " \r\n")
	indent := 0
	for indent < len(body) && body[indent] == ' ' {
		indent++
	}
	body = body[indent:]
	inScalar := s.inScalar
	s.inScalar = false
	switch {
	case len(body) == 0:
		s.inScalar = inScalar
		return true
	case s.empty:
	case indent > 4:
		// inside a value (a chunk's text, its metadata)
		if s.inValue && !(s.inDocs && !s.hasItems) && !inScalar {
			return true
		}
	case body[0] == '\t' || body[0] == '#':
	case indent == 2:
		if s.inDocs && !s.hasItems {
			break
		}
		id, ok := entryID(body)
		if !ok {
			break
		}
		if s.seen[id] {
			break
		}
		s.seen[id] = true
		s.close(off, sc)
		s.entry = &diskEntry{ID: id, Off: off}
		s.inDocs, s.hasItems, s.inValue = false, false, false
		return true
	case indent == 4 && s.entry != nil:
		s.inValue = true
		if body[0] == '-' && (len(body) == 1 || body[1] == ' ') {
			if !s.inDocs {
				break
			}
			s.entry.Chunks++
			s.hasItems = true
			return true
		}
		if s.inDocs && !s.hasItems {
			break
		}
		s.inDocs = false
		key, value, found := bytes.Cut(body, []byte(":"))
		if !found || len(value) > 0 && value[0] != ' ' {
			break
		}
		value = bytes.TrimSpace(value)
		switch string(key) {
		case "hash", "path":
			v, ok := oneLineScalar(value)
			if !ok {
				break
			}
			if string(key) == "hash" {
				s.entry.Hash = v
			} else {
				s.entry.Path = v
			}
			s.inScalar = true
			return true
		case "documents":
			switch string(value) {
			case "":
				s.inDocs = true
				return true
			case "[]", "null", "~":
				return true
			}
		}
	}
	s.bad = true
	return false
}

// close ends the current entry at off.
func (s *filesState) close(off int64, sc *fileScan) {
	if s.entry == nil {
		return
	}
	if s.inDocs && !s.hasItems {
		s.bad = true
	}
	s.entry.End = off
	sc.files = append(sc.files, *s.entry)
	s.entry = nil
}

// entryID reads "<digits>:" with nothing after it.
func entryID(body []byte) (int, bool) {
	id, found := bytes.CutSuffix(body, []byte(":"))
	if !found || len(id) == 0 || len(id) > 12 {
		return 0, false
	}
	for _, c := range id {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(string(id))
	return n, err == nil
}

// oneLineScalar reads a scalar written after "key: " that ends on its
// line: plain, or quoted and closed there. ok is false for anything else
// (a block scalar, flow, an anchor, a quoted scalar going on over lines).
func oneLineScalar(v []byte) (string, bool) {
	if len(v) == 0 {
		return "", true
	}
	switch v[0] {
	case '\'':
		if i := bytes.IndexByte(v[1:], '\''); i == len(v)-2 {
			return string(v[1 : len(v)-1]), true // no quote inside
		}
	case '"':
		if i := bytes.IndexAny(v[1:], "\"\\"); i == len(v)-2 {
			return string(v[1 : len(v)-1]), true // no quote or escape inside
		}
	case '{', '[', '&', '*', '!', '?', '%', '@', '`', '|', '>', '#':
		return "", false
	default:
		if plainSafe(string(v)) {
			return string(v), true
		}
	}
	// Anything else is left to a YAML parser, on this line alone: a
	// scalar that goes on over lines does not parse, or parses as
	// something else than a string, and is refused.
	var n yaml.Node
	if yaml.Unmarshal(v, &n) != nil || len(n.Content) != 1 {
		return "", false
	}
	s := n.Content[0]
	if s.Kind != yaml.ScalarNode || s.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 || s.Alias != nil || s.Anchor != "" {
		return "", false
	}
	if s.Tag == "!!null" {
		return "", true
	}
	return s.Value, true
}
