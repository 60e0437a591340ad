package duckdbstore

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/coyote-cli/coyote/sdk/ragstore"
	"github.com/coyote-cli/coyote/sdk/ragstore/rank"
)

// dropVecFile removes the vector file of a store, so that a reader
// builds its keyword index in memory (the path of a store whose file is
// stale or missing).
func dropVecFile(t *testing.T, dir, name string) {
	t.Helper()
	if err := os.Remove(vecFilePath(filepath.Join(dir, name+".duckdb"))); err != nil {
		t.Fatal(err)
	}
}

// sameHits fails the test unless got and want hold the same chunks in the
// same order with the same scores.
func sameHits(t *testing.T, how, q string, got, want []ragstore.Hit) {
	t.Helper()
	if !slices.Equal(ids(got), ids(want)) {
		t.Errorf("%s, %q: %v, the kernel's BM25 gives %v", how, q, ids(got), ids(want))
		return
	}
	for j := range got {
		if math.Abs(float64(got[j].Score-want[j].Score)) > 1e-4 {
			t.Errorf("%s, %q: %s scored %v, the kernel's BM25 %v", how, q, got[j].ID, got[j].Score, want[j].Score)
		}
	}
}

// TestTheKeywordIndexRanksAsTheKernelsBM25: the index built from the term
// counts on the chunks' rows gives the hits and scores of rank.BM25 over
// the same texts, in a store open to index and in a read-only one (from
// the vector file, or, without it, built from Open on).
func TestTheKeywordIndexRanksAsTheKernelsBM25(t *testing.T) {
	d, dir := New(), t.TempDir()
	open(t, d, dir, "kb", ragstore.ReadWrite, benchDim)
	rng, zipf := newGen(7)
	kernel := rank.NewBM25()
	for f := range 6 {
		chunks := genChunks(rng, zipf, f, 40)
		upsert(t, d, "kb", chunks...)
		passages := make([]rank.Passage, len(chunks))
		for i, c := range chunks {
			passages[i] = rank.Passage{ID: c.ID, Text: c.Text}
		}
		kernel.AddFile(fmt.Sprint(f), passages)
	}
	queries := []string{"w2 w3", "w17 w250 w3000", "W5", "w1 w1 w9", "nothing-matches-this"}
	for _, q := range queries {
		sameHits(t, "read-write", q, ksearch(t, d, "kb", q, 8), kernel.Search(q, 8))
	}
	if err := d.Rebuild(context.Background(), &ragstore.RebuildRequest{Store: "kb", Full: true}); err != nil {
		t.Fatal(err)
	}
	open(t, d, dir, "kb", ragstore.ReadOnly, benchDim)
	if from := keywordsFrom(t, d, "kb"); from != "file" {
		t.Fatalf("keyword searches answered from %s, want the vector file", from)
	}
	for _, q := range queries {
		sameHits(t, "read-only, the vector file", q, ksearch(t, d, "kb", q, 8), kernel.Search(q, 8))
	}
	if err := d.CloseAll(); err != nil {
		t.Fatal(err)
	}
	dropVecFile(t, dir, "kb")
	open(t, d, dir, "kb", ragstore.ReadOnly, benchDim)
	if from := keywordsFrom(t, d, "kb"); from != "build" {
		t.Fatalf("without the vector file, keyword searches answered from %s, want a build at Open", from)
	}
	for _, q := range queries {
		sameHits(t, "read-only, built in memory", q, ksearch(t, d, "kb", q, 8), kernel.Search(q, 8))
	}
}

// TestClosingStopsAKeywordIndexBeingBuilt: closing the store while the
// index is built does not hang or use the closed database.
func TestClosingStopsAKeywordIndexBeingBuilt(t *testing.T) {
	d, dir := New(), t.TempDir()
	open(t, d, dir, "kb", ragstore.ReadWrite, benchDim)
	rng, zipf := newGen(3)
	upsert(t, d, "kb", genChunks(rng, zipf, 0, 200)...)
	if err := d.Rebuild(context.Background(), &ragstore.RebuildRequest{Store: "kb", Full: true}); err != nil {
		t.Fatal(err)
	}
	if err := d.CloseAll(); err != nil {
		t.Fatal(err)
	}
	dropVecFile(t, dir, "kb")
	open(t, d, dir, "kb", ragstore.ReadOnly, benchDim)
	if err := d.Close(context.Background(), &ragstore.CloseRequest{Store: "kb"}); err != nil {
		t.Fatal(err)
	}
	// And the same process can index it again at once.
	open(t, d, dir, "kb", ragstore.ReadWrite, benchDim)
	ksearch(t, d, "kb", "w2", 5)
	upsert(t, d, "kb", genChunks(rng, zipf, 1, 10)...)
	if err := d.Close(context.Background(), &ragstore.CloseRequest{Store: "kb"}); err != nil {
		t.Fatal(err)
	}
}

// TestKeywordTiesGoInTheKernelsChunkOrder: chunks that score the same are
// ranked as rank.BM25 (the kernel's) ranks them (8-0 before 10-0), in a
// store open to index and in a read-only one (from the vector file, and
// built in memory without it), so a cut at top_k keeps the same chunks
// every time.
func TestKeywordTiesGoInTheKernelsChunkOrder(t *testing.T) {
	d, dir := New(), t.TempDir()
	open(t, d, dir, "kb", ragstore.ReadWrite, 1)
	kernel := rank.NewBM25()
	for _, f := range []int{11, 8, 10, 9, 100} {
		c := ragstore.Chunk{ID: fmt.Sprintf("%d-0", f), FileID: fmt.Sprint(f), Text: "apple pie", Vector: []float32{1}}
		upsert(t, d, "kb", c)
		kernel.AddFile(c.FileID, []rank.Passage{{ID: c.ID, Text: c.Text}})
	}
	upsert(t, d, "kb", ragstore.Chunk{ID: "other", FileID: "x", Text: "apple tart", Vector: []float32{1}})
	kernel.AddFile("x", []rank.Passage{{ID: "other", Text: "apple tart"}})
	check := func(how string) {
		t.Helper()
		for _, k := range []int{1, 2, 4, 10} {
			want := kernel.Search("apple", k)
			got := ksearch(t, d, "kb", "apple", k)
			if !slices.Equal(ids(got), ids(want)) {
				t.Errorf("%s, top_k %d: %v, the kernel's BM25 gives %v", how, k, ids(got), ids(want))
			}
		}
	}
	check("read-write")
	if err := d.Rebuild(context.Background(), &ragstore.RebuildRequest{Store: "kb", Full: true}); err != nil {
		t.Fatal(err)
	}
	open(t, d, dir, "kb", ragstore.ReadOnly, 1)
	check("read-only, from the vector file")
	if err := d.CloseAll(); err != nil {
		t.Fatal(err)
	}
	dropVecFile(t, dir, "kb")
	open(t, d, dir, "kb", ragstore.ReadOnly, 1)
	check("read-only, built in memory")
}

// TestDeletedAndReplacedChunksLeaveNoTerms: keyword search over a store
// whose chunks were deleted or replaced ranks exactly as a store that
// never had them, before and after Rebuild, read-write and read-only: a
// chunk's term counts go with its row.
func TestDeletedAndReplacedChunksLeaveNoTerms(t *testing.T) {
	ctx := context.Background()
	keep := []ragstore.Chunk{
		chunk("a", 0, "river stone river", 1, 0),
		chunk("a", 1, "stone cloud", 0, 1),
		chunk("c", 0, "cloud river lantern", 1, 1),
	}
	gone := []ragstore.Chunk{
		chunk("b", 0, "river river river stone", 1, 0),
		chunk("b", 1, "lantern lantern", 0, 1),
	}
	queries := []string{"river", "stone cloud", "lantern", "river lantern stone"}

	clean, cleanDir := New(), t.TempDir()
	open(t, clean, cleanDir, "docs", ragstore.ReadWrite, 2)
	upsert(t, clean, "docs", keep...)
	want := map[string][]ragstore.Hit{}
	for _, q := range queries {
		want[q] = ksearch(t, clean, "docs", q, 10)
	}
	check := func(d *Driver, how string) {
		t.Helper()
		for _, q := range queries {
			if got := ksearch(t, d, "docs", q, 10); !slices.Equal(got, want[q]) {
				t.Errorf("%s: %q = %v, want %v", how, q, got, want[q])
			}
		}
	}

	d, dir := New(), t.TempDir()
	open(t, d, dir, "docs", ragstore.ReadWrite, 2)
	upsert(t, d, "docs", append(slices.Clone(keep[:2]), gone...)...)
	ksearch(t, d, "docs", "river", 10) // builds the writer's index, which the changes must drop
	// c-0 first holds other words, then is replaced.
	upsert(t, d, "docs", chunk("c", 0, "lantern stone", 1, 1))
	upsert(t, d, "docs", keep[2])
	if err := d.DeleteFile(ctx, &ragstore.DeleteFileRequest{Store: "docs", FileID: "b"}); err != nil {
		t.Fatal(err)
	}
	check(d, "read-write, before Rebuild")
	open(t, d, dir, "docs", ragstore.ReadOnly, 2)
	check(d, "read-only, before Rebuild")
	open(t, d, dir, "docs", ragstore.ReadWrite, 2)
	if err := d.Rebuild(ctx, &ragstore.RebuildRequest{Store: "docs", Full: true}); err != nil {
		t.Fatal(err)
	}
	check(d, "read-write, after Rebuild")
	open(t, d, dir, "docs", ragstore.ReadOnly, 2)
	check(d, "read-only, after Rebuild")
}
