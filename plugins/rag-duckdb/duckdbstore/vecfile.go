package duckdbstore

import (
	"cmp"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"unsafe"

	"github.com/duckdb/duckdb-go/v2/mapping"

	"github.com/coyote-cli/coyote/sdk/ragstore/rank"
	"github.com/coyote-cli/coyote/sdk/ragstore/vecindex"
)

// The vector file, <name>.duckdb.vec, is what a reader's searches need,
// written by Rebuild at the end of each indexing pass so that a reader
// does not load every vector from DuckDB before its first answer (1.6 s
// at 100,000 chunks; 16 s at a million), nor build its keyword index
// (0.2–0.7 s at 100,000), waiting for it.
// It is derived from the chunks and vocab tables and never the
// only copy of anything. Rows are the chunks, in one order for both
// parts, so the keyword index's chunk numbers are the vector rows and the
// ids are stored once:
//
//	header     128 bytes: magic, dimension, rows, token, id bytes,
//	           terms, term bytes, postings, total length
//	scales     rows × float32           (vecindex.Quantise's)
//	codes      rows × dim × int8
//	vectors    rows × dim × float32     (normalised)
//	id ends    rows × uint32            (end of each id in the id bytes)
//	ids        the ids, one after another
//	lengths    rows × int32             (each chunk's number of terms)
//	term ends  terms × uint32           (the terms sorted by bytes)
//	lists      terms × uint32           (each term's postings list)
//	starts     (terms + 1) × uint64     (where each list starts)
//	postings   postings × (row, tf)     (rank.Posting; lists by term number)
//	terms      the terms, one after another
//
// (the keyword part is rank.FrozenParts, see kwfile.go).
// A reader maps the file and scans the codes in place; it reads only the
// rescored candidates' vectors, with pread, so the float32 copy stays on
// disk (pages of a mapping count in the process's memory once touched):
// 100,000 × 384 is 40 MB of codes touched instead of 150 MB of floats
// held. The token, random per file, is also in coyote_meta
// (key vecfile), written after the file is in place; each writer removes
// it before its first change, so a file that is missing, stale or half
// written never matches and the reader loads the vectors from DuckDB
// instead, as before.
const (
	vecMagic      = "CYVEC\x00\x02\n"
	vecHeaderSize = 128
	vecMetaKey    = "vecfile"
)

// vecFilePath is the vector file of the store whose database is path.
func vecFilePath(path string) string { return path + ".vec" }

// vecLayout is where each part of a vector file starts.
type vecLayout struct {
	dim, rows                  int
	idBytes                    int
	kw                         kwSizes
	totalLen                   int64 // of the chunks' lengths, read from the header
	scales, codes, vecs        int
	idEnds, ids                int
	lengths, termEnds, lists   int
	starts, postings, termText int
	size                       int
}

// kwSizes is the size of a vector file's keyword part.
type kwSizes struct {
	terms, termBytes, postings int
}

func layout(dim, rows, idBytes int, kw kwSizes) vecLayout {
	l := vecLayout{dim: dim, rows: rows, idBytes: idBytes, kw: kw}
	l.scales = vecHeaderSize
	l.codes = l.scales + 4*rows
	l.vecs = align(l.codes+rows*dim, 64)
	l.idEnds = l.vecs + 4*rows*dim
	l.ids = l.idEnds + 4*rows
	l.lengths = align(l.ids+idBytes, 8)
	l.termEnds = l.lengths + 4*rows
	l.lists = l.termEnds + 4*kw.terms
	l.starts = align(l.lists+4*kw.terms, 8)
	l.postings = l.starts + 8*(kw.terms+1)
	l.termText = l.postings + 8*kw.postings
	l.size = l.termText + kw.termBytes
	return l
}

func align(n, a int) int { return (n + a - 1) / a * a }

// writeVecFile writes the vector file of the committed chunks, through a
// temporary file renamed into place, and returns its token.
func (s *store) writeVecFile() (string, error) {
	rows, err := s.raw.count("SELECT count(*) FROM chunks")
	if err != nil {
		return "", err
	}
	maxKey, err := s.raw.count("SELECT coalesce(max(key), 0) FROM chunks")
	if err != nil {
		return "", err
	}
	dim := s.dim
	var tok [16]byte
	if _, err := rand.Read(tok[:]); err != nil {
		return "", err
	}
	path := vecFilePath(s.path)
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp-*")
	if err != nil {
		return "", err
	}
	tmp := f.Name()
	defer func() {
		if tmp != "" {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	// One pass: the ids, whose length is known only at the end, are
	// gathered (10–20 bytes a chunk) and written after the vectors, and
	// so are the lengths and the row of each key, for the keyword part.
	l := layout(dim, rows, 0, kwSizes{})
	var ids []byte
	ends := make([]uint32, 0, rows)
	lengths := make([]int32, 0, rows)
	rowOf := newKeyRows(maxKey, rows)
	var totalLen int64
	// Each data chunk's vectors are normalised, quantised and written by
	// two workers while DuckDB reads the next: that work was most of the
	// pass (at 100,000 chunks 0.65 of its 0.9 s), and Rebuild has the
	// machine to itself.
	vw := newVecWriter(f, l)
	var werr error
	err = s.raw.stream("SELECT id, embedding, key, length FROM chunks", nil, func(ch mapping.DataChunk, n int) {
		row := len(ends)
		if werr != nil {
			return
		}
		if row+n > rows {
			werr = fmt.Errorf("more than %d chunks", rows)
			return
		}
		strs := column[mapping.StringT](ch, 0, n)
		keys, lens := column[int64](ch, 2, n), column[int32](ch, 3, n)
		for i := range n {
			rowOf.set(keys[i], int32(row+i))
			ids = append(ids, mapping.StringTData(&strs[i])...)
			ends = append(ends, uint32(len(ids)))
			lengths = append(lengths, lens[i])
			totalLen += int64(lens[i])
		}
		child := mapping.ArrayVectorGetChild(mapping.DataChunkGetVector(ch, 1))
		floats := unsafe.Slice((*float32)(mapping.VectorGetData(child)), n*dim)
		vw.put(row, slices.Clone(floats))
	})
	if verr := vw.close(); werr == nil {
		werr = verr
	}
	if err == nil {
		err = werr
	}
	if err == nil && (len(ends) != rows || len(ids) > math.MaxUint32) {
		err = fmt.Errorf("%d ids (%d bytes) for %d chunks", len(ends), len(ids), rows)
	}
	if err != nil {
		return "", err
	}
	postings := blobRows(s.raw, rowOf)
	kw, err := s.planKeywords(postings)
	if err != nil {
		return "", fmt.Errorf("keyword index: %w", err)
	}
	l = layout(dim, rows, len(ids), kw.sizes)
	if err := kw.write(postings, f, l); err != nil {
		return "", fmt.Errorf("keyword index: %w", err)
	}
	var hdr [vecHeaderSize]byte
	copy(hdr[:8], vecMagic)
	binary.LittleEndian.PutUint32(hdr[8:], uint32(dim))
	binary.LittleEndian.PutUint64(hdr[16:], uint64(rows))
	copy(hdr[24:40], tok[:])
	binary.LittleEndian.PutUint64(hdr[40:], uint64(len(ids)))
	binary.LittleEndian.PutUint64(hdr[48:], uint64(kw.sizes.terms))
	binary.LittleEndian.PutUint64(hdr[56:], uint64(kw.sizes.termBytes))
	binary.LittleEndian.PutUint64(hdr[64:], uint64(kw.sizes.postings))
	binary.LittleEndian.PutUint64(hdr[72:], uint64(totalLen))
	for _, w := range []struct {
		b   []byte
		off int
	}{{hdr[:], 0}, {bytesOf(ends), l.idEnds}, {ids, l.ids}, {bytesOf(lengths), l.lengths}} {
		if _, err := f.WriteAt(w.b, int64(w.off)); err != nil {
			return "", err
		}
	}
	if err := f.Truncate(int64(l.size)); err != nil {
		return "", err
	}
	if err := f.Sync(); err != nil {
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, path); err != nil {
		return "", err
	}
	tmp = ""
	return hex.EncodeToString(tok[:]), nil
}

// bytesOf is the memory of a slice of numbers, for writing.
func bytesOf[T int8 | int32 | uint32 | uint64 | float32 | rank.Posting](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0])))
}

// vecFile is an open vector file: mapped, its vectors read with pread. Searches hold mu for reading; close takes it to unmap.
type vecFile struct {
	mu     sync.RWMutex
	f      *os.File
	mapped []byte
	l      vecLayout
	closed bool
}

// errStaleVecFile says that a vector file is not the store's current one.
var errStaleVecFile = errors.New("not the store's current vector file")

// openVecFile opens the vector file of a store whose coyote_meta holds
// token, and checks that it is that file, whole.
func openVecFile(path, token string, dim int) (*vecFile, error) {
	if token == "" {
		return nil, errStaleVecFile
	}
	f, err := os.Open(vecFilePath(path))
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			_ = f.Close()
		}
	}()
	var hdr [vecHeaderSize]byte
	if _, err := io.ReadFull(f, hdr[:]); err != nil {
		return nil, err
	}
	if string(hdr[:8]) != vecMagic || hex.EncodeToString(hdr[24:40]) != token {
		return nil, errStaleVecFile
	}
	if d := int(binary.LittleEndian.Uint32(hdr[8:])); d != dim {
		return nil, fmt.Errorf("vector file of %d dimensions, the store's %d: %w", d, dim, errStaleVecFile)
	}
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	var counts [6]int // rows, id bytes, terms, term bytes, postings, total length
	for i, off := range []int{16, 40, 48, 56, 64, 72} {
		c := binary.LittleEndian.Uint64(hdr[off:])
		if c > math.MaxInt64/16 || off != 72 && c > uint64(st.Size()) {
			return nil, fmt.Errorf("vector file header: %w", errStaleVecFile)
		}
		counts[i] = int(c)
	}
	l := layout(dim, counts[0], counts[1], kwSizes{terms: counts[2], termBytes: counts[3], postings: counts[4]})
	l.totalLen = int64(counts[5])
	if int64(l.size) != st.Size() {
		return nil, fmt.Errorf("vector file of %d bytes, want %d: %w", st.Size(), l.size, errStaleVecFile)
	}
	mapped, err := mapFile(f, l.size)
	if err != nil {
		return nil, err
	}
	ok = true
	return &vecFile{f: f, mapped: mapped, l: l}, nil
}

// ids returns the file's ids, checked.
func (v *vecFile) ids() (*fileIDs, error) {
	l := v.l
	ends := sliceOf[uint32](v.mapped[l.idEnds:l.ids], l.rows)
	var blob string
	if l.idBytes > 0 {
		blob = unsafe.String(unsafe.SliceData(v.mapped[l.ids:]), l.idBytes)
	}
	prev := uint32(0)
	for _, e := range ends {
		if e < prev || int(e) > l.idBytes {
			return nil, fmt.Errorf("vector file ids: %w", errStaleVecFile)
		}
		prev = e
	}
	return &fileIDs{ends: ends, blob: blob}, nil
}

// index returns the quantised index over the file's rows.
func (v *vecFile) index(ids *fileIDs) (*vecindex.Quantised, error) {
	l := v.l
	return vecindex.NewQuantised(l.dim, ids,
		sliceOf[int8](v.mapped[l.codes:], l.rows*l.dim),
		sliceOf[float32](v.mapped[l.scales:], l.rows), v)
}

// Read reads the rows' float32 vectors from the file (vecindex.Exact).
// Rows next to each other are read together.
func (v *vecFile) Read(rows []int, dst []float32) error {
	dim := v.l.dim
	for i := 0; i < len(rows); {
		j := i + 1
		for j < len(rows) && rows[j] == rows[j-1]+1 {
			j++
		}
		b := bytesOf(dst[i*dim : j*dim])
		if _, err := v.f.ReadAt(b, int64(v.l.vecs+4*rows[i]*dim)); err != nil {
			return err
		}
		i = j
	}
	return nil
}

// close unmaps and closes the file once no search uses it.
func (v *vecFile) close() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.closed {
		return nil
	}
	v.closed = true
	return errors.Join(unmapFile(v.mapped), v.f.Close())
}

// sliceOf views the start of b as n values of T.
func sliceOf[T int8 | int32 | uint32 | uint64 | float32 | rank.Posting](b []byte, n int) []T {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// fileIDs are the ids of a vector file, views into its mapping.
type fileIDs struct {
	ends []uint32
	blob string
}

func (f *fileIDs) Len() int { return len(f.ends) }

func (f *fileIDs) ID(row int) string {
	start := uint32(0)
	if row > 0 {
		start = f.ends[row-1]
	}
	return f.blob[start:f.ends[row]]
}

// vecWriter normalises, quantises and writes data chunks of vectors into
// a vector file on two goroutines, each chunk at its rows' places.
type vecWriter struct {
	f    *os.File
	l    vecLayout
	work chan vecBatch
	wg   sync.WaitGroup
	mu   sync.Mutex
	err  error
}

// vecBatch is n vectors from row on, one after another.
type vecBatch struct {
	row  int
	vecs []float32
}

func newVecWriter(f *os.File, l vecLayout) *vecWriter {
	w := &vecWriter{f: f, l: l, work: make(chan vecBatch, 2)}
	for range 2 {
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			for b := range w.work {
				if err := w.write(b); err != nil {
					w.mu.Lock()
					w.err = cmp.Or(w.err, err)
					w.mu.Unlock()
				}
			}
		}()
	}
	return w
}

// put hands over a batch; vecs is the writer's from then on.
func (w *vecWriter) put(row int, vecs []float32) {
	w.work <- vecBatch{row: row, vecs: vecs}
}

// close waits for the batches handed over and returns the first error.
func (w *vecWriter) close() error {
	close(w.work)
	w.wg.Wait()
	return w.err
}

func (w *vecWriter) write(b vecBatch) error {
	dim := w.l.dim
	n := len(b.vecs) / dim
	codes := make([]int8, n*dim)
	scales := make([]float32, n)
	for i := range n {
		v := b.vecs[i*dim : (i+1)*dim]
		vecindex.Normalise(v)
		scales[i] = vecindex.Quantise(v, codes[i*dim:(i+1)*dim])
	}
	for _, part := range []struct {
		b   []byte
		off int
	}{
		{bytesOf(scales), w.l.scales + 4*b.row},
		{bytesOf(codes), w.l.codes + b.row*dim},
		{bytesOf(b.vecs), w.l.vecs + 4*b.row*dim},
	} {
		if _, err := w.f.WriteAt(part.b, int64(part.off)); err != nil {
			return err
		}
	}
	return nil
}
