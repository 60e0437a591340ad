package rank

import (
	"cmp"
	"strconv"
	"strings"
)

// ChunkID is the original's document id of a chunk: "<file id>-<chunk
// index>".
func ChunkID(fileID, index int) string {
	return strconv.Itoa(fileID) + "-" + strconv.Itoa(index)
}

// ParseChunkID splits a ChunkID; ok is false for any other form.
func ParseChunkID(id string) (fileID, index int, ok bool) {
	f, d, found := strings.Cut(id, "-")
	if !found {
		return 0, 0, false
	}
	fi, err1 := strconv.Atoi(f)
	di, err2 := strconv.Atoi(d)
	if err1 != nil || err2 != nil || fi < 0 || di < 0 {
		return 0, 0, false
	}
	return fi, di, true
}

// CompareChunkIDs orders chunk ids by file id then chunk index,
// numerically (8-0 before 10-0); ids of another form sort after those, by
// bytes. It is how BM25 settles ties; a store that ranks by itself
// settles ties the same way, so that every driver returns equal scores in
// one order (the conformance suite, storetest, checks it).
func CompareChunkIDs(a, b string) int {
	af, ad, aok := ParseChunkID(a)
	bf, bd, bok := ParseChunkID(b)
	switch {
	case aok && bok:
		return cmp.Or(cmp.Compare(af, bf), cmp.Compare(ad, bd))
	case aok:
		return -1
	case bok:
		return 1
	}
	return strings.Compare(a, b)
}
