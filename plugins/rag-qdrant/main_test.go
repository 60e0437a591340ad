package main

import (
	"context"
	"slices"
	"testing"

	"github.com/coyote-cli/coyote/plugins/rag-qdrant/qdrantfake"
	"github.com/coyote-cli/coyote/plugins/rag-qdrant/qdrantstore"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/plugintest"
	"github.com/coyote-cli/coyote/sdk/ragstore"
)

func TestPluginDescribesAttachAndOwnedWithoutKeywordSearch(t *testing.T) {
	conn := plugintest.Serve(t, info, ragstore.Plugin(qdrantstore.New()))
	d := conn.Describe(t)
	if !slices.Equal(d.Kinds, []string{sdk.KindRAG}) || !d.Has(ragstore.CapAttach) || !d.Has(ragstore.CapOwned) || !d.Has(ragstore.CapDrop) || d.Has(ragstore.CapKeywordSearch) {
		t.Fatalf("describe = %+v", d)
	}
}

func TestPluginAttachesOverTheWireAndKeepsErrorClasses(t *testing.T) {
	srv := qdrantfake.Start(t)
	srv.AddCollection("docs", qdrantfake.CollectionConfig{Dimension: 2})
	srv.AddPoint("docs", "3f1b0c2e-1111-4000-8000-000000000001", []float32{1, 0}, map[string]any{"page_content": "hello"})
	srv.AddCollection("named", qdrantfake.CollectionConfig{Dimension: 2, Named: []string{"text"}})
	store := plugintest.Serve(t, info, ragstore.Plugin(qdrantstore.New())).Dispense(t, sdk.KindRAG).(ragstore.Store)
	ctx := context.Background()
	open := func(coll string) error {
		_, err := store.Open(ctx, &ragstore.OpenRequest{Store: coll, DriverConfig: map[string]any{"host": srv.URL(), "collection": coll}, Attached: true})
		return err
	}
	if err := open("named"); !sdk.IsPluginError(err) || sdk.ErrorCode(err) != "unsupported" {
		t.Fatalf("named collection: err = %v (code %s)", err, sdk.ErrorCode(err))
	}
	if err := open("docs"); err != nil {
		t.Fatal(err)
	}
	r, err := store.VectorSearch(ctx, &ragstore.VectorSearchRequest{Store: "docs", Vector: []float32{1, 0}, TopK: 3})
	if err != nil || len(r.Hits) != 1 {
		t.Fatalf("search: %+v, %v", r, err)
	}
	c, err := store.FetchContent(ctx, &ragstore.FetchContentRequest{Store: "docs", IDs: []string{r.Hits[0].ID}})
	if err != nil || len(c.Contents) != 1 || c.Contents[0].Text != "hello" {
		t.Fatalf("fetch: %+v, %v", c, err)
	}
	err = store.Upsert(ctx, &ragstore.UpsertRequest{Store: "docs", Chunks: []ragstore.Chunk{{ID: "1-0", FileID: "1", Vector: []float32{1, 0}}}})
	if sdk.ErrorCode(err) != "failed_precondition" {
		t.Fatalf("upsert into an attached store: err = %v", err)
	}
}
