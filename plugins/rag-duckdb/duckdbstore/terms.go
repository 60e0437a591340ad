package duckdbstore

import (
	"encoding/binary"
	"errors"
	"slices"
)

// A chunk's term counts are kept on its own row, in its terms column: a
// blob of (term number, count) pairs in term number order, each number
// as the unsigned varint of its difference from the one before and each
// count as an unsigned varint (about 2.5 bytes a term). They are what the
// keyword index is built from, so no text is read or tokenized again.
//
// They used to be rows of a terms table (chunk key, term, count, chunk
// length: one row per term of each chunk, 8 million at 100,000 chunks),
// which cost half of the plugin's indexing time in DuckDB's appends and
// checkpoints, and left a deleted chunk's terms for Rebuild to remove.
// On the chunk's row they cost one value a chunk and go with it.

// appendTerms appends the blob of a chunk's terms, given as the term
// number of each word of its text (sorted here, in place): a count is a
// run of one number.
func appendTerms(dst []byte, words []int32) []byte {
	slices.Sort(words)
	prev := int32(0)
	for i := 0; i < len(words); {
		j := i + 1
		for j < len(words) && words[j] == words[i] {
			j++
		}
		dst = binary.AppendUvarint(dst, uint64(words[i]-prev))
		dst = binary.AppendUvarint(dst, uint64(j-i))
		prev = words[i]
		i = j
	}
	return dst
}

// termCount is how often a term occurs in a chunk.
type termCount struct {
	tid, tf int32
}

// appendCounts appends the blob of a chunk's counts, in term number order
// and each term once.
func appendCounts(dst []byte, counts []termCount) []byte {
	prev := int32(0)
	for _, c := range counts {
		dst = binary.AppendUvarint(dst, uint64(c.tid-prev))
		dst = binary.AppendUvarint(dst, uint64(c.tf))
		prev = c.tid
	}
	return dst
}

var errBadTerms = errors.New("a chunk's term counts are damaged")

// eachTerm calls fn with each (term number, count) pair of a blob.
func eachTerm(blob []byte, fn func(tid, tf int32)) error {
	tid := uint64(0)
	for len(blob) > 0 {
		d, n := binary.Uvarint(blob)
		if n <= 0 {
			return errBadTerms
		}
		blob = blob[n:]
		tf, n := binary.Uvarint(blob)
		if n <= 0 || tf > 1<<31-1 {
			return errBadTerms
		}
		blob = blob[n:]
		if tid += d; tid > 1<<31-1 {
			return errBadTerms
		}
		fn(int32(tid), int32(tf))
	}
	return nil
}
