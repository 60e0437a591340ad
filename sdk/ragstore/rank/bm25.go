package rank

import (
	"container/heap"
	"math"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/coyote-cli/coyote/sdk/ragstore"
)

// BM25 parameters: the values the original program ranks keywords with.
const (
	BM25K1 = 1.5
	BM25B  = 0.75
)

// Tokenize splits text into lower-case words: runs of Unicode letters and
// digits. It is the tokenizer of BM25, so a store that builds its own
// keyword index (a full-text index in a database, say) and tokenizes the
// same way ranks as the kernel does.
func Tokenize(text string) []string {
	var out []string
	tokens(text, func(t []byte) { out = append(out, string(t)) })
	return out
}

// tokens calls fn with each lower-cased word of text; fn must not keep
// the slice.
func tokens(text string, fn func([]byte)) {
	var buf []byte
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			switch {
			case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
				buf = append(buf, c)
			case c >= 'A' && c <= 'Z':
				buf = append(buf, c+('a'-'A'))
			default:
				if len(buf) > 0 {
					fn(buf)
					buf = buf[:0]
				}
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		i += n
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			buf = utf8.AppendRune(buf, unicode.ToLower(r))
			continue
		}
		if len(buf) > 0 {
			fn(buf)
			buf = buf[:0]
		}
	}
	if len(buf) > 0 {
		fn(buf)
	}
}

// Passage is a chunk given to the keyword index: its id and its text.
type Passage struct {
	ID   string
	Text string
}

// BM25 is an in-memory keyword index over chunks (Okapi BM25 with
// k1 = 1.5 and b = 0.75, and the idf that is never negative,
// ln(1 + (N − n + 0.5)/(n + 0.5))). Chunks are added and removed a file at
// a time. It is safe for concurrent use. The zero value is not usable:
// call NewBM25.
type BM25 struct {
	mu       sync.RWMutex
	terms    map[string]int32 // term → its postings
	postings [][]Posting
	// Each chunk by its number: its id, its length and whether it is
	// still there (removed chunks stay until a compaction).
	ids      []string
	lengths  []int32
	live     []bool
	files    map[string][]int32 // file id → its docs
	alive    int
	totalLen int64
	dead     int
	scratch  sync.Pool // *scratch
}

// scratch is the working memory of a search, kept between searches.
type scratch struct {
	scores  []float64 // by doc; all 0 between searches
	touched []int32   // the docs scored
}

// Posting is one entry of a term's postings: a chunk, by its number in
// the index, and how many times the term occurs in it. Its layout (two
// little-endian int32s on the machines Coyote runs on) is what a file
// mapped for FrozenBM25 holds.
type Posting struct {
	Doc, TF int32
}

// addDoc numbers a new chunk.
func (x *BM25) addDoc(id string, length int32) int32 {
	doc := int32(len(x.ids))
	x.ids = append(x.ids, id)
	x.lengths = append(x.lengths, length)
	x.live = append(x.live, true)
	x.alive++
	x.totalLen += int64(length)
	return doc
}

// NewBM25 returns an empty index.
func NewBM25() *BM25 {
	x := &BM25{terms: map[string]int32{}, files: map[string][]int32{}}
	x.scratch.New = func() any { return new(scratch) }
	return x
}

// Len is the number of chunks indexed.
func (x *BM25) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.alive
}

// AddFile indexes the chunks of a file, replacing any it had.
func (x *BM25) AddFile(fileID string, chunks []Passage) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.removeFile(fileID)
	counts := map[int32]int32{}
	ids := make([]int32, 0, len(chunks))
	for _, c := range chunks {
		clear(counts)
		var length int32
		tokens(c.Text, func(t []byte) {
			term, ok := x.terms[string(t)]
			if !ok {
				term = int32(len(x.postings))
				x.terms[string(t)] = term
				x.postings = append(x.postings, nil)
			}
			counts[term]++
			length++
		})
		doc := x.addDoc(c.ID, length)
		for term, tf := range counts {
			x.postings[term] = append(x.postings[term], Posting{Doc: doc, TF: tf})
		}
		ids = append(ids, doc)
	}
	if len(ids) > 0 {
		x.files[fileID] = ids
	}
}

// RemoveFile drops the chunks of a file.
func (x *BM25) RemoveFile(fileID string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.removeFile(fileID)
}

func (x *BM25) removeFile(fileID string) {
	ids, ok := x.files[fileID]
	if !ok {
		return
	}
	delete(x.files, fileID)
	for _, d := range ids {
		x.live[d] = false
		x.alive--
		x.totalLen -= int64(x.lengths[d])
		x.dead++
	}
	if x.dead > 1024 && x.dead > x.alive {
		x.compact()
	}
}

// renumber numbers the chunks still there from 0, in their order, and
// returns their ids and lengths so numbered and, for each old number, the
// new one (-1 for a removed chunk).
func (x *BM25) renumber() (renum []int32, ids []string, lengths []int32) {
	renum = make([]int32, len(x.ids))
	ids = make([]string, 0, x.alive)
	lengths = make([]int32, 0, x.alive)
	for i, id := range x.ids {
		renum[i] = -1
		if x.live[i] {
			renum[i] = int32(len(ids))
			ids = append(ids, id)
			lengths = append(lengths, x.lengths[i])
		}
	}
	return renum, ids, lengths
}

// compact drops removed chunks from the postings and renumbers the rest.
func (x *BM25) compact() {
	renum, ids, lengths := x.renumber()
	for t, ps := range x.postings {
		kept := ps[:0]
		for _, p := range ps {
			if n := renum[p.Doc]; n >= 0 {
				kept = append(kept, Posting{Doc: n, TF: p.TF})
			}
		}
		x.postings[t] = kept
	}
	for f, ids := range x.files {
		for i, d := range ids {
			ids[i] = renum[d]
		}
		x.files[f] = ids
	}
	x.ids, x.lengths, x.dead = ids, lengths, 0
	x.live = make([]bool, len(ids))
	for i := range x.live {
		x.live[i] = true
	}
}

// Search returns the topK chunks that best match the words of query,
// best first (ties in chunk id order). Chunks sharing no word with it are
// not returned.
func (x *BM25) Search(query string, topK int) []ragstore.Hit {
	if topK <= 0 {
		return nil
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.alive == 0 {
		return nil
	}
	seen := map[int32]bool{}
	var lists [][]Posting
	tokens(query, func(t []byte) {
		if term, ok := x.terms[string(t)]; ok && !seen[term] {
			seen[term] = true
			lists = append(lists, x.postings[term])
		}
	})
	var live []bool
	if x.dead > 0 { // postings may hold removed chunks until a compaction
		live = x.live
	}
	return score(x.lengths, live, memIDs(x.ids), &x.scratch, lists, x.alive, x.totalLen, topK)
}

// chunkIDs gives the id of a chunk by its number.
type chunkIDs interface {
	id(doc int32) string
}

// memIDs is BM25's ids.
type memIDs []string

func (m memIDs) id(doc int32) string { return m[doc] }

// score is BM25, for BM25 and FrozenBM25 alike: it ranks the chunks for
// a query whose known terms' postings are lists (each term once, in the
// query's order) and returns the best topK, best first, ties in chunk id
// order. lengths are the chunks' lengths by number, n how many chunks
// there are and totalLen the sum of their lengths. live, unless nil, says
// which chunks are still there: postings of the others count for nothing.
// Postings naming a chunk past lengths are skipped.
func score(lengths []int32, live []bool, ids chunkIDs, pool *sync.Pool, lists [][]Posting, n int, totalLen int64, topK int) []ragstore.Hit {
	if topK <= 0 || n <= 0 || len(lists) == 0 {
		return nil
	}
	nf := float64(n)
	avgdl := float64(totalLen) / nf
	if avgdl == 0 {
		avgdl = 1
	}
	// K = k1·(1 − b + b·dl/avgdl) = c1 + c2·dl
	c1, c2 := BM25K1*(1-BM25B), BM25K1*BM25B/avgdl
	size := len(lengths)
	if live != nil && len(live) < size {
		size = len(live)
	}
	sc := pool.Get().(*scratch)
	if len(sc.scores) < size {
		sc.scores = make([]float64, size)
	}
	scores, touched := sc.scores, sc.touched[:0]
	for _, ps := range lists {
		df := len(ps)
		if live != nil {
			df = 0
			for _, p := range ps {
				if uint(p.Doc) < uint(size) && live[p.Doc] {
					df++
				}
			}
		}
		if df == 0 {
			continue
		}
		idf := math.Log(1 + (nf-float64(df)+0.5)/(float64(df)+0.5))
		for _, p := range ps {
			if uint(p.Doc) >= uint(size) || live != nil && !live[p.Doc] {
				continue
			}
			tf := float64(p.TF)
			if scores[p.Doc] == 0 {
				touched = append(touched, p.Doc)
			}
			scores[p.Doc] += idf * tf * (BM25K1 + 1) / (tf + c1 + c2*float64(lengths[p.Doc]))
		}
	}
	h := &hitHeap{ids: ids}
	for _, d := range touched {
		e := scored{doc: d, score: scores[d]}
		if h.Len() < topK {
			heap.Push(h, e)
		} else if h.better(e, h.items[0]) {
			h.items[0] = e
			heap.Fix(h, 0)
		}
	}
	for _, d := range touched {
		scores[d] = 0
	}
	sc.touched = touched
	pool.Put(sc)
	if h.Len() == 0 {
		return nil
	}
	out := make([]ragstore.Hit, h.Len())
	for i := len(out) - 1; i >= 0; i-- {
		e := heap.Pop(h).(scored)
		// The id may point into memory the index does not own (a
		// FrozenBM25's file): the hit gets its own copy.
		out[i] = ragstore.Hit{ID: strings.Clone(ids.id(e.doc)), Score: float32(e.score)}
	}
	return out
}

type scored struct {
	doc   int32
	score float64
}

// hitHeap is a min-heap of the best hits so far: its root is the worst.
type hitHeap struct {
	items []scored
	ids   chunkIDs
}

// better orders hits best first: higher score, then lower chunk id.
func (h *hitHeap) better(a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return CompareChunkIDs(h.ids.id(a.doc), h.ids.id(b.doc)) < 0
}

func (h *hitHeap) Len() int           { return len(h.items) }
func (h *hitHeap) Less(i, j int) bool { return h.better(h.items[j], h.items[i]) }
func (h *hitHeap) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *hitHeap) Push(v any)         { h.items = append(h.items, v.(scored)) }
func (h *hitHeap) Pop() any {
	v := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return v
}
