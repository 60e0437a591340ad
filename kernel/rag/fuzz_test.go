package rag

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/coyote-cli/coyote/kernel/textutil"
	"github.com/coyote-cli/coyote/sdk/ragstore/ragfile"
)

// FuzzParse: reading any bytes never panics; a file that reads is written
// back in a form that reads the same and that writing again does not
// change, whether its files were read or set aside.
func FuzzParse(f *testing.F) {
	orig, err := os.ReadFile(filepath.Join("testdata", "original.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{
		string(orig),
		"",
		"top_k: 1\n",
		"{driver: yaml, top_k: 3, vectors: {\"0-0\": \"AACAPw==\"}}",
		"---\ntop_k: 2\nvectors:\n  0-0: AACAPw==\n",
		"embedding_model: \"a\nvectors: b\"\ntop_k: 1\n",
		"a: &x [1, 2]\nb: *x\nknowledge_graph: *x\n",
		"files:\n  0:\n    documents:\n    - page_content: &p text\n      metadata: {k: *p}\n",
		"vectors:\n  0-0: AACAPw==\nfiles: {}\nvectors: {}\n",
		"driver_config:\n  host: localhost:6334\n  api_key: '{{QDRANT_KEY}}'\n  port: 6334\n",
		"files:\n  3:\n    hash: h\n    path: p\n    documents:\n    - page_content: \"  lead\\ttab\\n\\ntrail  \"\n",
		"top_k: 1 # comment\n# between\nvectors: # c\n  # inside\n  0-0: AACAPw== # after\nx: 1\n",
		"files:\n  0:\n    path: \"a\\n    - b\"\n    documents:\n    - page_content: \"x\\n    - y\\n- z\"\n    - page_content: |\n        - w\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := Parse("r.yaml", data)
		if err != nil {
			return
		}
		_ = a.Validate(Driver{Owned: true})
		_, _ = fileVectors(a)
		m1, err := a.Marshal()
		if err != nil {
			t.Fatalf("Marshal of a file that read: %v", err)
		}
		b, err := Parse("r.yaml", m1)
		if err != nil {
			t.Fatalf("reading back what Marshal wrote: %v\n%s", err, m1)
		}
		if !sameSettings(a, b) {
			t.Fatalf("settings changed on the way back:\n%+v\n%+v\n%s", a, b, m1)
		}
		va, erra := fileVectors(a)
		vb, errb := fileVectors(b)
		if (erra == nil) != (errb == nil) || erra == nil && !reflect.DeepEqual(va, vb) && !hasNaN(va) {
			t.Fatalf("vectors changed: %v (%v) → %v (%v)", va, erra, vb, errb)
		}
		checkFileChunks(t, b, m1)
		m2, err := b.Marshal()
		if err != nil || !bytes.Equal(m1, m2) {
			t.Fatalf("writing again changed the file (%v):\n%s\n----\n%s", err, m1, m2)
		}
		c, err := parse("r.yaml", m1, false)
		if err != nil {
			t.Fatalf("LoadSettings of what Marshal wrote: %v", err)
		}
		m3, err := c.Marshal()
		if err != nil || !bytes.Equal(m1, m3) {
			t.Fatalf("a settings-only round trip changed the file (%v):\n%s\n----\n%s", err, m1, m3)
		}
		checkOnDisk(t, data, a, false)
		checkOnDisk(t, m1, b, true)
	})
}

// checkOnDisk: LoadSettings of a file (written as data) that leaves the
// files on disk lists them as the parser reads them (want is the file
// parsed whole), and a Save from there writes a file that reads the same.
// The kernel's own files (kernels) always take that way.
func checkOnDisk(t *testing.T, data []byte, want *File, kernels bool) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "r.yaml")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := LoadSettings(p)
	if err != nil {
		t.Fatalf("LoadSettings of a file that parses: %v", err)
	}
	oneLine := true // hash and path: a literal block over lines is parsed whole
	for _, fe := range want.Files {
		oneLine = oneLine && !strings.ContainsAny(fe.Hash+fe.Path, "\n\r")
	}
	if !f.onDisk {
		if _, _, top := ragfile.Sections(data, "files"); kernels && oneLine && top {
			t.Fatalf("the kernel's own file is parsed whole:\n%s", data)
		}
		return
	}
	settings := *want
	settings.Files = nil
	if !sameSettings(f, &settings) {
		t.Fatalf("settings read by lines differ:\n%+v\n%+v", f, want)
	}
	var got, exp []diskEntry
	for _, e := range f.disk {
		got = append(got, diskEntry{ID: e.ID, Hash: e.Hash, Path: e.Path, Chunks: e.Chunks})
	}
	for _, id := range want.fileIDs() {
		fe := want.Files[id]
		exp = append(exp, diskEntry{ID: id, Hash: fe.Hash, Path: fe.Path, Chunks: len(fe.Documents)})
	}
	if !reflect.DeepEqual(got, exp) {
		t.Fatalf("files read by lines:\n%+v\nthe parser:\n%+v\n%s", got, exp, data)
	}
	for _, e := range f.disk {
		docs, err := f.documents(e)
		if err != nil || !reflect.DeepEqual(docs, want.Files[e.ID].Documents) && len(docs)+len(want.Files[e.ID].Documents) > 0 {
			t.Fatalf("file %d read back (%v): %+v, want %+v", e.ID, err, docs, want.Files[e.ID].Documents)
		}
	}
	if err := f.Save(p); err != nil {
		t.Fatalf("Save: %v", err)
	}
	back, err := Load(p)
	if err != nil {
		saved, _ := os.ReadFile(p)
		t.Fatalf("reading back what Save wrote: %v\n%s", err, saved)
	}
	if !sameSettings(back, want) || !reflect.DeepEqual(back.Files, want.Files) && len(back.Files)+len(want.Files) > 0 {
		t.Fatalf("a Save with the files on disk changed the file:\n%+v\n%+v", back, want)
	}
	va, erra := fileVectors(want)
	vb, errb := fileVectors(back)
	if (erra == nil) != (errb == nil) || erra == nil && !reflect.DeepEqual(va, vb) && !hasNaN(va) {
		t.Fatalf("vectors changed: %v (%v) → %v (%v)", va, erra, vb, errb)
	}
}

// checkFileChunks: the yaml store's line scan of the files section
// (ragfile.FileChunks) reads every files section the kernel writes, and
// counts each file's chunks as the parser does.
func checkFileChunks(t *testing.T, f *File, written []byte) {
	t.Helper()
	cuts, _, ok := ragfile.Sections(written, "files")
	if !ok || len(cuts) != 1 {
		return // a top-level layout the scan leaves to the parser
	}
	counts, ok := ragfile.FileChunks(written[cuts[0].Start:cuts[0].End])
	if !ok {
		t.Fatalf("FileChunks cannot read the files section the kernel wrote:\n%s", written[cuts[0].Start:cuts[0].End])
	}
	want := map[string]int{}
	for id, fe := range f.Files {
		want[strconv.Itoa(id)] = len(fe.Documents)
	}
	if !reflect.DeepEqual(counts, want) {
		t.Fatalf("FileChunks = %v, the parser %v:\n%s", counts, want, written)
	}
}

func sameSettings(a, b *File) bool {
	norm := func(f *File) File {
		c := *f
		c.Path, c.knowledgeGraph, c.extra, c.vectors, c.lines, c.filesRaw = "", nil, nil, nil, nil, nil
		c.onDisk, c.disk = false, nil
		if c.DriverConfig == nil {
			c.DriverConfig = map[string]string{}
		}
		c.DriverConfig = validMap(c.DriverConfig)
		c.Driver, c.EmbeddingModel, c.RerankerModel = valid(c.Driver), valid(c.EmbeddingModel), valid(c.RerankerModel)
		c.ExtractorModel, c.ExtractorPrompt = valid(c.ExtractorModel), valid(c.ExtractorPrompt)
		if c.DocumentPaths == nil {
			c.DocumentPaths = []string{}
		}
		paths := make([]string, len(c.DocumentPaths))
		for i, p := range c.DocumentPaths {
			paths[i] = valid(p)
		}
		c.DocumentPaths = paths
		files := map[int]FileEntry{}
		for id, fe := range c.Files {
			docs := make([]Document, len(fe.Documents))
			for i, d := range fe.Documents {
				docs[i] = Document{PageContent: valid(d.PageContent), Metadata: validMap(d.Metadata)}
			}
			files[id] = FileEntry{Hash: valid(fe.Hash), Path: valid(fe.Path), Documents: docs}
		}
		c.Files = files
		return c
	}
	return reflect.DeepEqual(norm(a), norm(b))
}

func validMap(m map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[valid(k)] = valid(v)
	}
	return out
}

func hasNaN(m map[string][]float32) bool {
	for _, v := range m {
		for _, x := range v {
			if x != x {
				return true
			}
		}
	}
	return false
}

// FuzzSplit: the chunks tile the text whatever the text, size and overlap.
func FuzzSplit(f *testing.F) {
	f.Add("hello world\n\nsecond paragraph here", uint8(10), uint8(3), "a.txt")
	f.Add("package x\n\nfunc a() {}\nfunc b() {}\n", uint8(12), uint8(0), "x.go")
	f.Add("héllo wörld ünïcode 日本語のテキスト", uint8(4), uint8(2), "a.md")
	f.Add("<body><div>a</div><p>b</p></body>", uint8(8), uint8(1), "a.html")
	f.Fuzz(func(t *testing.T, text string, size, overlap uint8, name string) {
		s := NewSplitter(int(size), int(overlap), name)
		checkTiling(t, s, text)
	})
}

// checkTiling checks the splitter's promises on one text.
func checkTiling(t *testing.T, s Splitter, text string) {
	t.Helper()
	spans := s.Spans(text)
	if text == "" {
		if len(spans) != 0 {
			t.Fatalf("chunks of an empty text: %v", spans)
		}
		return
	}
	size, overlap := max(s.ChunkSize, 1), max(s.ChunkOverlap, 0)
	var rebuilt strings.Builder
	prevEnd := 0
	for i, sp := range spans {
		if sp.Start < 0 || sp.End > len(text) || sp.Start >= sp.End {
			t.Fatalf("chunk %d is %v in a text of %d bytes", i, sp, len(text))
		}
		if i == 0 && sp.Start != 0 {
			t.Fatalf("the first chunk starts at %d", sp.Start)
		}
		if i > 0 {
			if sp.Start > prevEnd {
				t.Fatalf("bytes %d–%d are in no chunk", prevEnd, sp.Start)
			}
			if sp.End <= prevEnd {
				t.Fatalf("chunk %d (%v) adds nothing after %d", i, sp, prevEnd)
			}
			if prevEnd-sp.Start > overlap {
				t.Fatalf("chunk %d overlaps the one before by %d bytes, more than %d", i, prevEnd-sp.Start, overlap)
			}
		}
		if n := sp.End - sp.Start; n > size {
			if _, w := utf8.DecodeRuneInString(text[sp.Start:]); w != n {
				t.Fatalf("chunk %d has %d bytes, more than %d, and is not one character", i, n, size)
			}
		}
		for _, b := range []int{sp.Start, sp.End} {
			if b < len(text) && utf8.ValidString(text) && !utf8.RuneStart(text[b]) {
				t.Fatalf("chunk %d (%v) cuts a UTF-8 sequence", i, sp)
			}
		}
		rebuilt.WriteString(text[max(sp.Start, prevEnd):sp.End])
		prevEnd = sp.End
	}
	if prevEnd != len(text) {
		t.Fatalf("the last chunk ends at %d of %d", prevEnd, len(text))
	}
	if rebuilt.String() != text {
		t.Fatalf("the chunks minus their overlaps are not the text")
	}
}

// FuzzScalarRoundTrip: every string the files writer writes reads back
// unchanged (invalid UTF-8 aside, which is written as U+FFFD).
func FuzzScalarRoundTrip(f *testing.F) {
	for _, s := range []string{
		"", "plain", "true", "0c5d2d", "/home/a b/c.md", "it's", " lead", "trail ", "a: b", "# not a comment",
		"line one\nline two", "\nstarts with a newline", "  indented\nsecond", "ends\n\n\n", "only\n",
		"tab\tinside\n\tand leading", "\r\nwindows\r\n", "ctrl \x01\x7f\u0085\u2028\ufeff", "emoji 🙂\n日本",
		"- item", "---\n...", "key: |\n  nested", "\n", " \n ", "\t", "\"quoted\"", "back\\slash", "\xff\xfe bad utf8",
		strings.Repeat("long ", 300), "a\n \n  \nb", "x\n  ", "?", "~", "@at", "`tick`", "%pct", "&amp", "*star", "!bang",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		file := &File{Driver: "yaml", TopK: 1, ChunkSize: 1, Files: map[int]FileEntry{
			7: {Hash: s, Path: s, Documents: []Document{
				{PageContent: s, Metadata: map[string]string{s: s, "source": s}},
				{PageContent: "x" + s, Metadata: map[string]string{}},
			}},
		}}
		data, err := file.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		g, err := Parse("r.yaml", data)
		if err != nil {
			t.Fatalf("%v\n%s", err, data)
		}
		want := valid(s)
		fe := g.Files[7]
		if fe.Hash != want || fe.Path != want || len(fe.Documents) != 2 || fe.Documents[0].PageContent != want ||
			fe.Documents[0].Metadata[want] != want || fe.Documents[0].Metadata["source"] != want || fe.Documents[1].PageContent != "x"+want {
			t.Fatalf("%q came back as %+v from\n%s", s, fe, data)
		}
	})
}

// FuzzFileChunks: whatever files section the yaml store's line scan
// (ragfile.FileChunks) reads, and the YAML parser reads too, it reads as
// the parser does: the same files with the same number of chunks.
func FuzzFileChunks(f *testing.F) {
	for _, s := range []string{
		"files:\n  0:\n    hash: a\n    path: /a\n    documents:\n    - page_content: x\n      metadata: {}\n",
		"files:\n  0:\n    path: \"a\n    - b\"\n    documents: []\n",
		"files:\n  0:\n    path: a\n     - b\n    documents:\n    - page_content: |\n        - w\n    -   page_content: v\n",
		"files:\n  1:\n    documents:\n    -\n    - page_content: 'a\n      - b'\n",
		"files: {}\n",
		"files:\n  0:\n     0\n",
		"files:\n  0: \n    documents:\n    - \"\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		counts, ok := ragfile.FileChunks(data)
		if !ok {
			return
		}
		var doc struct {
			Files map[int]struct {
				Documents []yaml.Node `yaml:"documents"`
			} `yaml:"files"`
		}
		if yaml.Unmarshal(data, &doc) != nil {
			return // not YAML: the store refuses the file when it opens it
		}
		want := map[string]int{}
		for id, fe := range doc.Files {
			want[strconv.Itoa(id)] = len(fe.Documents)
		}
		if !reflect.DeepEqual(counts, want) {
			t.Fatalf("FileChunks = %v, the parser %v:\n%s", counts, want, data)
		}
	})
}

// TestFileChunksReadsTheOriginalsFile: the yaml store's line scan reads
// the files of a RAG file the original wrote, without the parser.
func TestFileChunksReadsTheOriginalsFile(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "original.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cuts, _, ok := ragfile.Sections(data, "files")
	if !ok || len(cuts) != 1 {
		t.Fatal("no files section")
	}
	counts, ok := ragfile.FileChunks(data[cuts[0].Start:cuts[0].End])
	if want := map[string]int{"0": 2, "1": 1}; !ok || !reflect.DeepEqual(counts, want) {
		t.Fatalf("FileChunks = %v, %v; want %v", counts, ok, want)
	}
}

// valid is s as the kernel writes it: invalid bytes replaced
// (textutil.Valid).
func valid(s string) string {
	v, _ := textutil.Valid(s)
	return v
}
