package rag

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sort"
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/coyote-cli/coyote/kernel/textutil"
	"github.com/coyote-cli/coyote/kernel/yamlerr"
	"github.com/coyote-cli/coyote/sdk/fsx"
	"github.com/coyote-cli/coyote/sdk/ragstore/ragfile"
)

// DriverWhenMissing is the driver of a RAG file that names none: the
// original's files written before drivers existed keep their vectors in
// the file, which is the yaml store's format. (A new RAG gets the driver
// of the rag_default_driver setting.)
const DriverWhenMissing = "yaml"

// File is a RAG's file, rags/<name>.yaml, in the original's format. The
// kernel owns every field below; keys it does not know and knowledge_graph
// are kept as they were read (their values; comments are dropped) and
// written back, and the vectors section is kept byte for byte.
type File struct {
	// Path is where the file was read from; errors name it. It is not
	// written.
	Path string

	// Driver names the store plugin (yaml, duckdb, qdrant, …).
	Driver string
	// Attached is set for a RAG that queries an external collection it
	// does not own (no documents, no indexing).
	Attached bool
	// DriverConfig is the driver's settings, {{SECRET}}s unresolved.
	DriverConfig map[string]string

	EmbeddingModel string
	ChunkSize      int
	ChunkOverlap   int
	// RerankerModel is empty when unset.
	RerankerModel string
	TopK          int
	// BatchSize is how many chunks go in one embedding call; 0 when unset.
	BatchSize int
	// NextFileID is the id the next indexed file gets.
	NextFileID int
	// DocumentPaths are what the user pointed at: files, directories,
	// globs, URLs, `commands`, loader:resource.
	DocumentPaths []string
	// Files are the indexed files by id.
	Files map[int]FileEntry

	// ExtractorModel and ExtractorPrompt are the graph-RAG settings; empty
	// when unset.
	ExtractorModel  string
	ExtractorPrompt string
	// GraphHops is nil when unset (0 is a value: seed nodes only).
	GraphHops *int

	knowledgeGraph *yaml.Node     // as read; nil when absent
	extra          []extraKey     // unknown top-level keys, in file order
	filesRaw       []byte         // after parse without files, the "files:" entry verbatim, until LoadFiles
	vectors        []byte         // the top-level "vectors:" entry, verbatim
	lines          map[string]int // line of each top-level key as read

	// onDisk is set when the files section stays in the file on disk
	// (LoadSettings, and after Index): disk lists its files, in id order,
	// without their chunks, and Files is nil until LoadFiles.
	onDisk bool
	disk   []diskEntry
}

// FileEntry is one indexed file: the sha256 of its text, where it came
// from, and its chunks (chunk i has the id ChunkID(file id, i)).
type FileEntry struct {
	Hash      string
	Path      string
	Documents []Document
}

// Document is one chunk of a file as the RAG file holds it.
type Document struct {
	PageContent string
	Metadata    map[string]string
}

type extraKey struct {
	key, value *yaml.Node
}

// FileError is a RAG file that cannot be used: where, which field, and
// what is wrong.
type FileError struct {
	Path         string
	Line, Column int // 1-based; 0 when unknown (a RAG not read from a file)
	Field        string
	Msg          string
}

func (e *FileError) Error() string {
	var b bytes.Buffer
	b.WriteString(e.Path)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Column > 0 {
			fmt.Fprintf(&b, ":%d", e.Column)
		}
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Load reads a RAG file: its settings and files. It checks the types of
// the fields it knows, not the rules between them (see Validate).
func Load(path string) (*File, error) { return load(path, true) }

// LoadSettings reads a RAG file's settings and, of its files, each one's
// id, hash, path and number of chunks: Files stays nil (the chunks stay
// in the file, for LoadFiles, Save and indexing, which read them one file
// at a time) unless the file's layout made the fast path impossible.
// Asking a store that searches keywords itself needs nothing more, and a
// RAG of many chunks reads in milliseconds, in little memory.
func LoadSettings(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read RAG %s: %w", path, err)
	}
	sc, ok, err := scanFile(fh)
	fh.Close()
	if err != nil {
		return nil, fmt.Errorf("read RAG %s: %w", path, err)
	}
	if ok {
		if f, ok := fromScan(path, sc); ok {
			return f, nil
		}
	}
	return load(path, false)
}

// fromScan makes a File of a scan, its files left on disk; ok is false
// when the settings do not parse as the scan cut them (load then reports
// what is wrong).
func fromScan(path string, sc *fileScan) (*File, bool) {
	doc := new(yaml.Node)
	if yamlerr.Unmarshal(sc.rest, doc) != nil || !sameKeyLines(doc, sc.keyLines) || len(doc.Content) == 0 {
		return nil, false
	}
	f := &File{Path: path, lines: map[string]int{}}
	if f.decode(doc.Content[0], map[string][]byte{"files": nil, "vectors": nil}) != nil {
		return nil, false
	}
	f.Driver = f.driver()
	f.filesRaw, f.vectors = nil, nil
	f.onDisk, f.disk = true, sc.files
	slices.SortFunc(f.disk, func(a, b diskEntry) int { return a.ID - b.ID })
	return f, true
}

func load(path string, files bool) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read RAG %s: %w", path, err)
	}
	return parse(path, data, files)
}

// Parse reads a RAG file's bytes, as Load; path is used in errors and kept
// in File.Path. The vectors section is set aside without being parsed, so a
// file with many vectors reads about as fast as one without.
func Parse(path string, data []byte) (*File, error) {
	return parse(path, data, true)
}

func parse(path string, data []byte, files bool) (*File, error) {
	aside := []string{"vectors"}
	if !files {
		aside = append(aside, "files")
	}
	var doc *yaml.Node
	rest, raw, keyLines, ok := ragfile.Split(data, aside...)
	if ok {
		doc = new(yaml.Node)
		if yamlerr.Unmarshal(rest, doc) != nil || !sameKeyLines(doc, keyLines) {
			ok = false
		}
	}
	if !ok {
		doc = new(yaml.Node)
		if err := yamlerr.Unmarshal(data, doc); err != nil {
			line, col, msg := yamlerr.Locate(data, err)
			return nil, &FileError{Path: path, Line: line, Column: col, Msg: msg}
		}
		raw = nil
	}
	f := &File{Path: path, lines: map[string]int{}}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, &FileError{Path: path, Line: 1, Column: 1, Msg: "the file is empty; a RAG file is a mapping with embedding_model, chunk_size, top_k, files and the like"}
	}
	if err := f.decode(doc.Content[0], raw); err != nil {
		return nil, err
	}
	f.Driver = f.driver()
	if f.FilesLoaded() && f.Files == nil {
		f.Files = map[int]FileEntry{}
	}
	return f, nil
}

// driver is the file's driver, DriverWhenMissing when it names none (a
// File not read from a file may leave Driver empty).
func (f *File) driver() string {
	if f.Driver == "" {
		return DriverWhenMissing
	}
	return f.Driver
}

// FilesLoaded reports whether Files holds the file's files (false after
// LoadSettings, until LoadFiles).
func (f *File) FilesLoaded() bool { return f.filesRaw == nil && !f.onDisk }

// LoadFiles decodes the files section LoadSettings set aside (reading it
// from the file when it stayed there); it does nothing when Files is
// loaded already. It holds every chunk's text: indexing does without.
func (f *File) LoadFiles() error {
	if f.FilesLoaded() {
		return nil
	}
	if f.onDisk {
		g, err := Load(f.Path)
		if err != nil {
			return err
		}
		f.Files, f.vectors, f.onDisk, f.disk = g.Files, g.vectors, false, nil
		return nil
	}
	files := map[int]FileEntry{}
	var doc yaml.Node
	base := f.lines["files"]
	if err := yamlerr.Unmarshal(f.filesRaw, &doc); err != nil {
		line, col, msg := yamlerr.Locate(f.filesRaw, err)
		return &FileError{Path: f.Path, Line: base + line - 1, Column: col, Field: "files", Msg: msg}
	}
	if len(doc.Content) == 1 && doc.Content[0].Kind == yaml.MappingNode && len(doc.Content[0].Content) == 2 {
		d := &decoder{f: f, lineBase: base - 1}
		var err error
		if files, err = d.files(doc.Content[0].Content[1]); err != nil {
			return err
		}
	}
	f.Files, f.filesRaw = files, nil
	return nil
}

// sameKeyLines reports whether the parser found top-level keys exactly on
// the lines the vectors scan took for keys: if so, the scan cut the file
// where the parser would have.
func sameKeyLines(doc *yaml.Node, lines []int) bool {
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return false
	}
	m := doc.Content[0]
	if len(m.Content) != 2*len(lines) {
		return false
	}
	for i, l := range lines {
		k := m.Content[2*i]
		if k.Line != l || k.Column != 1 {
			return false
		}
	}
	return true
}

type decoder struct {
	f        *File
	lineBase int // added to node lines (a section parsed on its own)
}

func (d *decoder) fail(n *yaml.Node, field, format string, args ...any) error {
	return &FileError{Path: d.f.Path, Line: d.lineBase + n.Line, Column: n.Column, Field: field, Msg: fmt.Sprintf(format, args...)}
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// resolve follows an alias to its anchored node.
func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < 100; i++ {
		n = n.Alias
	}
	return n
}

// maxKeptNodes bounds the nodes of the parts of a file kept as they are
// once their aliases are expanded (an alias bomb must not take the memory).
const maxKeptNodes = 1 << 20

// expand copies a node kept for writing back, aliases replaced by copies
// of what they name: written on its own, an alias could name an anchor
// that is not written.
func expand(n *yaml.Node, budget *int) (*yaml.Node, bool) {
	if *budget--; *budget < 0 {
		return nil, false
	}
	n = resolve(n)
	c := *n
	c.Anchor, c.Alias = "", nil
	// Comments would move to other keys from one save to the next.
	c.HeadComment, c.LineComment, c.FootComment = "", "", ""
	if c.Kind == yaml.AliasNode { // an alias to nothing
		c.Kind, c.Tag, c.Value = yaml.ScalarNode, "!!null", "null"
	}
	if len(n.Content) > 0 {
		c.Content = make([]*yaml.Node, len(n.Content))
		for i, e := range n.Content {
			var ok bool
			if c.Content[i], ok = expand(e, budget); !ok {
				return nil, false
			}
		}
	}
	return &c, true
}

// decode reads the top-level mapping; aside holds the entries the scan set
// aside (their nodes are placeholders).
func (f *File) decode(root *yaml.Node, aside map[string][]byte) error {
	d := &decoder{f: f}
	if root.Kind != yaml.MappingNode {
		return d.fail(root, "", "a RAG file is a mapping of settings, not %s", yamlerr.Describe(root))
	}
	if k, _ := yamlerr.RepeatedKey(root); k != nil {
		return d.fail(k, k.Value, "appears twice")
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return d.fail(k, "", "a key must be a plain name, not %s", yamlerr.Describe(k))
		}
		name := k.Value
		f.lines[name] = k.Line
		v = resolve(v)
		var err error
		switch name {
		case "driver":
			f.Driver, err = d.str(v, name)
		case "attached":
			f.Attached, err = d.boolean(v, name)
		case "driver_config":
			f.DriverConfig, err = d.strMap(v, name)
		case "embedding_model":
			f.EmbeddingModel, err = d.str(v, name)
		case "chunk_size":
			f.ChunkSize, err = d.count(v, name)
		case "chunk_overlap":
			f.ChunkOverlap, err = d.count(v, name)
		case "reranker_model":
			f.RerankerModel, err = d.str(v, name)
		case "top_k":
			f.TopK, err = d.count(v, name)
		case "batch_size":
			f.BatchSize, err = d.count(v, name)
		case "next_file_id":
			f.NextFileID, err = d.count(v, name)
		case "document_paths":
			f.DocumentPaths, err = d.strList(v, name)
		case "files":
			if raw, ok := aside[name]; ok {
				f.filesRaw = raw // never empty: it starts with "files:"
			} else {
				f.Files, err = d.files(v)
			}
		case "extractor_model":
			f.ExtractorModel, err = d.str(v, name)
		case "extractor_prompt":
			f.ExtractorPrompt, err = d.str(v, name)
		case "graph_hops":
			if !isNull(v) {
				var n int
				n, err = d.count(v, name)
				f.GraphHops = &n
			}
		case "knowledge_graph":
			if !isNull(v) {
				f.knowledgeGraph, err = d.keep(v, name)
			}
		case "vectors":
			if raw, ok := aside[name]; ok {
				f.vectors = raw
			} else {
				f.vectors, err = d.vectorsEntry(v)
			}
		default:
			var kept *yaml.Node
			if kept, err = d.keep(root.Content[i+1], name); err == nil {
				key := &yaml.Node{Kind: yaml.ScalarNode, Tag: k.Tag, Value: k.Value, Style: k.Style}
				f.extra = append(f.extra, extraKey{key: key, value: kept})
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// keep returns a node to write back as it is.
func (d *decoder) keep(n *yaml.Node, field string) (*yaml.Node, error) {
	budget := maxKeptNodes
	c, ok := expand(n, &budget)
	if !ok {
		return nil, d.fail(n, field, "is too big once its aliases are expanded")
	}
	return c, nil
}

func (d *decoder) str(n *yaml.Node, field string) (string, error) {
	n = resolve(n)
	if isNull(n) {
		return "", nil
	}
	if n.Kind != yaml.ScalarNode {
		return "", d.fail(n, field, "must be text, not %s", yamlerr.Describe(n))
	}
	return n.Value, nil
}

func (d *decoder) boolean(n *yaml.Node, field string) (bool, error) {
	n = resolve(n)
	if isNull(n) {
		return false, nil
	}
	var b bool
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" || n.Decode(&b) != nil {
		return false, d.fail(n, field, "must be true or false, not %s", yamlerr.Describe(n))
	}
	return b, nil
}

// count reads a whole number ≥ 0 (the original's usize); null is 0.
func (d *decoder) count(n *yaml.Node, field string) (int, error) {
	n = resolve(n)
	if isNull(n) {
		return 0, nil
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!int" {
		v, err := strconv.ParseInt(n.Value, 0, 64)
		if err == nil && v >= 0 && v <= 1<<40 {
			return int(v), nil
		}
	}
	return 0, d.fail(n, field, "must be a whole number, 0 or more, not %s", yamlerr.Describe(n))
}

func (d *decoder) strList(n *yaml.Node, field string) ([]string, error) {
	n = resolve(n)
	if isNull(n) {
		return nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, d.fail(n, field, "must be a list of paths, not %s", yamlerr.Describe(n))
	}
	out := make([]string, 0, len(n.Content))
	for i, e := range n.Content {
		e = resolve(e)
		if e.Kind != yaml.ScalarNode || isNull(e) {
			return nil, d.fail(e, fmt.Sprintf("%s[%d]", field, i), "must be text, not %s", yamlerr.Describe(e))
		}
		out = append(out, e.Value)
	}
	return out, nil
}

// strMap reads a mapping of names to scalars (kept as their text).
func (d *decoder) strMap(n *yaml.Node, field string) (map[string]string, error) {
	n = resolve(n)
	if isNull(n) {
		return nil, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, d.fail(n, field, "must be a mapping of names to values, not %s", yamlerr.Describe(n))
	}
	if k, _ := yamlerr.RepeatedKey(n); k != nil {
		return nil, d.fail(k, field+"."+k.Value, "appears twice")
	}
	out := make(map[string]string, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolve(n.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			return nil, d.fail(k, field, "a key must be a plain name, not %s", yamlerr.Describe(k))
		}
		if v.Kind != yaml.ScalarNode {
			return nil, d.fail(v, field+"."+k.Value, "must be a single value, not %s", yamlerr.Describe(v))
		}
		if isNull(v) {
			out[k.Value] = ""
			continue
		}
		out[k.Value] = v.Value
	}
	return out, nil
}

func (d *decoder) files(n *yaml.Node) (map[int]FileEntry, error) {
	n = resolve(n)
	out := map[int]FileEntry{}
	if isNull(n) {
		return out, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, d.fail(n, "files", "must be a mapping of file ids to files, not %s", yamlerr.Describe(n))
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolve(n.Content[i+1])
		id, err := strconv.Atoi(k.Value)
		if k.Kind != yaml.ScalarNode || err != nil || id < 0 || id > 1<<40 {
			return nil, d.fail(k, "files", "a file id must be a whole number, 0 or more, not %s", yamlerr.Describe(k))
		}
		where := "files." + k.Value
		if _, dup := out[id]; dup {
			return nil, d.fail(k, where, "appears twice")
		}
		if v.Kind != yaml.MappingNode {
			return nil, d.fail(v, where, "must be a mapping with hash, path and documents, not %s", yamlerr.Describe(v))
		}
		var fe FileEntry
		for j := 0; j+1 < len(v.Content); j += 2 {
			fk, fv := v.Content[j], v.Content[j+1]
			switch fk.Value {
			case "hash":
				fe.Hash, err = d.str(fv, where+".hash")
			case "path":
				fe.Path, err = d.str(fv, where+".path")
			case "documents":
				fe.Documents, err = d.documents(fv, where+".documents")
			}
			if err != nil {
				return nil, err
			}
		}
		out[id] = fe
	}
	return out, nil
}

func (d *decoder) documents(n *yaml.Node, where string) ([]Document, error) {
	n = resolve(n)
	if isNull(n) {
		return nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, d.fail(n, where, "must be a list of chunks, not %s", yamlerr.Describe(n))
	}
	out := make([]Document, 0, len(n.Content))
	for i, e := range n.Content {
		w := fmt.Sprintf("%s[%d]", where, i)
		e = resolve(e)
		if e.Kind != yaml.MappingNode {
			return nil, d.fail(e, w, "must be a mapping with page_content and metadata, not %s", yamlerr.Describe(e))
		}
		var doc Document
		var err error
		for j := 0; j+1 < len(e.Content); j += 2 {
			k, v := e.Content[j], e.Content[j+1]
			switch k.Value {
			case "page_content":
				doc.PageContent, err = d.str(v, w+".page_content")
			case "metadata":
				doc.Metadata, err = d.strMap(v, w+".metadata")
			}
			if err != nil {
				return nil, err
			}
		}
		out = append(out, doc)
	}
	return out, nil
}

// vectorsEntry re-encodes a vectors node the scan could not set aside (a
// file in an unusual layout) as a top-level entry.
func (d *decoder) vectorsEntry(v *yaml.Node) ([]byte, error) {
	if !isNull(v) && v.Kind != yaml.MappingNode {
		return nil, d.fail(v, "vectors", "must be a mapping of chunk ids to base64 vectors, not %s", yamlerr.Describe(v))
	}
	v, err := d.keep(v, "vectors")
	if err != nil {
		return nil, err
	}
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{strNode("vectors"), v}}
	return encodeYAML(m)
}

// Save writes the file to path atomically (a crash leaves the old file or
// the new one). The vectors section is the yaml store's, which may have
// rewritten it since Load: Save keeps the section the file on disk has
// now (or, when there is no such file, the one read by Load). A file
// whose files stayed on disk (LoadSettings, Index) is written as it is
// made, its files and vectors copied from the file on disk entry by
// entry.
func (f *File) Save(path string) error {
	if f.onDisk {
		return f.saveIndexed(path, f.disk, nil, nil)
	}
	if data, err := os.ReadFile(path); err == nil {
		if raw, ok := vectorsSection(data); ok {
			f.vectors = raw
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("save RAG %s: %w", path, err)
	}
	data, err := f.Marshal()
	if err != nil {
		return fmt.Errorf("save RAG %s: %w", path, err)
	}
	if err := fsx.WriteFileAtomic(path, data, 0o600); err != nil {
		return fmt.Errorf("save RAG: %w", err)
	}
	return nil
}

// vectorsSection finds the vectors entry of a file on disk; ok is false
// when the file has none or cannot be read as a RAG file.
func vectorsSection(data []byte) ([]byte, bool) {
	if cuts, _, ok := ragfile.Sections(data, "vectors"); ok {
		if len(cuts) == 0 {
			return nil, false
		}
		return data[cuts[0].Start:cuts[0].End], true
	}
	g, err := Parse("", data)
	if err != nil {
		return nil, false
	}
	return g.vectors, g.vectors != nil
}

// settingsYAML is the text of the file's settings, what comes before its
// files.
func (f *File) settingsYAML() ([]byte, error) {
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	add := func(k string, v *yaml.Node) { m.Content = append(m.Content, strNode(k), v) }
	add("driver", strNode(f.driver()))
	add("attached", boolNode(f.Attached))
	dc := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for _, k := range sortedKeys(f.DriverConfig) {
		dc.Content = append(dc.Content, strNode(k), strNode(f.DriverConfig[k]))
	}
	add("driver_config", dc)
	add("embedding_model", strNode(f.EmbeddingModel))
	add("chunk_size", intNode(f.ChunkSize))
	add("chunk_overlap", intNode(f.ChunkOverlap))
	add("reranker_model", optStrNode(f.RerankerModel))
	add("top_k", intNode(f.TopK))
	if f.BatchSize > 0 {
		add("batch_size", intNode(f.BatchSize))
	} else {
		add("batch_size", nullNode())
	}
	add("next_file_id", intNode(f.NextFileID))
	paths := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	for _, p := range f.DocumentPaths {
		paths.Content = append(paths.Content, strNode(p))
	}
	add("document_paths", paths)
	if f.ExtractorModel != "" {
		add("extractor_model", strNode(f.ExtractorModel))
	}
	if f.ExtractorPrompt != "" {
		add("extractor_prompt", strNode(f.ExtractorPrompt))
	}
	if f.GraphHops != nil {
		add("graph_hops", intNode(*f.GraphHops))
	}
	if f.knowledgeGraph != nil {
		add("knowledge_graph", f.knowledgeGraph)
	}
	for _, e := range f.extra {
		m.Content = append(m.Content, e.key, e.value)
	}
	return encodeYAML(m)
}

// Marshal returns the file's text: the settings in the original's order,
// unknown keys after them, then files, and the vectors section last,
// verbatim. (It reads the files and vectors left in the file on disk,
// and holds them all.)
func (f *File) Marshal() ([]byte, error) {
	if f.onDisk {
		if err := f.LoadFiles(); err != nil {
			return nil, err
		}
	}
	settings, err := f.settingsYAML()
	if err != nil {
		return nil, err
	}
	size := len(settings) + len(f.filesRaw) + len(f.vectors) + 64
	for _, fe := range f.Files {
		size += 64 + len(fe.Path) + len(fe.Hash)
		for _, d := range fe.Documents {
			size += 64 + len(d.PageContent)*11/10
		}
	}
	out := append(make([]byte, 0, size), settings...)
	// The big sections go last: files, then vectors.
	if !f.FilesLoaded() {
		out = appendSection(out, f.filesRaw, "files: {}\n")
	} else {
		out = appendFiles(out, f)
	}
	return appendSection(out, f.vectors, "vectors: {}\n"), nil
}

// appendSection appends a top-level entry kept verbatim (or empty when
// there is none), ending it with a newline.
func appendSection(out, raw []byte, empty string) []byte {
	if len(raw) == 0 {
		return append(out, empty...)
	}
	out = append(out, raw...)
	if out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	return out
}

func encodeYAML(n *yaml.Node) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("encode: %v", r)
		}
	}()
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func strNode(s string) *yaml.Node {
	s, _ = textutil.Valid(s)
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

func optStrNode(s string) *yaml.Node {
	if s == "" {
		return nullNode()
	}
	return strNode(s)
}

func intNode(v int) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(v)}
}

func boolNode(v bool) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(v)}
}

func nullNode() *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// fileIDs returns the ids of the indexed files in order.
func (f *File) fileIDs() []int {
	ids := make([]int, 0, len(f.Files))
	for id := range f.Files {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	return ids
}

// fileKey is a file id as the stores name it (ragstore.Chunk.FileID).
func fileKey(id int) string { return strconv.Itoa(id) }
