package duckdbstore

import (
	"maps"
	"slices"
	"testing"
)

func TestTermsBlobRoundTrip(t *testing.T) {
	for _, words := range [][]int32{
		nil,
		{1},
		{300, 0, 7, 0, 1 << 20, 300, 0, 1<<31 - 1},
	} {
		want := map[int32]int32{}
		var counts []termCount
		for _, w := range words {
			want[w]++
		}
		for _, tid := range slices.Sorted(maps.Keys(want)) {
			counts = append(counts, termCount{tid, want[tid]})
		}
		fromWords := appendTerms(nil, slices.Clone(words))
		if fromCounts := appendCounts(nil, counts); !slices.Equal(fromWords, fromCounts) {
			t.Errorf("%v: blob %x from the words, %x from the counts", words, fromWords, fromCounts)
		}
		got := map[int32]int32{}
		prev := int32(-1)
		if err := eachTerm(fromWords, func(tid, n int32) {
			if tid <= prev {
				t.Errorf("term %d after %d: not in order", tid, prev)
			}
			prev = tid
			got[tid] = n
		}); err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(got, want) {
			t.Errorf("round trip of %v gave %v, want %v", words, got, want)
		}
	}
}

func TestDamagedTermsBlobIsAnError(t *testing.T) {
	for _, blob := range [][]byte{
		{0x80},                               // a varint cut short
		{0x01},                               // a term without its count
		{0x01, 0xff, 0xff, 0xff, 0xff, 0x7f}, // a count past int32
	} {
		if err := eachTerm(blob, func(int32, int32) {}); err == nil {
			t.Errorf("eachTerm(%x) = nil, want an error", blob)
		}
	}
}
