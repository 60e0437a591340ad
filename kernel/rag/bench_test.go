package rag

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/sdk/ragstore/ragfile"
	"github.com/coyote-cli/coyote/sdk/ragstore/rank"
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

// BenchmarkSplit10MB: splitting 10 MB of prose into chunks of 1,000 bytes
// with 50 of overlap.
func BenchmarkSplit10MB(b *testing.B) {
	words := benchVocabulary(30000)
	r := rand.New(rand.NewSource(3))
	text := benchText(r, rand.NewZipf(r, 1.1, 1, uint64(len(words)-1)), words, 10<<20)
	for _, file := range []string{"notes.txt", "notes.md"} {
		b.Run(file, func(b *testing.B) {
			s := NewSplitter(1000, 50, file)
			b.SetBytes(int64(len(text)))
			var chunks int
			for i := 0; i < b.N; i++ {
				chunks = len(s.Spans(text))
			}
			b.ReportMetric(float64(chunks), "chunks")
		})
	}
}

// BenchmarkRAGFile: reading and writing a RAG file of 10,000 chunks of
// about 700 bytes with 384-dimension vectors (some 40 MB), whole and
// settings only.
func BenchmarkRAGFile(b *testing.B) {
	words := benchVocabulary(30000)
	zr := rand.New(rand.NewSource(2))
	z := rand.NewZipf(zr, 1.1, 1, uint64(len(words)-1))
	f := &File{Driver: "yaml", EmbeddingModel: "m", TopK: 5, ChunkSize: 1000, ChunkOverlap: 50, Files: map[int]FileEntry{}}
	r := rand.New(rand.NewSource(4))
	vecs := map[string][]float32{}
	for i := 0; i < 10_000; i += 10 {
		fe := FileEntry{Hash: "h", Path: fmt.Sprintf("/docs/%d.md", i/10)}
		for j := range 10 {
			fe.Documents = append(fe.Documents, Document{PageContent: benchText(zr, z, words, 700), Metadata: map[string]string{}})
			v := make([]float32, 384)
			for k := range v {
				v[k] = r.Float32()
			}
			vecs[rank.ChunkID(i/10, j)] = v
		}
		f.Files[i/10] = fe
	}
	settings, err := f.Marshal()
	if err != nil {
		b.Fatal(err)
	}
	// The yaml store's section, as it writes it.
	data, _ := ragfile.Replace(settings, "vectors", ragfile.AppendVectors(nil, vecs))
	b.Run("Parse", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for i := 0; i < b.N; i++ {
			if _, err := Parse("r.yaml", data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ParseSettings", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for i := 0; i < b.N; i++ {
			if _, err := parse("r.yaml", data, false); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Marshal", func(b *testing.B) {
		g, _ := Parse("r.yaml", data)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := g.Marshal(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
