package qdrantstore_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/qdrant/go-client/qdrant"

	"github.com/coyote-cli/coyote/plugins/rag-qdrant/qdrantfake"
	"github.com/coyote-cli/coyote/plugins/rag-qdrant/qdrantstore"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/provider/providertest"
	"github.com/coyote-cli/coyote/sdk/ragstore"
)

const (
	uuidA = "3f1b0c2e-1111-4000-8000-000000000001"
	uuidB = "3f1b0c2e-2222-4000-8000-000000000002"
	uuidC = "0a1b0c2e-3333-4000-8000-000000000003"
)

// attach opens an attached store on a collection of the fake, as the
// kernel does for a RAG made by `.rag attach` (Dimension unknown).
func attach(t *testing.T, srv *qdrantfake.Server, coll string) (*qdrantstore.Store, *ragstore.OpenResponse) {
	t.Helper()
	s := qdrantstore.New()
	t.Cleanup(s.CloseAll)
	resp, err := s.Open(context.Background(), attachRequest(srv, coll))
	if err != nil {
		t.Fatalf("attach %s: %v", coll, err)
	}
	return s, resp
}

func attachRequest(srv *qdrantfake.Server, coll string) *ragstore.OpenRequest {
	return &ragstore.OpenRequest{
		Store:        "ext",
		Path:         "/nonexistent/rags/ext.yaml",
		DriverConfig: map[string]any{"host": srv.URL(), "collection": coll},
		Mode:         ragstore.ReadOnly,
		Attached:     true,
	}
}

// langchain stores a point as LangChain's Qdrant integration writes it.
func langchain(srv *qdrantfake.Server, coll string, id any, vec []float32, text, source string) {
	srv.AddPoint(coll, id, vec, map[string]any{
		"page_content": text,
		"metadata":     map[string]any{"source": source, "page": 3},
	})
}

func search(t *testing.T, s *qdrantstore.Store, v []float32, k int, min float32) []ragstore.Hit {
	t.Helper()
	r, err := s.VectorSearch(context.Background(), &ragstore.VectorSearchRequest{Store: "ext", Vector: v, TopK: k, MinScore: min})
	if err != nil {
		t.Fatalf("search: %v", err)
	}
	return r.Hits
}

func fetch(t *testing.T, s *qdrantstore.Store, ids ...string) []ragstore.Content {
	t.Helper()
	r, err := s.FetchContent(context.Background(), &ragstore.FetchContentRequest{Store: "ext", IDs: ids})
	if err != nil {
		t.Fatalf("fetch: %v", err)
	}
	return r.Contents
}

func hitIDs(hs []ragstore.Hit) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.ID
	}
	return out
}

func contentIDs(cs []ragstore.Content) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.ID
	}
	return out
}

func TestAttachIntegerPointIDsRoundTrip(t *testing.T) {
	srv := qdrantfake.Start(t)
	srv.AddCollection("docs", qdrantfake.CollectionConfig{Dimension: 2})
	langchain(srv, "docs", 7, []float32{1, 0}, "seven", "a.md")
	langchain(srv, "docs", 0, []float32{0.6, 0.8}, "zero", "b.md")
	langchain(srv, "docs", uint64(math.MaxUint64), []float32{-1, 0}, "max", "c.md")
	s, resp := attach(t, srv, "docs")
	if resp.Stats.Chunks != 3 || resp.Stats.Dimension != 2 || !slices.Equal(resp.Capabilities, []string{ragstore.CapAttach}) {
		t.Fatalf("open reported %+v", resp)
	}
	hits := search(t, s, []float32{1, 0}, 10, 0)
	if want := []string{"7", "0", "18446744073709551615"}; !slices.Equal(hitIDs(hits), want) {
		t.Fatalf("hits %v, want %v", hitIDs(hits), want)
	}
	got := fetch(t, s, "18446744073709551615", "7", "0")
	if want := []string{"18446744073709551615", "7", "0"}; !slices.Equal(contentIDs(got), want) {
		t.Fatalf("fetched %v, want %v", contentIDs(got), want)
	}
	if got[1].Text != "seven" || got[1].Metadata["source"] != "a.md" || got[1].Metadata["page"] != "3" {
		t.Fatalf("point 7 = %+v", got[1])
	}
}

func TestAttachUUIDPointIDsRoundTripAndComeBackInTheCallersOrder(t *testing.T) {
	srv := qdrantfake.Start(t)
	srv.AddCollection("lc", qdrantfake.CollectionConfig{Dimension: 3})
	langchain(srv, "lc", uuidA, []float32{1, 0, 0}, "first", "a.md")
	langchain(srv, "lc", uuidB, []float32{0.8, 0.6, 0}, "second", "b.md")
	langchain(srv, "lc", uuidC, []float32{0, 0, 1}, "third", "c.md")
	s, _ := attach(t, srv, "lc")
	hits := search(t, s, []float32{1, 0, 0}, 2, 0)
	if want := []string{uuidA, uuidB}; !slices.Equal(hitIDs(hits), want) {
		t.Fatalf("hits %v, want %v", hitIDs(hits), want)
	}
	// The fake answers Get in storage order (uuidC sorts first); the
	// kernel's order must win.
	got := fetch(t, s, uuidB, uuidA, uuidC)
	if want := []string{uuidB, uuidA, uuidC}; !slices.Equal(contentIDs(got), want) {
		t.Fatalf("fetched %v, want %v", contentIDs(got), want)
	}
	if got[0].Text != "second" || got[1].Text != "first" || got[2].Text != "third" {
		t.Fatalf("texts %q %q %q", got[0].Text, got[1].Text, got[2].Text)
	}
	// An upper-case or unhyphenated UUID still names the point.
	upper := strings.ToUpper(uuidA)
	if got := fetch(t, s, upper, strings.ReplaceAll(uuidB, "-", "")); len(got) != 2 || got[0].ID != upper || got[0].Text != "first" {
		t.Fatalf("other UUID forms fetched %+v", got)
	}
}

func TestAttachMixedIDsAndMissingOrMalformedOnesAreSkipped(t *testing.T) {
	srv := qdrantfake.Start(t)
	srv.AddCollection("mixed", qdrantfake.CollectionConfig{Dimension: 2})
	langchain(srv, "mixed", 42, []float32{1, 0}, "int", "a.md")
	langchain(srv, "mixed", uuidA, []float32{0, 1}, "uuid", "b.md")
	srv.AddPoint("mixed", 43, []float32{1, 1}, map[string]any{"text": "not where Coyote looks"})
	s, _ := attach(t, srv, "mixed")
	got := fetch(t, s, "1-0", uuidC, "42", "not-an-id", uuidA, "-5", "43", "42")
	if want := []string{"42", uuidA}; !slices.Equal(contentIDs(got), want) {
		t.Fatalf("fetched %v, want %v", contentIDs(got), want)
	}
	if got := fetch(t, s); len(got) != 0 {
		t.Fatalf("no ids fetched %v", contentIDs(got))
	}
}

func TestAttachKeepsNegativeEuclidScoresWithAZeroFloor(t *testing.T) {
	srv := qdrantfake.Start(t)
	srv.AddCollection("euclid", qdrantfake.CollectionConfig{Dimension: 2, Distance: qdrant.Distance_Euclid})
	langchain(srv, "euclid", 1, []float32{0.1, 0}, "near", "a")
	langchain(srv, "euclid", 2, []float32{8, 0}, "far", "b")
	s, _ := attach(t, srv, "euclid")
	hits := search(t, s, []float32{0, 0}, 10, 0)
	if !slices.Equal(hitIDs(hits), []string{"1", "2"}) || hits[0].Score >= 0 || hits[1].Score >= 0 {
		t.Fatalf("hits %+v: a 0 floor must keep negative scores, best first", hits)
	}
	if math.Abs(float64(hits[1].Score)+8) > 1e-4 {
		t.Fatalf("score of the far point = %v, want Qdrant's -8", hits[1].Score)
	}
	// A floor is applied here, never sent as score_threshold (which is
	// metric-aware on Qdrant's side).
	if hits := search(t, s, []float32{0, 0}, 10, -1); !slices.Equal(hitIDs(hits), []string{"1"}) {
		t.Fatalf("floor -1 kept %v", hitIDs(hits))
	}
	for _, q := range srv.Queries() {
		if q.ScoreThreshold != nil {
			t.Fatalf("score_threshold %v was sent to Qdrant", *q.ScoreThreshold)
		}
	}
}

func TestAttachRefusesNamedVectorCollections(t *testing.T) {
	srv := qdrantfake.Start(t)
	srv.AddCollection("single", qdrantfake.CollectionConfig{Dimension: 4, Named: []string{"text"}})
	srv.AddCollection("multi", qdrantfake.CollectionConfig{Dimension: 4, Named: []string{"text", "image"}})
	srv.AddCollection("colbert", qdrantfake.CollectionConfig{Dimension: 4, Multivector: true})
	for coll, want := range map[string]string{"single": "named vectors (text)", "multi": "named vectors (image, text)", "colbert": "multi-vectors"} {
		s := qdrantstore.New()
		_, err := s.Open(context.Background(), attachRequest(srv, coll))
		if !errors.Is(err, sdk.ErrUnsupported) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), `"`+coll+`"`) {
			t.Errorf("attach %s: err = %v, want an unsupported error naming the collection and %q", coll, err, want)
		}
		if _, err := s.Stats(context.Background(), &ragstore.StatsRequest{Store: "ext"}); err == nil {
			t.Errorf("a refused collection %s stayed open", coll)
		}
	}
}

func TestAttachIsQueryOnly(t *testing.T) {
	srv := qdrantfake.Start(t)
	srv.AddCollection("docs", qdrantfake.CollectionConfig{Dimension: 2})
	langchain(srv, "docs", 1, []float32{1, 0}, "one", "a")
	s := qdrantstore.New()
	t.Cleanup(s.CloseAll)
	req := attachRequest(srv, "docs")
	req.Mode = ragstore.ReadWrite // even opened for indexing
	if _, err := s.Open(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	chunk := ragstore.Chunk{ID: "1-0", FileID: "1", Text: "x", Vector: []float32{1, 0}}
	errs := map[string]error{
		"upsert":  s.Upsert(ctx, &ragstore.UpsertRequest{Store: "ext", Chunks: []ragstore.Chunk{chunk}}),
		"delete":  s.DeleteFile(ctx, &ragstore.DeleteFileRequest{Store: "ext", FileID: "1"}),
		"rebuild": s.Rebuild(ctx, &ragstore.RebuildRequest{Store: "ext", Full: true}),
	}
	for op, err := range errs {
		if !errors.Is(err, sdk.ErrFailedPrecondition) || !strings.Contains(err.Error(), "attached") || !strings.Contains(err.Error(), "does not own") {
			t.Errorf("%s on an attached store: err = %v", op, err)
		}
	}
	if n := srv.Count("docs"); n != 1 {
		t.Fatalf("the attached collection holds %d points, want its 1", n)
	}
}

func TestAttachToAMissingCollectionNamesTheOnesThere(t *testing.T) {
	srv := qdrantfake.Start(t)
	srv.AddCollection("alpha", qdrantfake.CollectionConfig{Dimension: 2})
	srv.AddCollection("beta", qdrantfake.CollectionConfig{Dimension: 2})
	_, err := qdrantstore.New().Open(context.Background(), attachRequest(srv, "gamma"))
	if !errors.Is(err, sdk.ErrNotFound) || !strings.Contains(err.Error(), `no collection "gamma"`) || !strings.Contains(err.Error(), "alpha, beta") {
		t.Fatalf("err = %v", err)
	}
	if _, ok := srv.Collection("gamma"); ok {
		t.Fatal("attaching created the collection")
	}
}

func TestAttachedEmptyCollectionOpensWithZeroChunks(t *testing.T) {
	srv := qdrantfake.Start(t)
	srv.AddCollection("empty", qdrantfake.CollectionConfig{Dimension: 5})
	_, resp := attach(t, srv, "empty")
	if resp.Stats.Chunks != 0 || resp.Stats.Dimension != 5 {
		t.Fatalf("stats %+v", resp.Stats)
	}
}

func TestAttachWithTheEmbeddingModelsDimensionChecksIt(t *testing.T) {
	srv := qdrantfake.Start(t)
	srv.AddCollection("docs", qdrantfake.CollectionConfig{Dimension: 1536})
	req := attachRequest(srv, "docs")
	req.Dimension = 768
	_, err := qdrantstore.New().Open(context.Background(), req)
	if !errors.Is(err, sdk.ErrFailedPrecondition) || !strings.Contains(err.Error(), "1536") || !strings.Contains(err.Error(), "768") {
		t.Fatalf("err = %v", err)
	}
}

func TestAPIKeyIsSentAndARefusalIsReadable(t *testing.T) {
	srv := qdrantfake.Start(t)
	srv.AddCollection("docs", qdrantfake.CollectionConfig{Dimension: 2})
	srv.RequireAPIKey("s3cret")
	req := attachRequest(srv, "docs")
	req.DriverConfig["api_key"] = "wrong"
	_, err := qdrantstore.New().Open(context.Background(), req)
	if !errors.Is(err, sdk.ErrUnauthenticated) || !strings.Contains(err.Error(), "api_key") || strings.Contains(err.Error(), "rpc error") {
		t.Fatalf("wrong key: err = %v", err)
	}
	req.DriverConfig["api_key"] = "s3cret"
	if _, err := qdrantstore.New().Open(context.Background(), req); err != nil {
		t.Fatalf("right key: %v", err)
	}
}

func TestQdrantsOwnErrorsAreShownReadably(t *testing.T) {
	srv := qdrantfake.Start(t)
	srv.AddCollection("docs", qdrantfake.CollectionConfig{Dimension: 2})
	s, _ := attach(t, srv, "docs")
	// The collection is re-created by its owner with another dimension:
	// Qdrant's own sentence comes through, classed, without gRPC's
	// "rpc error: code = ... desc =" wrapping.
	srv.AddCollection("docs", qdrantfake.CollectionConfig{Dimension: 3})
	_, err := s.VectorSearch(context.Background(), &ragstore.VectorSearchRequest{Store: "ext", Vector: []float32{1, 0}, TopK: 1})
	if !errors.Is(err, sdk.ErrInvalidArgument) ||
		!strings.Contains(err.Error(), `search collection "docs" on Qdrant at `+srv.URL()+`: Wrong input: Vector dimension error: expected dim: 3, got 2`) ||
		strings.Contains(err.Error(), "rpc error") {
		t.Fatalf("search: err = %v", err)
	}
	// And then deleted.
	srv.DropCollection("docs")
	_, err = s.FetchContent(context.Background(), &ragstore.FetchContentRequest{Store: "ext", IDs: []string{"1"}})
	if !errors.Is(err, sdk.ErrNotFound) || !strings.Contains(err.Error(), "Not found: Collection `docs` doesn't exist!") || strings.Contains(err.Error(), "desc =") {
		t.Fatalf("fetch: err = %v", err)
	}
}

func TestAnUnreachableServerIsUnavailable(t *testing.T) {
	// A port nobody listens on: a fake server just closed could still
	// reset a connection instead of refusing it.
	host := providertest.Unreachable(t)
	_, err := qdrantstore.New().Open(context.Background(), &ragstore.OpenRequest{
		Store: "ext", DriverConfig: map[string]any{"host": host, "collection": "docs"}, Attached: true,
	})
	if !errors.Is(err, sdk.ErrUnavailable) || !strings.Contains(err.Error(), "cannot reach Qdrant at "+host) || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("err = %v", err)
	}
}

func TestSearchFallsBackToSearchOnAServerWithoutQuery(t *testing.T) {
	srv := qdrantfake.Start(t)
	srv.AddCollection("old", qdrantfake.CollectionConfig{Dimension: 2})
	langchain(srv, "old", 1, []float32{1, 0}, "one", "a")
	langchain(srv, "old", 2, []float32{0, 1}, "two", "b")
	srv.DisableQuery()
	s, _ := attach(t, srv, "old")
	for range 2 {
		if hits := search(t, s, []float32{0, 1}, 1, 0); !slices.Equal(hitIDs(hits), []string{"2"}) {
			t.Fatalf("hits %v", hitIDs(hits))
		}
	}
	if n := len(srv.Searches()); n != 2 {
		t.Fatalf("%d Search calls, want 2", n)
	}
	if srv.Searches()[0].ScoreThreshold != nil {
		t.Fatal("score_threshold was sent")
	}
}

func TestOwnedCollectionIsCreatedWithCosineAndAFileIndex(t *testing.T) {
	srv := qdrantfake.Start(t)
	s := qdrantstore.New()
	t.Cleanup(s.CloseAll)
	ctx := context.Background()
	req := &ragstore.OpenRequest{Store: "team-kb", DriverConfig: map[string]any{"host": srv.URL()}, Dimension: 384, Mode: ragstore.ReadWrite}
	resp, err := s.Open(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(resp.Capabilities, []string{ragstore.CapOwned}) || resp.Stats.Dimension != 384 {
		t.Fatalf("open = %+v", resp)
	}
	cfg, ok := srv.Collection("team-kb")
	if !ok || cfg.Dimension != 384 || cfg.Distance != qdrant.Distance_Cosine || len(cfg.Named) != 0 {
		t.Fatalf("collection %+v (exists %v)", cfg, ok)
	}
	if !srv.Indexed("team-kb", "file_id") {
		t.Fatal("no index on file_id")
	}
	// A named collection in driver_config wins over the RAG's name; an
	// unknown dimension cannot create one.
	req = &ragstore.OpenRequest{Store: "other", DriverConfig: map[string]any{"host": srv.URL(), "collection": "shared"}, Mode: ragstore.ReadWrite}
	if _, err := s.Open(ctx, req); !errors.Is(err, sdk.ErrInvalidArgument) {
		t.Fatalf("creating without a dimension: err = %v", err)
	}
	req.Dimension = 8
	if _, err := s.Open(ctx, req); err != nil {
		t.Fatal(err)
	}
	if _, ok := srv.Collection("shared"); !ok {
		t.Fatal("collection shared was not created")
	}
	// A collection made by hand gets its file_id index when first indexed.
	srv.AddCollection("by-hand", qdrantfake.CollectionConfig{Dimension: 8})
	req.DriverConfig["collection"] = "by-hand"
	if _, err := s.Open(ctx, req); err != nil || !srv.Indexed("by-hand", "file_id") {
		t.Fatalf("open of a collection without a file_id index: err %v, indexed %v", err, srv.Indexed("by-hand", "file_id"))
	}
	req.DriverConfig["collection"] = "shared"
	// Reopening with another embedding model is refused.
	req.Dimension = 16
	if _, err := s.Open(ctx, req); !errors.Is(err, sdk.ErrFailedPrecondition) {
		t.Fatalf("reopening with another dimension: err = %v", err)
	}
}

func TestOwnedPointsCarryLangChainsPayloadSoTheyCanBeAttached(t *testing.T) {
	srv := qdrantfake.Start(t)
	ctx := context.Background()
	owner := qdrantstore.New()
	t.Cleanup(owner.CloseAll)
	if _, err := owner.Open(ctx, &ragstore.OpenRequest{Store: "kb", DriverConfig: map[string]any{"host": srv.URL()}, Dimension: 2, Mode: ragstore.ReadWrite}); err != nil {
		t.Fatal(err)
	}
	err := owner.Upsert(ctx, &ragstore.UpsertRequest{Store: "kb", Chunks: []ragstore.Chunk{
		{ID: "1-0", FileID: "1", Text: "hello", Metadata: map[string]string{"source": "docs/a.md", "lang": "en"}, Vector: []float32{1, 0}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := attach(t, srv, "kb")
	hits := search(t, s, []float32{1, 0}, 1, 0)
	if len(hits) != 1 {
		t.Fatalf("hits %v", hits)
	}
	got := fetch(t, s, hits[0].ID)
	if len(got) != 1 || got[0].Text != "hello" || got[0].Metadata["source"] != "docs/a.md" || got[0].Metadata["lang"] != "en" {
		t.Fatalf("attached view of an owned point: %+v", got)
	}
}

func TestOwnedStoreSkipsPointsItDidNotWrite(t *testing.T) {
	srv := qdrantfake.Start(t)
	ctx := context.Background()
	s := qdrantstore.New()
	t.Cleanup(s.CloseAll)
	if _, err := s.Open(ctx, &ragstore.OpenRequest{Store: "kb", DriverConfig: map[string]any{"host": srv.URL()}, Dimension: 2, Mode: ragstore.ReadWrite}); err != nil {
		t.Fatal(err)
	}
	langchain(srv, "kb", 5, []float32{1, 0}, "foreign", "x")
	r, err := s.VectorSearch(ctx, &ragstore.VectorSearchRequest{Store: "kb", Vector: []float32{1, 0}, TopK: 3})
	if err != nil || len(r.Hits) != 0 {
		t.Fatalf("hits %v, err %v", r, err)
	}
}

func TestBadDriverConfigIsInvalidArgument(t *testing.T) {
	for name, dc := range map[string]map[string]any{
		"no host":          {"collection": "c"},
		"host not text":    {"host": 6333, "collection": "c"},
		"ftp":              {"host": "ftp://q:6333", "collection": "c"},
		"path":             {"host": "http://q:6333/api", "collection": "c"},
		"bad port":         {"host": "http://q:99999", "collection": "c"},
		"bad grpc_port":    {"host": "http://q", "collection": "c", "grpc_port": "x"},
		"attached no coll": {"host": "http://q"},
	} {
		_, err := qdrantstore.New().Open(context.Background(), &ragstore.OpenRequest{Store: "ext", DriverConfig: dc, Attached: true})
		if !errors.Is(err, sdk.ErrInvalidArgument) || !strings.Contains(err.Error(), "driver_config") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

func TestListCollectionsNamesEveryCollectionSortedAndSendsTheAPIKey(t *testing.T) {
	srv := qdrantfake.Start(t)
	srv.AddCollection("zeta", qdrantfake.CollectionConfig{Dimension: 2})
	srv.AddCollection("alpha", qdrantfake.CollectionConfig{Dimension: 2})
	s := qdrantstore.New()
	resp, err := s.ListCollections(context.Background(), &ragstore.ListCollectionsRequest{DriverConfig: map[string]any{"host": srv.URL()}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(resp.Names, []string{"alpha", "zeta"}) {
		t.Fatalf("names = %v", resp.Names)
	}
	srv.RequireAPIKey("k1")
	_, err = s.ListCollections(context.Background(), &ragstore.ListCollectionsRequest{DriverConfig: map[string]any{"host": srv.URL(), "api_key": "wrong"}})
	if err == nil {
		t.Fatal("a wrong API key listed collections")
	}
	if _, err := s.ListCollections(context.Background(), &ragstore.ListCollectionsRequest{DriverConfig: map[string]any{"host": srv.URL(), "api_key": "k1"}}); err != nil {
		t.Fatalf("right key: %v", err)
	}
}
