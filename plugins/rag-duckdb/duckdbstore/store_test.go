package duckdbstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/ragstore"
	"github.com/coyote-cli/coyote/sdk/ragstore/rank"
)

// open opens store name of dir's rags/<name>.yaml and closes it at the end
// of the test.
func open(t testing.TB, d *Driver, dir, name string, mode ragstore.Mode, dim int) *ragstore.OpenResponse {
	t.Helper()
	resp, err := d.Open(context.Background(), &ragstore.OpenRequest{
		Store: name, Path: filepath.Join(dir, name+".yaml"), Mode: mode, Dimension: dim,
	})
	if err != nil {
		t.Fatalf("open %s: %v", name, err)
	}
	t.Cleanup(func() { _ = d.Close(context.Background(), &ragstore.CloseRequest{Store: name}) })
	return resp
}

func chunk(file string, i int, text string, vec ...float32) ragstore.Chunk {
	return ragstore.Chunk{
		ID: fmt.Sprintf("%s-%d", file, i), FileID: file, Text: text,
		Metadata: map[string]string{"source": "/docs/" + file + ".md"}, Vector: vec,
	}
}

func upsert(t testing.TB, d *Driver, name string, chunks ...ragstore.Chunk) {
	t.Helper()
	if err := d.Upsert(context.Background(), &ragstore.UpsertRequest{Store: name, Chunks: chunks}); err != nil {
		t.Fatalf("upsert: %v", err)
	}
}

func ids(hits []ragstore.Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.ID)
	}
	return out
}

func vsearch(t testing.TB, d *Driver, name string, k int, min float32, vec ...float32) []ragstore.Hit {
	t.Helper()
	r, err := d.VectorSearch(context.Background(), &ragstore.VectorSearchRequest{Store: name, Vector: vec, TopK: k, MinScore: min})
	if err != nil {
		t.Fatalf("vector search: %v", err)
	}
	return r.Hits
}

func ksearch(t testing.TB, d *Driver, name, q string, k int) []ragstore.Hit {
	t.Helper()
	r, err := d.KeywordSearch(context.Background(), &ragstore.KeywordSearchRequest{Store: name, Query: q, TopK: k})
	if err != nil {
		t.Fatalf("keyword search: %v", err)
	}
	return r.Hits
}

func fetch(t testing.TB, d *Driver, name string, want ...string) []string {
	t.Helper()
	r, err := d.FetchContent(context.Background(), &ragstore.FetchContentRequest{Store: name, IDs: want})
	if err != nil {
		t.Fatalf("fetch: %v", err)
	}
	var out []string
	for _, c := range r.Contents {
		out = append(out, c.ID+"="+c.Text)
	}
	return out
}

func stats(t testing.TB, d *Driver, name string) ragstore.Stats {
	t.Helper()
	st, err := d.Stats(context.Background(), &ragstore.StatsRequest{Store: name})
	if err != nil {
		t.Fatalf("stats: %v", err)
	}
	return *st
}

func TestFilePathIsBesideTheYaml(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"rags/docs.yaml", "rags/docs.duckdb"},
		{"rags/docs.YML", "rags/docs.duckdb"},
		{"/x/a.b.yaml", "/x/a.b.duckdb"},
		{"rags/docs", "rags/docs.duckdb"},
	} {
		if got := FilePath(tc.in); got != tc.want {
			t.Errorf("FilePath(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestTokenizeLowersAndSplitsOnNonWordRunes checks the terms the store
// indexes (kernel/rag's, shared with the in-memory keyword index).
func TestTokenizeLowersAndSplitsOnNonWordRunes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"Hello, World!", []string{"hello", "world"}},
		{"snake_case and kebab-case x2", []string{"snake", "case", "and", "kebab", "case", "x2"}},
		{"Ünïcode ÉTÉ 東京 42", []string{"ünïcode", "été", "東京", "42"}},
		{"  --  ", nil},
	} {
		if got := rank.Tokenize(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("rank.Tokenize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestUpsertSearchFetchRoundTrip(t *testing.T) {
	d, dir := New(), t.TempDir()
	resp := open(t, d, dir, "docs", ragstore.ReadWrite, 3)
	if resp.Stats.Chunks != 0 || resp.Stats.Dimension != 3 {
		t.Fatalf("new store stats = %+v", resp.Stats)
	}
	if !slices.Contains(resp.Capabilities, ragstore.CapKeywordSearch) {
		t.Errorf("capabilities %v lack keyword search", resp.Capabilities)
	}
	upsert(t, d, "docs",
		chunk("0", 0, "alpha apples", 1, 0, 0),
		chunk("0", 1, "beta bananas", 0, 1, 0),
		chunk("1", 0, "gamma grapes", 0, 0, 1),
	)
	if st := stats(t, d, "docs"); st != (ragstore.Stats{Chunks: 3, Files: 2, Dimension: 3}) {
		t.Errorf("stats = %+v", st)
	}
	hits := vsearch(t, d, "docs", 2, 0, 0.9, 0.1, 0)
	if got := ids(hits); !slices.Equal(got, []string{"0-0", "0-1"}) {
		t.Errorf("vector search = %v", got)
	}
	if math.Abs(float64(hits[0].Score)-0.9/math.Sqrt(0.82)) > 1e-5 {
		t.Errorf("cosine = %v", hits[0].Score)
	}
	// Fetch keeps the caller's order and skips what is missing.
	if got := fetch(t, d, "docs", "1-0", "nope", "0-0"); !slices.Equal(got, []string{"1-0=gamma grapes", "0-0=alpha apples"}) {
		t.Errorf("fetch = %v", got)
	}
	r, err := d.FetchContent(context.Background(), &ragstore.FetchContentRequest{Store: "docs", IDs: []string{"0-1"}})
	if err != nil || len(r.Contents) != 1 || r.Contents[0].Metadata["source"] != "/docs/0.md" {
		t.Errorf("fetch metadata = %+v, %v", r, err)
	}
	if got := ids(ksearch(t, d, "docs", "Bananas?", 5)); !slices.Equal(got, []string{"0-1"}) {
		t.Errorf("keyword search = %v", got)
	}
}

func TestUpsertReplacesAndIncrementalUpsertKeepsTheRest(t *testing.T) {
	d, dir := New(), t.TempDir()
	open(t, d, dir, "docs", ragstore.ReadWrite, 2)
	upsert(t, d, "docs", chunk("0", 0, "old words", 1, 0), chunk("1", 0, "other file", 0, 1))
	upsert(t, d, "docs", chunk("0", 0, "new text", 0, 1))
	if st := stats(t, d, "docs"); st.Chunks != 2 {
		t.Errorf("chunks = %d after replacing one", st.Chunks)
	}
	if got := fetch(t, d, "docs", "0-0", "1-0"); !slices.Equal(got, []string{"0-0=new text", "1-0=other file"}) {
		t.Errorf("fetch = %v", got)
	}
	if got := ksearch(t, d, "docs", "old", 5); len(got) != 0 {
		t.Errorf("the replaced text's terms still match: %v", got)
	}
	if got := ids(ksearch(t, d, "docs", "new", 5)); !slices.Equal(got, []string{"0-0"}) {
		t.Errorf("keyword search for the new text = %v", got)
	}
	// Both now point the same way; the tie goes to the smaller id.
	if got := ids(vsearch(t, d, "docs", 5, 0, 0, 1)); !slices.Equal(got, []string{"0-0", "1-0"}) {
		t.Errorf("vector search = %v", got)
	}
	if err := d.Rebuild(context.Background(), &ragstore.RebuildRequest{Store: "docs"}); err != nil {
		t.Fatal(err)
	}
	if st := stats(t, d, "docs"); st.Chunks != 2 {
		t.Errorf("an incremental rebuild left %d chunks", st.Chunks)
	}
}

func TestUpsertOfOneIDTwiceInABatchKeepsTheLast(t *testing.T) {
	d, dir := New(), t.TempDir()
	open(t, d, dir, "docs", ragstore.ReadWrite, 2)
	upsert(t, d, "docs", chunk("0", 0, "first", 1, 0), chunk("0", 0, "second", 0, 1))
	if got := fetch(t, d, "docs", "0-0"); !slices.Equal(got, []string{"0-0=second"}) {
		t.Errorf("fetch = %v", got)
	}
	if st := stats(t, d, "docs"); st.Chunks != 1 {
		t.Errorf("chunks = %d", st.Chunks)
	}
}

func TestDeleteFileRemovesItsChunksEverywhere(t *testing.T) {
	d, dir := New(), t.TempDir()
	open(t, d, dir, "docs", ragstore.ReadWrite, 2)
	upsert(t, d, "docs",
		chunk("0", 0, "keep me", 1, 0),
		chunk("1", 0, "drop me", 0, 1),
		chunk("1", 1, "drop me too", 1, 1),
		chunk("2", 0, "keep this", -1, 0))
	if err := d.DeleteFile(context.Background(), &ragstore.DeleteFileRequest{Store: "docs", FileID: "1"}); err != nil {
		t.Fatal(err)
	}
	if st := stats(t, d, "docs"); st != (ragstore.Stats{Chunks: 2, Files: 2, Dimension: 2}) {
		t.Errorf("stats = %+v", st)
	}
	if got := ids(vsearch(t, d, "docs", 10, 0, 0, 1)); !slices.Equal(got, []string{"0-0", "2-0"}) {
		t.Errorf("vector search = %v", got)
	}
	if got := ksearch(t, d, "docs", "drop", 10); len(got) != 0 {
		t.Errorf("keyword search still finds %v", got)
	}
	if got := fetch(t, d, "docs", "1-0", "0-0"); !slices.Equal(got, []string{"0-0=keep me"}) {
		t.Errorf("fetch = %v", got)
	}
	// Deleting what is not there is no error.
	if err := d.DeleteFile(context.Background(), &ragstore.DeleteFileRequest{Store: "docs", FileID: "9"}); err != nil {
		t.Fatal(err)
	}
}

func TestMinScoreZeroKeepsNegativeScores(t *testing.T) {
	d, dir := New(), t.TempDir()
	open(t, d, dir, "docs", ragstore.ReadWrite, 2)
	upsert(t, d, "docs", chunk("0", 0, "a", 1, 0), chunk("0", 1, "b", -1, 0), chunk("0", 2, "c", 1, 1))
	all := vsearch(t, d, "docs", 10, 0, 1, 0)
	if got := ids(all); !slices.Equal(got, []string{"0-0", "0-2", "0-1"}) {
		t.Fatalf("no floor = %v", got)
	}
	if all[2].Score > -0.99 {
		t.Errorf("opposite vector scored %v, want -1", all[2].Score)
	}
	if got := ids(vsearch(t, d, "docs", 10, 0.8, 1, 0)); !slices.Equal(got, []string{"0-0"}) {
		t.Errorf("floor 0.8 = %v", got)
	}
	if got := vsearch(t, d, "docs", 0, 0, 1, 0); len(got) != 0 {
		t.Errorf("top_k 0 = %v", got)
	}
}

// bm25 is the reference ranking, written from the formula: each distinct
// query term t adds idf(t)·tf·(k1+1)/(tf + k1·(1−b+b·len/avglen)).
func bm25(docs map[string]string, query string) []ragstore.Hit {
	const k1, b = 1.5, 0.75
	terms := map[string]bool{}
	for _, t := range rank.Tokenize(query) {
		terms[t] = true
	}
	tfs := map[string]map[string]int{}
	lens := map[string]int{}
	total := 0
	df := map[string]int{}
	for id, text := range docs {
		tfs[id] = map[string]int{}
		for _, t := range rank.Tokenize(text) {
			tfs[id][t]++
			lens[id]++
			total++
		}
		for t := range tfs[id] {
			df[t]++
		}
	}
	n := float64(len(docs))
	avg := float64(total) / n
	var hits []ragstore.Hit
	for id := range docs {
		score, matched := 0.0, false
		for t := range terms {
			tf := float64(tfs[id][t])
			if tf == 0 {
				continue
			}
			matched = true
			idf := math.Log(1 + (n-float64(df[t])+0.5)/(float64(df[t])+0.5))
			score += idf * tf * (k1 + 1) / (tf + k1*(1-b+b*float64(lens[id])/avg))
		}
		if matched {
			hits = append(hits, ragstore.Hit{ID: id, Score: float32(score)})
		}
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].ID < hits[j].ID
	})
	return hits
}

func TestKeywordSearchMatchesHandComputedBM25(t *testing.T) {
	docs := map[string]string{
		"a-0": "The quick brown fox jumps over the lazy dog",
		"a-1": "A fox, a fox! Foxes everywhere; the fox den.",
		"b-0": "Dogs and cats: the lazy afternoon of a dog owner",
		"b-1": "Quantum chromodynamics has nothing to do with foxes or dogs",
		"c-0": "brown bread, brown rice, brown sugar",
	}
	d, dir := New(), t.TempDir()
	open(t, d, dir, "docs", ragstore.ReadWrite, 1)
	for id, text := range docs {
		c := ragstore.Chunk{ID: id, FileID: id[:1], Text: text, Vector: []float32{1}}
		upsert(t, d, "docs", c)
	}
	for _, q := range []string{"fox", "lazy dog", "brown fox fox", "FOXES", "nothing here", "the"} {
		want := bm25(docs, q)
		got := ksearch(t, d, "docs", q, 10)
		if !slices.Equal(ids(got), ids(want)) {
			t.Errorf("%q: ranking %v, want %v", q, ids(got), ids(want))
			continue
		}
		for i := range got {
			if math.Abs(float64(got[i].Score-want[i].Score)) > 1e-4 {
				t.Errorf("%q: %s scored %v, want %v", q, got[i].ID, got[i].Score, want[i].Score)
			}
		}
	}
	if got := ids(ksearch(t, d, "docs", "fox", 2)); len(got) != 2 {
		t.Errorf("top_k 2 gave %v", got)
	}
	// A full rebuild rewrites the tables; the ranking is unchanged.
	if err := d.Rebuild(context.Background(), &ragstore.RebuildRequest{Store: "docs", Full: true}); err != nil {
		t.Fatal(err)
	}
	if got, want := ids(ksearch(t, d, "docs", "lazy dog", 10)), ids(bm25(docs, "lazy dog")); !slices.Equal(got, want) {
		t.Errorf("after rebuild: %v, want %v", got, want)
	}
	// And upserts keep working after it.
	upsert(t, d, "docs", ragstore.Chunk{ID: "d-0", FileID: "d", Text: "lazy lazy lazy", Vector: []float32{1}})
	if got := ids(ksearch(t, d, "docs", "lazy", 1)); !slices.Equal(got, []string{"d-0"}) {
		t.Errorf("after an upsert that follows a rebuild: %v", got)
	}
}

func TestReopenReadOnlyKeepsEverything(t *testing.T) {
	d, dir := New(), t.TempDir()
	open(t, d, dir, "docs", ragstore.ReadWrite, 2)
	upsert(t, d, "docs", chunk("0", 0, "persisted words", 1, 0), chunk("1", 0, "more", 0, 1))
	if err := d.Rebuild(context.Background(), &ragstore.RebuildRequest{Store: "docs", Full: true}); err != nil {
		t.Fatal(err)
	}
	// Reopening the same name switches the mode (closing the writer).
	resp := open(t, d, dir, "docs", ragstore.ReadOnly, 2)
	if resp.Stats != (ragstore.Stats{Chunks: 2, Files: 2, Dimension: 2}) {
		t.Errorf("stats = %+v", resp.Stats)
	}
	if got := ids(vsearch(t, d, "docs", 1, 0, 0.1, 1)); !slices.Equal(got, []string{"1-0"}) {
		t.Errorf("vector search = %v", got)
	}
	if got := ids(ksearch(t, d, "docs", "persisted", 1)); !slices.Equal(got, []string{"0-0"}) {
		t.Errorf("keyword search = %v", got)
	}
	err := d.Upsert(context.Background(), &ragstore.UpsertRequest{Store: "docs", Chunks: []ragstore.Chunk{chunk("2", 0, "x", 1, 1)}})
	if !errors.Is(err, sdk.ErrFailedPrecondition) {
		t.Errorf("upsert into a read-only store: %v", err)
	}
	// Two read-only opens of one file in one process share it.
	open(t, d, dir, "docs", ragstore.ReadOnly, 0)
	d2 := New()
	open(t, d2, dir, "docs", ragstore.ReadOnly, 0)
	if got := ids(vsearch(t, d2, "docs", 1, 0, 1, 0)); !slices.Equal(got, []string{"0-0"}) {
		t.Errorf("second reader: %v", got)
	}
}

func TestOpenErrors(t *testing.T) {
	d, dir := New(), t.TempDir()
	ctx := context.Background()
	_, err := d.Open(ctx, &ragstore.OpenRequest{Store: "none", Path: filepath.Join(dir, "none.yaml"), Mode: ragstore.ReadOnly})
	if !errors.Is(err, sdk.ErrNotFound) {
		t.Errorf("read-only open of a missing store: %v", err)
	}
	_, err = d.Open(ctx, &ragstore.OpenRequest{Store: "x", Path: filepath.Join(dir, "x.yaml"), Mode: ragstore.ReadWrite, Attached: true})
	if !errors.Is(err, sdk.ErrUnsupported) {
		t.Errorf("attach: %v", err)
	}
	_, err = d.Open(ctx, &ragstore.OpenRequest{Store: "x", Mode: ragstore.ReadWrite})
	if !errors.Is(err, sdk.ErrInvalidArgument) {
		t.Errorf("no path: %v", err)
	}
	if _, err := d.Stats(ctx, &ragstore.StatsRequest{Store: "never"}); !errors.Is(err, sdk.ErrFailedPrecondition) {
		t.Errorf("stats of a store never opened: %v", err)
	}
}

func TestDimensionChecks(t *testing.T) {
	d, dir := New(), t.TempDir()
	ctx := context.Background()
	open(t, d, dir, "docs", ragstore.ReadWrite, 2)
	upsert(t, d, "docs", chunk("0", 0, "a", 1, 0))
	err := d.Upsert(ctx, &ragstore.UpsertRequest{Store: "docs", Chunks: []ragstore.Chunk{chunk("0", 1, "b", 1, 0, 0)}})
	if !errors.Is(err, sdk.ErrInvalidArgument) {
		t.Errorf("upsert of a 3-d vector into a 2-d store: %v", err)
	}
	if _, err := d.VectorSearch(ctx, &ragstore.VectorSearchRequest{Store: "docs", Vector: []float32{1}, TopK: 1}); !errors.Is(err, sdk.ErrInvalidArgument) {
		t.Errorf("1-d query: %v", err)
	}
	_ = d.Close(ctx, &ragstore.CloseRequest{Store: "docs"})
	_, err = d.Open(ctx, &ragstore.OpenRequest{Store: "docs", Path: filepath.Join(dir, "docs.yaml"), Mode: ragstore.ReadOnly, Dimension: 3})
	if !errors.Is(err, sdk.ErrFailedPrecondition) {
		t.Errorf("read-only open with another dimension: %v", err)
	}
	// Read-write with a new embedding model starts over.
	resp := open(t, d, dir, "docs", ragstore.ReadWrite, 3)
	if resp.Stats != (ragstore.Stats{Dimension: 3}) {
		t.Errorf("stats after a dimension change = %+v", resp.Stats)
	}
}

func TestNewStoreWithoutDimensionTakesTheFirstVectors(t *testing.T) {
	d, dir := New(), t.TempDir()
	resp := open(t, d, dir, "docs", ragstore.ReadWrite, 0)
	if resp.Stats != (ragstore.Stats{}) {
		t.Errorf("stats = %+v", resp.Stats)
	}
	if got := vsearch(t, d, "docs", 3, 0, 1, 0); len(got) != 0 {
		t.Errorf("empty store search = %v", got)
	}
	if got := ksearch(t, d, "docs", "x", 3); len(got) != 0 {
		t.Errorf("empty store keyword search = %v", got)
	}
	upsert(t, d, "docs", chunk("0", 0, "x", 1, 0, 0, 0))
	if st := stats(t, d, "docs"); st != (ragstore.Stats{Chunks: 1, Files: 1, Dimension: 4}) {
		t.Errorf("stats = %+v", st)
	}
}

func TestTwoStoresInOneProcess(t *testing.T) {
	d, dir := New(), t.TempDir()
	open(t, d, dir, "a", ragstore.ReadWrite, 2)
	open(t, d, dir, "b", ragstore.ReadWrite, 3)
	upsert(t, d, "a", chunk("0", 0, "in a", 1, 0))
	upsert(t, d, "b", chunk("0", 0, "in b", 1, 0, 0))
	if got := fetch(t, d, "a", "0-0"); !slices.Equal(got, []string{"0-0=in a"}) {
		t.Errorf("a: %v", got)
	}
	if got := fetch(t, d, "b", "0-0"); !slices.Equal(got, []string{"0-0=in b"}) {
		t.Errorf("b: %v", got)
	}
}

func TestCloseWhileLoadingThenIndexInTheSameProcess(t *testing.T) {
	d, dir := New(), t.TempDir()
	open(t, d, dir, "docs", ragstore.ReadWrite, 8)
	var chunks []ragstore.Chunk
	for i := range 3000 {
		vec := make([]float32, 8)
		vec[i%8] = 1
		chunks = append(chunks, chunk("0", i, "text", vec...))
	}
	upsert(t, d, "docs", chunks...)
	if err := d.Rebuild(context.Background(), &ragstore.RebuildRequest{Store: "docs", Full: true}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		// Read-only, closed at once (the loader may still be running),
		// then read-write: the file must be free.
		open(t, d, dir, "docs", ragstore.ReadOnly, 8)
		if err := d.Close(context.Background(), &ragstore.CloseRequest{Store: "docs"}); err != nil {
			t.Fatal(err)
		}
		open(t, d, dir, "docs", ragstore.ReadWrite, 8)
		if got := vsearch(t, d, "docs", 1, 0, 1, 0, 0, 0, 0, 0, 0, 0); len(got) != 1 {
			t.Fatalf("search after reopening: %v", got)
		}
	}
	if st := stats(t, d, "docs"); st.Chunks != 3000 {
		t.Errorf("chunks = %d", st.Chunks)
	}
}

func TestDriverConfigMemoryLimit(t *testing.T) {
	d, dir := New(), t.TempDir()
	ctx := context.Background()
	req := &ragstore.OpenRequest{Store: "docs", Path: filepath.Join(dir, "docs.yaml"), Mode: ragstore.ReadWrite, Dimension: 2,
		DriverConfig: map[string]any{"memory_limit": "lots"}}
	if _, err := d.Open(ctx, req); !errors.Is(err, sdk.ErrInvalidArgument) {
		t.Fatalf("memory_limit lots: %v", err)
	}
	req.DriverConfig["memory_limit"] = "64MB"
	if _, err := d.Open(ctx, req); err != nil {
		t.Fatalf("memory_limit 64MB: %v", err)
	}
	defer d.CloseAll()
	s, _ := d.get("docs")
	var limit string
	if err := s.db.QueryRow("SELECT current_setting('memory_limit')").Scan(&limit); err != nil || !strings.Contains(limit, "MiB") {
		t.Errorf("memory_limit in effect = %q, %v", limit, err)
	}
}

// TestIndexingHasAMemoryLimitByDefault: without memory_limit, a store
// opened to index caps DuckDB's buffer pool rather than taking DuckDB's
// default of most of the machine.
func TestIndexingHasAMemoryLimitByDefault(t *testing.T) {
	d, dir := New(), t.TempDir()
	req := &ragstore.OpenRequest{Store: "docs", Path: filepath.Join(dir, "docs.yaml"), Mode: ragstore.ReadWrite, Dimension: 2}
	if _, err := d.Open(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	defer d.CloseAll()
	s, _ := d.get("docs")
	var limit string
	if err := s.db.QueryRow("SELECT current_setting('memory_limit')").Scan(&limit); err != nil || !strings.HasPrefix(limit, "183.") {
		t.Errorf("memory_limit in effect = %q, %v; want 192MB (183.1 MiB)", limit, err)
	}
}

// A writer that reopens a store knows the ids it holds (idSet): upserting
// one again replaces it, and after a file's deletion it is new again. The
// index on the ids is gone while indexing and back after Rebuild.
func TestReopenedWriterReplacesAndRebuildIndexesTheIDs(t *testing.T) {
	d, dir := New(), t.TempDir()
	open(t, d, dir, "docs", ragstore.ReadWrite, 2)
	upsert(t, d, "docs", chunk("0", 0, "first", 1, 0), chunk("0", 1, "second", 0, 1), chunk("1", 0, "other", 1, 1))
	rebuild := func() {
		t.Helper()
		if err := d.Rebuild(context.Background(), &ragstore.RebuildRequest{Store: "docs"}); err != nil {
			t.Fatal(err)
		}
	}
	indexed := func() bool {
		t.Helper()
		s, _ := d.get("docs")
		var n int
		if err := s.db.QueryRow("SELECT count(*) FROM duckdb_indexes() WHERE index_name = 'chunks_id'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 1
	}
	rebuild()
	if !indexed() {
		t.Error("no index on the ids after Rebuild")
	}
	open(t, d, dir, "docs", ragstore.ReadWrite, 2) // reopened: a new writer
	if indexed() {
		t.Error("the index on the ids is kept up to date while indexing")
	}
	upsert(t, d, "docs", chunk("0", 1, "second again", 0, 1))
	if err := d.DeleteFile(context.Background(), &ragstore.DeleteFileRequest{Store: "docs", FileID: "1"}); err != nil {
		t.Fatal(err)
	}
	upsert(t, d, "docs", chunk("1", 0, "other again", 1, 1))
	upsert(t, d, "docs", chunk("1", 0, "other a third time", 1, 1))
	if st := stats(t, d, "docs"); st.Chunks != 3 || st.Files != 2 {
		t.Fatalf("stats after replacing = %+v, want 3 chunks in 2 files", st)
	}
	want := []string{"0-1=second again", "1-0=other a third time", "0-0=first"}
	if got := fetch(t, d, "docs", "0-1", "1-0", "0-0"); !slices.Equal(got, want) {
		t.Errorf("writer fetched %v, want %v", got, want)
	}
	rebuild()
	open(t, d, dir, "docs", ragstore.ReadOnly, 2)
	if !indexed() {
		t.Error("no index on the ids for the reader")
	}
	if got := fetch(t, d, "docs", "0-1", "1-0", "0-0", "9-9"); !slices.Equal(got, want) {
		t.Errorf("reader fetched %v, want %v", got, want)
	}
}

// A writer killed before its checkpoint leaves a WAL beside the file; a
// read-only open must still read the store (DuckDB cannot replay a WAL
// read-only).
func TestReadOnlyOpenAfterAWriterLeftAWAL(t *testing.T) {
	d, dir := New(), t.TempDir()
	open(t, d, dir, "docs", ragstore.ReadWrite, 2)
	upsert(t, d, "docs", chunk("0", 0, "persisted words", 1, 0))
	if err := d.Close(context.Background(), &ragstore.CloseRequest{Store: "docs"}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "docs.duckdb")
	db, err := sql.Open("duckdb", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"SET checkpoint_threshold = '1GB'",
		"PRAGMA disable_checkpoint_on_shutdown",
		"INSERT INTO coyote_meta VALUES ('left', 'in the wal')",
		"CREATE TABLE left_over AS SELECT range AS i, repeat('x', 100) AS s FROM range(300000)",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	_ = db.Close()
	if _, err := os.Stat(path + ".wal"); err != nil {
		t.Fatalf("the test left no WAL to replay: %v", err)
	}
	resp := open(t, d, dir, "docs", ragstore.ReadOnly, 2)
	if resp.Stats.Chunks != 1 {
		t.Errorf("stats = %+v", resp.Stats)
	}
	if got := ids(vsearch(t, d, "docs", 1, 0, 1, 0)); !slices.Equal(got, []string{"0-0"}) {
		t.Errorf("vector search = %v", got)
	}
}
