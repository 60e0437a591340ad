package qdrantstore_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/qdrant/go-client/qdrant"

	"github.com/coyote-cli/coyote/plugins/rag-qdrant/qdrantstore"
	"github.com/coyote-cli/coyote/sdk/ragstore"
	"github.com/coyote-cli/coyote/sdk/ragstore/storetest"
)

// The tests in this file talk to a real Qdrant at $QDRANT_URL (its REST
// URL, such as http://localhost:6333, or its gRPC host:port), with
// $QDRANT_API_KEY when set, and skip when QDRANT_URL is unset. They create
// collections named coyote-test-<random>-… and delete them afterwards.

func realQdrant(t *testing.T) (driverConfig func(collection string) map[string]any, admin *qdrant.Client) {
	t.Helper()
	host := os.Getenv("QDRANT_URL")
	if host == "" {
		t.Skip("QDRANT_URL is not set: no real Qdrant to test against")
	}
	key := os.Getenv("QDRANT_API_KEY")
	driverConfig = func(collection string) map[string]any {
		dc := map[string]any{"host": host, "collection": collection}
		if key != "" {
			dc["api_key"] = key
		}
		return dc
	}
	raw := host
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	port := 6334
	if p, err := strconv.Atoi(u.Port()); err == nil && p != 6333 {
		port = p
	}
	admin, err = qdrant.NewClient(&qdrant.Config{
		Host: u.Hostname(), Port: port, APIKey: key,
		UseTLS: u.Scheme == "https", SkipCompatibilityCheck: true, PoolSize: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	return driverConfig, admin
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// testCollection names a collection for this test and deletes it after.
func testCollection(t *testing.T, admin *qdrant.Client, run, suffix string) string {
	name := "coyote-test-" + run + "-" + unsafeName.ReplaceAllString(t.Name()+"-"+suffix, "_")
	t.Cleanup(func() { _ = admin.DeleteCollection(context.Background(), name) })
	return name
}

func runID(t *testing.T) string {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b[:])
}

func TestRealQdrantKeepsTheStoreContract(t *testing.T) {
	driverConfig, admin := realQdrant(t)
	run := runID(t)
	storetest.Suite{
		Open: func(t *testing.T) ragstore.Store {
			s := qdrantstore.New()
			t.Cleanup(s.CloseAll)
			return s
		},
		Request: func(t *testing.T, req *ragstore.OpenRequest) {
			req.DriverConfig = driverConfig(testCollection(t, admin, run, req.Store))
		},
	}.Run(t)
}

func TestRealQdrantAttachesToALangChainCollection(t *testing.T) {
	driverConfig, admin := realQdrant(t)
	ctx := context.Background()
	coll := testCollection(t, admin, runID(t), "lc")
	err := admin.CreateCollection(ctx, &qdrant.CreateCollection{
		CollectionName: coll,
		VectorsConfig:  qdrant.NewVectorsConfig(&qdrant.VectorParams{Size: 3, Distance: qdrant.Distance_Euclid}),
	})
	if err != nil {
		t.Fatal(err)
	}
	point := func(id *qdrant.PointId, v []float32, text string) *qdrant.PointStruct {
		return &qdrant.PointStruct{Id: id, Vectors: qdrant.NewVectorsDense(v), Payload: qdrant.NewValueMap(map[string]any{
			"page_content": text, "metadata": map[string]any{"source": text + ".md"},
		})}
	}
	_, err = admin.Upsert(ctx, &qdrant.UpsertPoints{CollectionName: coll, Wait: qdrant.PtrOf(true), Points: []*qdrant.PointStruct{
		point(qdrant.NewIDUUID(uuidA), []float32{0.1, 0, 0}, "near"),
		point(qdrant.NewIDNum(9), []float32{4, 0, 0}, "middle"),
		point(qdrant.NewIDUUID(uuidC), []float32{9, 0, 0}, "far"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	s := qdrantstore.New()
	t.Cleanup(s.CloseAll)
	resp, err := s.Open(ctx, &ragstore.OpenRequest{Store: "ext", DriverConfig: driverConfig(coll), Attached: true})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Stats.Chunks != 3 || resp.Stats.Dimension != 3 {
		t.Fatalf("stats %+v", resp.Stats)
	}
	r, err := s.VectorSearch(ctx, &ragstore.VectorSearchRequest{Store: "ext", Vector: []float32{0, 0, 0}, TopK: 10})
	if err != nil {
		t.Fatal(err)
	}
	if got := hitIDs(r.Hits); !slices.Equal(got, []string{uuidA, "9", uuidC}) {
		t.Fatalf("Euclid hits %+v, want every point nearest first with a 0 floor", r.Hits)
	}
	got, err := s.FetchContent(ctx, &ragstore.FetchContentRequest{Store: "ext", IDs: []string{uuidC, "9", uuidA}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(contentIDs(got.Contents), []string{uuidC, "9", uuidA}) || got.Contents[0].Text != "far" || got.Contents[2].Metadata["source"] != "near.md" {
		t.Fatalf("fetched %+v", got.Contents)
	}
}

func TestRealQdrantNamedVectorCollectionIsRefused(t *testing.T) {
	driverConfig, admin := realQdrant(t)
	ctx := context.Background()
	coll := testCollection(t, admin, runID(t), "named")
	err := admin.CreateCollection(ctx, &qdrant.CreateCollection{
		CollectionName: coll,
		VectorsConfig:  qdrant.NewVectorsConfigMap(map[string]*qdrant.VectorParams{"text": {Size: 3, Distance: qdrant.Distance_Cosine}}),
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = qdrantstore.New().Open(ctx, &ragstore.OpenRequest{Store: "ext", DriverConfig: driverConfig(coll), Attached: true})
	if err == nil || !strings.Contains(err.Error(), "named vectors (text)") {
		t.Fatalf("err = %v", err)
	}
}
