package rank

import (
	"slices"
	"testing"
)

func TestChunkIDs(t *testing.T) {
	if ChunkID(12, 3) != "12-3" {
		t.Errorf("ChunkID = %s", ChunkID(12, 3))
	}
	for id, ok := range map[string]bool{"0-0": true, "12-3": true, "1": false, "a-1": false, "1--2": false, "-1-2": false, "": false} {
		if _, _, got := ParseChunkID(id); got != ok {
			t.Errorf("ParseChunkID(%q) ok = %v", id, got)
		}
	}
	ids := []string{"10-0", "x", "2-10", "2-9", "b", "0-1"}
	slices.SortFunc(ids, CompareChunkIDs)
	if want := []string{"0-1", "2-9", "2-10", "10-0", "b", "x"}; !slices.Equal(ids, want) {
		t.Errorf("order %v, want %v", ids, want)
	}
}
