package rank

import "slices"

// BM25Builder makes a BM25 index from term frequencies a store already
// holds (a database's table of them, say), without the texts: the result
// ranks exactly as AddFile's would over the same chunks, provided the
// terms and lengths came from Tokenize. A store that writes its term
// counts while indexing so loads its keyword index without tokenizing
// every chunk again:
//
//	b := rank.NewBM25Builder()
//	doc := b.Doc("3", "3-0", 3)    // file id, chunk id, number of terms
//	term := b.Term("cat")
//	b.Posting(term, doc, 1)        // "cat" occurs once in 3-0
//	idx := b.Build()
//
// A builder is not safe for concurrent use, and is used up by Build.
type BM25Builder struct {
	x *BM25
}

// NewBM25Builder returns a builder of an empty index.
func NewBM25Builder() *BM25Builder {
	return &BM25Builder{x: NewBM25()}
}

// Grow makes room for docs more chunks.
func (b *BM25Builder) Grow(docs int) {
	x := b.x
	x.ids = slices.Grow(x.ids, docs)
	x.lengths = slices.Grow(x.lengths, docs)
	x.live = slices.Grow(x.live, docs)
}

// Doc adds a chunk of file fileID with length terms and returns its
// number, for Posting. A file's chunks need not be added one after the
// other; each chunk id is added once.
func (b *BM25Builder) Doc(fileID, id string, length int) int32 {
	x := b.x
	doc := x.addDoc(id, int32(length))
	x.files[fileID] = append(x.files[fileID], doc)
	return doc
}

// Term returns the number of a term, for Posting, adding it if new.
func (b *BM25Builder) Term(term string) int32 {
	x := b.x
	t, ok := x.terms[term]
	if !ok {
		t = int32(len(x.postings))
		x.terms[term] = t
		x.postings = append(x.postings, nil)
	}
	return t
}

// Posting records that term occurs tf times in doc. Each (term, doc) pair
// is recorded once.
func (b *BM25Builder) Posting(term, doc int32, tf int) {
	b.x.postings[term] = append(b.x.postings[term], Posting{Doc: doc, TF: int32(tf)})
}

// Build returns the index.
func (b *BM25Builder) Build() *BM25 {
	x := b.x
	b.x = nil
	return x
}
