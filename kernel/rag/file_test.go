package rag

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/coyote-cli/coyote/sdk/ragstore"
	"github.com/coyote-cli/coyote/sdk/ragstore/ragfile"
)

func copyTestdata(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "rags", name)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadReadsTheOriginalsFormat(t *testing.T) {
	f, err := Load(filepath.Join("testdata", "original.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if f.Driver != "yaml" {
		t.Errorf("a file without a driver is a yaml RAG, got %q", f.Driver)
	}
	if f.Attached || f.EmbeddingModel != "openai:text-embedding-3-small" || f.ChunkSize != 1500 || f.ChunkOverlap != 75 ||
		f.TopK != 4 || f.BatchSize != 16 || f.NextFileID != 2 || f.RerankerModel != "" {
		t.Errorf("settings: %+v", f)
	}
	if f.GraphHops == nil || *f.GraphHops != 2 {
		t.Errorf("graph_hops = %v", f.GraphHops)
	}
	if want := []string{"/home/ana/notes", "https://example.org/guide.md"}; !reflect.DeepEqual(f.DocumentPaths, want) {
		t.Errorf("document_paths = %q", f.DocumentPaths)
	}
	want := map[int]FileEntry{
		0: {Hash: "6f1ed002ab5595859014ebf0951522d9", Path: "/home/ana/notes/trees.md", Documents: []Document{
			{PageContent: "# Trees\nOaks grow slowly.", Metadata: map[string]string{}},
			{PageContent: "Birches have white bark.", Metadata: map[string]string{"lang": "en"}},
		}},
		1: {Hash: "0c5d2d0b8e4e3a1f", Path: "https://example.org/guide.md", Documents: []Document{
			{PageContent: "Water them: weekly.", Metadata: map[string]string{}},
		}},
	}
	if !reflect.DeepEqual(f.Files, want) {
		t.Errorf("files =\n%+v\nwant\n%+v", f.Files, want)
	}
	vecs, err := fileVectors(f)
	if err != nil {
		t.Fatal(err)
	}
	wantVecs := map[string][]float32{"0-0": {1, 0, -0.5}, "0-1": {0.25, 0.5, 0.75}, "1-0": {-1, 2, 3.5}}
	if !reflect.DeepEqual(vecs, wantVecs) {
		t.Errorf("vectors = %v", vecs)
	}
	if err := f.Validate(Driver{Name: "yaml", Owned: true}); err != nil {
		t.Errorf("Validate: %v", err)
	}
}

func TestSaveKeepsUnknownKeysKnowledgeGraphAndVectorsVerbatim(t *testing.T) {
	p := copyTestdata(t, "original.yaml")
	before, _ := os.ReadFile(p)
	f, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	f.TopK = 9
	if err := f.Save(p); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(p)
	_, rawBefore, _, _ := ragfile.Split(before, "vectors")
	if !bytes.Contains(after, rawBefore["vectors"]) {
		t.Errorf("the vectors section changed:\n%s", after)
	}
	for _, s := range []string{"driver: yaml\n", "top_k: 9\n", "some_future_key:\n  enabled: true\n", "knowledge_graph:\n  nodes:\n", "name: oak"} {
		if !bytes.Contains(after, []byte(s)) {
			t.Errorf("saved file lacks %q:\n%s", s, after)
		}
	}
	g, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g.Files, f.Files) || g.TopK != 9 || *g.GraphHops != 2 {
		t.Errorf("reloaded %+v", g)
	}
	if v, err := fileVectors(g); err != nil || len(v) != 3 {
		t.Errorf("vectors after save: %v, %v", v, err)
	}
	if info, _ := os.Stat(p); info.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", info.Mode())
	}
}

// The yaml store rewrites the vectors section on Rebuild; the kernel's
// Save afterwards must not put back the vectors it read before.
func TestSaveKeepsTheVectorsTheStoreWroteSinceLoad(t *testing.T) {
	p := copyTestdata(t, "original.yaml")
	f, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	data, _ = ragfile.Replace(data, "vectors", ragfile.AppendVectors(nil, map[string][]float32{"0-0": {7, 7}})) // as the store would
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	f.NextFileID = 5
	if err := f.Save(p); err != nil {
		t.Fatal(err)
	}
	g, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	v, err := fileVectors(g)
	if err != nil || !reflect.DeepEqual(v, map[string][]float32{"0-0": {7, 7}}) || g.NextFileID != 5 {
		t.Errorf("vectors %v (%v), next_file_id %d", v, err, g.NextFileID)
	}
}

func TestSaveCreatesAFileWithEveryFieldTheOriginalRequires(t *testing.T) {
	p := filepath.Join(t.TempDir(), "rags", "new.yaml")
	f := &File{Driver: "duckdb", EmbeddingModel: "m", ChunkSize: 100, ChunkOverlap: 5, TopK: 3}
	if err := f.Save(p); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	for _, k := range []string{"driver:", "attached:", "driver_config:", "embedding_model:", "chunk_size:", "chunk_overlap:",
		"reranker_model:", "top_k:", "batch_size:", "next_file_id:", "document_paths:", "files:", "vectors:"} {
		if !bytes.Contains(data, []byte("\n"+k)) && !bytes.HasPrefix(data, []byte(k)) {
			t.Errorf("no %s in\n%s", k, data)
		}
	}
	g, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if g.Driver != "duckdb" || g.Files == nil || len(g.Files) != 0 {
		t.Errorf("%+v", g)
	}
}

func TestLoadSettingsLeavesFilesAsideAndSaveKeepsThem(t *testing.T) {
	p := copyTestdata(t, "original.yaml")
	full, _ := Load(p)
	f, err := LoadSettings(p)
	if err != nil {
		t.Fatal(err)
	}
	if f.FilesLoaded() || f.Files != nil || f.TopK != 4 {
		t.Fatalf("LoadSettings: loaded=%v files=%v", f.FilesLoaded(), f.Files)
	}
	f.TopK = 2
	if err := f.Save(p); err != nil {
		t.Fatal(err)
	}
	g, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g.Files, full.Files) || g.TopK != 2 {
		t.Errorf("files after a settings-only save: %+v", g.Files)
	}
	if err := f.LoadFiles(); err != nil || !f.FilesLoaded() || !reflect.DeepEqual(f.Files, full.Files) {
		t.Errorf("LoadFiles: %v, %+v", err, f.Files)
	}
	x, err := IndexFile(g)
	if err != nil || x.Len() != 3 {
		t.Errorf("IndexFile: %v, %d chunks", err, x.Len())
	}
}

func TestLoadFilesNamesTheLineOfABadFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "bad.yaml")
	data := "top_k: 1\nchunk_size: 10\nfiles:\n  0:\n    hash: h\n    documents: 12\nvectors: {}\n"
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := LoadSettings(p)
	if err != nil {
		t.Fatal(err)
	}
	err = f.LoadFiles()
	if err == nil || err.Error() != p+":6:16: files.0.documents: must be a list of chunks, not \"12\"" {
		t.Errorf("got %v", err)
	}
	if _, err := Load(p); err == nil || err.Error() != p+":6:16: files.0.documents: must be a list of chunks, not \"12\"" {
		t.Errorf("Load: %v", err)
	}
}

func TestParseErrorsNameTheFileLineAndField(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"empty", "", "r.yaml:1:1: the file is empty; a RAG file is a mapping with embedding_model, chunk_size, top_k, files and the like"},
		{"not a mapping", "- a\n- b\n", "r.yaml:1:1: a RAG file is a mapping of settings, not a list"},
		{"top_k text", "embedding_model: m\ntop_k: five\n", `r.yaml:2:8: top_k: must be a whole number, 0 or more, not "five"`},
		{"negative chunk size", "chunk_size: -3\n", `r.yaml:1:13: chunk_size: must be a whole number, 0 or more, not "-3"`},
		{"attached not bool", "attached: yes please\n", `r.yaml:1:11: attached: must be true or false, not "yes please"`},
		{"driver_config list", "driver_config: [a]\n", "r.yaml:1:16: driver_config: must be a mapping of names to values, not a list"},
		{"document_paths scalar", "document_paths: docs\n", `r.yaml:1:17: document_paths: must be a list of paths, not "docs"`},
		{"file id not a number", "files:\n  a:\n    path: x\n", `r.yaml:2:3: files: a file id must be a whole number, 0 or more, not "a"`},
		{"document not a mapping", "files:\n  0:\n    documents:\n    - text\n", `r.yaml:4:7: files.0.documents[0]: must be a mapping with page_content and metadata, not "text"`},
		{"metadata nested", "files:\n  0:\n    documents:\n    - page_content: x\n      metadata: {a: [1]}\n", `r.yaml:5:21: files.0.documents[0].metadata.a: must be a single value, not a list`},
		{"key twice", "top_k: 1\ntop_k: 2\n", "r.yaml:2:1: top_k: appears twice"},
		{"vectors twice", "vectors: {}\ntop_k: 1\nvectors: {}\n", "r.yaml:3:1: vectors: appears twice"},
		{"driver_config key twice", "driver_config:\n  a: 1\n  b: 2\n  a: 3\n", "r.yaml:4:3: driver_config.a: appears twice"},
		{"tab indentation", "files:\n\t0: x\n", "r.yaml:2:1: found character that cannot start any token (a tab in the indentation: indent with spaces)"},
		{"vectors scalar, unusual layout", "{top_k: 1, vectors: 3}", `r.yaml:1:21: vectors: must be a mapping of chunk ids to base64 vectors, not "3"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("r.yaml", []byte(tt.data))
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v (%T), want a *FileError", err, err)
			}
			if err.Error() != tt.want {
				t.Errorf("got  %s\nwant %s", err, tt.want)
			}
		})
	}
}

func TestParseHandlesLayoutsTheLineScanDoesNot(t *testing.T) {
	tests := []struct {
		name, data string
		check      func(t *testing.T, f *File)
	}{
		{"flow style", `{driver: yaml, top_k: 3, vectors: {"0-0": "AACAPw=="}}`, func(t *testing.T, f *File) {
			v, err := fileVectors(f)
			if err != nil || !reflect.DeepEqual(v, map[string][]float32{"0-0": {1}}) || f.TopK != 3 {
				t.Errorf("%v %v %d", v, err, f.TopK)
			}
		}},
		{"document start", "---\ntop_k: 2\nvectors:\n  0-0: AACAPw==\n", func(t *testing.T, f *File) {
			v, err := fileVectors(f)
			if err != nil || len(v) != 1 || f.TopK != 2 {
				t.Errorf("%v %v %d", v, err, f.TopK)
			}
		}},
		{"a quoted scalar running over a line that looks like vectors", "embedding_model: \"a\nvectors: b\"\ntop_k: 1\n", func(t *testing.T, f *File) {
			v, err := fileVectors(f)
			if f.EmbeddingModel != "a vectors: b" || err != nil || len(v) != 0 {
				t.Errorf("embedding_model %q, vectors %v %v", f.EmbeddingModel, v, err)
			}
		}},
		{"quoted vector ids", "top_k: 1\nvectors:\n  \"0-0\": \"AACAPw==\"\n  '0-1': AAAAQA==\n", func(t *testing.T, f *File) {
			v, err := fileVectors(f)
			if err != nil || !reflect.DeepEqual(v, map[string][]float32{"0-0": {1}, "0-1": {2}}) {
				t.Errorf("%v %v", v, err)
			}
		}},
		{"vectors null", "top_k: 1\nvectors: null\n", func(t *testing.T, f *File) {
			if v, err := fileVectors(f); err != nil || len(v) != 0 {
				t.Errorf("%v %v", v, err)
			}
		}},
		{"CRLF line ends", "top_k: 1\r\nvectors:\r\n  0-0: AACAPw==\r\nchunk_size: 4\r\n", func(t *testing.T, f *File) {
			v, err := fileVectors(f)
			if err != nil || len(v) != 1 || f.ChunkSize != 4 {
				t.Errorf("%v %v %d", v, err, f.ChunkSize)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse("r.yaml", []byte(tt.data))
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, f)
			out, err := f.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			g, err := Parse("r.yaml", out)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			tt.check(t, g)
		})
	}
}

// owner and both are drivers as their plugins describe themselves.
var (
	owner = Driver{Name: "duckdb", Owned: true}
	both  = Driver{Name: "qdrant", Owned: true, Attach: true}
)

func TestValidate(t *testing.T) {
	ok := func() *File {
		return &File{Path: "rags/r.yaml", Driver: "duckdb", TopK: 5, ChunkSize: 1000, ChunkOverlap: 50}
	}
	tests := []struct {
		name   string
		driver Driver
		change func(f *File)
		want   []string
	}{
		{"fine", owner, func(f *File) {}, nil},
		{"top_k 0", owner, func(f *File) { f.TopK = 0 }, []string{"rags/r.yaml: top_k: must be at least 1 (it is how many chunks a search returns), not 0"}},
		{"chunk_size 0", owner, func(f *File) { f.ChunkSize = 0 }, []string{"rags/r.yaml: chunk_size: must be at least 1 (it is the most bytes a chunk holds), not 0"}},
		{"overlap equal to size", owner, func(f *File) { f.ChunkOverlap = 1000 }, []string{"rags/r.yaml: chunk_overlap: must be less than chunk_size (1000), not 1000"}},
		{"negative overlap", owner, func(f *File) { f.ChunkOverlap = -1 }, []string{"rags/r.yaml: chunk_overlap: must not be negative, not -1"}},
		{"attached to a driver that only owns", owner, func(f *File) { f.Attached = true }, []string{"rags/r.yaml: attached: the duckdb driver cannot attach to an external collection: set attached: false, or use a driver that attaches"}},
		{"owned by a driver that only attaches", Driver{Name: "qdrant", Attach: true}, func(f *File) { f.Driver = "qdrant" }, []string{"rags/r.yaml: attached: the qdrant driver only attaches to an external collection: set attached: true (or attach one with .rag attach)"}},
		{"attached, chunk settings unused", both, func(f *File) { f.Driver, f.Attached, f.ChunkSize = "qdrant", true, 0 }, nil},
		{"owned by a driver that does both", both, func(f *File) { f.Driver = "qdrant" }, nil},
		{"every problem at once", owner, func(f *File) { f.Attached, f.TopK = true, 0 }, []string{
			"rags/r.yaml: attached: the duckdb driver cannot attach to an external collection: set attached: false, or use a driver that attaches",
			"rags/r.yaml: top_k: must be at least 1 (it is how many chunks a search returns), not 0",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := ok()
			tt.change(f)
			err := f.Validate(tt.driver)
			if len(tt.want) == 0 {
				if err != nil {
					t.Errorf("unexpected %v", err)
				}
				return
			}
			if err == nil || err.Error() != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%v\nwant\n%s", err, strings.Join(tt.want, "\n"))
			}
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Errorf("not a *FileError: %T", err)
			}
		})
	}
}

func TestValidateNamesTheLineOfALoadedField(t *testing.T) {
	f, err := Parse("rags/r.yaml", []byte("driver: duckdb\nattached: true\ntop_k: 1\ndriver_config: {a: b}\n"))
	if err != nil {
		t.Fatal(err)
	}
	err = f.Validate(owner)
	if err == nil || !strings.HasPrefix(err.Error(), "rags/r.yaml:2: attached: the duckdb driver cannot attach") {
		t.Errorf("got %v", err)
	}
	if err := f.DriverConfigError(errors.New("driver_config.a is wrong")); err.Error() != "rags/r.yaml:4: driver_config.a is wrong" {
		t.Errorf("got %v", err)
	}
}

func TestUnknownDriverErrorListsTheInstalledDrivers(t *testing.T) {
	err := &UnknownDriverError{Driver: "duckdbb", Installed: []string{"yaml", "duckdb", "mystore"}}
	if want := `unknown driver "duckdbb": no store plugin coyote-rag-duckdbb is installed (installed: duckdb, mystore, yaml); run ` + "`coyote plugins`" + ` to see the plugin directories`; err.Error() != want {
		t.Errorf("got  %s\nwant %s", err, want)
	}
	if err := (&UnknownDriverError{Driver: "x"}); !strings.Contains(err.Error(), "(installed: none)") {
		t.Errorf("got %s", err)
	}
}

// fileVectors decodes the vectors section the file keeps verbatim, as the
// yaml store reads it.
func fileVectors(f *File) (map[string][]float32, error) {
	v, ok, err := ragfile.DecodeVectors(f.vectors)
	if ok {
		return v, err
	}
	var doc struct {
		Vectors map[string]string `yaml:"vectors"`
	}
	if err := yaml.Unmarshal(f.vectors, &doc); err != nil {
		return nil, err
	}
	v = map[string][]float32{}
	for id, enc := range doc.Vectors {
		if v[id], err = ragstore.DecodeVector(enc); err != nil {
			return nil, err
		}
	}
	return v, nil
}
