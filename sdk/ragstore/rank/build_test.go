package rank

import (
	"fmt"
	"slices"
	"testing"
)

// TestBuilderRanksAsAddFile: an index built from term counts gives the
// same hits and scores as one built from the texts, and still drops a
// file.
func TestBuilderRanksAsAddFile(t *testing.T) {
	files := map[string][]Passage{
		"1":  {{"1-0", "the quick brown fox"}, {"1-1", "the lazy dog, the end"}},
		"2":  {{"2-0", "Quick quick QUICK"}, {"2-1", "brown dogs and brown cats"}},
		"10": {{"10-0", "a fox and a dog"}},
	}
	want := NewBM25()
	b := NewBM25Builder()
	b.Grow(5)
	for _, f := range []string{"10", "2", "1"} {
		want.AddFile(f, files[f])
		for _, p := range files[f] {
			terms := Tokenize(p.Text)
			doc := b.Doc(f, p.ID, len(terms))
			tf := map[string]int{}
			for _, term := range terms {
				tf[term]++
			}
			keys := make([]string, 0, len(tf))
			for k := range tf {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				b.Posting(b.Term(k), doc, tf[k])
			}
		}
	}
	got := b.Build()
	for _, q := range []string{"quick", "brown fox", "the dog", "dog fox quick brown", "nothing"} {
		for _, k := range []int{1, 3, 10} {
			w, g := want.Search(q, k), got.Search(q, k)
			if fmt.Sprint(w) != fmt.Sprint(g) {
				t.Errorf("%q top %d: built %v, added %v", q, k, g, w)
			}
		}
	}
	want.RemoveFile("2")
	got.RemoveFile("2")
	if w, g := want.Search("brown quick", 10), got.Search("brown quick", 10); fmt.Sprint(w) != fmt.Sprint(g) || got.Len() != 3 {
		t.Errorf("after removing file 2: built %v (%d chunks), added %v", g, got.Len(), w)
	}
}
