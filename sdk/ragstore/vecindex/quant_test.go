package vecindex

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestDotInt8MatchesAPlainLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for n := range 200 {
		a, b := make([]int8, n), make([]int8, n+3)
		for i := range a {
			a[i] = int8(rng.IntN(255) - 127)
		}
		for i := range b {
			b[i] = int8(rng.IntN(255) - 127)
		}
		if n > 0 {
			a[0], b[0] = -128, -128 // the extreme, widened with its sign
		}
		var want int32
		for i := range a {
			want += int32(a[i]) * int32(b[i])
		}
		for name, f := range map[string]func(a, b []int8) int32{"DotInt8": DotInt8, "dotInt8Go": dotInt8Go} {
			if got := f(a, b); got != want {
				t.Errorf("%s of length %d = %d, want %d", name, n, got, want)
			}
		}
	}
}

func TestQuantiseCodesTheLargestAs127(t *testing.T) {
	for _, tc := range []struct {
		v     []float32
		codes []int8
		scale float32
	}{
		{[]float32{0.5, -1, 0.25}, []int8{64, -127, 32}, 1.0 / 127},
		{[]float32{0, 0}, []int8{0, 0}, 0},
		{[]float32{-2}, []int8{-127}, 2.0 / 127},
	} {
		codes := make([]int8, len(tc.v))
		scale := Quantise(tc.v, codes)
		if !slices.Equal(codes, tc.codes) || scale != tc.scale {
			t.Errorf("Quantise(%v) = %v × %v, want %v × %v", tc.v, codes, scale, tc.codes, tc.scale)
		}
	}
}

// quantised builds a Quantised index and an exact Index over the same
// vectors.
func quantised(t testing.TB, vecs [][]float32) (*Quantised, *Index) {
	dim := len(vecs[0])
	ix := New(dim)
	ids := make(Strings, len(vecs))
	codes := make([]int8, len(vecs)*dim)
	scales := make([]float32, len(vecs))
	exact := make([]float32, 0, len(vecs)*dim)
	for i, v := range vecs {
		ids[i] = fmt.Sprintf("%d-%d", i/7, i%7)
		ix.Put(ids[i], v)
		n := slices.Clone(v)
		Normalise(n)
		scales[i] = Quantise(n, codes[i*dim:(i+1)*dim])
		exact = append(exact, n...)
	}
	q, err := NewQuantised(dim, ids, codes, scales, Floats{dim, exact})
	if err != nil {
		t.Fatal(err)
	}
	return q, ix
}

// TestQuantisedSearchFindsWhatTheExactScanFinds: random vectors, whose
// best scores crowd together (the hard case for codes), above the
// parallel threshold; the hits, scores and order are the exact scan's.
func TestQuantisedSearchFindsWhatTheExactScanFinds(t *testing.T) {
	const dim = 96
	rng := rand.New(rand.NewPCG(7, 8))
	vecs := make([][]float32, parallelRows+3000)
	for i := range vecs {
		vecs[i] = make([]float32, dim)
		for j := range vecs[i] {
			vecs[i][j] = float32(rng.NormFloat64())
		}
	}
	// Duplicates tie: the smaller id must win as in the exact scan.
	vecs[100] = slices.Clone(vecs[5000])
	q, ix := quantised(t, vecs)
	for i := range 20 {
		query := slices.Clone(vecs[rng.IntN(len(vecs))])
		for j := range query {
			query[j] += float32(rng.NormFloat64()) * float32(i) / 10
		}
		for _, k := range []int{1, 10} {
			want := ix.Search(query, k, 0)
			if got, err := q.Search(query, k, 0); err != nil || !slices.Equal(got, want) {
				t.Fatalf("query %d k=%d: got %v\nwant %v", i, k, got, want)
			}
		}
	}
	got, _ := q.Search(vecs[5000], 2, 0)
	if want := ix.Search(vecs[5000], 2, 0); !slices.Equal(got, want) || want[0].ID != "14-2" {
		t.Fatalf("duplicates: got %v, want %v (14-2 first)", got, want)
	}
}

func TestQuantisedSearchKeepsIndexsEdges(t *testing.T) {
	q, ix := quantised(t, [][]float32{{1, 0}, {2, 0}, {1, 1}, {-1, 0}})
	for _, tc := range []struct {
		k   int
		min float32
	}{{0, 0}, {2, 0}, {10, 0}, {10, 0.5}} {
		want := ix.Search([]float32{3, 0}, tc.k, tc.min)
		if got, err := q.Search([]float32{3, 0}, tc.k, tc.min); err != nil || !slices.Equal(got, want) {
			t.Errorf("k=%d min=%v: got %v, want %v", tc.k, tc.min, got, want)
		}
	}
	if _, err := NewQuantised(2, Strings{"a"}, make([]int8, 2), nil, Floats{2, make([]float32, 2)}); err == nil {
		t.Error("NewQuantised took a missing scale")
	}
}
