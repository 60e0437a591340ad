package rank

import (
	"errors"
	"fmt"
	"sync"

	"github.com/coyote-cli/coyote/sdk/ragstore"
)

// IDs are the ids of an index's chunks, by number. The strings may point
// into memory the index does not own (a mapped file); Search copies the
// ids it returns.
type IDs interface {
	Len() int
	ID(doc int) string
}

// FrozenParts is a BM25 index laid out flat, as a store writes it to a
// file at the end of indexing and maps it again to answer at once: every
// slice may be a view of the mapping. Chunks are numbered 0..IDs.Len()-1.
type FrozenParts struct {
	IDs      IDs
	Lengths  []int32 // each chunk's number of terms (Tokenize's)
	TotalLen int64   // the sum of Lengths
	// Terms, sorted by bytes, one after another in TermBytes; term i is
	// TermBytes[TermEnds[i-1]:TermEnds[i]] (from 0 for the first).
	TermEnds  []uint32
	TermBytes string
	// Term i's postings are list Lists[i]: Postings[Starts[l]:Starts[l+1]],
	// in any order. Lists may be in another order than the terms (a
	// store's term numbers, say), so that they can be written as they
	// come.
	Lists    []uint32
	Starts   []uint64
	Postings []Posting
}

// FrozenBM25 is a read-only BM25 index over FrozenParts. It ranks and
// scores exactly as a BM25 holding the same chunks and postings does (the
// scoring is the same code), and is safe for concurrent use. It holds
// nothing of its own but the working memory of searches: a query reads
// only its terms' postings, so a mapped file's other pages stay on disk.
type FrozenBM25 struct {
	p       FrozenParts
	scratch sync.Pool // *scratch
}

// NewFrozenBM25 checks that the parts fit together (in time proportional
// to the number of terms, never of postings: a posting naming no chunk
// is skipped at search) and returns the index.
func NewFrozenBM25(p FrozenParts) (*FrozenBM25, error) {
	if p.IDs == nil {
		return nil, errors.New("frozen BM25: no ids")
	}
	n := p.IDs.Len()
	switch {
	case len(p.Lengths) != n:
		return nil, fmt.Errorf("frozen BM25: %d lengths for %d chunks", len(p.Lengths), n)
	case len(p.Lists) != len(p.TermEnds):
		return nil, fmt.Errorf("frozen BM25: %d lists for %d terms", len(p.Lists), len(p.TermEnds))
	case len(p.Starts) == 0:
		return nil, errors.New("frozen BM25: no list starts")
	case p.TotalLen < 0:
		return nil, fmt.Errorf("frozen BM25: total length %d", p.TotalLen)
	}
	prev := uint32(0)
	for i, e := range p.TermEnds {
		if e < prev || int(e) > len(p.TermBytes) {
			return nil, fmt.Errorf("frozen BM25: term %d ends at %d", i, e)
		}
		if i > 0 && p.term(i-1) >= p.term(i) {
			return nil, fmt.Errorf("frozen BM25: terms %d and %d out of order", i-1, i)
		}
		prev = e
	}
	lists := len(p.Starts) - 1
	for i, l := range p.Lists {
		if int(l) >= lists {
			return nil, fmt.Errorf("frozen BM25: term %d has list %d of %d", i, l, lists)
		}
	}
	for i := range lists {
		if p.Starts[i] > p.Starts[i+1] {
			return nil, fmt.Errorf("frozen BM25: list %d starts after the next", i)
		}
	}
	if p.Starts[0] != 0 || p.Starts[lists] != uint64(len(p.Postings)) {
		return nil, fmt.Errorf("frozen BM25: lists cover %d..%d of %d postings", p.Starts[0], p.Starts[lists], len(p.Postings))
	}
	x := &FrozenBM25{p: p}
	x.scratch.New = func() any { return new(scratch) }
	return x, nil
}

// term is term i of the sorted terms.
func (p *FrozenParts) term(i int) string {
	start := uint32(0)
	if i > 0 {
		start = p.TermEnds[i-1]
	}
	return p.TermBytes[start:p.TermEnds[i]]
}

// find returns the number of term t, by binary search.
func (x *FrozenBM25) find(t string) (int, bool) {
	lo, hi := 0, len(x.p.TermEnds)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if x.p.term(m) < t {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(x.p.TermEnds) && x.p.term(lo) == t
}

// Len is the number of chunks indexed.
func (x *FrozenBM25) Len() int { return len(x.p.Lengths) }

// Search returns the topK chunks that best match the words of query,
// best first (ties in chunk id order), as BM25.Search does.
func (x *FrozenBM25) Search(query string, topK int) []ragstore.Hit {
	if topK <= 0 || len(x.p.Lengths) == 0 {
		return nil
	}
	var seen []int
	var lists [][]Posting
	tokens(query, func(t []byte) {
		i, ok := x.find(string(t))
		if !ok {
			return
		}
		for _, s := range seen {
			if s == i {
				return
			}
		}
		seen = append(seen, i)
		l := x.p.Lists[i]
		lists = append(lists, x.p.Postings[x.p.Starts[l]:x.p.Starts[l+1]])
	})
	return score(x.p.Lengths, nil, frozenIDs{x.p.IDs}, &x.scratch, lists, len(x.p.Lengths), x.p.TotalLen, topK)
}

// frozenIDs is a FrozenBM25's ids.
type frozenIDs struct{ IDs }

func (f frozenIDs) id(doc int32) string { return f.ID(int(doc)) }
