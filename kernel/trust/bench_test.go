package trust

import (
	"fmt"
	"path/filepath"
	"testing"
)

// BenchmarkCheckOfAnApprovedFile is what a run pays to use an approved
// workspace file: one read of a trust.json of 200 decisions.
func BenchmarkCheckOfAnApprovedFile(b *testing.B) {
	store := NewStore(filepath.Join(b.TempDir(), "trust.json"))
	for i := range 200 {
		if err := store.Put(Record{Path: fmt.Sprint("/w", i, "/mcp.json"), SHA256: SumOf([]byte(fmt.Sprint(i))).String(), Trusted: true}); err != nil {
			b.Fatal(err)
		}
	}
	s := subject("/w199/mcp.json", "199")
	s.Sum = SumOf([]byte("199"))
	for b.Loop() {
		if err := NewGate(Options{Store: store}).Check(s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStatesOf50Files is what .list macros or .workspace pays for
// the states of 50 workspace files: one read of a trust.json of 200
// decisions (each State call reads it again: 50 reads).
func BenchmarkStatesOf50Files(b *testing.B) {
	g, subs := manyDecisions(b)
	for b.Loop() {
		g.States(subs...)
	}
}

// manyDecisions is a gate whose store holds 200 decisions, and 50 of
// their files.
func manyDecisions(b *testing.B) (*Gate, []Subject) {
	store := NewStore(filepath.Join(b.TempDir(), "trust.json"))
	var records []Record
	var subs []Subject
	for i := range 200 {
		s := subject(fmt.Sprint("/w", i, "/mcp.json"), fmt.Sprint(i))
		records = append(records, record(s, i%2 == 0))
		if i%4 == 0 {
			subs = append(subs, s)
		}
	}
	if err := store.Put(records...); err != nil {
		b.Fatal(err)
	}
	return NewGate(Options{Store: store}), subs
}
