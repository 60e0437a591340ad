package rag

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
)

// spill keeps the chunks of the files an indexing pass adds, from the
// time each document is split until they are written into the RAG's file
// and embedded: the pass reads its documents one at a time, and the RAG's
// file must say what the store is to hold before the store is touched,
// so the chunks of every document wait here, on disk, not in memory. It
// is a temporary file, removed when closed (on Unix at once: a pass that
// is killed leaves nothing behind).
type spill struct {
	f     *os.File
	w     *bufio.Writer
	files int
}

func newSpill() (*spill, error) {
	f, err := os.CreateTemp("", "coyote-rag-*.chunks")
	if err != nil {
		return nil, fmt.Errorf("keep the chunks while indexing: %w", err)
	}
	if runtime.GOOS != "windows" {
		_ = os.Remove(f.Name()) // open files outlive their name
	}
	return &spill{f: f, w: bufio.NewWriterSize(f, 256<<10)}, nil
}

// Close removes the spill.
func (s *spill) Close() {
	_ = s.f.Close()
	_ = os.Remove(s.f.Name())
}

// put appends a file: its id, hash, path and chunks' text (the chunks of
// a new document have no metadata).
func (s *spill) put(a AddedFile) error {
	var num [binary.MaxVarintLen64]byte
	str := func(v string) {
		s.w.Write(num[:binary.PutUvarint(num[:], uint64(len(v)))])
		s.w.WriteString(v)
	}
	s.w.Write(num[:binary.PutUvarint(num[:], uint64(a.ID))])
	str(a.Hash)
	str(a.Path)
	s.w.Write(num[:binary.PutUvarint(num[:], uint64(len(a.Documents)))])
	for _, d := range a.Documents {
		str(d.PageContent)
	}
	s.files++
	// bufio.Writer keeps its first error and returns it from here on.
	if _, err := s.w.Write(nil); err != nil {
		return fmt.Errorf("keep the chunks while indexing: %w", err)
	}
	return nil
}

// spillReader reads a spill's files back, in the order they were put.
type spillReader struct {
	r    *bufio.Reader
	left int
}

// reader reads the spill from its start.
func (s *spill) reader() (*spillReader, error) {
	if err := s.w.Flush(); err != nil {
		return nil, fmt.Errorf("keep the chunks while indexing: %w", err)
	}
	return &spillReader{r: bufio.NewReaderSize(io.NewSectionReader(s.f, 0, 1<<62), 256<<10), left: s.files}, nil
}

// next returns the next file, its documents included.
func (r *spillReader) next() (AddedFile, error) {
	if r.left == 0 {
		return AddedFile{}, io.EOF
	}
	r.left--
	id, err := binary.ReadUvarint(r.r)
	var a AddedFile
	a.ID, a.Replaces = int(id), -1
	if err == nil {
		a.Hash, err = r.str()
	}
	if err == nil {
		a.Path, err = r.str()
	}
	var n uint64
	if err == nil {
		n, err = binary.ReadUvarint(r.r)
	}
	if err == nil {
		a.Documents = make([]Document, 0, min(n, 1<<16))
	}
	for i := uint64(0); err == nil && i < n; i++ {
		var text string
		if text, err = r.str(); err == nil {
			a.Documents = append(a.Documents, Document{PageContent: text})
		}
	}
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return AddedFile{}, fmt.Errorf("read back the chunks kept while indexing: %w", err)
	}
	a.NumChunks = len(a.Documents)
	return a, nil
}

func (r *spillReader) str() (string, error) {
	n, err := binary.ReadUvarint(r.r)
	if err != nil {
		return "", err
	}
	if n > 1<<32 {
		return "", errors.New("a text longer than 4 GiB")
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r.r, b); err != nil {
		return "", err
	}
	return string(b), nil
}
