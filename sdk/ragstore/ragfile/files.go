package ragfile

import (
	"bytes"
	"strconv"
)

// FileChunks reads how many chunks each file of a files section lists
// (the section as Sections or Split cut it, key line included), by file
// id, without parsing the chunks' text: chunk i of file f is
// "<f>-<i>" (rank.ChunkID). A store that keeps vectors in the RAG's file
// uses it to keep exactly the vectors of the chunks the kernel lists.
//
// It reads the layout the kernel and the original program write:
//
//	files:
//	  0:
//	    hash: 9f86…
//	    path: /docs/a.md
//	    documents:
//	    - page_content: …
//	      metadata: {}
//	  1:
//	    …
//	    documents: []
//
// ok is false for anything else (flow style, other keys, quoted ids, a
// quoted path that goes on over lines): parse the section with a YAML
// parser then.
func FileChunks(section []byte) (counts map[string]int, ok bool) {
	first, rest, _ := bytes.Cut(section, []byte("\n"))
	head, found := bytes.CutPrefix(bytes.TrimRight(first, " \t\r"), []byte("files:"))
	if !found {
		return nil, false
	}
	counts = map[string]int{}
	switch v := bytes.TrimSpace(head); {
	case len(v) == 0:
	case string(v) == "{}" || string(v) == "null" || string(v) == "~":
		return counts, blank(rest)
	default:
		return nil, false
	}
	file := ""        // the file whose lines these are
	inDocs := false   // its documents are being listed
	hasItems := false // its documents list has had an item
	inValue := false  // a key or item of the file's came before
	for len(rest) > 0 {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		line = bytes.TrimRight(line, " \r")
		indent := 0
		for indent < len(line) && line[indent] == ' ' {
			indent++
		}
		body := line[indent:]
		switch {
		case len(body) == 0:
			continue
		case indent > 4:
			// inside a value (a chunk's text, its metadata) of the key or
			// item above
			if !inValue || inDocs && !hasItems {
				return nil, false
			}
			continue
		case body[0] == '\t' || body[0] == '#':
			return nil, false
		case indent == 2:
			if inDocs && !hasItems {
				return nil, false // documents: with its items elsewhere
			}
			id, ok := fileKey(body)
			if !ok {
				return nil, false
			}
			if _, dup := counts[id]; dup {
				return nil, false
			}
			file, inDocs, hasItems, inValue = id, false, false, false
			counts[id] = 0
		case indent == 4 && file != "":
			inValue = true
			if body[0] == '-' && (len(body) == 1 || body[1] == ' ') {
				if !inDocs {
					return nil, false
				}
				counts[file]++
				hasItems = true
				continue
			}
			if inDocs && !hasItems {
				return nil, false
			}
			inDocs = false
			key, value, found := bytes.Cut(body, []byte(":"))
			if !found || len(value) > 0 && value[0] != ' ' {
				return nil, false
			}
			value = bytes.TrimSpace(value)
			switch string(key) {
			case "hash", "path":
				if !oneLine(value) {
					return nil, false
				}
			case "documents":
				switch string(value) {
				case "":
					inDocs = true
				case "[]", "null", "~":
				default:
					return nil, false
				}
			default:
				return nil, false
			}
		default:
			return nil, false
		}
	}
	if inDocs && !hasItems {
		return nil, false
	}
	return counts, true
}

// fileKey reads "<digits>:" with nothing after it.
func fileKey(body []byte) (string, bool) {
	id, found := bytes.CutSuffix(body, []byte(":"))
	if !found || len(id) == 0 || len(id) > 12 {
		return "", false
	}
	for _, c := range id {
		if c < '0' || c > '9' {
			return "", false
		}
	}
	n, err := strconv.Atoi(string(id))
	if err != nil {
		return "", false
	}
	return strconv.Itoa(n), true // "007" is file 7, as a YAML parser reads it
}

// oneLine reports whether a scalar written after "key: " ends on its own
// line: a quoted one must close there (a quoted scalar may go on over
// lines, and one of its lines could look like a chunk), a block scalar's
// lines are indented deeper, and a plain one goes on only on deeper lines.
func oneLine(v []byte) bool {
	if len(v) == 0 {
		return true
	}
	switch v[0] {
	case '\'':
		// '' is a quote inside; the scalar ends at a lone one.
		i := 1
		for i < len(v) {
			if v[i] == '\'' {
				if i+1 < len(v) && v[i+1] == '\'' {
					i += 2
					continue
				}
				return blank(v[i+1:])
			}
			i++
		}
		return false
	case '"':
		for i := 1; i < len(v); i++ {
			switch v[i] {
			case '\\':
				i++
			case '"':
				return blank(v[i+1:])
			}
		}
		return false
	case '{', '[', '&', '*', '!', '?', '%', '@', '`':
		return false
	}
	return true
}

// blank reports whether b holds only white space.
func blank(b []byte) bool {
	return len(bytes.TrimSpace(b)) == 0
}
