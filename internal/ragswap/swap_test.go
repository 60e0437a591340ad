package ragswap

import (
	"context"
	"hash/fnv"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/coyote-cli/coyote/kernel/rag"
	"github.com/coyote-cli/coyote/plugins/rag-duckdb/duckdbstore"
	"github.com/coyote-cli/coyote/plugins/rag-qdrant/qdrantfake"
	"github.com/coyote-cli/coyote/plugins/rag-qdrant/qdrantstore"
	"github.com/coyote-cli/coyote/plugins/rag-yaml/yamlstore"
	"github.com/coyote-cli/coyote/sdk/ragstore"
	"github.com/coyote-cli/coyote/sdk/ragstore/rank"
)

// embed is a deterministic embedder in which texts sharing words point
// the same way: each word adds to one of 64 dimensions.
func embed(_ context.Context, texts []string, _ string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 64)
		for _, w := range rank.Tokenize(t) {
			h := fnv.New32a()
			h.Write([]byte(w))
			v[h.Sum32()%64]++
		}
		out[i] = v
	}
	return out, nil
}

var documents = map[string]string{
	"zebra.md":   "Zebras have black and white stripes and live in herds on the African savanna.",
	"owl.md":     "Owls hunt small animals at night; their soft feathers make their flight silent.",
	"go.md":      "Go compiles quickly to a single static binary, and goroutines make concurrency cheap.",
	"duckdb.md":  "DuckDB is an embedded analytical database that runs inside the process that uses it.",
	"qdrant.md":  "Qdrant is a vector database server; it stores points with payloads and searches them by similarity.",
	"coyote.md":  "Coyotes are clever, adaptable animals that live across North America, from deserts to cities.",
	"recipe.md":  "To bake bread, mix flour, water, salt and yeast, let the dough rise, then bake it hot.",
	"weather.md": "A cold front brings wind and rain, and behind it the air is clear and cool.",
}

// questions, each with the document that must come first.
var questions = []struct{ q, top string }{
	{"which animal has black and white stripes?", "zebra.md"},
	{"how do owls hunt at night?", "owl.md"},
	{"what makes concurrency cheap in Go?", "go.md"},
	{"which database runs inside the process?", "duckdb.md"},
	{"how do I bake bread?", "recipe.md"},
}

func TestTheSameRAGAnswersTheSameWithEveryDriver(t *testing.T) {
	docs := t.TempDir()
	for name, text := range documents {
		if err := os.WriteFile(filepath.Join(docs, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	qd := qdrantfake.Start(t)
	drivers := []struct {
		name   string
		store  ragstore.Store
		config map[string]string
	}{
		{"yaml", yamlstore.New(), nil},
		{"duckdb", duckdbstore.New(), nil},
		{"qdrant", qdrantstore.New(), map[string]string{"host": qd.URL(), "collection": "kb"}},
	}
	answers := map[string][][]string{}
	for _, d := range drivers {
		t.Run(d.name, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			f := &rag.File{
				Path: filepath.Join(dir, "kb.yaml"), Driver: d.name, DriverConfig: d.config,
				EmbeddingModel: "fake:embed", ChunkSize: 400, ChunkOverlap: 20, TopK: 3, DocumentPaths: []string{docs},
			}
			cfg := map[string]any{}
			for k, v := range d.config {
				cfg[k] = v
			}
			resp, err := d.store.Open(ctx, &ragstore.OpenRequest{Store: "kb", Path: f.Path, DriverConfig: cfg, Dimension: 64, Mode: ragstore.ReadWrite})
			if err != nil {
				t.Fatal(err)
			}
			r := &rag.RAG{Name: "kb", File: f, Store: d.store, Embed: embed, DefaultBatch: 3}
			if ks, ok := d.store.(ragstore.KeywordSearcher); ok && slices.Contains(resp.Capabilities, ragstore.CapKeywordSearch) {
				r.Keyword = ks
			}
			if _, err := r.Index(ctx, true, nil); err != nil {
				t.Fatal(err)
			}
			ask := func(key string) {
				for _, q := range questions {
					chunks, err := r.Search(ctx, q.q, 3)
					if err != nil {
						t.Fatal(err)
					}
					var got []string
					for _, c := range chunks {
						got = append(got, filepath.Base(c.Source))
					}
					answers[key] = append(answers[key], got)
				}
			}
			ask(d.name)
			// Opened read-only, as a one-shot question opens it: the
			// DuckDB store then scans its int8 vector file and rescores
			// exactly, and must answer as it did.
			if _, err := d.store.Open(ctx, &ragstore.OpenRequest{Store: "kb", Path: f.Path, DriverConfig: cfg, Dimension: 64, Mode: ragstore.ReadOnly}); err != nil {
				t.Fatal(err)
			}
			ask(d.name + " read-only")
			_ = d.store.Close(ctx, &ragstore.CloseRequest{Store: "kb"})
		})
	}
	for _, d := range drivers {
		if ro := answers[d.name+" read-only"]; !reflect.DeepEqual(ro, answers[d.name]) {
			t.Errorf("%s read-only: %v, read-write %v", d.name, ro, answers[d.name])
		}
	}
	for _, d := range drivers {
		if len(answers[d.name]) != len(questions) {
			t.Fatalf("the %s driver answered %d of %d questions", d.name, len(answers[d.name]), len(questions))
		}
	}
	want := answers["yaml"]
	for i, q := range questions {
		if len(want[i]) == 0 || want[i][0] != q.top {
			t.Errorf("yaml: %q → %v, want %s first", q.q, want[i], q.top)
		}
	}
	for _, d := range []string{"duckdb", "qdrant"} {
		for i, q := range questions {
			// The first answer must agree; the vector legs are exact
			// everywhere, the keyword legs are the same BM25 (kernel or
			// DuckDB's SQL), so the whole list should too.
			if !reflect.DeepEqual(answers[d][i], want[i]) {
				t.Errorf("%s: %q → %v, yaml gave %v", d, q.q, answers[d][i], want[i])
			}
		}
	}
	t.Logf("answers: %v", answers)
}
