package rag

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/coyote-cli/coyote/kernel/yamlerr"
	"github.com/coyote-cli/coyote/sdk/fsx"
)

// entries lists f's files in id order, without their chunks' text (which
// stays on disk when it is there).
func (f *File) entries() ([]diskEntry, error) {
	if f.onDisk {
		return f.disk, nil
	}
	if err := f.LoadFiles(); err != nil {
		return nil, err
	}
	out := make([]diskEntry, 0, len(f.Files))
	for _, id := range f.fileIDs() {
		fe := f.Files[id]
		out = append(out, diskEntry{ID: id, Hash: fe.Hash, Path: fe.Path, Chunks: len(fe.Documents)})
	}
	return out, nil
}

// documents returns the chunks of one of f's files, read from the file on
// disk when they stayed there.
func (f *File) documents(e diskEntry) ([]Document, error) {
	if !f.onDisk {
		return f.Files[e.ID].Documents, nil
	}
	fh, err := os.Open(f.Path)
	if err != nil {
		return nil, fmt.Errorf("read RAG %s: %w", f.Path, err)
	}
	defer fh.Close()
	data, err := readEntry(fh, e)
	if err != nil {
		// The yaml store rewrites its vectors in the file: should they
		// come before the files, the entries have moved.
		if _, err := fh.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
		sc, ok, serr := scanFile(fh)
		if serr != nil || !ok {
			return nil, fmt.Errorf("read RAG %s: file %d: %w", f.Path, e.ID, err)
		}
		found := false
		for _, x := range sc.files {
			if x.ID == e.ID {
				e, found = x, true
			}
		}
		if !found {
			return nil, fmt.Errorf("read RAG %s: file %d is no longer listed (was the file changed by hand while coyote used it?)", f.Path, e.ID)
		}
		if data, err = readEntry(fh, e); err != nil {
			return nil, fmt.Errorf("read RAG %s: %w", f.Path, err)
		}
	}
	var doc yaml.Node
	if err := yamlerr.Unmarshal(append([]byte("files:\n"), data...), &doc); err != nil {
		return nil, fmt.Errorf("read RAG %s: file %d: %w", f.Path, e.ID, err)
	}
	d := &decoder{f: f}
	files, err := d.files(doc.Content[0].Content[1])
	if err != nil {
		return nil, err
	}
	return files[e.ID].Documents, nil
}

// readEntry reads one file's entry, checking it is where it was.
func readEntry(r io.ReaderAt, e diskEntry) ([]byte, error) {
	data := make([]byte, e.End-e.Off)
	if _, err := r.ReadAt(data, e.Off); err != nil {
		return nil, err
	}
	head := "  " + strconv.Itoa(e.ID) + ":"
	if len(data) < len(head) || string(data[:len(head)]) != head {
		return nil, errors.New("the file changed")
	}
	return data, nil
}

// saveIndexed writes f to path atomically, entry by entry: its settings,
// the files of keep (copied from the file on disk when f's files stayed
// there, else written from Files), the files of added in the order they
// were put (listed, without their chunks, in addedFiles), and the vectors
// section of the file on disk. Nothing holds more than one file's chunks.
// f's files are then those, on disk.
func (f *File) saveIndexed(path string, keep []diskEntry, added *spill, addedFiles []AddedFile) error {
	settings, err := f.settingsYAML()
	if err != nil {
		return fmt.Errorf("save RAG %s: %w", path, err)
	}
	// What the file on disk holds now: the entries to copy, the vectors.
	var cur *fileScan
	var curFile *os.File
	vectors := f.vectors
	switch fh, err := os.Open(path); {
	case err == nil:
		defer fh.Close()
		sc, ok, err := scanFile(fh)
		if err != nil {
			return fmt.Errorf("save RAG %s: %w", path, err)
		}
		if ok {
			cur, curFile = sc, fh
			vectors = nil
		} else {
			// A layout the scan does not read: the vectors as Save
			// finds them.
			data, err := os.ReadFile(path)
			if err != nil {
				return fmt.Errorf("save RAG %s: %w", path, err)
			}
			if raw, ok := vectorsSection(data); ok {
				vectors = raw
			}
		}
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("save RAG %s: %w", path, err)
	}
	var copyFrom map[int]diskEntry
	if f.onDisk {
		if cur == nil {
			return fmt.Errorf("save RAG %s: the file its chunks are in cannot be read any more (was it changed by hand while coyote used it?)", path)
		}
		copyFrom = make(map[int]diskEntry, len(cur.files))
		for _, e := range cur.files {
			copyFrom[e.ID] = e
		}
	}
	var disk []diskEntry
	err = fsx.WriteAtomicFunc(path, 0o600, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 256<<10)
		var n int64
		write := func(b []byte) {
			m, _ := bw.Write(b)
			n += int64(m)
		}
		write(settings)
		if len(keep) == 0 && (added == nil || added.files == 0) {
			write([]byte("files: {}\n"))
		} else {
			write([]byte("files:\n"))
		}
		var buf []byte
		for _, k := range keep {
			e := diskEntry{ID: k.ID, Hash: k.Hash, Path: k.Path, Chunks: k.Chunks, Off: n}
			if f.onDisk {
				from, ok := copyFrom[k.ID]
				if !ok {
					return fmt.Errorf("file %d is no longer listed in it (was it changed by hand while coyote used it?)", k.ID)
				}
				data, err := readEntry(curFile, from)
				if err != nil {
					return err
				}
				if data[len(data)-1] != '\n' {
					data = append(data, '\n')
				}
				write(data)
			} else {
				buf = appendEntry(buf[:0], k.ID, f.Files[k.ID])
				write(buf)
			}
			e.End = n
			disk = append(disk, e)
		}
		if added != nil {
			rd, err := added.reader()
			if err != nil {
				return err
			}
			for i := 0; ; i++ {
				a, err := rd.next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					return err
				}
				if i >= len(addedFiles) || addedFiles[i].ID != a.ID {
					return fmt.Errorf("read back the chunks kept while indexing: file %d is not the %d-th added", a.ID, i+1)
				}
				// The list's strings, not the spill's copies: at a million
				// chunks the files' paths and hashes are most of what the
				// kernel holds.
				meta := addedFiles[i]
				e := diskEntry{ID: a.ID, Hash: meta.Hash, Path: meta.Path, Chunks: len(a.Documents), Off: n}
				buf = appendEntry(buf[:0], a.ID, a.FileEntry)
				write(buf)
				e.End = n
				disk = append(disk, e)
			}
		}
		switch {
		case cur != nil && cur.vectors.Found:
			if _, err := bw.ReadFrom(io.NewSectionReader(curFile, cur.vectors.Off, cur.vectors.End-cur.vectors.Off)); err != nil {
				return err
			}
			if cur.vectors.End > cur.vectors.Off {
				last := make([]byte, 1)
				if _, err := curFile.ReadAt(last, cur.vectors.End-1); err == nil && last[0] != '\n' {
					write([]byte("\n"))
				}
			}
		default:
			buf = appendSection(buf[:0], vectors, "vectors: {}\n")
			write(buf)
		}
		return bw.Flush()
	})
	if err != nil {
		return fmt.Errorf("save RAG: %w", err)
	}
	f.onDisk, f.disk, f.Files, f.filesRaw, f.vectors = true, disk, nil, nil, nil
	return nil
}

// documentsOf returns the chunks of f's file id.
func (f *File) documentsOf(id int) ([]Document, error) {
	if !f.onDisk {
		return f.Files[id].Documents, nil
	}
	i, found := slices.BinarySearchFunc(f.disk, id, func(e diskEntry, id int) int { return e.ID - id })
	if !found {
		return nil, fmt.Errorf("RAG %s lists no file %d", f.Path, id)
	}
	return f.documents(f.disk[i])
}
