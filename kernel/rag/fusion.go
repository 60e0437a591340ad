package rag

import (
	"slices"

	"github.com/coyote-cli/coyote/sdk/ragstore"
)

// Weights of the rankings in reciprocal rank fusion, as the original's.
const (
	VectorWeight  = 1.125
	KeywordWeight = 1.0
	GraphWeight   = 0.9
)

// Ranking is one ranked list of chunk ids, best first, and its weight in
// the fusion.
type Ranking struct {
	IDs    []string
	Weight float64
}

// Fused is a chunk id and its fused score.
type Fused struct {
	ID    string
	Score float64
}

// Fuse merges rankings by weighted reciprocal rank fusion, as the
// original: k = 2·topK, and a chunk at 1-based rank r of a ranking of
// weight w scores w/(k + r), summed over the rankings. It returns the topK
// best, best first; equal scores keep the order in which the chunks first
// appear (the first ranking, then the next), as the original's stable
// sort does. A chunk listed twice in one ranking counts once, at its best
// rank.
func Fuse(topK int, rankings ...Ranking) []Fused {
	if topK <= 0 {
		return nil
	}
	k := float64(2 * topK)
	index := map[string]int{}
	var out []Fused
	for _, r := range rankings {
		seen := make(map[string]bool, len(r.IDs))
		for i, id := range r.IDs {
			if seen[id] {
				continue
			}
			seen[id] = true
			s := r.Weight / (k + float64(i+1))
			if j, ok := index[id]; ok {
				out[j].Score += s
				continue
			}
			index[id] = len(out)
			out = append(out, Fused{ID: id, Score: s})
		}
	}
	// Stable: equal scores keep the order in which chunks first appeared.
	slices.SortStableFunc(out, func(a, b Fused) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return 0
	})
	if len(out) > topK {
		out = out[:topK]
	}
	return out
}

// HitIDs returns the ids of search hits, in order: a store's ranking as
// Fuse takes it.
func HitIDs(hits []ragstore.Hit) []string {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return ids
}
