package rag

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/coyote-cli/coyote/sdk/ragstore"
	"github.com/coyote-cli/coyote/sdk/ragstore/storetest"
)

// graphKeeper is a store that keeps the graph (ragstore.CapGraph).
type graphKeeper struct {
	ragstore.Store
	mu   sync.Mutex
	data []byte
}

func (g *graphKeeper) SaveGraph(_ context.Context, req *ragstore.SaveGraphRequest) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.data = slices.Clone(req.Data)
	return nil
}

func (g *graphKeeper) LoadGraph(context.Context, *ragstore.LoadGraphRequest) (*ragstore.LoadGraphResponse, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return &ragstore.LoadGraphResponse{Data: g.data}, nil
}

// extractByText answers as an extractor would for the test's passages.
func extractByText(calls *atomic.Int64) Extractor {
	return func(_ context.Context, prompt string) (string, error) {
		calls.Add(1)
		switch {
		case strings.Contains(prompt, "Project Falcon moved"):
			return `{"entities":[{"name":"Project Falcon","type":"project"},{"name":"Quasar Archive","type":"location"}],
				"relationships":[{"from":"Project Falcon","to":"Quasar Archive","type":"stored_in"}]}`, nil
		case strings.Contains(prompt, "Quasar Archive:"):
			return `{"entities":[{"name":"Quasar Archive","type":"LOCATION"}],"relationships":[]}`, nil
		}
		return `{"entities":[],"relationships":[]}`, nil
	}
}

func TestGraphIsExtractedWhileIndexingAndFollowsResyncs(t *testing.T) {
	for _, keeper := range []bool{false, true} {
		name := "in the yaml"
		if keeper {
			name = "in the store"
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			docs := filepath.Join(dir, "docs")
			if err := os.MkdirAll(docs, 0o755); err != nil {
				t.Fatal(err)
			}
			write := func(name, text string) {
				if err := os.WriteFile(filepath.Join(docs, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write("a.md", "Project Falcon moved its records last spring.")
			write("b.md", "Quasar Archive: room 9, east wing, behind a green door.")
			write("c.md", "Owls hunt at night and see well in the dark.")
			f := &File{Path: filepath.Join(dir, "kb.yaml"), Driver: "yaml", EmbeddingModel: "fake:embed", ChunkSize: 200, TopK: 3,
				DocumentPaths: []string{docs}, ExtractorModel: "fake:chat"}
			ctx := context.Background()
			var store ragstore.Store = storetest.Reference()
			var gk *graphKeeper
			if keeper {
				gk = &graphKeeper{Store: store}
				store = gk
			}
			if _, err := store.Open(ctx, &ragstore.OpenRequest{Store: "kb", Path: f.Path, Dimension: 64, Mode: ragstore.ReadWrite}); err != nil {
				t.Fatal(err)
			}
			var calls atomic.Int64
			r := &RAG{Name: "kb", File: f, Store: store, Embed: wordEmbed, DefaultBatch: 8, Extract: extractByText(&calls)}
			if gk != nil {
				r.GraphStore = gk
			}
			var last Progress
			plan, err := r.Index(ctx, false, func(p Progress) { last = p })
			if err != nil {
				t.Fatal(err)
			}
			if plan.Extracted != 3 || plan.ExtractSkipped != 0 || calls.Load() != 3 || last.Extract != 3 || last.Extracted != 3 {
				t.Fatalf("extracted %d (skipped %d) in %d calls; last progress %+v", plan.Extracted, plan.ExtractSkipped, calls.Load(), last)
			}
			if !strings.Contains(last.String(), "entities 3/3") {
				t.Errorf("progress %q does not show the extraction", last)
			}
			data, _ := os.ReadFile(f.Path)
			if inYAML := strings.Contains(string(data), "knowledge_graph:"); inYAML == keeper {
				t.Fatalf("knowledge_graph in the yaml: %v, with a store that keeps it: %v\n%s", inYAML, keeper, data)
			}
			if keeper && len(gk.data) == 0 {
				t.Fatal("the store was given no graph")
			}
			// The answer's passage names only the Quasar Archive: the graph
			// leg finds it through the question's Project Falcon.
			chunks, err := r.Search(ctx, "where did project falcon move its records?", 3)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, c := range chunks {
				if strings.HasSuffix(c.Source, "b.md") {
					found = slices.Contains(c.Legs, LegGraph)
				}
			}
			if !found {
				t.Fatalf("the graph leg did not find b.md: %+v", chunks)
			}

			// A reopened RAG reads the graph where it was kept.
			f2, err := Load(f.Path)
			if err != nil {
				t.Fatal(err)
			}
			r2 := &RAG{Name: "kb", File: f2, Store: store, Embed: wordEmbed, DefaultBatch: 8, Extract: extractByText(&calls)}
			if gk != nil {
				r2.GraphStore = gk
			}
			g, err := r2.LoadGraph(ctx)
			if err != nil || g.NodeCount() != 2 || g.EdgeCount() != 1 {
				t.Fatalf("reloaded graph %+v, %v", g, err)
			}
			r2.graphLoaded = false // read again after the re-sync below

			// Re-sync: a.md is gone, c.md changed, b.md unchanged.
			if err := os.Remove(filepath.Join(docs, "a.md")); err != nil {
				t.Fatal(err)
			}
			write("c.md", "Owls hunt at night.")
			calls.Store(0)
			if _, err := r2.Index(ctx, false, nil); err != nil {
				t.Fatal(err)
			}
			if calls.Load() != 1 {
				t.Fatalf("%d extractions on re-sync, want 1 (the changed file only)", calls.Load())
			}
			g, err = r2.LoadGraph(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if g.NodeCount() != 1 || g.Nodes[0].Name != "Quasar Archive" || g.EdgeCount() != 0 {
				t.Fatalf("after a.md vanished: %+v (its entity and edge must go, b.md's stay)", g)
			}
		})
	}
}
