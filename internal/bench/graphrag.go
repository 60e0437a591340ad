package main

import (
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/coyote-cli/coyote/internal/fakellm"
	"github.com/coyote-cli/coyote/kernel/rag"
)

// extractLatency is how long the fake extractor model takes to answer.
const extractLatency = 50 * time.Millisecond

// graphIndexBench indexes chunks generated chunks with an extractor_model
// through the real binary (yaml driver) against a fake server whose every
// extraction answer takes extractLatency, and returns the chunks indexed
// per second and how long it took.
func graphIndexBench(coyote, work string, chunks int) (rate float64, took time.Duration, err error) {
	fake := &fakellm.OpenAI{EmbedDims: 384, Respond: func(req *fakellm.ChatRequest) fakellm.Reply {
		var text string
		if n := len(req.Messages); n > 0 {
			text, _ = req.Messages[n-1]["content"].(string)
		}
		_, passage, _ := strings.Cut(text, "Passage:")
		var ents, rels []string
		words := strings.Fields(passage)
		for i := 0; i < min(3, len(words)); i++ {
			ents = append(ents, fmt.Sprintf(`{"name":%q,"type":"CONCEPT"}`, words[i]))
			if i > 0 {
				rels = append(rels, fmt.Sprintf(`{"from":%q,"to":%q,"type":"near"}`, words[i-1], words[i]))
			}
		}
		return fakellm.Reply{Delay: extractLatency, Text: `{"entities":[` + strings.Join(ents, ",") + `],"relationships":[` + strings.Join(rels, ",") + `]}`}
	}}
	srv := httptest.NewServer(fake.Handler())
	defer srv.Close()
	docs, err := ragDocs(filepath.Join(work, "graph"), chunks)
	if err != nil {
		return 0, 0, err
	}
	configDir := filepath.Join(work, "graph-config")
	if err := os.MkdirAll(filepath.Join(configDir, "rags"), 0o755); err != nil {
		return 0, 0, err
	}
	cfg := fmt.Sprintf("model: fake:chat\nclients:\n  - type: openai-compatible\n    name: fake\n    api_base: %s/v1\n    api_key: k\n    models:\n      - {name: chat}\n      - {name: embed, type: embedding, max_batch_size: 64}\n", srv.URL)
	if err := os.WriteFile(filepath.Join(configDir, "config.yaml"), []byte(cfg), 0o600); err != nil {
		return 0, 0, err
	}
	file := filepath.Join(configDir, "rags", "graph.yaml")
	text := fmt.Sprintf("driver: yaml\nembedding_model: fake:embed\nchunk_size: 500\nchunk_overlap: 0\ntop_k: 5\nextractor_model: fake:chat\ndocument_paths:\n- %s\n", docs)
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		return 0, 0, err
	}
	cmd := exec.Command(coyote, "--rag", "graph", "--rebuild-rag")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + work, "COYOTE_CONFIG_DIR=" + configDir, "COYOTE_CACHE_DIR=" + filepath.Join(configDir, "cache")}
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		return 0, 0, fmt.Errorf("index with an extractor: %w: %s", err, out)
	}
	took = time.Since(start)
	f, err := rag.Load(file)
	if err != nil {
		return 0, 0, err
	}
	n := 0
	for _, fe := range f.Files {
		n += len(fe.Documents)
	}
	if g, err := f.Graph(); err != nil || g.NodeCount() == 0 {
		return 0, 0, fmt.Errorf("the indexed RAG has no knowledge graph (%v)", err)
	}
	return float64(n) / took.Seconds(), took, nil
}

// graphLegBench is the median time of the graph leg of a query over a
// full graph (rag.MaxGraphNodes entities, three relationships each)
// whose entities are named by chunks chunks.
func graphLegBench(chunks, runs int) time.Duration {
	r := rand.New(rand.NewPCG(7, 11))
	g := &rag.Graph{}
	name := func(i int) string { return fmt.Sprintf("entity%d", i) }
	for c := range chunks {
		x := &rag.Extraction{}
		for range 3 {
			i := r.IntN(rag.MaxGraphNodes)
			x.Entities = append(x.Entities, struct {
				Name        string `json:"name"`
				Type        string `json:"type"`
				Description string `json:"description"`
			}{Name: name(i), Type: "CONCEPT"})
		}
		if c < rag.MaxGraphNodes*3 {
			x.Relationships = append(x.Relationships, struct {
				From   string   `json:"from"`
				To     string   `json:"to"`
				Type   string   `json:"type"`
				Weight *float64 `json:"weight"`
			}{From: x.Entities[0].Name, To: x.Entities[1].Name, Type: "near"})
		}
		g.Merge(fmt.Sprintf("%d-%d", c/10, c%10), x)
	}
	g.Cap(rag.MaxGraphNodes)
	g.Search("warm up entity1", 1, 5, nil)
	ds := make([]time.Duration, 0, runs)
	for i := range runs {
		q := fmt.Sprintf("what links %s and %s in the archive?", name(r.IntN(rag.MaxGraphNodes)), name(i%rag.MaxGraphNodes))
		start := time.Now()
		g.Search(q, 2, 5, nil)
		ds = append(ds, time.Since(start))
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}
