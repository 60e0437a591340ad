package rank

import (
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/sdk/ragstore"
)

func TestTokenize(t *testing.T) {
	got := Tokenize("Hello, WORLD! naïve Café-42x  snake_case ÉTÉ 3.14")
	want := []string{"hello", "world", "naïve", "café", "42x", "snake", "case", "été", "3", "14"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Tokenize = %q, want %q", got, want)
	}
	if got := Tokenize(" ,;- "); len(got) != 0 {
		t.Errorf("no words: %q", got)
	}
}

// threeChunks is the corpus of the hand-computed rankings below:
// N = 3 chunks of 3, 6 and 3 words, so avgdl = 4.
func threeChunks() *BM25 {
	x := NewBM25()
	x.AddFile("0", []Passage{{ID: "0-0", Text: "The cat sat"}, {ID: "0-1", Text: "the dog sat on the mat"}})
	x.AddFile("1", []Passage{{ID: "1-0", Text: "cats and dogs"}})
	return x
}

func near(a, b float32) bool { return math.Abs(float64(a-b)) < 1e-4 }

func TestBM25AgainstHandComputedScores(t *testing.T) {
	// Length norms, K = k1·(1 − b + b·dl/avgdl):
	//   dl 3: 1.5·(0.25 + 0.75·3/4) = 1.21875;  dl 6: 1.5·(0.25 + 0.75·6/4) = 2.0625
	// A term in 1 of 3 chunks: idf = ln(1 + 2.5/1.5) = 0.980829
	// A term in 2 of 3 chunks: idf = ln(1 + 1.5/2.5) = 0.470004
	// A term's score: idf · tf·(k1+1)/(tf + K).
	tests := []struct {
		query string
		want  []ragstore.Hit
	}{
		// cat: only 0-0 (cats is another word): 0.980829 · 2.5/2.21875
		{"cat", []ragstore.Hit{{ID: "0-0", Score: 1.105160}}},
		// the + sat, both in 0-0 and 0-1 (idf 0.470004):
		//   0-0: tf 1, 1: 2 · 0.470004 · 2.5/2.21875 = 1.059164
		//   0-1: the tf 2: 0.470004 · 5/4.0625 = 0.578466; sat tf 1: 0.470004 · 2.5/3.0625 = 0.383677
		// The shorter chunk wins although 0-1 says "the" twice.
		{"The SAT?", []ragstore.Hit{{ID: "0-0", Score: 1.059164}, {ID: "0-1", Score: 0.962143}}},
		// A word repeated in the query counts once.
		{"sat sat sat", []ragstore.Hit{{ID: "0-0", Score: 0.529582}, {ID: "0-1", Score: 0.383677}}},
		// dogs (1-0: 0.980829 · 2.5/2.21875 = 1.105160) beats mat (0-1: 0.980829 · 2.5/3.0625 = 0.800677)
		{"mat dogs", []ragstore.Hit{{ID: "1-0", Score: 1.105160}, {ID: "0-1", Score: 0.800677}}},
		{"giraffe", nil},
		{"", nil},
	}
	x := threeChunks()
	for _, tt := range tests {
		got := x.Search(tt.query, 10)
		if len(got) != len(tt.want) {
			t.Errorf("Search(%q) = %v, want %v", tt.query, got, tt.want)
			continue
		}
		for i := range got {
			if got[i].ID != tt.want[i].ID || !near(got[i].Score, tt.want[i].Score) {
				t.Errorf("Search(%q) = %v, want %v", tt.query, got, tt.want)
				break
			}
		}
	}
	if got := x.Search("the sat", 1); len(got) != 1 || got[0].ID != "0-0" {
		t.Errorf("top 1: %v", got)
	}
	if got := x.Search("the sat", 0); got != nil {
		t.Errorf("top 0: %v", got)
	}
}

func TestBM25TiesGoInChunkOrder(t *testing.T) {
	x := NewBM25()
	x.AddFile("10", []Passage{{ID: "10-0", Text: "same words"}})
	x.AddFile("9", []Passage{{ID: "9-1", Text: "same words"}, {ID: "9-0", Text: "same words"}})
	x.AddFile("2", []Passage{{ID: "2-0", Text: "other"}})
	got := x.Search("same", 3)
	if ids := HitIDs(got); !reflect.DeepEqual(ids, []string{"9-0", "9-1", "10-0"}) {
		t.Errorf("tie order %v", ids)
	}
	if ids := HitIDs(x.Search("same", 2)); !reflect.DeepEqual(ids, []string{"9-0", "9-1"}) {
		t.Errorf("top 2 of a tie %v", ids)
	}
}

func TestBM25RemoveAndReplaceAFile(t *testing.T) {
	x := threeChunks()
	x.RemoveFile("1")
	if got := x.Search("dogs", 5); got != nil {
		t.Errorf("removed chunk found: %v", got)
	}
	// With 1-0 gone, N = 2 and avgdl = 4.5: "cat" scores as in a fresh
	// index of the two chunks left.
	fresh := NewBM25()
	fresh.AddFile("0", []Passage{{ID: "0-0", Text: "The cat sat"}, {ID: "0-1", Text: "the dog sat on the mat"}})
	if a, b := x.Search("cat sat", 5), fresh.Search("cat sat", 5); !reflect.DeepEqual(a, b) {
		t.Errorf("after a removal %v, fresh %v", a, b)
	}
	x.AddFile("0", []Passage{{ID: "0-0", Text: "giraffes only"}})
	if got := x.Search("cat", 5); got != nil {
		t.Errorf("replaced file's old chunk found: %v", got)
	}
	if got := x.Search("giraffes", 5); len(got) != 1 || got[0].ID != "0-0" || x.Len() != 1 {
		t.Errorf("replacement: %v, %d chunks", got, x.Len())
	}
	x.RemoveFile("nope")
	x.RemoveFile("0")
	if x.Len() != 0 || x.Search("giraffes", 5) != nil {
		t.Errorf("empty index: %d", x.Len())
	}
}

// Many removals compact the index; it must still rank as a fresh index of
// the same chunks.
func TestBM25AfterManyChangesRanksAsAFreshIndex(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	words := strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu")
	chunk := func() string {
		var b strings.Builder
		for n := 1 + r.Intn(12); n > 0; n-- {
			b.WriteString(words[r.Intn(len(words))] + " ")
		}
		return b.String()
	}
	files := map[string][]Passage{}
	x := NewBM25()
	for i := 0; i < 3000; i++ {
		id := fmt.Sprint(r.Intn(400))
		if r.Intn(3) == 0 {
			x.RemoveFile(id)
			delete(files, id)
			continue
		}
		var ps []Passage
		for j := r.Intn(4); j >= 0; j-- {
			ps = append(ps, Passage{ID: id + "-" + fmt.Sprint(j), Text: chunk()})
		}
		x.AddFile(id, ps)
		files[id] = ps
	}
	fresh := NewBM25()
	for id, ps := range files {
		fresh.AddFile(id, ps)
	}
	if x.Len() != fresh.Len() {
		t.Fatalf("%d chunks, fresh %d", x.Len(), fresh.Len())
	}
	for _, q := range []string{"alpha", "beta gamma", "mu mu lambda", "theta iota kappa zeta"} {
		a, b := x.Search(q, 20), fresh.Search(q, 20)
		if len(a) != len(b) {
			t.Fatalf("%q: %v vs %v", q, a, b)
		}
		for i := range a {
			if a[i].ID != b[i].ID || !near(a[i].Score, b[i].Score) {
				t.Fatalf("%q: %v vs fresh %v", q, a, b)
			}
		}
	}
}

func TestBM25IsSafeForConcurrentUse(t *testing.T) {
	x := threeChunks()
	done := make(chan bool)
	for g := 0; g < 4; g++ {
		go func(g int) {
			for i := 0; i < 200; i++ {
				if g == 0 {
					x.AddFile("9", []Passage{{ID: "9-0", Text: fmt.Sprint("cat number ", i)}})
					x.RemoveFile("9")
					continue
				}
				_ = x.Search("the cat", 3)
			}
			done <- true
		}(g)
	}
	for g := 0; g < 4; g++ {
		<-done
	}
}

// HitIDs returns the ids of hits, in order.
func HitIDs(hits []ragstore.Hit) []string {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return ids
}
