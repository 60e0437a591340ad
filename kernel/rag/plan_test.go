package rag

import (
	"reflect"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/sdk/ragstore"
)

func src(path, text string) Source { return NewSource(path, text) }

// ragWith returns a RAG of chunk size 20 holding files, each indexed from
// the text given (so its hash is the text's).
func ragWith(next int, files map[int]Source) *File {
	f := &File{Driver: "yaml", TopK: 3, ChunkSize: 20, ChunkOverlap: 0, NextFileID: next, Files: map[int]FileEntry{}}
	for id, s := range files {
		f.Files[id] = FileEntry{Hash: s.Hash, Path: s.Path, Documents: chunkDocuments(f, s)}
	}
	return f
}

func TestMakePlan(t *testing.T) {
	a, b, c := src("/d/a.md", "alpha"), src("/d/b.md", "beta"), src("/d/c.md", "gamma")
	b2, d := src("/d/b.md", "beta, edited"), src("/d/d.md", "delta")
	tests := []struct {
		name    string
		rag     *File
		sources []Source
		full    bool
		want    Plan
	}{
		{"first sync indexes everything from next_file_id",
			ragWith(0, nil), []Source{a, b},
			false, Plan{
				Added: []AddedFile{
					{ID: 0, Replaces: -1, NumChunks: 1, FileEntry: FileEntry{Hash: a.Hash, Path: a.Path, Documents: docs("alpha")}},
					{ID: 1, Replaces: -1, NumChunks: 1, FileEntry: FileEntry{Hash: b.Hash, Path: b.Path, Documents: docs("beta")}},
				},
				NextFileID: 2,
			}},
		{"unchanged skipped, changed replaced under a new id, new added, vanished dropped",
			ragWith(3, map[int]Source{0: a, 1: b, 2: c}), []Source{a, b2, d},
			false, Plan{
				Unchanged: []int{0},
				Removed:   []RemovedFile{{ID: 1, Path: "/d/b.md", Changed: true}, {ID: 2, Path: "/d/c.md"}},
				Added: []AddedFile{
					{ID: 3, Replaces: 1, NumChunks: 1, FileEntry: FileEntry{Hash: b2.Hash, Path: b2.Path, Documents: docs("beta, edited")}},
					{ID: 4, Replaces: -1, NumChunks: 1, FileEntry: FileEntry{Hash: d.Hash, Path: d.Path, Documents: docs("delta")}},
				},
				NextFileID: 5,
			}},
		{"nothing changed",
			ragWith(7, map[int]Source{5: a, 6: b}), []Source{b, a},
			false, Plan{Unchanged: []int{5, 6}, NextFileID: 7}},
		{"a full rebuild re-indexes everything",
			ragWith(2, map[int]Source{0: a, 1: b}), []Source{a, b},
			true, Plan{
				Removed: []RemovedFile{{ID: 0, Path: "/d/a.md", Changed: true}, {ID: 1, Path: "/d/b.md", Changed: true}},
				Added: []AddedFile{
					{ID: 2, Replaces: 0, NumChunks: 1, FileEntry: FileEntry{Hash: a.Hash, Path: a.Path, Documents: docs("alpha")}},
					{ID: 3, Replaces: 1, NumChunks: 1, FileEntry: FileEntry{Hash: b.Hash, Path: b.Path, Documents: docs("beta")}},
				},
				NextFileID: 4,
			}},
		{"a document read twice is indexed once",
			ragWith(0, nil), []Source{a, a},
			false, Plan{
				Added:      []AddedFile{{ID: 0, Replaces: -1, NumChunks: 1, FileEntry: FileEntry{Hash: a.Hash, Path: a.Path, Documents: docs("alpha")}}},
				NextFileID: 1,
			}},
		{"a next_file_id behind the files never reuses an id",
			ragWith(1, map[int]Source{4: a}), []Source{a, d},
			false, Plan{
				Unchanged:  []int{4},
				Added:      []AddedFile{{ID: 5, Replaces: -1, NumChunks: 1, FileEntry: FileEntry{Hash: d.Hash, Path: d.Path, Documents: docs("delta")}}},
				NextFileID: 6,
			}},
		{"everything gone",
			ragWith(2, map[int]Source{0: a, 1: b}), nil,
			false, Plan{Removed: []RemovedFile{{ID: 0, Path: "/d/a.md"}, {ID: 1, Path: "/d/b.md"}}, NextFileID: 2}},
		{"an empty document keeps its file, with no chunks",
			ragWith(0, nil), []Source{src("/d/e.md", " \n\n ")},
			false, Plan{
				Added:      []AddedFile{{ID: 0, Replaces: -1, FileEntry: FileEntry{Hash: src("", " \n\n ").Hash, Path: "/d/e.md"}}},
				NextFileID: 1,
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := tt.rag.Marshal()
			got, err := MakePlan(tt.rag, tt.sources, tt.full)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*got, tt.want) {
				t.Errorf("plan =\n%+v\nwant\n%+v", *got, tt.want)
			}
			if after, _ := tt.rag.Marshal(); string(after) != string(before) {
				t.Error("MakePlan changed the RAG")
			}
		})
	}
}

func docs(texts ...string) []Document {
	var out []Document
	for _, t := range texts {
		out = append(out, Document{PageContent: t, Metadata: map[string]string{}})
	}
	return out
}

func TestPlanApplyThenPlanAgainChangesNothing(t *testing.T) {
	f := ragWith(3, map[int]Source{0: src("/a", "one"), 1: src("/b", "two"), 2: src("/c", "three")})
	sources := []Source{src("/a", "one"), src("/b", "two, longer now"), src("/d", "four")}
	p, err := MakePlan(f, sources, false)
	if err != nil {
		t.Fatal(err)
	}
	p.Apply(f)
	if f.NextFileID != 5 || len(f.Files) != 3 || f.Files[3].Path != "/b" || f.Files[4].Path != "/d" {
		t.Fatalf("after Apply: next %d, files %+v", f.NextFileID, f.Files)
	}
	again, _ := MakePlan(f, sources, false)
	if !again.Empty() || !reflect.DeepEqual(again.Unchanged, []int{0, 3, 4}) {
		t.Errorf("second plan %+v", again)
	}
}

func TestPlanSplitsWithTheRAGsSettingsAndTheFilesLanguage(t *testing.T) {
	f := &File{Driver: "yaml", TopK: 1, ChunkSize: 30, ChunkOverlap: 0}
	text := "package x\n\nfunc a() {\n\treturn 1\n}\nfunc b() {\n\treturn 2\n}\n\n\n"
	p, err := MakePlan(f, []Source{src("/src/x.go", text)}, false)
	if err != nil {
		t.Fatal(err)
	}
	// As the splitter's go case, each chunk then without the blank lines
	// around it and the white space ending it (the indentation inside
	// stays).
	want := []string{"package x", "func a() {\n\treturn 1\n}", "func b() {\n\treturn 2\n}"}
	var got []string
	for _, d := range p.Added[0].Documents {
		got = append(got, d.PageContent)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("chunks %q, want %q", got, want)
	}
	chunks := p.Added[0].Chunks()
	wantChunks := []ragstore.Chunk{
		{ID: "0-0", FileID: "0", Text: "package x", Metadata: map[string]string{"source": "/src/x.go"}},
		{ID: "0-1", FileID: "0", Text: "func a() {\n\treturn 1\n}", Metadata: map[string]string{"source": "/src/x.go"}},
		{ID: "0-2", FileID: "0", Text: "func b() {\n\treturn 2\n}", Metadata: map[string]string{"source": "/src/x.go"}},
	}
	if !reflect.DeepEqual(chunks, wantChunks) {
		t.Errorf("Chunks =\n%+v\nwant\n%+v", chunks, wantChunks)
	}
	if (RemovedFile{ID: 12}).FileKey() != "12" {
		t.Error("FileKey")
	}
}

func TestTrimChunkKeepsTheFirstLinesIndentation(t *testing.T) {
	for in, want := range map[string]string{
		"\n\n    indented\n  ": "    indented",
		"  \n\tx = 1\n\n":      "\tx = 1",
		"  word  ":             "  word",
		" \r\n \r\n":           "",
		"plain":                "plain",
		"\nfunc f() {}\n\n\n":  "func f() {}",
	} {
		if got := trimChunk(in); got != want {
			t.Errorf("trimChunk(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMakePlanRefusesWhatCannotBeIndexed(t *testing.T) {
	if _, err := MakePlan(&File{Driver: "qdrant", Attached: true, TopK: 1}, nil, false); err == nil || !strings.Contains(err.Error(), "attached") {
		t.Errorf("attached: %v", err)
	}
	if _, err := MakePlan(&File{Driver: "yaml", TopK: 1}, nil, false); err == nil || !strings.Contains(err.Error(), "chunk_size") {
		t.Errorf("chunk_size 0: %v", err)
	}
}
