package yamlstore

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/coyote-cli/coyote/sdk/ragstore"
	"github.com/coyote-cli/coyote/sdk/ragstore/ragfile"
	"github.com/coyote-cli/coyote/sdk/ragstore/rank"
)

// The RAG file is the kernel's, and this store reads only two of its
// sections: `files` (each indexed file's path and chunks, which the kernel
// writes) for the chunks' text, and `vectors` (this store's) for their
// vectors. The vectors are set aside by a line scan (sdk/ragstore/ragfile)
// so that a file of many chunks is not parsed as YAML; the rest of the
// file is small enough for a YAML parser.

// ragFile is what the store reads from a RAG file.
type ragFile struct {
	files   map[string]fileEntry // by file id
	vectors map[string][]float32
}

type fileEntry struct {
	Path      string         `yaml:"path"`
	Documents []fileDocument `yaml:"documents"`
}

type fileDocument struct {
	PageContent string               `yaml:"page_content"`
	Metadata    map[string]yaml.Node `yaml:"metadata"`
}

// readRAGFile reads the files and vectors of a RAG file's text.
func readRAGFile(path string, data []byte) (*ragFile, error) {
	fail := func(err error) error {
		return fmt.Errorf("%s: %s", path, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	// The vectors are set aside by the line scan, unless the layout is one
	// it does not read or it cut the file where the parser sees no key
	// (inside a quoted scalar running over lines).
	rest, raw, keyLines, scanned := ragfile.Split(data, "vectors")
	var root yaml.Node
	if scanned && (unmarshal(rest, &root) != nil || !sameKeyLines(&root, keyLines)) {
		scanned = false
	}
	if !scanned {
		root = yaml.Node{}
		if err := unmarshal(data, &root); err != nil {
			return nil, fail(err)
		}
	}
	var doc struct {
		Files   map[string]fileEntry `yaml:"files"`
		Vectors yaml.Node            `yaml:"vectors"`
	}
	if len(root.Content) > 0 {
		if err := root.Content[0].Decode(&doc); err != nil {
			return nil, fail(err)
		}
	}
	for id := range doc.Files {
		if n, err := strconv.Atoi(id); err != nil || n < 0 {
			return nil, fmt.Errorf("%s: files: %q is not a file id (a whole number)", path, id)
		}
	}
	f := &ragFile{files: doc.Files}
	var err error
	plain := false
	if scanned {
		f.vectors, plain, err = ragfile.DecodeVectors(raw["vectors"])
		var ve *ragfile.VectorError
		switch {
		case errors.As(err, &ve):
			// The section's key stays on its line in rest, as "vectors:
			// {}"; the error counts the section's lines from it.
			return nil, fmt.Errorf("%s:%d: %w", path, doc.Vectors.Line+ve.Line-1, err)
		case err != nil:
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	if !plain {
		if scanned { // set aside, in a layout only the parser reads
			var whole struct {
				Vectors yaml.Node `yaml:"vectors"`
			}
			if err := unmarshal(data, &whole); err != nil {
				return nil, fail(err)
			}
			doc.Vectors = whole.Vectors
		}
		if f.vectors, err = decodeVectorsNode(&doc.Vectors); err != nil {
			return nil, fmt.Errorf("%s:%d: vectors: %w", path, doc.Vectors.Line, err)
		}
	}
	return f, nil
}

// listedChunks returns whether the RAG file's text data lists a chunk id,
// or nil when it has no files section: the counts of its files by the
// line scan (ragfile.FileChunks), or by the parser for a layout the scan
// does not read.
func listedChunks(path string, data []byte) (func(id string) bool, error) {
	var counts map[string]int
	cuts, _, ok := ragfile.Sections(data, "files")
	switch {
	case ok && len(cuts) == 0:
		return nil, nil
	case ok:
		counts, ok = ragfile.FileChunks(data[cuts[0].Start:cuts[0].End])
	}
	if !ok {
		var doc struct {
			Files *map[string]struct {
				Documents []yaml.Node `yaml:"documents"`
			} `yaml:"files"`
		}
		if err := unmarshal(data, &doc); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if doc.Files == nil {
			return nil, nil
		}
		counts = make(map[string]int, len(*doc.Files))
		for key, e := range *doc.Files {
			id, err := strconv.Atoi(key)
			if err != nil || id < 0 {
				return nil, fmt.Errorf("%s: files: %q is not a file id (a whole number)", path, key)
			}
			counts[strconv.Itoa(id)] = len(e.Documents)
		}
	}
	return func(id string) bool {
		file, i, ok := rank.ParseChunkID(id)
		return ok && i < counts[strconv.Itoa(file)]
	}, nil
}

// sameKeyLines reports whether the top-level keys of a parsed document
// are on the lines the line scan found keys on.
func sameKeyLines(root *yaml.Node, lines []int) bool {
	if len(root.Content) == 0 {
		return len(lines) == 0
	}
	m := root.Content[0]
	if m.Kind != yaml.MappingNode || len(m.Content)/2 != len(lines) {
		return false
	}
	for i := 0; i < len(m.Content); i += 2 {
		if m.Content[i].Line != lines[i/2] {
			return false
		}
	}
	return true
}

// decodeVectorsNode reads a vectors mapping the parser read: chunk id →
// base64 vector.
func decodeVectorsNode(n *yaml.Node) (map[string][]float32, error) {
	out := map[string][]float32{}
	if n.Kind == 0 || n.Tag == "!!null" {
		return out, nil
	}
	var enc map[string]string
	if err := n.Decode(&enc); err != nil {
		return nil, fmt.Errorf("must be a mapping of chunk ids to base64 vectors: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	for id, s := range enc {
		v, err := ragstore.DecodeVector(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", id, err)
		}
		out[id] = v
	}
	return out, nil
}

// chunks calls fn with each chunk of the file's files: its id, file id,
// text and metadata (with "source" set to the file's path when the chunk
// has none).
func (f *ragFile) chunks(fn func(id, fileID, text string, meta map[string]string)) {
	for key, e := range f.files {
		fileID, _ := strconv.Atoi(key) // checked by readRAGFile
		for i, d := range e.Documents {
			meta := make(map[string]string, len(d.Metadata)+1)
			for k, v := range d.Metadata {
				if v.Kind == yaml.ScalarNode && v.Tag != "!!null" {
					meta[k] = v.Value
				}
			}
			if meta["source"] == "" && e.Path != "" {
				meta["source"] = e.Path
			}
			fn(rank.ChunkID(fileID, i), strconv.Itoa(fileID), d.PageContent, meta)
		}
	}
}

// replaceVectors returns the RAG file's text with its vectors section
// holding vectors: line by line where the layout allows (the kernel's and
// the original's files do), so that every other line stays as the kernel
// wrote it; else through the parser, which keeps every key and value but
// not the layout.
func replaceVectors(data []byte, vectors map[string][]float32) ([]byte, error) {
	section := ragfile.AppendVectors(make([]byte, 0, ragfile.VectorsSize(vectors)), vectors)
	if scansRight(data) {
		if out, ok := ragfile.Replace(data, "vectors", section); ok {
			return out, nil
		}
	}
	var doc yaml.Node
	if err := unmarshal(data, &doc); err != nil {
		return nil, err
	}
	var vnode yaml.Node
	if err := unmarshal(section, &vnode); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("the RAG file is not a mapping")
	}
	m := doc.Content[0]
	m.Style = 0 // block style, so the vectors go one a line
	value := vnode.Content[0].Content[1]
	found := false
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "vectors" {
			m.Content[i+1], found = value, true
		}
	}
	if !found {
		m.Content = append(m.Content, vnode.Content[0].Content[0], value)
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// scansRight reports whether the line scan finds the top-level keys of
// data where the parser does: with the two big sections set aside, the
// rest is a few lines of settings to parse.
func scansRight(data []byte) bool {
	rest, _, keyLines, ok := ragfile.Split(data, "vectors", "files")
	if !ok {
		return false
	}
	var root yaml.Node
	return unmarshal(rest, &root) == nil && sameKeyLines(&root, keyLines)
}

// unmarshal is yaml.Unmarshal that turns a panic of the parser (it has
// had some on hostile input) into an error.
func unmarshal(data []byte, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("cannot parse the file: %v", r)
		}
	}()
	return yaml.Unmarshal(data, v)
}
