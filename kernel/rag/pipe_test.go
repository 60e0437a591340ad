package rag

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coyote-cli/coyote/sdk/ragstore"
	"github.com/coyote-cli/coyote/sdk/ragstore/storetest"
)

// pipeRig is a RAG of files one-chunk documents, embedded one chunk a
// call and stored one chunk an upsert, over a store and an embedding
// model the test steers.
func pipeRig(t *testing.T, files int, store ragstore.Store, embed func(context.Context, []string, string) ([][]float32, error)) *RAG {
	t.Helper()
	old := storeBatch
	storeBatch = 1
	t.Cleanup(func() { storeBatch = old })
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range files {
		if err := os.WriteFile(filepath.Join(docs, fmt.Sprintf("f%02d.md", i)), []byte(fmt.Sprintf("note%d", i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f := &File{Path: filepath.Join(dir, "kb.yaml"), Driver: "yaml", EmbeddingModel: "fake:embed", ChunkSize: 200, TopK: 2, BatchSize: 1, DocumentPaths: []string{docs}}
	if _, err := store.Open(context.Background(), &ragstore.OpenRequest{Store: "kb", Path: f.Path, Dimension: 64, Mode: ragstore.ReadWrite}); err != nil {
		t.Fatal(err)
	}
	return &RAG{Name: "kb", File: f, Store: store, Embed: embed}
}

// hooked is a store whose Upsert runs a hook first.
type hooked struct {
	ragstore.Store
	upsert func(ctx context.Context, req *ragstore.UpsertRequest) error
}

func (h *hooked) Upsert(ctx context.Context, req *ragstore.UpsertRequest) error {
	if err := h.upsert(ctx, req); err != nil {
		return err
	}
	return h.Store.Upsert(ctx, req)
}

// waitFor fails the test, instead of hanging it, when ch is not closed in
// a long while.
func waitFor(t *testing.T, ctx context.Context, ch <-chan struct{}, what string) error {
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(time.Minute):
		t.Errorf("%s never happened", what)
		return errors.New(what + " never happened")
	}
}

// TestIndexEmbedsWhileItStores: the next batch is embedded while the one
// before it is being stored (the first upsert waits for that embedding
// call), and the chunks still reach the store in order.
func TestIndexEmbedsWhileItStores(t *testing.T) {
	secondEmbedded := make(chan struct{})
	var order []string
	store := &hooked{Store: storetest.Reference()}
	store.upsert = func(ctx context.Context, req *ragstore.UpsertRequest) error {
		if len(order) == 0 {
			if err := waitFor(t, ctx, secondEmbedded, "an embedding call during the first upsert"); err != nil {
				return err
			}
		}
		for _, c := range req.Chunks {
			order = append(order, c.Text)
		}
		return nil
	}
	embed := func(ctx context.Context, texts []string, typ string) ([][]float32, error) {
		if strings.Contains(texts[0], "note1") {
			close(secondEmbedded)
		}
		return wordEmbed(ctx, texts, typ)
	}
	r := pipeRig(t, 4, store, embed)
	if _, err := r.Index(context.Background(), true, nil); err != nil {
		t.Fatal(err)
	}
	want := []string{"note0", "note1", "note2", "note3"}
	if strings.Join(order, " ") != strings.Join(want, " ") {
		t.Fatalf("stored %q, want %q in that order", order, want)
	}
}

// TestIndexStopsAtAFailedUpsert: an upsert that fails ends the pass with
// its error, and the embedding calls in flight are cancelled rather than
// waited for.
func TestIndexStopsAtAFailedUpsert(t *testing.T) {
	store := &hooked{Store: storetest.Reference(), upsert: func(context.Context, *ragstore.UpsertRequest) error {
		return errors.New("disk full")
	}}
	embed := func(ctx context.Context, texts []string, typ string) ([][]float32, error) {
		if strings.Contains(texts[0], "note0") {
			return wordEmbed(ctx, texts, typ)
		}
		// Every later call hangs until the pass gives up on it.
		<-ctx.Done()
		return nil, ctx.Err()
	}
	r := pipeRig(t, 6, store, embed)
	_, err := r.Index(context.Background(), true, nil)
	if err == nil || err.Error() != "disk full" {
		t.Fatalf("err = %v, want the upsert's", err)
	}
}

// TestIndexStopsAtAFailedEmbedding: an embedding call that fails ends the
// pass with its error, naming the file, and what came before it is stored.
func TestIndexStopsAtAFailedEmbedding(t *testing.T) {
	store := &counting{Store: storetest.Reference()}
	embed := func(ctx context.Context, texts []string, typ string) ([][]float32, error) {
		if strings.Contains(texts[0], "note2") {
			return nil, errors.New("rate limited")
		}
		return wordEmbed(ctx, texts, typ)
	}
	r := pipeRig(t, 5, store, embed)
	_, err := r.Index(context.Background(), true, nil)
	if err == nil || !strings.HasSuffix(err.Error(), "f02.md: rate limited") {
		t.Fatalf("err = %v, want the embedding error naming f02.md", err)
	}
	stats, err := store.Stats(context.Background(), &ragstore.StatsRequest{Store: "kb"})
	if err != nil {
		t.Fatal(err)
	}
	if stats.Chunks != 2 {
		t.Fatalf("the store holds %d chunks, want the 2 before the failed call", stats.Chunks)
	}
}

// TestAFailureFeedingThePipeIsTheOneReported: when reading the files
// fails while an upsert is in flight, the pass reports the read's error,
// not the cancelled upsert's.
func TestAFailureFeedingThePipeIsTheOneReported(t *testing.T) {
	upserting := make(chan struct{})
	store := &hooked{Store: storetest.Reference(), upsert: func(ctx context.Context, _ *ragstore.UpsertRequest) error {
		close(upserting)
		<-ctx.Done()
		return ctx.Err()
	}}
	r := pipeRig(t, 1, store, wordEmbed)
	files := []AddedFile{{FileEntry: FileEntry{Path: "f00.md"}}}
	x := r.newIndexPipe(context.Background(), files, 1, Progress{}, nil)
	x.file(0, 1)
	if err := x.add(ragstore.Chunk{ID: "0-0", FileID: "0", Text: "note0"}, 0); err != nil {
		t.Fatal(err)
	}
	if err := waitFor(t, context.Background(), upserting, "the upsert"); err != nil {
		t.Fatal(err)
	}
	_, _, err := x.close(errors.New("read f01.md: disk on fire"))
	if err == nil || err.Error() != "read f01.md: disk on fire" {
		t.Fatalf("err = %v, want the read's", err)
	}
}
