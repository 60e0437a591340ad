package rank

import (
	"container/heap"
	"math"
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
	postings [][]posting
	docs     []bm25Doc
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

type posting struct {
	doc, tf int32
}

type bm25Doc struct {
	id     string
	length int32
	alive  bool
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
		doc := int32(len(x.docs))
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
		for term, tf := range counts {
			x.postings[term] = append(x.postings[term], posting{doc: doc, tf: tf})
		}
		x.docs = append(x.docs, bm25Doc{id: c.ID, length: length, alive: true})
		x.alive++
		x.totalLen += int64(length)
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
		x.docs[d].alive = false
		x.alive--
		x.totalLen -= int64(x.docs[d].length)
		x.dead++
	}
	if x.dead > 1024 && x.dead > x.alive {
		x.compact()
	}
}

// compact drops removed chunks from the postings and renumbers the rest.
func (x *BM25) compact() {
	renum := make([]int32, len(x.docs))
	docs := make([]bm25Doc, 0, x.alive)
	for i, d := range x.docs {
		renum[i] = -1
		if d.alive {
			renum[i] = int32(len(docs))
			docs = append(docs, d)
		}
	}
	for t, ps := range x.postings {
		kept := ps[:0]
		for _, p := range ps {
			if n := renum[p.doc]; n >= 0 {
				kept = append(kept, posting{doc: n, tf: p.tf})
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
	x.docs, x.dead = docs, 0
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
	var qterms []int32
	tokens(query, func(t []byte) {
		if term, ok := x.terms[string(t)]; ok && !seen[term] {
			seen[term] = true
			qterms = append(qterms, term)
		}
	})
	if len(qterms) == 0 {
		return nil
	}
	n := float64(x.alive)
	avgdl := float64(x.totalLen) / n
	if avgdl == 0 {
		avgdl = 1
	}
	// K = k1·(1 − b + b·dl/avgdl) = c1 + c2·dl
	c1, c2 := BM25K1*(1-BM25B), BM25K1*BM25B/avgdl
	sc := x.scratch.Get().(*scratch)
	if len(sc.scores) < len(x.docs) {
		sc.scores = make([]float64, len(x.docs))
	}
	scores, touched := sc.scores, sc.touched[:0]
	for _, term := range qterms {
		ps := x.postings[term]
		df := len(ps)
		if x.dead > 0 { // postings may hold removed chunks until a compaction
			df = 0
			for _, p := range ps {
				if x.docs[p.doc].alive {
					df++
				}
			}
		}
		if df == 0 {
			continue
		}
		idf := math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
		for _, p := range ps {
			d := &x.docs[p.doc]
			if !d.alive {
				continue
			}
			tf := float64(p.tf)
			if scores[p.doc] == 0 {
				touched = append(touched, p.doc)
			}
			scores[p.doc] += idf * tf * (BM25K1 + 1) / (tf + c1 + c2*float64(d.length))
		}
	}
	h := &hitHeap{docs: x.docs}
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
	x.scratch.Put(sc)
	if h.Len() == 0 {
		return nil
	}
	out := make([]ragstore.Hit, h.Len())
	for i := len(out) - 1; i >= 0; i-- {
		e := heap.Pop(h).(scored)
		out[i] = ragstore.Hit{ID: x.docs[e.doc].id, Score: float32(e.score)}
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
	docs  []bm25Doc
}

// better orders hits best first: higher score, then lower chunk id.
func (h *hitHeap) better(a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return CompareChunkIDs(h.docs[a.doc].id, h.docs[b.doc].id) < 0
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
