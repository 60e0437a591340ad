package jsonscan

import (
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"testing"
)

// vectorsJSON is an array of 64 vectors of 384 values, the size of the
// benchmarked embeddings call, each value written as a float32's shortest
// form and followed, but for the last, by sep.
func vectorsJSON(value func(i, j int) float32, sep string) []byte {
	b := []byte("[")
	for i := range 64 {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		for j := range 384 {
			if j > 0 {
				b = append(b, sep...)
			}
			b = strconv.AppendFloat(b, float64(value(i, j)), 'g', -1, 32)
		}
		b = append(b, ']')
	}
	return append(b, ']')
}

// The values of the benchmarks: normally distributed like the components
// of a unit vector of 384 dimensions, and the evenly spaced ones of
// internal/fakellm's Gemini.
var (
	normal = func() func(i, j int) float32 {
		rnd := rand.New(rand.NewPCG(5, 6))
		return func(int, int) float32 { return float32(rnd.NormFloat64() / 20) }
	}
	even = func() func(i, j int) float32 {
		return func(i, j int) float32 { return float32(j-192) / float32(997+i) }
	}
)

var vectorCases = []struct {
	name   string
	values func() func(i, j int) float32
	sep    string
}{
	{"normal", normal, ","},
	{"normal-spaced", normal, ", "},
	{"normal-indented", normal, ",\n      "}, // as OpenAI's API writes them
	{"even", even, ","},
}

// BenchmarkFloats reads 64 vectors of 384 values with Floats.
func BenchmarkFloats(b *testing.B) {
	for _, c := range vectorCases {
		data := vectorsJSON(c.values(), c.sep)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			vectors := make([][]float32, 0, 64)
			for b.Loop() {
				vectors = vectors[:0]
				s := New(data)
				err := s.Array(func() error {
					v, err := s.Floats(make([]float32, 0, 384))
					vectors = append(vectors, v)
					return err
				})
				if err != nil || len(vectors) != 64 || len(vectors[63]) != 384 {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*64*384)/b.Elapsed().Seconds()/1e6, "Mnumbers/s")
		})
	}
}

// BenchmarkFloatsEncodingJSON reads the same with encoding/json, the
// reason for this package.
func BenchmarkFloatsEncodingJSON(b *testing.B) {
	for _, c := range vectorCases[:1] {
		data := vectorsJSON(c.values(), c.sep)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				var vectors [][]float32
				if err := json.Unmarshal(data, &vectors); err != nil || len(vectors) != 64 {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*64*384)/b.Elapsed().Seconds()/1e6, "Mnumbers/s")
		})
	}
}

// numbers returns n numbers written as shortest float32s.
func numbers(n int) [][]byte {
	values := normal()
	out := make([][]byte, n)
	for i := range out {
		out[i] = strconv.AppendFloat(nil, float64(values(0, i)), 'g', -1, 32)
	}
	return out
}

// BenchmarkFloat32 reads one number at a time, against strconv.
func BenchmarkFloat32(b *testing.B) {
	nums := numbers(1024)
	b.Run("Float32", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, err := New(nums[i%len(nums)]).Float32(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("strconv", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, err := strconv.ParseFloat(string(nums[i%len(nums)]), 32); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkSkip passes over the members of an embeddings reply that
// surround the numbers.
func BenchmarkSkip(b *testing.B) {
	data := []byte(`{"object":"embedding","index":12,"usage":{"prompt_tokens":12,"total_tokens":12},"model":"text-embedding-3-small","tags":["a","b\n",true,null,-1.5e3]}`)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		s := New(data)
		if _, err := s.Skip(); err != nil {
			b.Fatal(err)
		}
	}
}
