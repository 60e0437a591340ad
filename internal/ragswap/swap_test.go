package ragswap

import (
	"context"
	"hash/fnv"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/coyote-cli/coyote/kernel/rag"
	"github.com/coyote-cli/coyote/plugins/rag-duckdb/duckdbstore"
	"github.com/coyote-cli/coyote/plugins/rag-qdrant/qdrantfake"
	"github.com/coyote-cli/coyote/plugins/rag-qdrant/qdrantstore"
	"github.com/coyote-cli/coyote/plugins/rag-yaml/yamlstore"
	"github.com/coyote-cli/coyote/sdk/ragstore"
)

// embed is a deterministic embedder in which texts sharing words point
// the same way: each word adds to one of 64 dimensions.
func embed(_ context.Context, texts []string, _ string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 64)
		for _, w := range rag.Tokenize(t) {
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

var questions = []string{
	"which animal has black and white stripes?",
	"how do owls hunt at night?",
	"what makes concurrency cheap in Go?",
	"which database runs inside the process?",
	"how do I bake bread?",
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
			if ks, ok := d.store.(ragstore.KeywordSearcher); ok && contains(resp.Capabilities, ragstore.CapKeywordSearch) {
				r.Keyword = ks
			}
			if _, err := r.Index(ctx, true, nil); err != nil {
				t.Fatal(err)
			}
			for _, q := range questions {
				chunks, err := r.Search(ctx, q, 3)
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, c := range chunks {
					got = append(got, filepath.Base(c.Source))
				}
				answers[d.name] = append(answers[d.name], got)
			}
			_ = d.store.Close(ctx, &ragstore.CloseRequest{Store: "kb"})
		})
	}
	want := answers["yaml"]
	for _, q := range want {
		if len(q) == 0 {
			t.Fatalf("the yaml driver found nothing: %v", want)
		}
	}
	for i, q := range questions {
		if want[i][0] != expectedTop[q] {
			t.Errorf("yaml: %q → %v, want %s first", q, want[i], expectedTop[q])
		}
	}
	for _, d := range []string{"duckdb", "qdrant"} {
		for i, q := range questions {
			// The first answer must agree; the vector legs are exact
			// everywhere, the keyword legs are the same BM25 (kernel or
			// DuckDB's SQL), so the whole list should too.
			if !reflect.DeepEqual(answers[d][i], want[i]) {
				t.Errorf("%s: %q → %v, yaml gave %v", d, q, answers[d][i], want[i])
			}
		}
	}
	t.Logf("answers: %v", answers)
}

var expectedTop = map[string]string{
	questions[0]: "zebra.md",
	questions[1]: "owl.md",
	questions[2]: "go.md",
	questions[3]: "duckdb.md",
	questions[4]: "recipe.md",
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}
