package duckdbstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coyote-cli/coyote/sdk/ragstore"
	"github.com/coyote-cli/coyote/sdk/ragstore/vecindex"
)

// Benchmarks on generated data: 384-dimensional vectors (as small
// embedding models give) and chunks of about 150 words drawn from a
// Zipf-distributed vocabulary of 20,000 words.
//
//	go test -run '^$' -bench . -benchtime 200x ./plugins/rag-duckdb/duckdbstore

const (
	benchDim   = 384
	benchBatch = 500 // chunks per upsert: ~1 MiB, under ragstore.MaxBatchBytes
)

func TestMain(m *testing.M) {
	code := m.Run()
	fixtures.Lock()
	for _, dir := range fixtures.dirs {
		_ = os.RemoveAll(dir)
	}
	fixtures.Unlock()
	os.Exit(code)
}

// genChunks makes n chunks of file f.
func genChunks(rng *rand.Rand, zipf *rand.Zipf, f, n int) []ragstore.Chunk {
	chunks := make([]ragstore.Chunk, n)
	for i := range chunks {
		vec := make([]float32, benchDim)
		for j := range vec {
			vec[j] = float32(rng.NormFloat64())
		}
		var b strings.Builder
		for w := range 100 + rng.IntN(100) {
			if w > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "w%d", zipf.Uint64())
		}
		chunks[i] = ragstore.Chunk{
			ID: fmt.Sprintf("%d-%d", f, i), FileID: fmt.Sprint(f), Text: b.String(),
			Metadata: map[string]string{"source": fmt.Sprintf("/docs/file%d.md", f)}, Vector: vec,
		}
	}
	return chunks
}

func newGen(seed uint64) (*rand.Rand, *rand.Zipf) {
	rng := rand.New(rand.NewPCG(seed, 1))
	return rng, rand.NewZipf(rng, 1.1, 2, 20000)
}

// fill upserts n chunks in batches (one file per batch) and rebuilds.
func fill(tb testing.TB, d *Driver, name string, n int) {
	rng, zipf := newGen(42)
	for f := 0; f*benchBatch < n; f++ {
		upsert(tb, d, name, genChunks(rng, zipf, f, min(benchBatch, n-f*benchBatch))...)
	}
	if err := d.Rebuild(context.Background(), &ragstore.RebuildRequest{Store: name, Full: true}); err != nil {
		tb.Fatal(err)
	}
}

// fixtures are stores of n chunks built once per run and shared by the
// benchmarks (read-only).
var fixtures = struct {
	sync.Mutex
	dirs map[int]string
}{dirs: map[int]string{}}

func fixture(b *testing.B, n int) string {
	fixtures.Lock()
	defer fixtures.Unlock()
	if dir, ok := fixtures.dirs[n]; ok {
		return dir
	}
	// DUCKDBSTORE_BENCH_DIR keeps the stores between runs.
	var dir string
	if keep := os.Getenv("DUCKDBSTORE_BENCH_DIR"); keep != "" {
		dir = filepath.Join(keep, fmt.Sprint(n))
		if _, err := os.Stat(filepath.Join(dir, "bench.duckdb")); err == nil {
			return dir
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
	} else {
		var err error
		if dir, err = os.MkdirTemp("", "duckdbstore-bench"); err != nil {
			b.Fatal(err)
		}
		fixtures.dirs[n] = dir
	}
	start := time.Now()
	d := New()
	open(b, d, dir, "bench", ragstore.ReadWrite, benchDim)
	fill(b, d, "bench", n)
	if err := d.CloseAll(); err != nil {
		b.Fatal(err)
	}
	b.Logf("built a store of %d chunks in %v", n, time.Since(start).Round(time.Millisecond))
	return dir
}

func queries(n int) [][]float32 {
	rng, _ := newGen(7)
	qs := make([][]float32, n)
	for i := range qs {
		qs[i] = make([]float32, benchDim)
		for j := range qs[i] {
			qs[i][j] = float32(rng.NormFloat64())
		}
	}
	return qs
}

// latency runs f b.N times and reports its p50 and p95 besides ns/op.
func latency(b *testing.B, f func(i int)) {
	var durs []time.Duration
	i := 0
	for b.Loop() {
		t := time.Now()
		f(i)
		durs = append(durs, time.Since(t))
		i++
	}
	slices.Sort(durs)
	b.ReportMetric(float64(durs[len(durs)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(durs[len(durs)*95/100].Microseconds())/1000, "p95-ms")
}

var sizes = []int{10_000, 100_000}

// BenchmarkUpsert indexes 10,000 chunks into a new store, in batches of
// 500, and rebuilds it.
func BenchmarkUpsert(b *testing.B) {
	const n = 10_000
	rng, zipf := newGen(1)
	var batches [][]ragstore.Chunk
	for f := 0; f*benchBatch < n; f++ {
		batches = append(batches, genChunks(rng, zipf, f, benchBatch))
	}
	var total time.Duration
	for b.Loop() {
		dir := b.TempDir()
		d := New()
		start := time.Now()
		open(b, d, dir, "bench", ragstore.ReadWrite, benchDim)
		for _, batch := range batches {
			upsert(b, d, "bench", batch...)
		}
		if err := d.Rebuild(context.Background(), &ragstore.RebuildRequest{Store: "bench", Full: true}); err != nil {
			b.Fatal(err)
		}
		total += time.Since(start)
		_ = d.CloseAll()
	}
	b.ReportMetric(float64(n*b.N)/total.Seconds(), "chunks/s")
}

func BenchmarkVectorSearch(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			dir := fixture(b, n)
			d := New()
			open(b, d, dir, "bench", ragstore.ReadOnly, benchDim)
			qs := queries(100)
			latency(b, func(i int) {
				_ = vsearch(b, d, "bench", 10, 0, qs[i%len(qs)]...)
			})
		})
	}
}

// benchVectors are the vectors fill stores in a fixture of n chunks,
// normalised, in one contiguous slice: what the store's index scans.
func benchVectors(n int) []float32 {
	rng, zipf := newGen(42)
	vecs := make([]float32, 0, n*benchDim)
	for f := 0; f*benchBatch < n; f++ {
		for _, c := range genChunks(rng, zipf, f, min(benchBatch, n-f*benchBatch)) {
			vecindex.Normalise(c.Vector)
			vecs = append(vecs, c.Vector...)
		}
	}
	return vecs
}

// BenchmarkRawScan is the floor for vector search: one pass over the same
// normalised vectors (a copy of its own, benchVectors) computing every
// score and keeping only the best, with a plain Go loop ("go") and with
// the assembly dot product search uses ("dot").
func BenchmarkRawScan(b *testing.B) {
	plain := func(q, v []float32) float32 {
		var sum float32
		for j, x := range q {
			sum += x * v[j]
		}
		return sum
	}
	for _, n := range sizes {
		vecs := benchVectors(n)
		for name, f := range map[string]func(q, v []float32) float32{"go": plain, "dot": vecindex.Dot} {
			b.Run(fmt.Sprintf("n=%d/%s", n, name), func(b *testing.B) {
				qs := queries(100)
				best := float32(-2)
				latency(b, func(i int) {
					q := qs[i%len(qs)]
					for r := 0; r+benchDim <= len(vecs); r += benchDim {
						best = max(best, f(q, vecs[r:r+benchDim]))
					}
				})
			})
		}
	}
}

// BenchmarkSQLCosine is DuckDB's own exact search, for comparison.
func BenchmarkSQLCosine(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			dir := fixture(b, n)
			d := New()
			// Without the read-only memory cap, so that DuckDB keeps the
			// vectors cached as it would on its own.
			if _, err := d.Open(context.Background(), &ragstore.OpenRequest{
				Store: "bench", Path: filepath.Join(dir, "bench.yaml"), Mode: ragstore.ReadOnly,
				DriverConfig: map[string]any{"memory_limit": "4GB"},
			}); err != nil {
				b.Fatal(err)
			}
			defer d.CloseAll()
			s, _ := d.get("bench")
			qs := queries(10)
			latency(b, func(i int) {
				rows, err := s.db.Query(fmt.Sprintf(`SELECT id FROM chunks
					ORDER BY array_cosine_similarity(embedding, $1::FLOAT[%d]) DESC LIMIT 10`, benchDim), qs[i%len(qs)])
				if err != nil {
					b.Fatal(err)
				}
				for rows.Next() {
				}
				rows.Close()
			})
		})
	}
}

func BenchmarkKeywordSearch(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			dir := fixture(b, n)
			d := New()
			open(b, d, dir, "bench", ragstore.ReadOnly, benchDim)
			rng, zipf := newGen(9)
			var qs []string
			for range 100 {
				// A question of 6 words, a mix of common and rare ones.
				var w []string
				for range 4 {
					w = append(w, fmt.Sprintf("w%d", zipf.Uint64()))
				}
				w = append(w, fmt.Sprintf("w%d", 100+rng.IntN(5000)), fmt.Sprintf("w%d", rng.IntN(20000)))
				qs = append(qs, strings.Join(w, " "))
			}
			latency(b, func(i int) {
				_ = ksearch(b, d, "bench", qs[i%len(qs)], 10)
			})
		})
	}
}

// BenchmarkKeywordSearchAfterOpen is a one-shot question's keyword leg:
// open the store read-only, one keyword search, close. Until a reader
// answered from the vector file, that search ran BM25 in SQL while the
// index in memory was being built.
func BenchmarkKeywordSearchAfterOpen(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			dir := fixture(b, n)
			_, zipf := newGen(9)
			var searched []time.Duration
			latency(b, func(int) {
				d := New()
				open(b, d, dir, "bench", ragstore.ReadOnly, benchDim)
				start := time.Now()
				_ = ksearch(b, d, "bench", fmt.Sprintf("w%d w%d w%d", zipf.Uint64(), zipf.Uint64(), zipf.Uint64()), 10)
				searched = append(searched, time.Since(start))
				_ = d.CloseAll()
			})
			slices.Sort(searched)
			b.ReportMetric(float64(searched[len(searched)/2].Microseconds())/1000, "search-p50-ms")
			b.ReportMetric(float64(searched[len(searched)*95/100].Microseconds())/1000, "search-p95-ms")
		})
	}
}

func BenchmarkFetchContent(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			dir := fixture(b, n)
			d := New()
			open(b, d, dir, "bench", ragstore.ReadOnly, benchDim)
			rng, _ := newGen(3)
			latency(b, func(int) {
				want := make([]string, 10)
				for j := range want {
					k := rng.IntN(n)
					want[j] = fmt.Sprintf("%d-%d", k/benchBatch, k%benchBatch)
				}
				if got := fetch(b, d, "bench", want...); len(got) != len(want) {
					b.Fatalf("fetched %d of %d", len(got), len(want))
				}
			})
		})
	}
}

// BenchmarkOpenReadOnly is the cost of opening a store for queries and
// reading every vector into memory (p50/p95); Open itself returns before
// the vectors are read ("open-p50-ms").
func BenchmarkOpenReadOnly(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			dir := fixture(b, n)
			var opened []time.Duration
			latency(b, func(int) {
				start := time.Now()
				d := New()
				if _, err := d.Open(context.Background(), &ragstore.OpenRequest{
					Store: "bench", Path: filepath.Join(dir, "bench.yaml"), Mode: ragstore.ReadOnly,
				}); err != nil {
					b.Fatal(err)
				}
				opened = append(opened, time.Since(start))
				s, _ := d.get("bench")
				if _, err := s.vectorsFor(context.Background()); err != nil {
					b.Fatal(err)
				}
				_ = d.CloseAll()
			})
			slices.Sort(opened)
			b.ReportMetric(float64(opened[len(opened)/2].Microseconds())/1000, "open-p50-ms")
		})
	}
}

// BenchmarkMemory reports the resident memory of a process that opened a
// store read-only, loaded its vectors and ran one search of each kind, as
// a query-only plugin process would (rss-MB now, hwm-MB at its peak).
func BenchmarkMemory(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			dir := fixture(b, n)
			var rss, hwm float64
			for b.Loop() {
				cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
				cmd.Env = append(os.Environ(), helperEnv+"=memory", "HELPER_DIR="+dir, "HELPER_STORE=bench")
				out, err := cmd.Output()
				if err != nil {
					b.Fatalf("%v: %s", err, out)
				}
				for _, l := range strings.Split(string(out), "\n") {
					var kb float64
					if _, err := fmt.Sscanf(l, "VmRSS: %g kB", &kb); err == nil {
						rss = kb / 1024
					}
					if _, err := fmt.Sscanf(l, "VmHWM: %g kB", &kb); err == nil {
						hwm = kb / 1024
					}
				}
			}
			b.ReportMetric(rss, "rss-MB")
			b.ReportMetric(hwm, "hwm-MB")
		})
	}
}
