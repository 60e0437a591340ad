package duckdbstore

import (
	"cmp"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"unsafe"

	"github.com/duckdb/duckdb-go/v2/mapping"

	"github.com/coyote-cli/coyote/sdk/ragstore/rank"
)

// The keyword part of the vector file (see vecfile.go) is the store's
// BM25 index laid out for rank.FrozenBM25, which a reader maps at Open
// and answers from at once, ranking as rank.BM25 does.
//
// Writing it never holds every posting in memory (a million chunks have
// some hundred million): the postings (blobRows) are read once to count
// each term's, which places every list in the file, and then again a
// range of term numbers at a time, each range's postings (at most
// kwWriteBudget of them, unless one term alone has more) gathered in
// place and written in one piece. Lists are in term-number order, so a
// range is one stretch of the file.

// kwWriteBudget is how many postings (8 bytes each) a write gathers at a
// time.
var kwWriteBudget uint64 = 1 << 22

// postingSource calls fn with each posting (vector file row, term number,
// count) whose term number is in [lo, hi), in any order.
type postingSource func(lo, hi int32, fn func(row, tid, tf int32)) error

// blobRows is the postings of the chunks rowOf numbers, from the term
// counts on their rows (terms.go); each call reads every chunk's blob
// (about 25 MB at 100,000 chunks) and keeps the terms in [lo, hi).
func blobRows(r *rawConn, rowOf *keyRows) postingSource {
	return func(lo, hi int32, fn func(row, tid, tf int32)) error {
		var bad error
		err := r.stream("SELECT key, terms FROM chunks", nil, func(ch mapping.DataChunk, n int) {
			keys, blobs := column[int64](ch, 0, n), column[mapping.StringT](ch, 1, n)
			for i := range n {
				row := rowOf.get(keys[i])
				if row < 0 || bad != nil {
					continue
				}
				blob := mapping.StringTData(&blobs[i])
				err := eachTerm(unsafe.Slice(unsafe.StringData(blob), len(blob)), func(tid, tf int32) {
					if tid >= lo && tid < hi {
						fn(row, tid, tf)
					}
				})
				if err != nil {
					bad = fmt.Errorf("chunk %d: %w", keys[i], err)
				}
			}
		})
		if err != nil {
			return err
		}
		return bad
	}
}

// kwPlan is where the keyword part's lists go, from the vocabulary and
// the count of each term's postings.
type kwPlan struct {
	sizes kwSizes
	// By term number (tid): its list, -1 for a term with no postings;
	// and, while writing, where its next posting goes.
	list []int32
	next []uint64
	// starts of the lists, in list (term-number) order, and the terms'
	// text sorted with their lists.
	starts   []uint64
	termEnds []uint32
	lists    []uint32
	text     string
}

// planKeywords reads the vocabulary and counts each term's postings.
func (s *store) planKeywords(postings postingSource) (*kwPlan, error) {
	type term struct {
		text string
		tid  int32
	}
	var vocab []term
	maxTID := int32(-1)
	err := s.raw.stream("SELECT tid, term FROM vocab", nil, func(ch mapping.DataChunk, n int) {
		tids, texts := column[int32](ch, 0, n), column[mapping.StringT](ch, 1, n)
		for i := range n {
			if tids[i] >= 0 {
				vocab = append(vocab, term{strings.Clone(mapping.StringTData(&texts[i])), tids[i]})
				maxTID = max(maxTID, tids[i])
			}
		}
	})
	if err != nil {
		return nil, err
	}
	p := &kwPlan{list: make([]int32, maxTID+1), next: make([]uint64, maxTID+1)}
	for i := range p.list {
		p.list[i] = -1
	}
	for _, t := range vocab {
		p.list[t.tid] = 0 // known; numbered below if it has postings
	}
	counts := p.next
	err = postings(0, int32(len(p.list)), func(_, tid, _ int32) {
		if p.list[tid] >= 0 {
			counts[tid]++
		}
	})
	if err != nil {
		return nil, err
	}
	// Lists in term-number order; counts become each term's first place.
	p.starts = []uint64{0}
	for tid, c := range counts {
		if c == 0 || p.list[tid] < 0 {
			p.list[tid] = -1
			continue
		}
		p.list[tid] = int32(len(p.starts) - 1)
		counts[tid] = p.starts[len(p.starts)-1]
		p.starts = append(p.starts, counts[tid]+c)
	}
	vocab = slices.DeleteFunc(vocab, func(t term) bool { return p.list[t.tid] < 0 })
	slices.SortFunc(vocab, func(a, b term) int { return cmp.Compare(a.text, b.text) })
	var b strings.Builder
	for i, t := range vocab {
		if i > 0 && vocab[i-1].text == t.text {
			return nil, fmt.Errorf("term %q numbered twice in vocab", t.text)
		}
		b.WriteString(t.text)
		if b.Len() > math.MaxUint32 {
			return nil, fmt.Errorf("terms of more than %d bytes", uint32(math.MaxUint32))
		}
		p.termEnds = append(p.termEnds, uint32(b.Len()))
		p.lists = append(p.lists, uint32(p.list[t.tid]))
	}
	p.text = b.String()
	p.sizes = kwSizes{terms: len(vocab), termBytes: len(p.text), postings: int(p.starts[len(p.starts)-1])}
	if len(p.starts) != len(vocab)+1 {
		return nil, fmt.Errorf("%d lists for %d terms", len(p.starts)-1, len(vocab))
	}
	return p, nil
}

// write writes the keyword part to f at l: the postings a range of term
// numbers at a time (see kwWriteBudget), then the tables.
func (p *kwPlan) write(postings postingSource, f *os.File, l vecLayout) error {
	var buf []rank.Posting
	for lo := 0; lo < len(p.list); {
		// The range [lo, hi): as many terms as fit the budget, at least one.
		hi, first, last := lo, uint64(0), uint64(0)
		for ; hi < len(p.list); hi++ {
			li := p.list[hi]
			if li < 0 {
				continue
			}
			if last == first {
				first = p.starts[li]
			} else if p.starts[li+1]-first > kwWriteBudget {
				break
			}
			last = p.starts[li+1]
		}
		if last > first {
			if err := p.writeRange(postings, f, l, lo, hi, first, last, &buf); err != nil {
				return err
			}
		}
		lo = hi
	}
	for _, w := range []struct {
		b   []byte
		off int
	}{
		{bytesOf(p.termEnds), l.termEnds},
		{bytesOf(p.lists), l.lists},
		{bytesOf(p.starts), l.starts},
		{unsafe.Slice(unsafe.StringData(p.text), len(p.text)), l.termText},
	} {
		if _, err := f.WriteAt(w.b, int64(w.off)); err != nil {
			return err
		}
	}
	return nil
}

// writeRange writes the postings of terms [lo, hi), which go to
// [first, last) of the postings.
func (p *kwPlan) writeRange(postings postingSource, f *os.File, l vecLayout, lo, hi int, first, last uint64, buf *[]rank.Posting) error {
	n := int(last - first)
	if cap(*buf) < n {
		*buf = make([]rank.Posting, n)
	}
	b := (*buf)[:n]
	var werr error
	err := postings(int32(lo), int32(hi), func(row, t, tf int32) {
		li := p.list[t]
		if li < 0 || werr != nil {
			return
		}
		at := p.next[t]
		if at >= p.starts[li+1] {
			werr = fmt.Errorf("term %d has more postings than counted", t)
			return
		}
		p.next[t]++
		b[at-first] = rank.Posting{Doc: row, TF: tf}
	})
	if err == nil {
		err = werr
	}
	if err != nil {
		return err
	}
	for t := lo; t < hi; t++ {
		if li := p.list[t]; li >= 0 && p.next[t] != p.starts[li+1] {
			return fmt.Errorf("term %d has fewer postings than counted", t)
		}
	}
	_, err = f.WriteAt(bytesOf(b), int64(l.postings)+8*int64(first))
	return err
}

// keywords returns the keyword index of the file: views of its mapping,
// checked (rank.NewFrozenBM25) but not copied.
func (v *vecFile) keywords(ids rank.IDs) (*rank.FrozenBM25, error) {
	l := v.l
	x, err := rank.NewFrozenBM25(rank.FrozenParts{
		IDs:       ids,
		Lengths:   sliceOf[int32](v.mapped[l.lengths:], l.rows),
		TotalLen:  l.totalLen,
		TermEnds:  sliceOf[uint32](v.mapped[l.termEnds:], l.kw.terms),
		TermBytes: unsafe.String(unsafe.SliceData(v.mapped[l.termText:]), l.kw.termBytes),
		Lists:     sliceOf[uint32](v.mapped[l.lists:], l.kw.terms),
		Starts:    sliceOf[uint64](v.mapped[l.starts:], l.kw.terms+1),
		Postings:  sliceOf[rank.Posting](v.mapped[l.postings:], l.kw.postings),
	})
	if err != nil {
		return nil, fmt.Errorf("vector file keywords: %w: %w", err, errStaleVecFile)
	}
	return x, nil
}

// keyRows numbers chunks by key: a vector file's rows, an index's
// documents. Keys only grow, so they are as many as the keys ever given
// (replaced chunks leave gaps): an array while the gaps are few, a map
// once they outnumber the chunks.
type keyRows struct {
	dense  []int32
	sparse map[int64]int32
}

func newKeyRows(maxKey, chunks int) *keyRows {
	if maxKey <= 2*chunks+1024 {
		k := &keyRows{dense: make([]int32, maxKey+1)}
		for i := range k.dense {
			k.dense[i] = -1
		}
		return k
	}
	return &keyRows{sparse: make(map[int64]int32, chunks)}
}

// set numbers key.
func (k *keyRows) set(key int64, n int32) {
	if k.dense == nil {
		k.sparse[key] = n
	} else if key >= 0 && key < int64(len(k.dense)) {
		k.dense[key] = n
	}
}

// get returns key's number, -1 for none.
func (k *keyRows) get(key int64) int32 {
	if k.dense == nil {
		if n, ok := k.sparse[key]; ok {
			return n
		}
		return -1
	}
	if key < 0 || key >= int64(len(k.dense)) {
		return -1
	}
	return k.dense[key]
}
