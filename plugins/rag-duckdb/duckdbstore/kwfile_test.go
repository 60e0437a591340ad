package duckdbstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/coyote-cli/coyote/sdk/ragstore"
	"github.com/coyote-cli/coyote/sdk/ragstore/rank"
)

// keywordsFrom says where an open read-only store answers keyword
// searches from: "file" (the vector file's keyword part, mapped at Open),
// or "build" (the index built in memory, which searches wait for).
func keywordsFrom(t *testing.T, d *Driver, name string) string {
	t.Helper()
	s, err := d.get(name)
	if err != nil {
		t.Fatal(err)
	}
	s.kw.mu.Lock()
	started := s.kw.b != nil
	s.kw.mu.Unlock()
	switch {
	case s.kw.file != nil && !started:
		return "file"
	case s.kw.file == nil && started:
		return "build"
	}
	t.Fatalf("keyword index from the file %v, built %v", s.kw.file != nil, started)
	return ""
}

// TestReadersRankKeywordsFromTheFileAsTheKernelDoes: after Rebuild (full
// or not, with replaced chunks and deleted files leaving gaps in the
// keys), a reader answers keyword searches from the vector file at once,
// with no build, and gives the hits and scores, to the bit,
// that the kernel's rank.BM25 gives over the same chunks.
func TestReadersRankKeywordsFromTheFileAsTheKernelDoes(t *testing.T) {
	for _, tc := range []struct {
		name string
		full bool
		// change runs on a writer after the first pass, before the
		// second Rebuild; kernel follows it.
		change func(t *testing.T, d *Driver, kernel *rank.BM25)
	}{
		{"full rebuild", true, nil},
		{"rebuild after upserts", false, nil},
		{"replaced chunks and a deleted file, full", true, replaceAndDelete},
		{"replaced chunks and a deleted file", false, replaceAndDelete},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			d, dir := New(), t.TempDir()
			kernel := rank.NewBM25()
			open(t, d, dir, "kb", ragstore.ReadWrite, benchDim)
			rng, zipf := newGen(11)
			for f := range 8 {
				chunks := genChunks(rng, zipf, f, 30)
				upsert(t, d, "kb", chunks...)
				kernel.AddFile(fmt.Sprint(f), passages(chunks))
			}
			if tc.change != nil {
				if err := d.Rebuild(ctx, &ragstore.RebuildRequest{Store: "kb", Full: tc.full}); err != nil {
					t.Fatal(err)
				}
				open(t, d, dir, "kb", ragstore.ReadWrite, benchDim)
				tc.change(t, d, kernel)
			}
			if err := d.Rebuild(ctx, &ragstore.RebuildRequest{Store: "kb", Full: tc.full}); err != nil {
				t.Fatal(err)
			}
			open(t, d, dir, "kb", ragstore.ReadOnly, benchDim)
			if from := keywordsFrom(t, d, "kb"); from != "file" {
				t.Fatalf("keyword searches answered from %s, want the file", from)
			}
			qrng, qzipf := newGen(5)
			queries := []string{"w2 w3", "W5 w5 w1", "w17 w250 w3000", "nothing-matches-this", "", "replaced"}
			for range 40 {
				queries = append(queries, fmt.Sprintf("w%d w%d w%d", qzipf.Uint64(), qzipf.Uint64(), qrng.IntN(20000)))
			}
			for _, q := range queries {
				for _, k := range []int{1, 5, 50} {
					want, got := kernel.Search(q, k), ksearch(t, d, "kb", q, k)
					if !slices.Equal(got, want) {
						t.Fatalf("%q top %d:\nstore  %v\nkernel %v", q, k, got, want)
					}
				}
			}
		})
	}
}

// replaceAndDelete replaces some chunks (new keys, old ones gone) with
// new texts and deletes a file, in the store and in kernel.
func replaceAndDelete(t *testing.T, d *Driver, kernel *rank.BM25) {
	t.Helper()
	rng, zipf := newGen(12)
	chunks := genChunks(rng, zipf, 3, 30)
	chunks[0].Text += " replaced"
	upsert(t, d, "kb", chunks...)
	kernel.AddFile("3", passages(chunks))
	if err := d.DeleteFile(context.Background(), &ragstore.DeleteFileRequest{Store: "kb", FileID: "5"}); err != nil {
		t.Fatal(err)
	}
	kernel.RemoveFile("5")
}

func passages(chunks []ragstore.Chunk) []rank.Passage {
	ps := make([]rank.Passage, len(chunks))
	for i, c := range chunks {
		ps[i] = rank.Passage{ID: c.ID, Text: c.Text}
	}
	return ps
}

// TestReadersUseTheKeywordFileOnlyWhileItIsTheStores: a reader never
// answers keywords from a vector file that is not the store's current one
// (a writer changed the store since, an older file was put back, the
// file is truncated or gone); it builds the index instead and sees the
// change.
func TestReadersUseTheKeywordFileOnlyWhileItIsTheStores(t *testing.T) {
	ctx := context.Background()
	d, dir := New(), t.TempDir()
	vec := vecFilePath(filepath.Join(dir, "docs.duckdb"))
	check := func(step, from string, want ...string) {
		t.Helper()
		open(t, d, dir, "docs", ragstore.ReadOnly, 2)
		if got := keywordsFrom(t, d, "docs"); got != from {
			t.Errorf("%s: keywords from %s, want %s", step, got, from)
		}
		if got := ids(ksearch(t, d, "docs", "apple", 10)); !slices.Equal(got, want) {
			t.Errorf("%s: keyword search = %v, want %v", step, got, want)
		}
	}
	open(t, d, dir, "docs", ragstore.ReadWrite, 2)
	upsert(t, d, "docs", chunk("1", 0, "apple pie", 1, 0), chunk("1", 1, "apple apple tart", 0, 1), chunk("2", 0, "pear", 1, 1))
	if err := d.Rebuild(ctx, &ragstore.RebuildRequest{Store: "docs"}); err != nil {
		t.Fatal(err)
	}
	check("after Rebuild", "file", "1-1", "1-0")
	old, err := os.ReadFile(vec)
	if err != nil {
		t.Fatal(err)
	}

	open(t, d, dir, "docs", ragstore.ReadWrite, 2)
	upsert(t, d, "docs", chunk("2", 0, "apple apple apple", 1, 1))
	check("after an upsert without Rebuild", "build", "2-0", "1-1", "1-0")

	open(t, d, dir, "docs", ragstore.ReadWrite, 2)
	if err := d.Rebuild(ctx, &ragstore.RebuildRequest{Store: "docs", Full: true}); err != nil {
		t.Fatal(err)
	}
	check("after the next Rebuild", "file", "2-0", "1-1", "1-0")

	if err := os.WriteFile(vec, old, 0o600); err != nil {
		t.Fatal(err)
	}
	check("with an older file", "build", "2-0", "1-1", "1-0")
	if err := os.WriteFile(vec, old[:len(old)-1], 0o600); err != nil {
		t.Fatal(err)
	}
	check("with a truncated file", "build", "2-0", "1-1", "1-0")
	if err := os.Remove(vec); err != nil {
		t.Fatal(err)
	}
	check("without a file", "build", "2-0", "1-1", "1-0")
}

// TestAKeywordSearchAfterCloseOfTheFileFails: closing unmaps the file; a
// keyword search of the store closed under it fails cleanly.
func TestAKeywordSearchAfterCloseOfTheFileFails(t *testing.T) {
	d, dir := New(), t.TempDir()
	open(t, d, dir, "docs", ragstore.ReadWrite, 2)
	upsert(t, d, "docs", chunk("a", 0, "one", 1, 0))
	if err := d.Rebuild(context.Background(), &ragstore.RebuildRequest{Store: "docs"}); err != nil {
		t.Fatal(err)
	}
	open(t, d, dir, "docs", ragstore.ReadOnly, 2)
	s, _ := d.get("docs")
	if s.kw.file == nil {
		t.Fatal("not answering keywords from the file")
	}
	if hits, err := s.kw.search(context.Background(), s, "one", 1); len(hits) != 1 || err != nil {
		t.Fatalf("search before close: %v, %v", hits, err)
	}
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.kw.search(context.Background(), s, "one", 1); err == nil {
		t.Fatal("a search of an unmapped file did not fail")
	}
}

// TestKeywordFileWritesInRanges: a write budget smaller than the
// postings writes them a range of terms at a time, to the same file.
func TestKeywordFileWritesInRanges(t *testing.T) {
	ctx := context.Background()
	d, dir := New(), t.TempDir()
	open(t, d, dir, "kb", ragstore.ReadWrite, benchDim)
	rng, zipf := newGen(13)
	kernel := rank.NewBM25()
	for f := range 4 {
		chunks := genChunks(rng, zipf, f, 25)
		upsert(t, d, "kb", chunks...)
		kernel.AddFile(fmt.Sprint(f), passages(chunks))
	}
	kwWriteBudget = 97
	defer func() { kwWriteBudget = 1 << 22 }()
	if err := d.Rebuild(ctx, &ragstore.RebuildRequest{Store: "kb"}); err != nil {
		t.Fatal(err)
	}
	open(t, d, dir, "kb", ragstore.ReadOnly, benchDim)
	if from := keywordsFrom(t, d, "kb"); from != "file" {
		t.Fatalf("keyword searches answered from %s, want the file", from)
	}
	for _, q := range []string{"w1 w2", "w3 w40 w500", "w7"} {
		if want, got := kernel.Search(q, 20), ksearch(t, d, "kb", q, 20); !slices.Equal(got, want) {
			t.Fatalf("%q:\nstore  %v\nkernel %v", q, got, want)
		}
	}
}

// TestKeyRowsDenseAndSparse: keys number rows the same whether they are
// few enough for an array or so scattered that a map holds them.
func TestKeyRowsDenseAndSparse(t *testing.T) {
	for _, tc := range []struct {
		name   string
		keys   []int64
		maxKey int
		dense  bool
	}{
		{"dense", []int64{1, 2, 3, 7, 5}, 7, true},
		{"sparse", []int64{1, 5000, 90000, 3, 123456}, 123456, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := newKeyRows(tc.maxKey, len(tc.keys))
			if got := k.dense != nil; got != tc.dense {
				t.Fatalf("dense %v, want %v", got, tc.dense)
			}
			for i, key := range tc.keys {
				k.set(key, int32(i))
			}
			for i, key := range tc.keys {
				if got := k.get(key); got != int32(i) {
					t.Errorf("key %d: row %d, want %d", key, got, i)
				}
			}
			for _, key := range []int64{-1, 0, 4, 6, int64(tc.maxKey) + 1, 1 << 40} {
				if got := k.get(key); got != -1 {
					t.Errorf("key %d, never set: row %d", key, got)
				}
			}
		})
	}
}
