package rank

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// freeze lays out the chunks of x as FrozenParts, in a fresh numbering
// without the removed ones, its lists in reverse term order (as a store's
// lists need not follow the terms').
func freeze(x *BM25) FrozenParts {
	x.mu.RLock()
	defer x.mu.RUnlock()
	renum, ids, lengths := x.renumber()
	terms := make([]string, 0, len(x.terms))
	for t := range x.terms {
		terms = append(terms, t)
	}
	slices.Sort(terms)
	p := FrozenParts{IDs: stringIDs(ids), Lengths: lengths, TotalLen: x.totalLen, Starts: []uint64{0}}
	var b strings.Builder
	for _, t := range terms {
		b.WriteString(t)
		p.TermEnds = append(p.TermEnds, uint32(b.Len()))
		p.Lists = append(p.Lists, uint32(len(terms)-1-len(p.Lists)))
	}
	p.TermBytes = b.String()
	for i := len(terms) - 1; i >= 0; i-- {
		ps := x.postings[x.terms[terms[i]]]
		// Postings in any order: reversed.
		for j := len(ps) - 1; j >= 0; j-- {
			if d := renum[ps[j].Doc]; d >= 0 {
				p.Postings = append(p.Postings, Posting{Doc: d, TF: ps[j].TF})
			}
		}
		p.Starts = append(p.Starts, uint64(len(p.Postings)))
	}
	return p
}

// stringIDs is ids held in a slice.
type stringIDs []string

func (s stringIDs) Len() int          { return len(s) }
func (s stringIDs) ID(doc int) string { return s[doc] }

// TestFrozenRanksExactlyAsBM25: over the same chunks, a FrozenBM25 gives
// the hits and scores (to the bit) that BM25 gives, ties included, and
// after files were removed from the BM25.
func TestFrozenRanksExactlyAsBM25(t *testing.T) {
	corpus, queries := benchCorpus(3000)
	removed := buildIndex(corpus)
	for f := 0; f < 300; f += 3 {
		removed.RemoveFile(fmt.Sprint(f))
	}
	compacted := buildIndex(corpus)
	for f := 0; f < 250; f++ {
		compacted.RemoveFile(fmt.Sprint(f))
	}
	ties := NewBM25()
	for _, f := range []int{11, 8, 10, 9, 100} {
		ties.AddFile(fmt.Sprint(f), []Passage{{ID: ChunkID(f, 0), Text: "apple pie"}, {ID: ChunkID(f, 1), Text: "Apple, pie!"}})
	}
	ties.AddFile("x", []Passage{{ID: "other", Text: "apple tart"}, {ID: "empty", Text: ""}})
	tieQueries := []string{"apple", "pie apple", "tart", "APPLE apple pie", "nothing", ""}
	for _, tc := range []struct {
		name    string
		idx     *BM25
		queries []string
	}{
		{"whole corpus", buildIndex(corpus), queries},
		{"a third of the files removed", removed, queries},
		{"most files removed, compacted", compacted, queries},
		{"ties and an empty chunk", ties, tieQueries},
		{"empty", NewBM25(), tieQueries},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frozen, err := NewFrozenBM25(freeze(tc.idx))
			if err != nil {
				t.Fatal(err)
			}
			if frozen.Len() != tc.idx.Len() {
				t.Fatalf("%d chunks frozen, %d in BM25", frozen.Len(), tc.idx.Len())
			}
			for _, q := range tc.queries {
				for _, k := range []int{0, 1, 3, 10, 100} {
					want, got := tc.idx.Search(q, k), frozen.Search(q, k)
					if !slices.Equal(got, want) {
						t.Fatalf("%q top %d:\nfrozen %v\nBM25   %v", q, k, got, want)
					}
				}
			}
		})
	}
}

// TestFrozenRefusesPartsThatDoNotFit: parts a damaged file would give are
// refused at NewFrozenBM25, and postings naming no chunk are skipped,
// never a panic.
func TestFrozenRefusesPartsThatDoNotFit(t *testing.T) {
	good := func() FrozenParts {
		x := NewBM25()
		x.AddFile("1", []Passage{{ID: "1-0", Text: "apple pie"}, {ID: "1-1", Text: "pie tart"}})
		return freeze(x)
	}
	for _, tc := range []struct {
		name  string
		spoil func(p *FrozenParts)
	}{
		{"no ids", func(p *FrozenParts) { p.IDs = nil }},
		{"a length short", func(p *FrozenParts) { p.Lengths = p.Lengths[:1] }},
		{"a list short", func(p *FrozenParts) { p.Lists = p.Lists[:1] }},
		{"no starts", func(p *FrozenParts) { p.Starts = nil }},
		{"a term past the bytes", func(p *FrozenParts) { p.TermEnds[2] = 99 }},
		{"terms out of order", func(p *FrozenParts) { p.TermEnds[0], p.TermBytes = 3, "pieappletart" }},
		{"a list that is not there", func(p *FrozenParts) { p.Lists[1] = 7 }},
		{"lists backwards", func(p *FrozenParts) { p.Starts[1], p.Starts[2] = p.Starts[2], p.Starts[1] }},
		{"lists past the postings", func(p *FrozenParts) { p.Postings = p.Postings[:3] }},
		{"a negative total", func(p *FrozenParts) { p.TotalLen = -1 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := good()
			tc.spoil(&p)
			if _, err := NewFrozenBM25(p); err == nil {
				t.Fatal("accepted")
			}
		})
	}
	p := good()
	for i := range p.Postings {
		p.Postings[i].Doc = int32(100 + i)
	}
	x, err := NewFrozenBM25(p)
	if err != nil {
		t.Fatal(err)
	}
	if hits := x.Search("apple pie tart", 5); len(hits) != 0 {
		t.Fatalf("postings naming no chunk gave %v", hits)
	}
}

// BenchmarkFrozenSearch: BenchmarkBM25Search's search from a FrozenBM25.
func BenchmarkFrozenSearch(b *testing.B) {
	corpus, queries := benchCorpus(100000)
	x, err := NewFrozenBM25(freeze(buildIndex(corpus)))
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		x.Search(queries[i%len(queries)], 10)
	}
}
