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
