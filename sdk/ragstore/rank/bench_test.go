package rank

import (
	"fmt"
	"math/rand"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// benchVocabulary is a made-up vocabulary whose words are drawn with a
// Zipf law, as in real text: a few very common words, many rare ones.
func benchVocabulary(n int) []string {
	r := rand.New(rand.NewSource(1))
	words := make([]string, n)
	for i := range words {
		var b strings.Builder
		for l := 2 + r.Intn(8); l > 0; l-- {
			b.WriteByte(byte('a' + r.Intn(26)))
		}
		words[i] = b.String()
	}
	return words
}

// benchText writes about size bytes of prose: sentences, lines and
// paragraphs of Zipf-drawn words.
func benchText(r *rand.Rand, z *rand.Zipf, words []string, size int) string {
	var b strings.Builder
	b.Grow(size + 64)
	for b.Len() < size {
		b.WriteString(words[z.Uint64()])
		switch r.Intn(40) {
		case 0:
			b.WriteString(".\n\n")
		case 1, 2:
			b.WriteString(".\n")
		case 3, 4, 5:
			b.WriteString(". ")
		default:
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// benchCorpus makes n chunks of about 700 bytes (some 110 words).
func benchCorpus(n int) ([]Passage, []string) {
	words := benchVocabulary(30000)
	r := rand.New(rand.NewSource(2))
	z := rand.NewZipf(r, 1.1, 1, uint64(len(words)-1))
	ps := make([]Passage, n)
	for i := range ps {
		ps[i] = Passage{ID: ChunkID(i/10, i%10), Text: benchText(r, z, words, 700)}
	}
	// Queries mix common and rarer words, as a question does.
	var queries []string
	for i := 0; i < 64; i++ {
		queries = append(queries, fmt.Sprintf("%s %s %s %s %s", words[r.Intn(20)], words[r.Intn(300)], words[r.Intn(3000)], words[r.Intn(20000)], words[z.Uint64()]))
	}
	return ps, queries
}

func buildIndex(ps []Passage) *BM25 {
	x := NewBM25()
	for i := 0; i < len(ps); i += 10 {
		x.AddFile(strconv.Itoa(i/10), ps[i:min(i+10, len(ps))])
	}
	return x
}

func heapMB() float64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.HeapAlloc) / (1 << 20)
}

// BenchmarkBM25Search: one keyword search (top 10) of a five-word query.
// index-MB is the heap the index holds; build-s the time to build it.
func BenchmarkBM25Search(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("chunks=%d", n), func(b *testing.B) {
			ps, queries := benchCorpus(n)
			before := heapMB()
			start := time.Now()
			x := buildIndex(ps)
			build := time.Since(start)
			mb := heapMB() - before
			runtime.KeepAlive(ps)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if hits := x.Search(queries[i%len(queries)], 10); len(hits) == 0 {
					b.Fatal("no hits")
				}
			}
			b.StopTimer()
			b.ReportMetric(mb, "index-MB")
			b.ReportMetric(build.Seconds(), "build-s")
			runtime.KeepAlive(x)
		})
	}
}
