package rag

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/coyote-cli/coyote/sdk/ragstore"
	"github.com/coyote-cli/coyote/sdk/ragstore/storetest"
)

// Indexing streams: the kernel holds the chunks of the file at hand and
// of the batches on their way to the store, never every document's. The
// bound is counted through RAG.onHold (each chunk whose text indexing
// holds), not measured: a pass that went back to reading every document
// first, or to keeping every chunk until the store is written, would hold
// them all at once.
func TestIndexHoldsABoundedNumberOfChunks(t *testing.T) {
	oldStore, oldExtract := storeBatch, extractBatch
	storeBatch, extractBatch = 8, 8
	t.Cleanup(func() { storeBatch, extractBatch = oldStore, oldExtract })
	const files, perFile, batch = 40, 6, 4
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range files {
		var b strings.Builder
		for p := range perFile {
			fmt.Fprintf(&b, "file%d paragraph%d words words words words\n\n", i, p)
		}
		if err := os.WriteFile(filepath.Join(docs, fmt.Sprintf("f%02d.md", i)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// What the pass may hold: the chunks being stored (under storeBatch,
	// plus one embedding batch that tips it over), the batches embedded
	// or being embedded for the next upsert (queueLen), one more waiting
	// for its turn to be embedded, and the file being split or read back;
	// or, while entities are extracted, a batch of them and that file.
	bound := max(storeBatch+(queueLen(batch)+2)*batch, extractBatch) + perFile
	for _, tc := range []struct {
		name    string
		full    bool
		extract bool
		// edit runs before the pass (the pass after the first).
		edit func(t *testing.T, path string)
	}{
		{name: "a new RAG", full: true},
		{name: "a rebuild of an indexed RAG", full: true},
		{name: "a re-sync after every document changed", edit: func(t *testing.T, _ string) {
			for i := range files {
				p := filepath.Join(docs, fmt.Sprintf("f%02d.md", i))
				data, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, append(data, "edited\n"...), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}},
		{name: "with entity extraction", full: true, extract: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, "kb.yaml")
			if tc.edit != nil {
				tc.edit(t, path)
			}
			f, err := LoadSettings(path)
			if err != nil {
				f = &File{Path: path, Driver: "yaml", EmbeddingModel: "fake:embed", ChunkSize: 60, TopK: 2, BatchSize: batch, DocumentPaths: []string{docs}}
			}
			if tc.extract {
				f.ExtractorModel = "fake:chat"
			}
			store := storetest.Reference()
			ctx := context.Background()
			if _, err := store.Open(ctx, &ragstore.OpenRequest{Store: "kb", Path: path, Dimension: 64, Mode: ragstore.ReadWrite}); err != nil {
				t.Fatal(err)
			}
			var calls atomic.Int64
			var mu sync.Mutex
			held, peak := 0, 0
			r := &RAG{Name: "kb", File: f, Store: store, Embed: wordEmbed, onHold: func(d int) {
				mu.Lock()
				defer mu.Unlock()
				held += d
				peak = max(peak, held)
			}}
			if tc.extract {
				r.Extract = extractByText(&calls)
			}
			plan, err := r.Index(ctx, tc.full, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.Added) != files {
				t.Fatalf("%d files indexed, want %d", len(plan.Added), files)
			}
			stats, _ := store.Stats(ctx, &ragstore.StatsRequest{Store: "kb"})
			if stats.Chunks != files*perFile {
				t.Fatalf("the store holds %d chunks, want %d", stats.Chunks, files*perFile)
			}
			if tc.extract && calls.Load() != files*perFile {
				t.Fatalf("%d extraction calls, want %d", calls.Load(), files*perFile)
			}
			if peak == 0 || peak > bound {
				t.Fatalf("indexing held %d chunks at once, want at most %d (of %d)", peak, bound, files*perFile)
			}
			if held != 0 {
				t.Fatalf("%d chunks still held after the pass", held)
			}
			// The file lists every chunk, as the original reads it.
			back, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, fe := range back.Files {
				n += len(fe.Documents)
			}
			if len(back.Files) != files || n != files*perFile {
				t.Fatalf("the file lists %d files and %d chunks", len(back.Files), n)
			}
		})
	}
}
