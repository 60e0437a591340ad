package yamlstore

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/ragstore"
	"github.com/coyote-cli/coyote/sdk/ragstore/ragfile"
)

// originalFile is a RAG file as the original writes it: settings, files
// with their documents, and base64 vectors.
func originalFile(t *testing.T) string {
	t.Helper()
	return `embedding_model: openai:text-embedding-3-small
chunk_size: 1500
chunk_overlap: 75
reranker_model: null
top_k: 4
batch_size: null
next_file_id: 2
document_paths:
- /docs
files:
  0:
    hash: aaa
    path: /docs/a.md
    documents:
    - page_content: alpha text
      metadata:
        path: /docs/a.md
  1:
    hash: bbb
    path: /docs/b.md
    documents:
    - page_content: beta text
      metadata: {}
    - page_content: gamma text
      metadata: {}
vectors:
  0-0: ` + ragstore.EncodeVector([]float32{1, 0, 0}) + `
  1-0: ` + ragstore.EncodeVector([]float32{0, 1, 0}) + `
  1-1: ` + ragstore.EncodeVector([]float32{-1, 0, 0}) + `
`
}

func open(t *testing.T, path string, mode ragstore.Mode) *Store {
	t.Helper()
	s := New()
	if _, err := s.Open(context.Background(), &ragstore.OpenRequest{Store: "r", Path: path, Mode: mode}); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestReadsTheOriginalsFileAndSearches(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.yaml")
	if err := os.WriteFile(path, []byte(originalFile(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	s := open(t, path, ragstore.ReadOnly)
	ctx := context.Background()
	stats, _ := s.Stats(ctx, &ragstore.StatsRequest{Store: "r"})
	if stats.Chunks != 3 || stats.Files != 2 || stats.Dimension != 3 {
		t.Fatalf("stats %+v", stats)
	}
	res, err := s.VectorSearch(ctx, &ragstore.VectorSearchRequest{Store: "r", Vector: []float32{2, 0.1, 0}, TopK: 3})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, h := range res.Hits {
		ids = append(ids, h.ID)
	}
	if !reflect.DeepEqual(ids, []string{"0-0", "1-0", "1-1"}) || res.Hits[2].Score >= 0 {
		t.Fatalf("hits %+v: want the negative score kept with no floor", res.Hits)
	}
	res, _ = s.VectorSearch(ctx, &ragstore.VectorSearchRequest{Store: "r", Vector: []float32{2, 0.1, 0}, TopK: 3, MinScore: 0.01})
	if len(res.Hits) != 2 {
		t.Fatalf("min score: %+v", res.Hits)
	}
	got, _ := s.FetchContent(ctx, &ragstore.FetchContentRequest{Store: "r", IDs: []string{"1-1", "9-9", "0-0"}})
	if len(got.Contents) != 2 || got.Contents[0].Text != "gamma text" || got.Contents[1].Text != "alpha text" || got.Contents[0].Metadata["source"] != "/docs/b.md" {
		t.Fatalf("fetch %+v", got.Contents)
	}
}

// withFile2 is originalFile as the kernel lists it before a pass that
// drops file 1 and adds file 2 (one chunk): the kernel lists a pass's
// chunks before the store gets them.
func withFile2(t *testing.T) string {
	t.Helper()
	orig := originalFile(t)
	i, j := strings.Index(orig, "  1:\n"), strings.Index(orig, "vectors:\n")
	return orig[:i] + "  2:\n    hash: ccc\n    path: /docs/c.md\n    documents:\n    - page_content: delta\n      metadata: {}\n" + orig[j:]
}

func TestRebuildRewritesOnlyTheVectors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.yaml")
	if err := os.WriteFile(path, []byte(originalFile(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	s := open(t, path, ragstore.ReadWrite)
	ctx := context.Background()
	if err := os.WriteFile(path, []byte(withFile2(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteFile(ctx, &ragstore.DeleteFileRequest{Store: "r", FileID: "1"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Upsert(ctx, &ragstore.UpsertRequest{Store: "r", Chunks: []ragstore.Chunk{{ID: "2-0", FileID: "2", Text: "delta", Vector: []float32{0, 0, 1}}}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Upsert(ctx, &ragstore.UpsertRequest{Store: "r", Chunks: []ragstore.Chunk{{ID: "3-0", FileID: "3", Vector: []float32{1, 2}}}}); err == nil {
		t.Fatal("a vector of another dimension was accepted")
	}
	if err := s.Rebuild(ctx, &ragstore.RebuildRequest{Store: "r"}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	text := string(data)
	for _, want := range []string{"chunk_size: 1500", "reranker_model: null", "path: /docs/c.md", "0-0: " + ragstore.EncodeVector([]float32{1, 0, 0}), "2-0: " + ragstore.EncodeVector([]float32{0, 0, 1})} {
		if !strings.Contains(text, want) {
			t.Errorf("file lost %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "1-0:") {
		t.Errorf("deleted file's vectors kept:\n%s", text)
	}
	// Reopened, the store holds what was written.
	s2 := open(t, path, ragstore.ReadOnly)
	stats, _ := s2.Stats(ctx, &ragstore.StatsRequest{Store: "r"})
	if stats.Chunks != 2 || stats.Files != 2 { // 0-0 and 2-0
		t.Fatalf("stats after reopen: %+v, want 2 chunks of 2 files", stats)
	}
	res, _ := s2.VectorSearch(ctx, &ragstore.VectorSearchRequest{Store: "r", Vector: []float32{0, 0, 1}, TopK: 1})
	if len(res.Hits) != 1 || res.Hits[0].ID != "2-0" {
		t.Fatalf("after reopen: %+v", res.Hits)
	}
}

// TestRebuildRewritesALayoutTheLineScanCannotRead: a file in flow style
// (a hand-edited one, say) gets its vectors through the kernel's writer,
// with its settings and documents kept.
func TestRebuildRewritesALayoutTheLineScanCannotRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.yaml")
	flow := `{embedding_model: "openai:text-embedding-3-small", chunk_size: 1500, top_k: 4, next_file_id: 2,
  files: {0: {hash: aaa, path: /docs/a.md, documents: [{page_content: alpha text, metadata: {}}]},
    1: {hash: bbb, path: /docs/b.md, documents: [{page_content: beta, metadata: {}}]}},
  vectors: {0-0: ` + ragstore.EncodeVector([]float32{1, 0, 0}) + `}}
`
	if err := os.WriteFile(path, []byte(flow), 0o644); err != nil {
		t.Fatal(err)
	}
	s := open(t, path, ragstore.ReadWrite)
	ctx := context.Background()
	if err := s.Upsert(ctx, &ragstore.UpsertRequest{Store: "r", Chunks: []ragstore.Chunk{{ID: "1-0", FileID: "1", Text: "beta", Vector: []float32{0, 1, 0}}}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(ctx, &ragstore.CloseRequest{Store: "r"}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	for _, want := range []string{"chunk_size: 1500", "alpha text", "0-0: " + ragstore.EncodeVector([]float32{1, 0, 0}), "1-0: " + ragstore.EncodeVector([]float32{0, 1, 0})} {
		if !strings.Contains(string(data), want) {
			t.Errorf("file lacks %q:\n%s", want, data)
		}
	}
	again := open(t, path, ragstore.ReadOnly)
	res, err := again.VectorSearch(ctx, &ragstore.VectorSearchRequest{Store: "r", Vector: []float32{0, 1, 0}, TopK: 1})
	if err != nil || len(res.Hits) != 1 || res.Hits[0].ID != "1-0" {
		t.Fatalf("after reopen: %+v %v", res, err)
	}
}

// TestErrorsMatchTheSDKClasses: each refusal matches the sentinel the
// other stores and the kernel use for it, and names the RAG.
func TestErrorsMatchTheSDKClasses(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.yaml")
	if err := os.WriteFile(path, []byte(originalFile(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	ro := open(t, path, ragstore.ReadOnly)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		err  error
		want error
		text string
	}{
		{"search in a store never opened", func() error {
			_, err := ro.VectorSearch(ctx, &ragstore.VectorSearchRequest{Store: "never", Vector: []float32{1, 0, 0}, TopK: 1})
			return err
		}(), sdk.ErrFailedPrecondition, `RAG store "never" is not open`},
		{"upsert into a read-only store", ro.Upsert(ctx, &ragstore.UpsertRequest{Store: "r", Chunks: []ragstore.Chunk{{ID: "5-0", FileID: "5", Vector: []float32{1, 0, 0}}}}),
			sdk.ErrFailedPrecondition, `RAG store "r" is open read-only`},
		{"a query of another dimension", func() error {
			_, err := ro.VectorSearch(ctx, &ragstore.VectorSearchRequest{Store: "r", Vector: []float32{1, 0}, TopK: 1})
			return err
		}(), sdk.ErrInvalidArgument, "RAG r: query has 2 dimensions, the store 3"},
		{"attached", func() error {
			_, err := New().Open(ctx, &ragstore.OpenRequest{Store: "r", Path: path, Mode: ragstore.ReadWrite, Attached: true})
			return err
		}(), sdk.ErrUnsupported, "RAG r: the yaml driver"},
		{"no path", func() error {
			_, err := New().Open(ctx, &ragstore.OpenRequest{Store: "r", Mode: ragstore.ReadWrite})
			return err
		}(), sdk.ErrInvalidArgument, "needs a name and a path"},
		{"a RAG file that is missing, read-only", func() error {
			_, err := New().Open(ctx, &ragstore.OpenRequest{Store: "gone", Path: filepath.Join(dir, "gone.yaml"), Mode: ragstore.ReadOnly})
			return err
		}(), sdk.ErrNotFound, "RAG gone has not been built"},
	} {
		if !errors.Is(tc.err, tc.want) || !strings.Contains(fmt.Sprint(tc.err), tc.text) {
			t.Errorf("%s: %v, want %v saying %q", tc.name, tc.err, tc.want, tc.text)
		}
	}
}

// TestVectorsFollowTheListedChunks is an indexing pass killed at each of
// its steps with the yaml driver: the kernel has listed the new chunks
// (files 2 and 3 replace 0 and 1) and the store has written the vectors
// of some or none of them. The old vectors belong to no chunk any more: a
// load drops them (they are never found, and never an empty passage) and
// the next write leaves them out, whoever writes; the listed chunks
// without a vector are what ListFiles leaves out, for the kernel to embed.
func TestVectorsFollowTheListedChunks(t *testing.T) {
	ctx := context.Background()
	old := map[string][]float32{"0-0": {1, 0, 0}, "1-0": {0, 1, 0}, "1-1": {-1, 0, 0}}
	listed := `next_file_id: 4
files:
  2:
    hash: aaa
    path: /docs/a.md
    documents:
    - page_content: alpha text
      metadata: {}
  3:
    hash: bbb
    path: /docs/b.md
    documents:
    - page_content: beta text
      metadata: {}
    - page_content: gamma text
      metadata: {}
`
	for _, tc := range []struct {
		name    string
		written map[string][]float32 // of the new chunks, before the kill
		files   map[string]int64     // what ListFiles says
	}{
		{"killed before any vector", nil, map[string]int64{}},
		{"killed after one file", map[string][]float32{"2-0": {0, 0, 1}}, map[string]int64{"2": 1}},
		{"killed after a chunk of the second", map[string][]float32{"2-0": {0, 0, 1}, "3-0": {0, 1, 1}}, map[string]int64{"2": 1, "3": 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vectors := maps.Clone(old)
			maps.Copy(vectors, tc.written)
			path := filepath.Join(t.TempDir(), "r.yaml")
			if err := os.WriteFile(path, ragfile.AppendVectors([]byte(listed), vectors), 0o600); err != nil {
				t.Fatal(err)
			}
			for _, mode := range []ragstore.Mode{ragstore.ReadOnly, ragstore.ReadWrite} {
				s := open(t, path, mode)
				lf, err := s.ListFiles(ctx, &ragstore.ListFilesRequest{Store: "r"})
				if err != nil {
					t.Fatal(err)
				}
				got := map[string]int64{}
				for _, f := range lf.Files {
					got[f.FileID] = f.Chunks
				}
				if !reflect.DeepEqual(got, tc.files) {
					t.Fatalf("mode %d: files %v, want %v", mode, got, tc.files)
				}
				stats, _ := s.Stats(ctx, &ragstore.StatsRequest{Store: "r"})
				if stats.Chunks != int64(len(tc.written)) {
					t.Fatalf("mode %d: stats %+v, want %d chunks", mode, stats, len(tc.written))
				}
				res, err := s.VectorSearch(ctx, &ragstore.VectorSearchRequest{Store: "r", Vector: []float32{1, 0, 0}, TopK: 10})
				if err != nil {
					t.Fatal(err)
				}
				for _, h := range res.Hits {
					if _, ok := old[h.ID]; ok {
						t.Fatalf("mode %d: the old vector %s was found: %+v", mode, h.ID, res.Hits)
					}
				}
				if err := s.Close(ctx, &ragstore.CloseRequest{Store: "r"}); err != nil {
					t.Fatal(err)
				}
			}
			// The read-write store wrote the file again at Close: without
			// the old vectors.
			data, _ := os.ReadFile(path)
			got, _, err := ragfile.DecodeVectors(vectorsOf(t, data))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.written) {
				t.Fatalf("vectors after the next write: %v, want only %v", slices.Collect(maps.Keys(got)), slices.Collect(maps.Keys(tc.written)))
			}
		})
	}
}

// TestAWriteKeepsOnlyTheListedVectors: a chunk upserted that the file
// does not list (a kernel that lists after upserting, or a chunk the
// kernel has dropped from the list since) gets no vector in the file, so
// the vectors never outgrow the chunks; listed ones do.
func TestAWriteKeepsOnlyTheListedVectors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.yaml")
	if err := os.WriteFile(path, []byte(originalFile(t)), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s := open(t, path, ragstore.ReadWrite)
	err := s.Upsert(ctx, &ragstore.UpsertRequest{Store: "r", Chunks: []ragstore.Chunk{
		{ID: "1-1", FileID: "1", Text: "gamma text", Vector: []float32{0, 0, 1}}, // listed
		{ID: "1-2", FileID: "1", Text: "not listed", Vector: []float32{0, 1, 1}},
		{ID: "7-0", FileID: "7", Text: "not listed", Vector: []float32{1, 1, 1}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Rebuild(ctx, &ragstore.RebuildRequest{Store: "r", Full: true}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	got, _, err := ragfile.DecodeVectors(vectorsOf(t, data))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]float32{"0-0": {1, 0, 0}, "1-0": {0, 1, 0}, "1-1": {0, 0, 1}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("vectors written %v, want %v", got, want)
	}
}

// vectorsOf is the vectors section of a RAG file's text.
func vectorsOf(t *testing.T, data []byte) []byte {
	t.Helper()
	_, raw, _, ok := ragfile.Split(data, "vectors")
	if !ok {
		t.Fatalf("cannot cut the vectors out of:\n%s", data)
	}
	return raw["vectors"]
}
