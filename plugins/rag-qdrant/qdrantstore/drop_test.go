package qdrantstore_test

import (
	"context"
	"errors"
	"testing"

	"github.com/coyote-cli/coyote/plugins/rag-qdrant/qdrantfake"
	"github.com/coyote-cli/coyote/plugins/rag-qdrant/qdrantstore"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/ragstore"
)

// owned builds an owned store "kb" with two chunks in the fake and closes
// it.
func owned(t *testing.T, s *qdrantstore.Store, dc map[string]any) {
	t.Helper()
	ctx := context.Background()
	if _, err := s.Open(ctx, &ragstore.OpenRequest{Store: "kb", Path: "/x/rags/kb.yaml", DriverConfig: dc, Dimension: 2, Mode: ragstore.ReadWrite}); err != nil {
		t.Fatal(err)
	}
	err := s.Upsert(ctx, &ragstore.UpsertRequest{Store: "kb", Chunks: []ragstore.Chunk{
		{ID: "1-0", FileID: "1", Text: "a", Metadata: map[string]string{"source": "a.md"}, Vector: []float32{1, 0}},
		{ID: "1-1", FileID: "1", Text: "b", Metadata: map[string]string{"source": "a.md"}, Vector: []float32{0, 1}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(ctx, &ragstore.CloseRequest{Store: "kb"}); err != nil {
		t.Fatal(err)
	}
}

func TestDropDeletesAnOwnedRAGsCollectionOnly(t *testing.T) {
	for _, tt := range []struct {
		name, collection string
		dc               func(srv *qdrantfake.Server) map[string]any
	}{
		{"collection named after the RAG", "kb", func(srv *qdrantfake.Server) map[string]any {
			return map[string]any{"host": srv.URL()}
		}},
		{"collection in driver_config", "team", func(srv *qdrantfake.Server) map[string]any {
			return map[string]any{"host": srv.URL(), "collection": "team"}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := qdrantfake.Start(t)
			srv.AddCollection("neighbour", qdrantfake.CollectionConfig{Dimension: 2})
			srv.AddPoint("neighbour", 1, []float32{1, 0}, map[string]any{"page_content": "x"})
			s := qdrantstore.New()
			t.Cleanup(s.CloseAll)
			owned(t, s, tt.dc(srv))
			if srv.Count(tt.collection) != 2 {
				t.Fatalf("collection %s holds %d points before the drop", tt.collection, srv.Count(tt.collection))
			}
			req := &ragstore.DropRequest{Store: "kb", Path: "/x/rags/kb.yaml", DriverConfig: tt.dc(srv)}
			if err := s.Drop(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			if _, ok := srv.Collection(tt.collection); ok {
				t.Fatalf("collection %s is still there", tt.collection)
			}
			if srv.Count("neighbour") != 1 {
				t.Fatal("the drop touched another collection")
			}
			// Retried, the drop finds nothing to do.
			if err := s.Drop(context.Background(), req); err != nil {
				t.Fatalf("drop again: %v", err)
			}
		})
	}
}

// An attached RAG's collection belongs to someone else: deleting the RAG
// must leave it, points and all.
func TestDropNeverDeletesAnAttachedCollection(t *testing.T) {
	srv := qdrantfake.Start(t)
	srv.AddCollection("docs", qdrantfake.CollectionConfig{Dimension: 2})
	langchain(srv, "docs", uuidA, []float32{1, 0}, "hello", "a.md")
	s := qdrantstore.New()
	t.Cleanup(s.CloseAll)
	for _, dc := range []map[string]any{
		{"host": srv.URL(), "collection": "docs"},
		{"host": srv.URL()}, // even if the yaml lost its collection
	} {
		err := s.Drop(context.Background(), &ragstore.DropRequest{Store: "docs", Path: "/x/rags/docs.yaml", DriverConfig: dc, Attached: true})
		if err != nil {
			t.Fatal(err)
		}
		if srv.Count("docs") != 1 {
			t.Fatalf("dropping an attached RAG (driver_config %v) deleted its collection", dc)
		}
	}
}

func TestDropRefusals(t *testing.T) {
	srv := qdrantfake.Start(t)
	s := qdrantstore.New()
	t.Cleanup(s.CloseAll)
	dc := map[string]any{"host": srv.URL()}
	owned(t, s, dc)
	ctx := context.Background()
	if _, err := s.Open(ctx, &ragstore.OpenRequest{Store: "kb", DriverConfig: dc, Mode: ragstore.ReadOnly}); err != nil {
		t.Fatal(err)
	}
	if err := s.Drop(ctx, &ragstore.DropRequest{Store: "kb", DriverConfig: dc}); !errors.Is(err, sdk.ErrFailedPrecondition) {
		t.Fatalf("drop of an open store: %v", err)
	}
	if srv.Count("kb") != 2 {
		t.Fatal("a refused drop deleted the collection")
	}
	_ = s.Close(ctx, &ragstore.CloseRequest{Store: "kb"})

	srv.RequireAPIKey("secret")
	if err := s.Drop(ctx, &ragstore.DropRequest{Store: "kb", DriverConfig: dc}); !errors.Is(err, sdk.ErrUnauthenticated) {
		t.Fatalf("drop without the API key: %v", err)
	}
	if err := s.Drop(ctx, &ragstore.DropRequest{Store: "kb", DriverConfig: map[string]any{"host": srv.URL(), "api_key": "secret"}}); err != nil {
		t.Fatalf("drop with the API key: %v", err)
	}
	if _, ok := srv.Collection("kb"); ok {
		t.Fatal("the collection is still there")
	}

	if err := s.Drop(ctx, &ragstore.DropRequest{Store: "kb"}); !errors.Is(err, sdk.ErrInvalidArgument) {
		t.Fatalf("drop without a host: %v", err)
	}
	srv.Close()
	if err := s.Drop(ctx, &ragstore.DropRequest{Store: "kb", DriverConfig: dc}); !errors.Is(err, sdk.ErrUnavailable) {
		t.Fatalf("drop with Qdrant down: %v", err)
	}
}
