package vecindex

import (
	"reflect"
	"testing"

	"github.com/coyote-cli/coyote/sdk/ragstore"
)

func TestSearchRanksByCosineAndSettlesTiesByID(t *testing.T) {
	ix := New(2)
	ix.Put("b", []float32{1, 0})
	ix.Put("a", []float32{2, 0}) // same direction as b: a tie, a wins
	ix.Put("c", []float32{1, 1})
	ix.Put("d", []float32{-1, 0})
	q := []float32{3, 0}
	Normalise(q)
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
			var got []string
			for _, h := range ix.Search(q, tc.k, tc.min) {
				got = append(got, h.ID)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
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
