package rag

import (
	"math"
	"reflect"
	"testing"

	"github.com/coyote-cli/coyote/sdk/ragstore"
)

func TestFuseAgainstHandComputedScores(t *testing.T) {
	// top_k 2, so k = 4. Vector ranking a, b, c (weight 1.125); keyword
	// ranking c, a, d (weight 1):
	//   a: 1.125/5 + 1/6 = 0.391667
	//   b: 1.125/6       = 0.1875
	//   c: 1.125/7 + 1/5 = 0.360714
	//   d: 1/7           = 0.142857
	vector := Ranking{IDs: []string{"a", "b", "c"}, Weight: VectorWeight}
	keyword := Ranking{IDs: []string{"c", "a", "d"}, Weight: KeywordWeight}
	got := Fuse(2, vector, keyword)
	want := []Fused{{"a", 0.391667}, {"c", 0.360714}}
	if len(got) != len(want) {
		t.Fatalf("Fuse = %v, want %v", got, want)
	}
	for i := range got {
		if got[i].ID != want[i].ID || math.Abs(got[i].Score-want[i].Score) > 1e-6 {
			t.Errorf("Fuse = %v, want %v", got, want)
		}
	}
	// top_k 4 (k = 8) ranks all four:
	//   a: 1.125/9 + 1/10 = 0.225, c: 1.125/11 + 1/9 = 0.213384,
	//   b: 1.125/10 = 0.1125, d: 1/11 = 0.090909
	if ids := fusedIDs(Fuse(4, vector, keyword)); !reflect.DeepEqual(ids, []string{"a", "c", "b", "d"}) {
		t.Errorf("top 4: %v", ids)
	}
}

func TestFuseBreaksTiesByFirstAppearance(t *testing.T) {
	// Equal weights, mirrored rankings: p and q both score 1/5 + 1/6.
	got := Fuse(2, Ranking{IDs: []string{"p", "q"}, Weight: 1}, Ranking{IDs: []string{"q", "p"}, Weight: 1})
	if ids := fusedIDs(got); !reflect.DeepEqual(ids, []string{"p", "q"}) || got[0].Score != got[1].Score {
		t.Errorf("tie: %v", got)
	}
	// Same rank, one list each: the heavier vector ranking wins; with the
	// same weight, the first list's chunk does.
	if ids := fusedIDs(Fuse(5, Ranking{IDs: []string{"k"}, Weight: KeywordWeight}, Ranking{IDs: []string{"v"}, Weight: VectorWeight})); !reflect.DeepEqual(ids, []string{"v", "k"}) {
		t.Errorf("weights: %v", ids)
	}
	for i := 0; i < 20; i++ { // and the same every time
		if ids := fusedIDs(Fuse(3, Ranking{IDs: []string{"x", "y", "z"}, Weight: 1}, Ranking{IDs: []string{"z", "y", "x"}, Weight: 1})); !reflect.DeepEqual(ids, []string{"x", "z", "y"}) {
			t.Fatalf("run %d: %v", i, ids)
		}
	}
}

func TestFuseCountsAChunkOncePerRanking(t *testing.T) {
	got := Fuse(1, Ranking{IDs: []string{"a", "a", "b"}, Weight: 1})
	// k = 2: a at rank 1 only: 1/3.
	if len(got) != 1 || got[0].ID != "a" || math.Abs(got[0].Score-1.0/3) > 1e-12 {
		t.Errorf("%v", got)
	}
	if got := Fuse(0, Ranking{IDs: []string{"a"}, Weight: 1}); got != nil {
		t.Errorf("top 0: %v", got)
	}
	if got := Fuse(3); got != nil {
		t.Errorf("no rankings: %v", got)
	}
}

func TestHitIDs(t *testing.T) {
	if got := HitIDs([]ragstore.Hit{{ID: "1-0", Score: 0.9}, {ID: "0-3", Score: -2}}); !reflect.DeepEqual(got, []string{"1-0", "0-3"}) {
		t.Errorf("%v", got)
	}
}

func fusedIDs(fs []Fused) []string {
	ids := make([]string, len(fs))
	for i, f := range fs {
		ids[i] = f.ID
	}
	return ids
}
