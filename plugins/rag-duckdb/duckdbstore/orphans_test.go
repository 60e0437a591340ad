package duckdbstore

import (
	"context"
	"slices"
	"testing"

	"github.com/coyote-cli/coyote/sdk/ragstore"
)

// countTerms returns the terms rows of the open store, and how many of
// them belong to no chunk.
func countTerms(t *testing.T, d *Driver, name string) (all, orphaned int) {
	t.Helper()
	s, err := d.get(name)
	if err != nil {
		t.Fatal(err)
	}
	err = s.db.QueryRowContext(context.Background(), `SELECT count(*),
		count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.key = t.key)) FROM terms t`).Scan(&all, &orphaned)
	if err != nil {
		t.Fatal(err)
	}
	return all, orphaned
}

// TestDeletedChunksTermsRankAsIfGoneAndRebuildRemovesThem: a deleted or
// replaced chunk's terms stay until Rebuild, yet keyword search in SQL
// and in memory ranks exactly as a store that never had them; Rebuild
// (full or not) removes them, and a writer that reopens a store killed
// before its Rebuild never gives their keys to new chunks.
func TestDeletedChunksTermsRankAsIfGoneAndRebuildRemovesThem(t *testing.T) {
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

	// What a store that never held b answers, in SQL and in memory.
	clean, cleanDir := New(), t.TempDir()
	open(t, clean, cleanDir, "docs", ragstore.ReadWrite, 2)
	upsert(t, clean, "docs", keep...)
	want := map[string][]ragstore.Hit{}
	for _, q := range queries {
		want[q] = ksearch(t, clean, "docs", q, 10)
	}

	for _, full := range []bool{false, true} {
		d, dir := New(), t.TempDir()
		open(t, d, dir, "docs", ragstore.ReadWrite, 2)
		upsert(t, d, "docs", append(slices.Clone(keep[:2]), gone...)...)
		// c-0 first holds other words, then is replaced.
		upsert(t, d, "docs", chunk("c", 0, "lantern stone", 1, 1))
		upsert(t, d, "docs", keep[2])
		if err := d.DeleteFile(ctx, &ragstore.DeleteFileRequest{Store: "docs", FileID: "b"}); err != nil {
			t.Fatal(err)
		}
		if _, orphaned := countTerms(t, d, "docs"); orphaned == 0 {
			t.Fatalf("full=%v: no orphaned terms before Rebuild (the test no longer tests them)", full)
		}
		for _, q := range queries {
			if got := ksearch(t, d, "docs", q, 10); !slices.Equal(got, want[q]) {
				t.Errorf("full=%v: SQL before Rebuild, %q = %v, want %v", full, q, got, want[q])
			}
		}
		// A writer killed now and reopened: new chunks get new keys.
		s, _ := d.get("docs")
		before := s.nextKey
		open(t, d, dir, "docs", ragstore.ReadWrite, 2)
		if s, _ = d.get("docs"); s.nextKey < before {
			t.Errorf("full=%v: reopened writer numbers chunks from %d, below %d", full, s.nextKey, before)
		}
		upsert(t, d, "docs", chunk("d", 0, "quartz", 1, 0))
		if err := d.DeleteFile(ctx, &ragstore.DeleteFileRequest{Store: "docs", FileID: "d"}); err != nil {
			t.Fatal(err)
		}
		// The reader's index in memory, from a store not yet rebuilt.
		open(t, d, dir, "docs", ragstore.ReadOnly, 2)
		s, _ = d.get("docs")
		<-s.kw.done
		for _, q := range queries {
			if got := ksearch(t, d, "docs", q, 10); !slices.Equal(got, want[q]) {
				t.Errorf("full=%v: in memory before Rebuild, %q = %v, want %v", full, q, got, want[q])
			}
		}
		// A writer that deletes nothing still removes them (the first
		// writer recorded them in coyote_meta).
		open(t, d, dir, "docs", ragstore.ReadWrite, 2)
		if err := d.Rebuild(ctx, &ragstore.RebuildRequest{Store: "docs", Full: full}); err != nil {
			t.Fatal(err)
		}
		if all, orphaned := countTerms(t, d, "docs"); orphaned != 0 || all == 0 {
			t.Errorf("full=%v: after Rebuild %d terms rows, %d orphaned", full, all, orphaned)
		}
		for _, q := range queries {
			if got := ksearch(t, d, "docs", q, 10); !slices.Equal(got, want[q]) {
				t.Errorf("full=%v: after Rebuild, %q = %v, want %v", full, q, got, want[q])
			}
		}
	}
}
