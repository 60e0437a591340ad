package duckdbstore

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/coyote-cli/coyote/sdk/ragstore"
)

// usesVecFile reports whether the open store answers from its vector
// file (else it loaded the vectors from the database).
func usesVecFile(t *testing.T, d *Driver, name string) bool {
	t.Helper()
	s, err := d.get(name)
	if err != nil {
		t.Fatal(err)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.vec != nil && s.vec.q != nil
}

// TestReadersUseTheVectorFileOnlyWhileItIsTheStores: Rebuild writes the
// vector file and a reader answers from it; a writer's change makes it
// stale (the reader loads the vectors from DuckDB and sees the change)
// until the next Rebuild; a file that is not the one coyote_meta names
// is never used. The answers are the same either way.
func TestReadersUseTheVectorFileOnlyWhileItIsTheStores(t *testing.T) {
	ctx := context.Background()
	d, dir := New(), t.TempDir()
	rebuild := func() {
		t.Helper()
		if err := d.Rebuild(ctx, &ragstore.RebuildRequest{Store: "docs", Full: true}); err != nil {
			t.Fatal(err)
		}
	}
	check := func(step string, fromFile bool, want ...string) {
		t.Helper()
		open(t, d, dir, "docs", ragstore.ReadOnly, 3)
		if got := usesVecFile(t, d, "docs"); got != fromFile {
			t.Errorf("%s: answers from the vector file %v, want %v", step, got, fromFile)
		}
		if got := ids(vsearch(t, d, "docs", 3, 0, 1, 0.5, 0)); !slices.Equal(got, want) {
			t.Errorf("%s: vector search = %v, want %v", step, got, want)
		}
	}
	open(t, d, dir, "docs", ragstore.ReadWrite, 3)
	upsert(t, d, "docs", chunk("a", 0, "one", 1, 0, 0), chunk("a", 1, "two", 0, 1, 0), chunk("b", 0, "three", 1, 1, 0))
	rebuild()
	check("after Rebuild", true, "b-0", "a-0", "a-1")

	open(t, d, dir, "docs", ragstore.ReadWrite, 3)
	upsert(t, d, "docs", chunk("c", 0, "four", 1, 0.5, 0.01))
	check("after an upsert without Rebuild", false, "c-0", "b-0", "a-0")

	open(t, d, dir, "docs", ragstore.ReadWrite, 3)
	if err := d.DeleteFile(ctx, &ragstore.DeleteFileRequest{Store: "docs", FileID: "c"}); err != nil {
		t.Fatal(err)
	}
	rebuild()
	check("after DeleteFile and Rebuild", true, "b-0", "a-0", "a-1")

	open(t, d, dir, "docs", ragstore.ReadWrite, 3)
	upsert(t, d, "docs", chunk("c", 0, "four", 1, 0.5, 0.01))
	if err := d.DeleteFile(ctx, &ragstore.DeleteFileRequest{Store: "docs", FileID: "a"}); err != nil {
		t.Fatal(err)
	}
	check("after a DeleteFile without Rebuild", false, "c-0", "b-0")

	// An older vector file put back in place: its token is not the
	// store's.
	open(t, d, dir, "docs", ragstore.ReadWrite, 3)
	rebuild()
	vec := vecFilePath(filepath.Join(dir, "docs.duckdb"))
	old, err := os.ReadFile(vec)
	if err != nil {
		t.Fatal(err)
	}
	open(t, d, dir, "docs", ragstore.ReadWrite, 3)
	rebuild()
	if err := os.WriteFile(vec, old, 0o600); err != nil {
		t.Fatal(err)
	}
	check("with an older vector file", false, "c-0", "b-0")

	// A truncated one.
	if err := os.WriteFile(vec, old[:len(old)-1], 0o600); err != nil {
		t.Fatal(err)
	}
	check("with a truncated vector file", false, "c-0", "b-0")
	if err := os.Remove(vec); err != nil {
		t.Fatal(err)
	}
	check("without a vector file", false, "c-0", "b-0")
}

// TestClosingWaitsForSearchesOfTheVectorFile: closing unmaps the file;
// a search of the store closed under it fails cleanly.
func TestASearchAfterCloseOfTheVectorFileFails(t *testing.T) {
	d, dir := New(), t.TempDir()
	open(t, d, dir, "docs", ragstore.ReadWrite, 2)
	upsert(t, d, "docs", chunk("a", 0, "one", 1, 0))
	if err := d.Rebuild(context.Background(), &ragstore.RebuildRequest{Store: "docs"}); err != nil {
		t.Fatal(err)
	}
	open(t, d, dir, "docs", ragstore.ReadOnly, 2)
	s, _ := d.get("docs")
	v := s.vec
	if v.q == nil {
		t.Fatal("not answering from the vector file")
	}
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	if _, err := v.search([]float32{1, 0}, 1, 0); err == nil {
		t.Fatal("a search of an unmapped vector file did not fail")
	}
}
