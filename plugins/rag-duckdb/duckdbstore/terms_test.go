package duckdbstore

import (
	"maps"
	"testing"
)

func TestTermsBlobRoundTrip(t *testing.T) {
	for _, tf := range []map[int32]int32{
		{},
		{1: 1},
		{0: 3, 7: 1, 300: 2, 1 << 20: 70000, 1<<31 - 1: 1},
	} {
		blob, _ := appendTerms(nil, tf, nil)
		got := map[int32]int32{}
		prev := int32(-1)
		if err := eachTerm(blob, func(tid, n int32) {
			if tid <= prev {
				t.Errorf("term %d after %d: not in order", tid, prev)
			}
			prev = tid
			got[tid] = n
		}); err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(got, tf) {
			t.Errorf("round trip of %v gave %v", tf, got)
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
