package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/coyote-cli/coyote/internal/fakellm"
	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/llm"
	"github.com/coyote-cli/coyote/kernel/models"
	"github.com/coyote-cli/coyote/kernel/plugins"
	"github.com/coyote-cli/coyote/kernel/rag"
	"github.com/coyote-cli/coyote/plugins/rag-duckdb/duckdbstore"
	"github.com/coyote-cli/coyote/sdk/ragstore"
)

// The RAG part's sizes and drivers: 10,000 and 100,000 chunks with every
// driver by default; -rag-million adds a run at 1,000,000 chunks (minutes
// of indexing and gigabytes of disk: not for CI) and -rag-drivers narrows
// the drivers.
var (
	ragMillion = flag.Bool("rag-million", false, "rag: also index and query 1,000,000 chunks (slow; not for CI)")
	ragDrivers = flag.String("rag-drivers", "duckdb,yaml", "rag: the drivers to measure, comma-separated")
	ragOnly    = flag.Int("rag-size", 0, "rag: measure only this many chunks (0: 10,000 and 100,000)")
)

// ragSizes are the corpus sizes the RAG part measures.
func ragSizes() []int {
	sizes := []int{10000, 100000}
	if *ragOnly > 0 {
		sizes = []int{*ragOnly}
	}
	if *ragMillion {
		sizes = append(sizes, 1000000)
	}
	return sizes
}

// ragDocs writes generated documents that split into about chunks chunks
// of ~400 bytes (chunk_size 500, one paragraph each) and returns their
// directory.
func ragDocs(dir string, chunks int) (string, error) {
	docs := filepath.Join(dir, fmt.Sprintf("docs-%d", chunks))
	if err := os.MkdirAll(docs, 0o755); err != nil {
		return "", err
	}
	words := strings.Fields("coyote desert river stone cloud signal archive lantern harbor meadow quartz violet ember prairie canyon orbit falcon cedar tundra glacier beacon summit willow thunder")
	rng := rand.New(rand.NewPCG(1, 2))
	const perFile = 20
	for f := 0; f*perFile < chunks; f++ {
		var b strings.Builder
		for p := 0; p < perFile; p++ {
			for w := 0; w < 60; w++ {
				b.WriteString(words[rng.IntN(len(words))])
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "doc%d para%d.\n\n", f, p)
		}
		if err := os.WriteFile(filepath.Join(docs, fmt.Sprintf("doc%05d.md", f)), []byte(b.String()), 0o644); err != nil {
			return "", err
		}
	}
	return docs, nil
}

// ragRow is one driver's RAG numbers.
type ragRow struct {
	driver        string
	chunks        int
	indexRate     float64 // chunks per second, coyote --rebuild-rag end to end
	p50, p95      time.Duration
	legs          ragLegs
	kernelRSS     int64 // KiB, of the --rebuild-rag run
	pluginRSS     int64 // KiB, of the store plugin in that run
	indexDuration time.Duration
	// oneShot is the median wall time of coyote --rag NAME "question"
	// (embed, search, chat reply from the fake) on the built RAG.
	oneShot time.Duration
}

// ragBench indexes the same generated documents with each driver through
// the real binaries (coyote --rag NAME --rebuild-rag against the fake
// embeddings server) and then measures queries the way a turn runs them
// (embed the question, vector and keyword legs, fusion, fetch), in this
// process through the plugin host.
func ragBench(coyote, bin, work string, chunks int, drivers []string, queries int) ([]ragRow, error) {
	fake := &fakellm.OpenAI{EmbedDims: 384, Models: []string{"chat", "embed"}}
	srv := httptest.NewServer(fake.Handler())
	defer srv.Close()
	docs, err := ragDocs(work, chunks)
	if err != nil {
		return nil, err
	}
	configDir := filepath.Join(work, fmt.Sprintf("rag-config-%d", chunks))
	ragsDir := filepath.Join(configDir, "rags")
	if err := os.MkdirAll(ragsDir, 0o755); err != nil {
		return nil, err
	}
	cfg := fmt.Sprintf("model: fake:chat\nclients:\n  - type: openai-compatible\n    name: fake\n    api_base: %s/v1\n    api_key: k\n    models:\n      - {name: chat}\n      - {name: embed, type: embedding, max_batch_size: 64}\n", srv.URL)
	if err := os.WriteFile(filepath.Join(configDir, "config.yaml"), []byte(cfg), 0o600); err != nil {
		return nil, err
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + work, "COYOTE_CONFIG_DIR=" + configDir, "COYOTE_CACHE_DIR=" + filepath.Join(configDir, "cache")}
	var rows []ragRow
	for _, d := range drivers {
		name := "bench-" + d
		file := filepath.Join(ragsDir, name+".yaml")
		text := fmt.Sprintf("driver: %s\nembedding_model: fake:embed\nchunk_size: 500\nchunk_overlap: 0\ntop_k: 5\nbatch_size: 64\ndocument_paths:\n- %s\n", d, docs)
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			return nil, err
		}
		for _, suffix := range []string{".duckdb", ".duckdb.wal", ".duckdb.vec"} {
			_ = os.Remove(filepath.Join(ragsDir, name+suffix))
		}
		start := time.Now()
		rss, children, err := probeRSS(env, coyote, "--rag", name, "--rebuild-rag")
		took := time.Since(start)
		if err != nil {
			return nil, fmt.Errorf("index with %s: %w", d, err)
		}
		var pluginRSS int64
		for name, kib := range children {
			// comm is cut at 15 bytes: coyote-rag-duck…
			if strings.HasPrefix(name, "coyote-rag-") {
				pluginRSS = kib
			}
		}
		f, err := rag.Load(file)
		if err != nil {
			return nil, err
		}
		n := 0
		for _, fe := range f.Files {
			n += len(fe.Documents)
		}
		row := ragRow{driver: d, chunks: n, indexRate: float64(n) / took.Seconds(), kernelRSS: rss, pluginRSS: pluginRSS, indexDuration: took}
		row.oneShot = median(3, func() time.Duration {
			c := exec.Command(coyote, "--rag", name, "what does the river stone archive hold")
			c.Env = env
			start := time.Now()
			if out, err := c.CombinedOutput(); err != nil {
				fmt.Fprintf(os.Stderr, "one-shot --rag %s: %v: %s\n", name, err, out)
			}
			return time.Since(start)
		})
		row.p50, row.p95, row.legs, err = ragQueries(bin, srv.URL+"/v1", f, name, queries)
		if err != nil {
			return nil, fmt.Errorf("query %s: %w", d, err)
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// ragLegs are the medians of a query's parts at the store: the vector
// search and the keyword ranking, each alone, and the floor of the vector
// leg, a plain Go scan over a float array of the same size in this
// process; and the first question's time from the store's Open on.
type ragLegs struct {
	vector, keyword, rawScan time.Duration
	first                    time.Duration
	// pluginRSS is the store plugin's peak RSS in KiB while it answered
	// (0 when not found).
	pluginRSS int64
	// recall is the store's recall@10 against an exact scan of the same
	// vectors, and top1 the share of questions whose best hit is the
	// exact scan's; -1 where the bench has no exact scan of the store.
	recall, top1 float64
}

// ragQueries runs queries as a turn does and returns p50 and p95, and the
// legs measured apart.
func ragQueries(bin, base string, f *rag.File, name string, queries int) (p50, p95 time.Duration, legs ragLegs, err error) {
	h := plugins.New(plugins.Options{Dirs: []string{filepath.Join(bin, "plugins")}})
	defer h.Close()
	ctx := context.Background()
	client := &config.Client{Name: "fake", Type: "openai-compatible", APIBase: base, APIKey: "k"}
	conn, err := llm.Connect(ctx, h, client)
	if err != nil {
		return 0, 0, legs, err
	}
	model := models.Model{Name: "embed", Type: models.TypeEmbedding, MaxBatchSize: 64}
	store, err := h.RagStore(f.Driver)
	if err != nil {
		return 0, 0, legs, err
	}
	opened := time.Now()
	resp, err := store.Open(ctx, &ragstore.OpenRequest{Store: name, Path: f.Path, Mode: ragstore.ReadOnly})
	if err != nil {
		return 0, 0, legs, err
	}
	r := &rag.RAG{Name: name, File: f, Store: store, Embed: func(ctx context.Context, texts []string, inputType string) ([][]float32, error) {
		return conn.Embed(ctx, model, texts, inputType)
	}}
	for _, c := range resp.Capabilities {
		if c == ragstore.CapKeywordSearch {
			r.Keyword = store
		}
	}
	words := []string{"coyote desert", "river stone archive", "lantern harbor", "quartz violet ember", "falcon cedar summit"}
	// The first question after Open, as a one-shot --rag asks it: the
	// store has just been opened and loads what it keeps in memory.
	if _, err := r.Search(ctx, "river stone warm up", 5); err != nil {
		return 0, 0, legs, err
	}
	legs.first = time.Since(opened)
	var ds, vs, ks []time.Duration
	for i := 0; i < queries; i++ {
		q := fmt.Sprintf("%s doc%d", words[i%len(words)], i)
		start := time.Now()
		if _, err := r.Search(ctx, q, 5); err != nil {
			return 0, 0, legs, err
		}
		ds = append(ds, time.Since(start))
	}
	vec, err := r.Embed(ctx, []string{"river stone archive"}, "query")
	if err != nil {
		return 0, 0, legs, err
	}
	for i := 0; i < queries; i++ {
		start := time.Now()
		if _, err := store.VectorSearch(ctx, &ragstore.VectorSearchRequest{Store: name, Vector: vec[0], TopK: 5}); err != nil {
			return 0, 0, legs, err
		}
		vs = append(vs, time.Since(start))
		if r.Keyword != nil {
			start = time.Now()
			if _, err := store.KeywordSearch(ctx, &ragstore.KeywordSearchRequest{Store: name, Query: words[i%len(words)], TopK: 5}); err != nil {
				return 0, 0, legs, err
			}
			ks = append(ks, time.Since(start))
		}
	}
	stats, err := store.Stats(ctx, &ragstore.StatsRequest{Store: name})
	if err != nil {
		return 0, 0, legs, err
	}
	legs.recall, legs.top1 = -1, -1
	if f.Driver == "duckdb" {
		qs := make([]string, 100)
		for i := range qs {
			qs[i] = fmt.Sprintf("%s question %d", words[i%len(words)], i)
		}
		qvecs, err := r.Embed(ctx, qs, "query")
		if err != nil {
			return 0, 0, legs, err
		}
		if legs.recall, legs.top1, err = duckdbRecall(ctx, store, name, f.Path, qvecs); err != nil {
			return 0, 0, legs, err
		}
	}
	legs.pluginRSS = childRSS("coyote-rag-")
	legs.vector, legs.keyword, legs.rawScan = mid(vs), mid(ks), rawScan(int(stats.Chunks), len(vec[0]), queries)
	slices.Sort(ds)
	return ds[len(ds)/2], ds[len(ds)*95/100], legs, nil
}

// duckdbRecall is the DuckDB store's recall@10, and how often its best hit
// is the exact one, against an exact scan of every vector in its file.
func duckdbRecall(ctx context.Context, store ragstore.Store, name, yamlPath string, queries [][]float32) (recall, top1 float64, err error) {
	exact, err := duckdbstore.ExactIndex(yamlPath)
	if err != nil {
		return 0, 0, fmt.Errorf("exact scan: %w", err)
	}
	const k = 10
	found, first := 0, 0
	for _, q := range queries {
		resp, err := store.VectorSearch(ctx, &ragstore.VectorSearchRequest{Store: name, Vector: q, TopK: k})
		if err != nil {
			return 0, 0, err
		}
		want := exact.Search(q, k, 0)
		for _, h := range resp.Hits {
			if slices.ContainsFunc(want, func(w ragstore.Hit) bool { return w.ID == h.ID }) {
				found++
			}
		}
		if len(want) > 0 && len(resp.Hits) > 0 && resp.Hits[0].ID == want[0].ID {
			first++
		}
	}
	return float64(found) / float64(k*len(queries)), float64(first) / float64(len(queries)), nil
}

// childRSS is the peak RSS in KiB of this process's child whose command
// name starts with prefix, 0 if there is none.
func childRSS(prefix string) int64 {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		open, end := strings.IndexByte(string(b), '('), strings.LastIndexByte(string(b), ')')
		if open < 0 || end < open {
			continue
		}
		fields := strings.Fields(string(b[end+1:]))
		if len(fields) < 2 || fields[1] != strconv.Itoa(os.Getpid()) || !strings.HasPrefix(string(b[open+1:end]), prefix) {
			continue
		}
		return vmHWM(pid)
	}
	return 0
}

// rawScan is the median time of a plain Go pass over n vectors of dim
// float32s, one dot product each, keeping the best five: the floor of an
// exact vector search.
func rawScan(n, dim, runs int) time.Duration {
	data := make([]float32, n*dim)
	for i := range data {
		data[i] = float32(i%97) / 97
	}
	q := make([]float32, dim)
	for i := range q {
		q[i] = float32(i%13) / 13
	}
	sink := float32(0)
	d := median(runs, func() time.Duration {
		start := time.Now()
		var best [5]float32
		for i := 0; i < n; i++ {
			v := data[i*dim : (i+1)*dim]
			s := float32(0)
			for j, x := range v {
				s += x * q[j]
			}
			if s > best[4] {
				best[4] = s
				for k := 4; k > 0 && best[k] > best[k-1]; k-- {
					best[k], best[k-1] = best[k-1], best[k]
				}
			}
		}
		sink += best[0]
		return time.Since(start)
	})
	if sink < 0 {
		fmt.Fprintln(os.Stderr, sink) // keeps the loop from being optimised away
	}
	return d
}

// mid is the median of measured durations (0 for none).
func mid(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	ds = slices.Clone(ds)
	slices.Sort(ds)
	return ds[len(ds)/2]
}
