// Package storetest is the contract suite every RAG store driver runs: the
// behaviour the kernel relies on, checked the same way for each driver so
// that a RAG can change its driver without changing its answers.
//
// A driver's test hands the suite a function that returns its Store, as a
// freshly started plugin process would hold it:
//
//	func TestContract(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) ragstore.Store { return mystore.New() })
//	}
//
// RunGRPC runs the same suite with the store served over real gRPC in the
// test process, as the kernel sees it. Suite carries the options of a
// driver that needs them (a DriverConfig, or the kernel's share of the
// RAG file). Reference is the reference store the suite itself is checked
// against; drivers compare their top results with it. Stores that
// implement ragstore.Dropper are checked to drop, and those that
// implement ragstore.FileLister to list their files; the others skip
// those tests.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/plugintest"
	"github.com/coyote-cli/coyote/sdk/ragstore"
	"github.com/coyote-cli/coyote/sdk/ragstore/internal/memstore"
)

// Run runs the contract suite against the stores open returns. See
// Suite.Open for what open must do.
func Run(t *testing.T, open func(t *testing.T) ragstore.Store) {
	Suite{Open: open}.Run(t)
}

// RunGRPC runs the contract suite with every store open returns served
// over real gRPC inside the test process.
func RunGRPC(t *testing.T, open func(t *testing.T) ragstore.Store) {
	Suite{Open: open}.RunGRPC(t)
}

// Serve serves impl over real gRPC inside the test process and returns the
// kernel's client for it. Everything stops when the test ends.
func Serve(t testing.TB, impl ragstore.Store) ragstore.Store {
	t.Helper()
	conn := plugintest.Serve(t, sdk.Info{Name: "storetest"}, ragstore.Plugin(impl))
	return conn.Dispense(t, sdk.KindRAG).(ragstore.Store)
}

// Reference returns a new reference store: every chunk in memory, exact
// cosine similarity, a keyword search that counts the query's words in a
// chunk, and persistence in one file beside the RAG's yaml written at
// Rebuild. It implements ragstore.KeywordSearcher too. Its vector search
// is what a driver's top results are compared with.
func Reference() ragstore.Store { return memstore.New() }

// Cosine is the reference's score: the cosine similarity of two vectors
// of equal length.
func Cosine(a, b []float32) float32 { return memstore.Cosine(a, b) }

// Suite is the contract suite with its options.
type Suite struct {
	// Open returns the store of a freshly started plugin. The suite calls
	// it once per test, and a second time in one test to check that data
	// outlives the process: every Store it returns within one test must
	// see the same backend. Files under the paths the suite opens persist
	// by themselves; a store backed by a server must reuse one server per
	// test. Open registers its own cleanup with t.
	Open func(t *testing.T) ragstore.Store
	// Request, when set, completes every OpenRequest the suite sends (the
	// Store, Path, Dimension and Mode are set), for example with the
	// DriverConfig of a test server. It must give the same store the same
	// configuration each time.
	Request func(t *testing.T, req *ragstore.OpenRequest)
	// AfterIndexing, when set, runs after the suite indexed a store and
	// closed it, and before it opens the store again, with every chunk the
	// store holds: it writes the kernel's share of the RAG, as the kernel
	// would at the end of an indexing pass (the yaml driver keeps only the
	// vectors; the kernel writes the chunks' text into the RAG's file).
	AfterIndexing func(t *testing.T, req *ragstore.OpenRequest, chunks []ragstore.Chunk)
}

// RunGRPC runs the suite with every store Open returns served over real
// gRPC inside the test process.
func (s Suite) RunGRPC(t *testing.T) {
	open := s.Open
	s.Open = func(t *testing.T) ragstore.Store { return Serve(t, open(t)) }
	s.Run(t)
}

// Run runs the suite, one subtest per behaviour.
func (s Suite) Run(t *testing.T) {
	if s.Open == nil {
		t.Fatal("storetest: Suite.Open is not set")
	}
	tests := []struct {
		name string
		fn   func(*testing.T, Suite)
	}{
		{"ReadOnlyOpenNeverCreates", testReadOnlyNeverCreates},
		{"UpsertInBatchesThenStats", testUpsertInBatchesThenStats},
		{"EmptyStoreAnswersWithNothing", testEmptyStore},
		{"VectorSearchOrdersByCosineAndHonoursTopK", testVectorSearchOrder},
		{"MinScoreZeroKeepsNegativeScores", testMinScoreZero},
		{"MinScoreAboveZeroFilters", testMinScoreFilters},
		{"FetchContentKeepsOrderAndSkipsMissing", testFetchContent},
		{"DeleteFileRemovesOnlyThatFile", testDeleteFile},
		{"UpsertReplacesAnExistingID", testUpsertReplaces},
		{"WrongDimensionIsInvalidArgument", testWrongDimension},
		{"IncrementalRebuildNeverWipes", testIncrementalRebuild},
		{"FullRebuildKeepsTheReupsertedSet", testFullRebuild},
		{"DataOutlivesCloseAndReopensReadOnly", testPersistence},
		{"ReadOnlyStoreRefusesWrites", testReadOnlyRefusesWrites},
		{"KeywordSearchRanksTheChunkWithTheWordFirst", testKeywordSearch},
		{"StoresOfOnePluginAreIndependent", testIndependentStores},
		{"RequestsNeedAnOpenStore", testNeedsOpen},
		{"ConcurrentSearchesAgree", testConcurrentSearches},
		{"DropRemovesTheStoreAndOnlyIt", testDrop},
		{"ListFilesCountsEachFilesChunks", testListFiles},
		{"GraphIsKeptAndReplaced", testGraph},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, s) })
	}
}

// Dimension is the vector size of the suite's chunks.
const Dimension = 4

// Chunks returns the suite's chunks: three files, vectors chosen so that
// cosine similarities to (1,0,0,0) are far apart and some are negative,
// and words that occur in one chunk only ("zebras") or in two ("fox").
func Chunks() []ragstore.Chunk {
	src := func(s string) map[string]string { return map[string]string{"source": s} }
	return []ragstore.Chunk{
		{ID: "1-0", FileID: "1", Text: "The quick brown fox jumps over the lazy dog.", Metadata: src("docs/animals.md"), Vector: []float32{1, 0, 0, 0}},
		{ID: "1-1", FileID: "1", Text: "A red fox hunts mice in the snow at night.", Metadata: src("docs/animals.md"), Vector: []float32{0.9, 0.1, 0, 0}},
		{ID: "1-2", FileID: "1", Text: "Owls see well in the dark — même la nuit.", Metadata: src("docs/animals.md"), Vector: []float32{0, 1, 0, 0}},
		{ID: "2-0", FileID: "2", Text: "Go compiles quickly to a single binary.", Metadata: src("docs/go.md"), Vector: []float32{0.5, 0.5, 0.5, 0.5}},
		{ID: "2-1", FileID: "2", Text: "Goroutines are cheap; channels connect them.", Metadata: src("docs/go.md"), Vector: []float32{-1, 0, 0, 0}},
		{ID: "3-0", FileID: "3", Text: "Zebras have black and white stripes.", Metadata: src("https://example.org/zebra"), Vector: []float32{-0.6, 0.8, 0, 0}},
	}
}

// Queries whose rankings over Chunks are known.
var (
	east = []float32{1, 0, 0, 0}
	west = []float32{-1, 0, 0, 0}
)

// scoreTolerance absorbs float32 arithmetic and stores that keep
// normalised vectors.
const scoreTolerance = 1e-3

// h is shorthand for an expected hit.
type h struct {
	id    string
	score float64
}

var (
	// Every chunk, best first, for east and for west.
	eastRanking = []h{{"1-0", 1}, {"1-1", 0.9 / math.Sqrt(0.82)}, {"2-0", 0.5}, {"1-2", 0}, {"3-0", -0.6}, {"2-1", -1}}
	westRanking = []h{{"2-1", 1}, {"3-0", 0.6}, {"1-2", 0}, {"2-0", -0.5}, {"1-1", -0.9 / math.Sqrt(0.82)}, {"1-0", -1}}
)

// harness is one test's view of the suite.
type harness struct {
	t     *testing.T
	s     Suite
	ctx   context.Context
	dir   string
	store ragstore.Store
}

func newHarness(t *testing.T, s Suite) *harness {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "rags")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return &harness{t: t, s: s, ctx: context.Background(), dir: dir, store: s.Open(t)}
}

// request builds the OpenRequest of a store in the test's directory.
func (e *harness) request(name string, mode ragstore.Mode) *ragstore.OpenRequest {
	req := &ragstore.OpenRequest{
		Store:     name,
		Path:      filepath.Join(e.dir, name+".yaml"),
		Dimension: Dimension,
		Mode:      mode,
	}
	if e.s.Request != nil {
		e.s.Request(e.t, req)
	}
	return req
}

// open opens a store and closes it when the test ends.
func (e *harness) open(st ragstore.Store, name string, mode ragstore.Mode) *ragstore.OpenResponse {
	e.t.Helper()
	resp, err := st.Open(e.ctx, e.request(name, mode))
	if err != nil {
		e.t.Fatalf("open %s (mode %d): %v", name, mode, err)
	}
	if resp == nil {
		e.t.Fatalf("open %s: nil response", name)
	}
	e.t.Cleanup(func() { _ = st.Close(context.Background(), &ragstore.CloseRequest{Store: name}) })
	return resp
}

// indexed opens name read-write and upserts chunks in batches of two.
func (e *harness) indexed(name string, chunks []ragstore.Chunk) *ragstore.OpenResponse {
	e.t.Helper()
	resp := e.open(e.store, name, ragstore.ReadWrite)
	for i := 0; i < len(chunks); i += 2 {
		e.upsert(name, chunks[i:min(i+2, len(chunks))]...)
	}
	return resp
}

func (e *harness) upsert(name string, chunks ...ragstore.Chunk) {
	e.t.Helper()
	if err := e.store.Upsert(e.ctx, &ragstore.UpsertRequest{Store: name, Chunks: chunks}); err != nil {
		e.t.Fatalf("upsert into %s: %v", name, err)
	}
}

func (e *harness) rebuild(name string, full bool) {
	e.t.Helper()
	if err := e.store.Rebuild(e.ctx, &ragstore.RebuildRequest{Store: name, Full: full}); err != nil {
		e.t.Fatalf("rebuild %s (full %v): %v", name, full, err)
	}
}

// endIndexing closes a store the test indexed with Chunks and does the
// kernel's share of the pass (Suite.AfterIndexing).
func (e *harness) endIndexing(name string) {
	e.t.Helper()
	if err := e.store.Close(e.ctx, &ragstore.CloseRequest{Store: name}); err != nil {
		e.t.Fatalf("close: %v", err)
	}
	if e.s.AfterIndexing != nil {
		e.s.AfterIndexing(e.t, e.request(name, ragstore.ReadWrite), Chunks())
	}
}

func (e *harness) stats(st ragstore.Store, name string) ragstore.Stats {
	e.t.Helper()
	s, err := st.Stats(e.ctx, &ragstore.StatsRequest{Store: name})
	if err != nil {
		e.t.Fatalf("stats of %s: %v", name, err)
	}
	return *s
}

func (e *harness) search(st ragstore.Store, name string, v []float32, topK int, minScore float32) []ragstore.Hit {
	e.t.Helper()
	resp, err := st.VectorSearch(e.ctx, &ragstore.VectorSearchRequest{Store: name, Vector: v, TopK: topK, MinScore: minScore})
	if err != nil {
		e.t.Fatalf("vector search in %s: %v", name, err)
	}
	return resp.Hits
}

func (e *harness) fetch(st ragstore.Store, name string, ids ...string) []ragstore.Content {
	e.t.Helper()
	resp, err := st.FetchContent(e.ctx, &ragstore.FetchContentRequest{Store: name, IDs: ids})
	if err != nil {
		e.t.Fatalf("fetch content from %s: %v", name, err)
	}
	return resp.Contents
}

// wantHits checks ids and scores, in order.
func wantHits(t *testing.T, what string, got []ragstore.Hit, want []h) {
	t.Helper()
	ok := len(got) == len(want)
	for i := 0; ok && i < len(got); i++ {
		ok = got[i].ID == want[i].id && math.Abs(float64(got[i].Score)-want[i].score) <= scoreTolerance
	}
	if !ok {
		t.Fatalf("%s:\n got  %s\n want %s", what, fmtHits(got), fmtWant(want))
	}
}

func fmtHits(hs []ragstore.Hit) string {
	parts := make([]string, len(hs))
	for i, x := range hs {
		parts[i] = fmt.Sprintf("%s:%.4f", x.ID, x.Score)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func fmtWant(hs []h) string {
	hits := make([]ragstore.Hit, len(hs))
	for i, x := range hs {
		hits[i] = ragstore.Hit{ID: x.id, Score: float32(x.score)}
	}
	return fmtHits(hits)
}

func ids(cs []ragstore.Content) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.ID
	}
	return out
}

func without(hs []h, drop ...string) []h {
	var out []h
	for _, x := range hs {
		if !slices.Contains(drop, x.id) {
			out = append(out, x)
		}
	}
	return out
}

func wantStats(t *testing.T, what string, got ragstore.Stats, chunks, files int64) {
	t.Helper()
	if got.Chunks != chunks || got.Files != files || got.Dimension != Dimension {
		t.Fatalf("%s: stats = %+v, want %d chunks, %d files, dimension %d", what, got, chunks, files, Dimension)
	}
}

func testReadOnlyNeverCreates(t *testing.T, s Suite) {
	e := newHarness(t, s)
	_, err := e.store.Open(e.ctx, e.request("ghost", ragstore.ReadOnly))
	if !errors.Is(err, sdk.ErrNotFound) {
		_ = e.store.Close(e.ctx, &ragstore.CloseRequest{Store: "ghost"})
		t.Fatalf("read-only open of a store never built: err = %v, want one wrapping sdk.ErrNotFound", err)
	}
	if left, _ := os.ReadDir(e.dir); len(left) != 0 {
		t.Fatalf("a failed read-only open left %d files behind, such as %s", len(left), left[0].Name())
	}
}

func testUpsertInBatchesThenStats(t *testing.T, s Suite) {
	e := newHarness(t, s)
	resp := e.open(e.store, "kb", ragstore.ReadWrite)
	if resp.Stats.Chunks != 0 || resp.Stats.Files != 0 {
		t.Fatalf("a new store reports %+v", resp.Stats)
	}
	chunks := Chunks()
	e.upsert("kb", chunks[:2]...)
	wantStats(t, "after one batch", e.stats(e.store, "kb"), 2, 1)
	e.upsert("kb", chunks[2:4]...)
	e.upsert("kb", chunks[4:]...)
	wantStats(t, "after three batches", e.stats(e.store, "kb"), 6, 3)
	e.rebuild("kb", true)
	wantStats(t, "after the rebuild", e.stats(e.store, "kb"), 6, 3)
}

func testEmptyStore(t *testing.T, s Suite) {
	e := newHarness(t, s)
	e.open(e.store, "kb", ragstore.ReadWrite)
	if hits := e.search(e.store, "kb", east, 5, 0); len(hits) != 0 {
		t.Fatalf("an empty store found %s", fmtHits(hits))
	}
	if got := e.fetch(e.store, "kb", "1-0"); len(got) != 0 {
		t.Fatalf("an empty store returned content %v", ids(got))
	}
	if st := e.stats(e.store, "kb"); st.Chunks != 0 || st.Files != 0 {
		t.Fatalf("an empty store reports %+v", st)
	}
}

func testVectorSearchOrder(t *testing.T, s Suite) {
	e := newHarness(t, s)
	e.indexed("kb", Chunks())
	e.rebuild("kb", true)
	wantHits(t, "every hit for (1,0,0,0)", e.search(e.store, "kb", east, 10, 0), eastRanking)
	wantHits(t, "top 3 for (1,0,0,0)", e.search(e.store, "kb", east, 3, 0), eastRanking[:3])
	wantHits(t, "top 2 for (-1,0,0,0)", e.search(e.store, "kb", west, 2, 0), westRanking[:2])
	wantHits(t, "top 1 for (-1,0,0,0)", e.search(e.store, "kb", west, 1, 0), westRanking[:1])
	// A query need not be normalised.
	wantHits(t, "top 2 for (3,0,0,0)", e.search(e.store, "kb", []float32{3, 0, 0, 0}, 2, 0), eastRanking[:2])
}

func testMinScoreZero(t *testing.T, s Suite) {
	e := newHarness(t, s)
	e.indexed("kb", Chunks())
	e.rebuild("kb", true)
	hits := e.search(e.store, "kb", east, 10, 0)
	wantHits(t, "MinScore 0 (no floor) for (1,0,0,0)", hits, eastRanking)
	if hits[len(hits)-1].Score >= 0 {
		t.Fatal("no negative score survived")
	}
}

func testMinScoreFilters(t *testing.T, s Suite) {
	e := newHarness(t, s)
	e.indexed("kb", Chunks())
	e.rebuild("kb", true)
	wantHits(t, "MinScore 0.45", e.search(e.store, "kb", east, 10, 0.45), eastRanking[:3])
	wantHits(t, "MinScore 0.7", e.search(e.store, "kb", east, 10, 0.7), eastRanking[:2])
	wantHits(t, "MinScore 0.7, top 1", e.search(e.store, "kb", east, 1, 0.7), eastRanking[:1])
	wantHits(t, "MinScore 0.5 for (-1,0,0,0)", e.search(e.store, "kb", west, 10, 0.5), westRanking[:2])
}

func testFetchContent(t *testing.T, s Suite) {
	e := newHarness(t, s)
	e.indexed("kb", Chunks())
	e.rebuild("kb", true)
	got := e.fetch(e.store, "kb", "3-0", "9-9", "1-0", "2-1", "1-2", "nope")
	if want := []string{"3-0", "1-0", "2-1", "1-2"}; !slices.Equal(ids(got), want) {
		t.Fatalf("fetched %v, want %v: the caller's order, missing ids skipped", ids(got), want)
	}
	byID := map[string]ragstore.Chunk{}
	for _, c := range Chunks() {
		byID[c.ID] = c
	}
	for _, c := range got {
		want := byID[c.ID]
		if c.Text != want.Text || c.Metadata["source"] != want.Metadata["source"] {
			t.Fatalf("content of %s = %q %v, want %q %v", c.ID, c.Text, c.Metadata, want.Text, want.Metadata)
		}
	}
	if got := e.fetch(e.store, "kb", "nope"); len(got) != 0 {
		t.Fatalf("only missing ids gave %v", ids(got))
	}
	if got := e.fetch(e.store, "kb"); len(got) != 0 {
		t.Fatalf("no ids gave %v", ids(got))
	}
}

func testDeleteFile(t *testing.T, s Suite) {
	e := newHarness(t, s)
	e.indexed("kb", Chunks())
	e.rebuild("kb", true)
	if err := e.store.DeleteFile(e.ctx, &ragstore.DeleteFileRequest{Store: "kb", FileID: "1"}); err != nil {
		t.Fatal(err)
	}
	wantStats(t, "after deleting file 1", e.stats(e.store, "kb"), 3, 2)
	wantHits(t, "search after deleting file 1", e.search(e.store, "kb", east, 10, 0), without(eastRanking, "1-0", "1-1", "1-2"))
	if got := e.fetch(e.store, "kb", "1-0", "2-0", "1-1", "3-0"); !slices.Equal(ids(got), []string{"2-0", "3-0"}) {
		t.Fatalf("fetched %v after deleting file 1", ids(got))
	}
	// Deleting a file the store does not hold (again, or never) is not an
	// error: the kernel retries a delete that failed half-way.
	for _, f := range []string{"1", "42"} {
		if err := e.store.DeleteFile(e.ctx, &ragstore.DeleteFileRequest{Store: "kb", FileID: f}); err != nil {
			t.Fatalf("deleting absent file %s: %v", f, err)
		}
	}
	e.rebuild("kb", false)
	wantStats(t, "after the rebuild", e.stats(e.store, "kb"), 3, 2)
}

func testUpsertReplaces(t *testing.T, s Suite) {
	e := newHarness(t, s)
	e.indexed("kb", Chunks())
	e.rebuild("kb", true)
	e.upsert("kb", ragstore.Chunk{ID: "1-0", FileID: "1", Text: "Foxes moved out.", Metadata: map[string]string{"source": "docs/animals.md"}, Vector: []float32{0, 0, 1, 0}})
	e.rebuild("kb", false)
	wantStats(t, "after replacing 1-0", e.stats(e.store, "kb"), 6, 3)
	if got := e.fetch(e.store, "kb", "1-0"); len(got) != 1 || got[0].Text != "Foxes moved out." {
		t.Fatalf("fetched %+v, want the new text of 1-0", got)
	}
	wantHits(t, "top 1 for (0,0,1,0)", e.search(e.store, "kb", []float32{0, 0, 1, 0}, 1, 0), []h{{"1-0", 1}})
	hits := e.search(e.store, "kb", east, 10, 0)
	if len(hits) != 6 || hits[0].ID != "1-1" {
		t.Fatalf("search for (1,0,0,0) after replacing 1-0 = %s: the old vector is still there", fmtHits(hits))
	}
}

func testWrongDimension(t *testing.T, s Suite) {
	e := newHarness(t, s)
	e.indexed("kb", Chunks())
	err := e.store.Upsert(e.ctx, &ragstore.UpsertRequest{Store: "kb", Chunks: []ragstore.Chunk{
		{ID: "4-0", FileID: "4", Text: "short", Metadata: map[string]string{"source": "x"}, Vector: []float32{1, 0, 0}},
	}})
	if !errors.Is(err, sdk.ErrInvalidArgument) {
		t.Fatalf("upserting a 3-dimensional vector into a 4-dimensional store: err = %v, want sdk.ErrInvalidArgument", err)
	}
	wantStats(t, "after the refused upsert", e.stats(e.store, "kb"), 6, 3)
	_, err = e.store.VectorSearch(e.ctx, &ragstore.VectorSearchRequest{Store: "kb", Vector: []float32{1, 0, 0}, TopK: 3})
	if !errors.Is(err, sdk.ErrInvalidArgument) {
		t.Fatalf("searching with a 3-dimensional vector: err = %v, want sdk.ErrInvalidArgument", err)
	}
}

func testIncrementalRebuild(t *testing.T, s Suite) {
	e := newHarness(t, s)
	chunks := Chunks()
	e.indexed("kb", chunks[:3]) // file 1
	e.rebuild("kb", true)
	e.upsert("kb", chunks[3:5]...) // file 2 added by .edit rag-docs
	e.rebuild("kb", false)
	wantStats(t, "after adding file 2", e.stats(e.store, "kb"), 5, 2)
	e.upsert("kb", chunks[5])
	e.rebuild("kb", false)
	e.rebuild("kb", false)
	wantStats(t, "after adding file 3", e.stats(e.store, "kb"), 6, 3)
	wantHits(t, "search after incremental rebuilds", e.search(e.store, "kb", east, 10, 0), eastRanking)
}

func testFullRebuild(t *testing.T, s Suite) {
	e := newHarness(t, s)
	e.indexed("kb", Chunks())
	e.rebuild("kb", true)
	// A full re-index: the kernel upserts every chunk again, with what the
	// documents say now, and ends with a full rebuild.
	again := Chunks()
	for i := range again {
		again[i].Text = "v2: " + again[i].Text
	}
	for i := 0; i < len(again); i += 3 {
		e.upsert("kb", again[i:i+3]...)
	}
	e.rebuild("kb", true)
	wantStats(t, "after the full rebuild", e.stats(e.store, "kb"), 6, 3)
	got := e.fetch(e.store, "kb", "1-0", "1-1", "1-2", "2-0", "2-1", "3-0")
	if len(got) != 6 {
		t.Fatalf("fetched %v after the full rebuild", ids(got))
	}
	for i, c := range got {
		if c.Text != again[i].Text {
			t.Fatalf("text of %s = %q, want %q", c.ID, c.Text, again[i].Text)
		}
	}
	wantHits(t, "search after the full rebuild", e.search(e.store, "kb", east, 10, 0), eastRanking)
}

func testPersistence(t *testing.T, s Suite) {
	e := newHarness(t, s)
	e.indexed("kb", Chunks())
	e.rebuild("kb", false)
	e.endIndexing("kb")
	// As another coyote process would: a new plugin, read-only.
	again := s.Open(t)
	resp := e.open(again, "kb", ragstore.ReadOnly)
	wantStats(t, "stats reported by a read-only open", resp.Stats, 6, 3)
	wantStats(t, "stats after reopening", e.stats(again, "kb"), 6, 3)
	wantHits(t, "search after reopening", e.search(again, "kb", west, 10, 0), westRanking)
	got := e.fetch(again, "kb", "2-0", "3-0")
	if len(got) != 2 || got[0].Text != Chunks()[3].Text || got[1].Metadata["source"] != "https://example.org/zebra" {
		t.Fatalf("content after reopening = %+v", got)
	}
}

func testReadOnlyRefusesWrites(t *testing.T, s Suite) {
	e := newHarness(t, s)
	e.indexed("kb", Chunks())
	e.rebuild("kb", true)
	e.endIndexing("kb")
	e.open(e.store, "kb", ragstore.ReadOnly)
	extra := ragstore.Chunk{ID: "4-0", FileID: "4", Text: "new", Metadata: map[string]string{"source": "x"}, Vector: east}
	if err := e.store.Upsert(e.ctx, &ragstore.UpsertRequest{Store: "kb", Chunks: []ragstore.Chunk{extra}}); err == nil {
		t.Fatal("a read-only store accepted an upsert")
	}
	if err := e.store.DeleteFile(e.ctx, &ragstore.DeleteFileRequest{Store: "kb", FileID: "1"}); err == nil {
		t.Fatal("a read-only store accepted a delete")
	}
	wantStats(t, "after the refused writes", e.stats(e.store, "kb"), 6, 3)
}

func testKeywordSearch(t *testing.T, s Suite) {
	e := newHarness(t, s)
	resp := e.indexed("kb", Chunks())
	e.rebuild("kb", true)
	ks, ok := e.store.(ragstore.KeywordSearcher)
	if !ok || !slices.Contains(resp.Capabilities, ragstore.CapKeywordSearch) {
		t.Skip("the store does not announce keyword search")
	}
	search := func(q string, k int) []ragstore.Hit {
		t.Helper()
		r, err := ks.KeywordSearch(e.ctx, &ragstore.KeywordSearchRequest{Store: "kb", Query: q, TopK: k})
		if err != nil {
			t.Fatalf("keyword search %q: %v", q, err)
		}
		return r.Hits
	}
	if hits := search("zebras", 3); len(hits) == 0 || hits[0].ID != "3-0" {
		t.Fatalf(`"zebras" found %s, want 3-0 first`, fmtHits(hits))
	}
	if hits := search("which animal has STRIPES", 3); len(hits) == 0 || hits[0].ID != "3-0" {
		t.Fatalf(`"which animal has STRIPES" found %s, want 3-0 first`, fmtHits(hits))
	}
	hits := search("fox", 5)
	if len(hits) < 2 || !slices.Contains([]string{"1-0", "1-1"}, hits[0].ID) || !slices.Contains([]string{"1-0", "1-1"}, hits[1].ID) {
		t.Fatalf(`"fox" found %s, want 1-0 and 1-1 first`, fmtHits(hits))
	}
	if hits := search("fox", 1); len(hits) != 1 {
		t.Fatalf(`"fox" with top_k 1 found %s`, fmtHits(hits))
	}
	if hits := search("xylophone", 5); len(hits) != 0 {
		t.Fatalf(`"xylophone" is in no chunk but found %s`, fmtHits(hits))
	}
	if err := e.store.DeleteFile(e.ctx, &ragstore.DeleteFileRequest{Store: "kb", FileID: "3"}); err != nil {
		t.Fatal(err)
	}
	e.rebuild("kb", false)
	if hits := search("zebras", 3); len(hits) != 0 {
		t.Fatalf(`"zebras" found %s after its file was deleted`, fmtHits(hits))
	}
}

func testIndependentStores(t *testing.T, s Suite) {
	e := newHarness(t, s)
	chunks := Chunks()
	e.indexed("alpha", chunks[:3])
	e.indexed("beta", chunks[3:])
	e.rebuild("alpha", true)
	e.rebuild("beta", true)
	wantStats(t, "alpha", e.stats(e.store, "alpha"), 3, 1)
	wantStats(t, "beta", e.stats(e.store, "beta"), 3, 2)
	wantHits(t, "search in alpha", e.search(e.store, "alpha", east, 10, 0), without(eastRanking, "2-0", "2-1", "3-0"))
	if got := e.fetch(e.store, "beta", "1-0", "2-0"); !slices.Equal(ids(got), []string{"2-0"}) {
		t.Fatalf("beta returned %v", ids(got))
	}
	if err := e.store.DeleteFile(e.ctx, &ragstore.DeleteFileRequest{Store: "beta", FileID: "1"}); err != nil {
		t.Fatal(err)
	}
	wantStats(t, "alpha after a delete in beta", e.stats(e.store, "alpha"), 3, 1)
	if err := e.store.Close(e.ctx, &ragstore.CloseRequest{Store: "alpha"}); err != nil {
		t.Fatal(err)
	}
	wantHits(t, "search in beta after closing alpha", e.search(e.store, "beta", west, 10, 0), without(westRanking, "1-0", "1-1", "1-2"))
}

func testNeedsOpen(t *testing.T, s Suite) {
	e := newHarness(t, s)
	if _, err := e.store.VectorSearch(e.ctx, &ragstore.VectorSearchRequest{Store: "never", Vector: east, TopK: 1}); err == nil {
		t.Fatal("a search in a store that was never opened succeeded")
	}
	e.indexed("kb", Chunks())
	e.rebuild("kb", true)
	if err := e.store.Close(e.ctx, &ragstore.CloseRequest{Store: "kb"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.Stats(e.ctx, &ragstore.StatsRequest{Store: "kb"}); err == nil {
		t.Fatal("stats of a closed store succeeded")
	}
	if err := e.store.Upsert(e.ctx, &ragstore.UpsertRequest{Store: "kb", Chunks: Chunks()[:1]}); err == nil {
		t.Fatal("an upsert into a closed store succeeded")
	}
}

func testConcurrentSearches(t *testing.T, s Suite) {
	e := newHarness(t, s)
	e.indexed("kb", Chunks())
	e.rebuild("kb", true)
	want := e.search(e.store, "kb", east, 4, 0)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				r, err := e.store.VectorSearch(e.ctx, &ragstore.VectorSearchRequest{Store: "kb", Vector: east, TopK: 4})
				if err == nil && !reflect.DeepEqual(r.Hits, want) {
					err = fmt.Errorf("got %s, want %s", fmtHits(r.Hits), fmtHits(want))
				}
				if err == nil {
					_, err = e.store.FetchContent(e.ctx, &ragstore.FetchContentRequest{Store: "kb", IDs: []string{"1-0", "2-0"}})
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("concurrent search: %v", err)
	}
}

// testDrop checks a ragstore.Dropper: an open store is refused, a closed
// one is removed (a read-only open then finds nothing, as for a store
// never built, and no file is left beside the yaml), another store of the
// plugin keeps its data, and dropping again, or a store never built, is
// not an error. Stores without Dropper skip it.
func testDrop(t *testing.T, s Suite) {
	e := newHarness(t, s)
	d, ok := e.store.(ragstore.Dropper)
	if !ok {
		t.Skip("the store does not implement ragstore.Dropper")
	}
	drop := func(name string) error {
		req := e.request(name, ragstore.ReadWrite)
		return d.Drop(e.ctx, &ragstore.DropRequest{Store: name, Path: req.Path, DriverConfig: req.DriverConfig, Attached: req.Attached})
	}
	chunks := Chunks()
	e.indexed("kb", chunks)
	e.rebuild("kb", true)
	e.indexed("other", chunks[:3])
	e.rebuild("other", true)
	err := drop("kb")
	if errors.Is(err, sdk.ErrUnsupported) {
		t.Skip("the plugin does not drop stores")
	}
	if !errors.Is(err, sdk.ErrFailedPrecondition) {
		t.Fatalf("drop of an open store: err = %v, want one wrapping sdk.ErrFailedPrecondition", err)
	}
	wantStats(t, "after the refused drop", e.stats(e.store, "kb"), 6, 3)
	e.endIndexing("kb")
	if err := drop("kb"); err != nil {
		t.Fatalf("drop of a closed store: %v", err)
	}
	// As another coyote process would see it: a new plugin, read-only.
	again := s.Open(t)
	resp, err := again.Open(e.ctx, e.request("kb", ragstore.ReadOnly))
	if err == nil {
		_ = again.Close(e.ctx, &ragstore.CloseRequest{Store: "kb"})
		if resp.Stats.Chunks != 0 {
			t.Fatalf("read-only open of a dropped store found %+v, want sdk.ErrNotFound (as for a store never built) or an empty store", resp.Stats)
		}
	} else if !errors.Is(err, sdk.ErrNotFound) {
		t.Fatalf("read-only open of a dropped store: err = %v, want one wrapping sdk.ErrNotFound (as for a store never built) or an empty store", err)
	}
	yaml := filepath.Base(e.request("kb", ragstore.ReadOnly).Path)
	left, _ := os.ReadDir(e.dir)
	for _, f := range left {
		if strings.HasPrefix(f.Name(), "kb.") && f.Name() != yaml {
			t.Fatalf("the dropped store left %s behind", f.Name())
		}
	}
	wantStats(t, "another store after the drop", e.stats(e.store, "other"), 3, 1)
	wantHits(t, "search in another store after the drop", e.search(e.store, "other", east, 10, 0), without(eastRanking, "2-0", "2-1", "3-0"))
	// A delete that failed half-way is retried; a RAG never built has
	// nothing to drop.
	for _, name := range []string{"kb", "ghost"} {
		if err := drop(name); err != nil {
			t.Fatalf("drop of %s, which has no data: %v", name, err)
		}
	}
}

// testListFiles checks a ragstore.FileLister: every file with its number
// of chunks, read-write and read-only, after deletes and replacements, and
// in a new process. Stores without FileLister skip it.
func testListFiles(t *testing.T, s Suite) {
	e := newHarness(t, s)
	l, ok := e.store.(ragstore.FileLister)
	if !ok {
		t.Skip("the store does not implement ragstore.FileLister")
	}
	list := func(l ragstore.FileLister, what string) map[string]int64 {
		t.Helper()
		resp, err := l.ListFiles(e.ctx, &ragstore.ListFilesRequest{Store: "kb"})
		if err != nil {
			t.Fatalf("list files %s: %v", what, err)
		}
		got := map[string]int64{}
		for _, f := range resp.Files {
			if _, dup := got[f.FileID]; dup {
				t.Fatalf("list files %s: file %s listed twice in %+v", what, f.FileID, resp.Files)
			}
			got[f.FileID] = f.Chunks
		}
		return got
	}
	want := func(what string, got, want map[string]int64) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("files %s = %v, want %v", what, got, want)
		}
	}
	e.open(e.store, "kb", ragstore.ReadWrite)
	_, err := l.ListFiles(e.ctx, &ragstore.ListFilesRequest{Store: "kb"})
	if errors.Is(err, sdk.ErrUnsupported) {
		t.Skip("the plugin does not list files")
	}
	want("of an empty store", list(l, "of an empty store"), map[string]int64{})
	chunks := Chunks()
	for i := 0; i < len(chunks); i += 2 {
		e.upsert("kb", chunks[i:min(i+2, len(chunks))]...)
	}
	all := map[string]int64{"1": 3, "2": 2, "3": 1}
	want("after indexing", list(l, "after indexing"), all)
	e.upsert("kb", chunks[0]) // replaced, not added
	want("after replacing a chunk", list(l, "after replacing a chunk"), all)
	e.rebuild("kb", true)
	e.endIndexing("kb")
	// As another coyote process would see it: a new plugin, read-only.
	again := s.Open(t)
	e.open(again, "kb", ragstore.ReadOnly)
	want("reopened read-only", list(again.(ragstore.FileLister), "reopened read-only"), all)
	if err := again.Close(e.ctx, &ragstore.CloseRequest{Store: "kb"}); err != nil {
		t.Fatal(err)
	}
	e.open(e.store, "kb", ragstore.ReadWrite)
	if err := e.store.DeleteFile(e.ctx, &ragstore.DeleteFileRequest{Store: "kb", FileID: "2"}); err != nil {
		t.Fatal(err)
	}
	want("after deleting file 2", list(l, "after deleting file 2"), map[string]int64{"1": 3, "3": 1})
	if _, err := l.ListFiles(e.ctx, &ragstore.ListFilesRequest{Store: "never"}); err == nil {
		t.Fatal("listing the files of a store that was never opened succeeded")
	}
}

// testGraph checks a ragstore.GraphKeeper: no graph at first, the last
// bytes saved come back, also in a new process read-only, and an empty
// save removes them. Stores without GraphKeeper skip it.
func testGraph(t *testing.T, s Suite) {
	e := newHarness(t, s)
	g, ok := e.store.(ragstore.GraphKeeper)
	if !ok {
		t.Skip("the store does not implement ragstore.GraphKeeper")
	}
	load := func(g ragstore.GraphKeeper, what string) []byte {
		t.Helper()
		resp, err := g.LoadGraph(e.ctx, &ragstore.LoadGraphRequest{Store: "kb"})
		if err != nil {
			t.Fatalf("load the graph %s: %v", what, err)
		}
		return resp.Data
	}
	e.open(e.store, "kb", ragstore.ReadWrite)
	if _, err := g.LoadGraph(e.ctx, &ragstore.LoadGraphRequest{Store: "kb"}); errors.Is(err, sdk.ErrUnsupported) {
		t.Skip("the plugin does not keep graphs")
	}
	if got := load(g, "of a new store"); len(got) != 0 {
		t.Fatalf("a new store has a graph: %q", got)
	}
	e.upsert("kb", Chunks()...)
	e.rebuild("kb", true)
	for _, data := range []string{`{"nodes":[1]}`, `{"nodes":[1,2,3]}`} {
		if err := g.SaveGraph(e.ctx, &ragstore.SaveGraphRequest{Store: "kb", Data: []byte(data)}); err != nil {
			t.Fatal(err)
		}
	}
	if got := string(load(g, "after two saves")); got != `{"nodes":[1,2,3]}` {
		t.Fatalf("graph %q, want the last one saved", got)
	}
	e.endIndexing("kb")
	again := s.Open(t)
	e.open(again, "kb", ragstore.ReadOnly)
	if got := string(load(again.(ragstore.GraphKeeper), "reopened read-only")); got != `{"nodes":[1,2,3]}` {
		t.Fatalf("graph reopened read-only %q", got)
	}
	if err := again.(ragstore.GraphKeeper).SaveGraph(e.ctx, &ragstore.SaveGraphRequest{Store: "kb", Data: []byte("x")}); err == nil {
		t.Fatal("a store open read-only saved a graph")
	}
	if err := again.Close(e.ctx, &ragstore.CloseRequest{Store: "kb"}); err != nil {
		t.Fatal(err)
	}
	e.open(e.store, "kb", ragstore.ReadWrite)
	if err := g.SaveGraph(e.ctx, &ragstore.SaveGraphRequest{Store: "kb"}); err != nil {
		t.Fatal(err)
	}
	if got := load(g, "after an empty save"); len(got) != 0 {
		t.Fatalf("graph after an empty save %q", got)
	}
}
