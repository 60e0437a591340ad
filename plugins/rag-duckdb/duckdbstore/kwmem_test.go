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

// TestTheKeywordIndexInMemoryRanksAsTheSQLDoes: a read-only store without
// a current vector file starts the index in memory at Open; once built,
// it gives the same hits and scores as the SQL for the same queries.
func TestTheKeywordIndexInMemoryRanksAsTheSQLDoes(t *testing.T) {
	d, dir := New(), t.TempDir()
	open(t, d, dir, "kb", ragstore.ReadWrite, benchDim)
	rng, zipf := newGen(7)
	for f := range 6 {
		upsert(t, d, "kb", genChunks(rng, zipf, f, 40)...)
	}
	if err := d.Rebuild(context.Background(), &ragstore.RebuildRequest{Store: "kb", Full: true}); err != nil {
		t.Fatal(err)
	}
	if err := d.CloseAll(); err != nil {
		t.Fatal(err)
	}
	dropVecFile(t, dir, "kb")
	open(t, d, dir, "kb", ragstore.ReadOnly, benchDim)
	s, _ := d.get("kb")
	queries := []string{"w2 w3", "w17 w250 w3000", "W5", "w1 w1 w9", "nothing-matches-this"}
	var want [][]ragstore.Hit
	for _, q := range queries {
		hits, err := keywordSearch(context.Background(), s.db, q, 8)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, hits)
	}
	s.kw.mu.Lock()
	done := s.kw.done
	s.kw.mu.Unlock()
	if done == nil {
		t.Fatal("opening a read-only store did not start the index")
	}
	<-done
	if s.kw.idx.Load() == nil {
		t.Fatal("the index was not built")
	}
	for i, q := range queries {
		got := ksearch(t, d, "kb", q, 8)
		if len(got) != len(want[i]) {
			t.Fatalf("%q: %d hits in memory, %d in SQL", q, len(got), len(want[i]))
		}
		for j := range got {
			if got[j].ID != want[i][j].ID || math.Abs(float64(got[j].Score-want[i][j].Score)) > 1e-4 {
				t.Fatalf("%q hit %d: memory %+v, SQL %+v", q, j, got[j], want[i][j])
			}
		}
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
	ksearch(t, d, "kb", "w2", 5)
	if err := d.Close(context.Background(), &ragstore.CloseRequest{Store: "kb"}); err != nil {
		t.Fatal(err)
	}
}

// TestKeywordTiesGoInTheKernelsChunkOrder: chunks that score the same are
// ranked as rank.BM25 (the kernel's) ranks them (8-0 before 10-0), by the SQL of
// a store open to index, by the vector file's keyword index, and by the
// SQL and then the index in memory of a read-only one without the file,
// so a cut at top_k keeps the same chunks every time.
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
	check("read-write (SQL)")
	if err := d.Rebuild(context.Background(), &ragstore.RebuildRequest{Store: "kb", Full: true}); err != nil {
		t.Fatal(err)
	}
	open(t, d, dir, "kb", ragstore.ReadOnly, 1)
	if from := keywordsFrom(t, d, "kb"); from != "file" {
		t.Fatalf("keyword searches answered from %s, want the file", from)
	}
	check("read-only, from the vector file")
	if err := d.CloseAll(); err != nil {
		t.Fatal(err)
	}
	dropVecFile(t, dir, "kb")
	open(t, d, dir, "kb", ragstore.ReadOnly, 1)
	check("read-only, first searches (SQL until the index is in memory)")
	s, _ := d.get("kb")
	s.kw.mu.Lock()
	done := s.kw.done
	s.kw.mu.Unlock()
	<-done
	if s.kw.idx.Load() == nil {
		t.Fatal("the index was not built")
	}
	check("read-only, from the index in memory")
}
