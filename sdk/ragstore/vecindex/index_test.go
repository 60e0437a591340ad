package vecindex

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/sdk/ragstore"
)

func TestSearchRanksByCosineAndSettlesTiesByID(t *testing.T) {
	ix := New(2)
	ix.Put("b", []float32{1, 0})
	ix.Put("a", []float32{2, 0}) // same direction as b: a tie, a wins
	ix.Put("c", []float32{1, 1})
	ix.Put("d", []float32{-1, 0})
	q := []float32{3, 0} // Search normalises a copy
	for _, tc := range []struct {
		name string
		k    int
		min  float32
		want []string
	}{
		{"top two", 2, 0, []string{"a", "b"}},
		{"all", 10, 0, []string{"a", "b", "c", "d"}},
		{"a floor drops the opposite vector", 10, 0.5, []string{"a", "b", "c"}},
		{"none", 0, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hits := ix.Search(q, tc.k, tc.min)
			var got []string
			for _, h := range hits {
				got = append(got, h.ID)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			if len(hits) > 0 && math.Abs(float64(hits[0].Score)-1) > 1e-6 {
				t.Fatalf("best score %v, want the cosine 1", hits[0].Score)
			}
			if q[0] != 3 || q[1] != 0 {
				t.Fatalf("Search changed the query to %v", q)
			}
		})
	}
}

func TestPutReplacesAndRemoveMovesTheLastRow(t *testing.T) {
	ix := New(2)
	ix.Put("x", []float32{1, 0})
	ix.Put("y", []float32{0, 1})
	ix.Put("z", []float32{1, 1})
	ix.Put("x", []float32{0, 5}) // now points along y
	ix.Remove("y")
	ix.Remove("nope")
	if ix.Len() != 2 {
		t.Fatalf("len %d", ix.Len())
	}
	hits := ix.Search([]float32{0, 1}, 1, 0)
	if want := []ragstore.Hit{{ID: "x", Score: 1}}; !reflect.DeepEqual(hits, want) {
		t.Fatalf("hits %v, want %v", hits, want)
	}
}

// TestAParallelScanFindsWhatOneScanFinds: above parallelRows rows the scan
// is split; the hits are the same as a single pass gives, ties included.
func TestAParallelScanFindsWhatOneScanFinds(t *testing.T) {
	const dim = 8
	n := parallelRows + 1234
	ix := New(dim)
	for i := range n {
		v := make([]float32, dim)
		v[i%dim] = 1
		v[(i*7)%dim] += float32(i%5) / 10
		ix.Put(fmt.Sprintf("%06d", i), v)
	}
	q := []float32{1, 0.2, 0, 0, 0, 0, 0.1, 0}
	Normalise(q)
	got := ix.Search(q, 25, 0)
	one := ix.scan(q, 25, 0, 0, n)
	want := make(map[string]float32, len(one.items))
	for _, c := range one.items {
		want[ix.ids[c.row]] = c.score
	}
	if len(got) != 25 {
		t.Fatalf("%d hits", len(got))
	}
	for i, h := range got {
		if s, ok := want[h.ID]; !ok || s != h.Score {
			t.Fatalf("hit %d %+v is not among one scan's best", i, h)
		}
		if i > 0 && (got[i-1].Score < h.Score || got[i-1].Score == h.Score && got[i-1].ID > h.ID) {
			t.Fatalf("hits out of order at %d: %+v", i, got[i-1:i+1])
		}
	}
}

// TestSearchKeepsTheBestKOfAFullSort checks the top-k heap against sorting
// every row: vectors drawn from a few values, so that many scores tie.
func TestSearchKeepsTheBestKOfAFullSort(t *testing.T) {
	const dim, n = 4, 500
	rng := rand.New(rand.NewPCG(3, 4))
	ix := New(dim)
	for range n {
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(rng.IntN(3) - 1)
		}
		ix.Put(fmt.Sprintf("r%d", rng.IntN(10*n)), v)
	}
	q := []float32{1, 0.5, 0, -1}
	nq := slices.Clone(q)
	Normalise(nq)
	all := make([]ragstore.Hit, ix.Len())
	for r := range all {
		all[r] = ragstore.Hit{ID: ix.ids[r], Score: Dot(nq, ix.vecs[r*dim:(r+1)*dim])}
	}
	slices.SortFunc(all, func(a, b ragstore.Hit) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), strings.Compare(a.ID, b.ID))
	})
	for _, k := range []int{1, 2, 7, 50, ix.Len(), ix.Len() + 5} {
		want := all[:min(k, len(all))]
		if got := ix.Search(q, k, 0); !reflect.DeepEqual(got, want) {
			t.Fatalf("k=%d: got %v\nwant %v", k, got, want)
		}
	}
}
