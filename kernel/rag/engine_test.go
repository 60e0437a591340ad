package rag

import (
	"context"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coyote-cli/coyote/sdk/ragstore"
	"github.com/coyote-cli/coyote/sdk/ragstore/rank"
	"github.com/coyote-cli/coyote/sdk/ragstore/storetest"
)

// wordEmbed is a deterministic embedder: each word adds to one of 64
// dimensions, so texts sharing words point the same way.
func wordEmbed(_ context.Context, texts []string, _ string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 64)
		for _, w := range rank.Tokenize(t) {
			h := fnv.New32a()
			h.Write([]byte(w))
			v[h.Sum32()%64]++
		}
		out[i] = v
	}
	return out, nil
}

func TestIndexThenSearchThenResync(t *testing.T) {
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(docs, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(docs, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("zebra.md", "Zebras have black and white stripes and live in herds on the savanna.")
	write("go.md", "Go compiles quickly to a single static binary with goroutines and channels.")
	write("owl.md", "Owls hunt at night and see well in the dark.")
	f := &File{Path: filepath.Join(dir, "kb.yaml"), Driver: "yaml", EmbeddingModel: "fake:embed", ChunkSize: 200, ChunkOverlap: 10, TopK: 2, DocumentPaths: []string{docs}}
	store := storetest.Reference()
	ctx := context.Background()
	if _, err := store.Open(ctx, &ragstore.OpenRequest{Store: "kb", Path: f.Path, Dimension: 64, Mode: ragstore.ReadWrite}); err != nil {
		t.Fatal(err)
	}
	r := &RAG{Name: "kb", File: f, Store: store, Embed: wordEmbed, DefaultBatch: 2}
	var last Progress
	plan, err := r.Index(ctx, false, func(p Progress) { last = p })
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Added) != 3 || last.FilesDone != 3 || last.ChunksDone != last.Chunks || last.Chunks != 3 {
		t.Fatalf("plan %+v, progress %+v", plan, last)
	}
	chunks, err := r.Search(ctx, "which animal has stripes?", 0)
	if err != nil || len(chunks) == 0 || !strings.HasSuffix(chunks[0].Source, "zebra.md") {
		t.Fatalf("search: %+v %v", chunks, err)
	}
	// Nothing changed: nothing is indexed again.
	if plan, err = r.Index(ctx, false, nil); err != nil || !plan.Empty() {
		t.Fatalf("re-sync of unchanged files: %+v %v", plan, err)
	}
	// One file changed, one vanished.
	write("owl.md", "Owls hunt mice at night; their feathers are silent.")
	if err := os.Remove(filepath.Join(docs, "go.md")); err != nil {
		t.Fatal(err)
	}
	if plan, err = r.Index(ctx, false, nil); err != nil || len(plan.Added) != 1 || len(plan.Removed) != 2 {
		t.Fatalf("re-sync: %+v %v", plan, err)
	}
	stats, _ := store.Stats(ctx, &ragstore.StatsRequest{Store: "kb"})
	if stats.Files != 2 {
		t.Fatalf("stats after re-sync: %+v", stats)
	}
	// The file records what was indexed and reads back.
	back, err := Load(f.Path)
	if err != nil || len(back.Files) != 2 || back.NextFileID != 4 {
		t.Fatalf("saved file: %+v %v", back, err)
	}
	// Keyword leg: a word only one chunk has ranks it first.
	chunks, _ = r.Search(ctx, "feathers", 1)
	if len(chunks) != 1 || !strings.HasSuffix(chunks[0].Source, "owl.md") {
		t.Fatalf("keyword search: %+v", chunks)
	}
}

// counting wraps a store and counts its upserts.
type counting struct {
	ragstore.Store
	upserts int
}

func (c *counting) Upsert(ctx context.Context, req *ragstore.UpsertRequest) error {
	c.upserts++
	return c.Store.Upsert(ctx, req)
}

// TestIndexBatchesAcrossFiles: many small files are embedded batch_size
// chunks at a time and stored in few upserts, not one call of each per
// file, and the progress still counts files.
func TestIndexBatchesAcrossFiles(t *testing.T) {
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	const files = 30
	for i := range files {
		if err := os.WriteFile(filepath.Join(docs, fmt.Sprintf("f%02d.md", i)), []byte(fmt.Sprintf("note %d about things", i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f := &File{Path: filepath.Join(dir, "kb.yaml"), Driver: "yaml", EmbeddingModel: "fake:embed", ChunkSize: 200, TopK: 2, BatchSize: 8, DocumentPaths: []string{docs}}
	store := &counting{Store: storetest.Reference()}
	ctx := context.Background()
	if _, err := store.Open(ctx, &ragstore.OpenRequest{Store: "kb", Path: f.Path, Dimension: 64, Mode: ragstore.ReadWrite}); err != nil {
		t.Fatal(err)
	}
	var embeds atomic.Int64 // calls overlap (embedAhead)
	embed := func(ctx context.Context, texts []string, typ string) ([][]float32, error) {
		embeds.Add(1)
		if len(texts) > 8 {
			t.Errorf("an embedding call of %d texts, over batch_size", len(texts))
		}
		return wordEmbed(ctx, texts, typ)
	}
	r := &RAG{Name: "kb", File: f, Store: store, Embed: embed}
	var seen []Progress
	if _, err := r.Index(ctx, false, func(p Progress) { seen = append(seen, p) }); err != nil {
		t.Fatal(err)
	}
	if embeds.Load() != 4 || store.upserts != 1 {
		t.Fatalf("%d embedding calls and %d upserts for %d one-chunk files, want 4 and 1", embeds.Load(), store.upserts, files)
	}
	last := seen[len(seen)-1]
	if last.FilesDone != files || last.ChunksDone != files || last.Files != files {
		t.Fatalf("progress %+v", last)
	}
	stats, _ := store.Stats(ctx, &ragstore.StatsRequest{Store: "kb"})
	if stats.Chunks != files || stats.Files != files {
		t.Fatalf("stats %+v", stats)
	}
}

func TestProgressString(t *testing.T) {
	p := Progress{FilesDone: 1, Files: 3, ChunksDone: 10, Chunks: 42, Elapsed: 1300 * time.Millisecond}
	if got, want := p.String(), "files 1/3, chunks 10/42, 1.3s"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestIndexRefusesAnAttachedRAG(t *testing.T) {
	r := &RAG{Name: "ext", File: &File{Driver: "qdrant", Attached: true, TopK: 1}}
	_, err := r.Index(context.Background(), true, nil)
	if err == nil || !strings.Contains(err.Error(), "RAG ext is attached") || !strings.Contains(err.Error(), "use it without rebuilding") {
		t.Errorf("got %v", err)
	}
}
