package rag

import (
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/coyote-cli/coyote/kernel/textutil"
	"github.com/coyote-cli/coyote/sdk/ragstore"
	"github.com/coyote-cli/coyote/sdk/ragstore/rank"
)

// Plan is what a re-sync of a RAG does, worked out from its file and the
// documents just read: files whose path and hash are unchanged are kept,
// new and changed ones are split into chunks under new file ids, and the
// old versions of changed files and the files that are gone are dropped.
// Nothing is changed until Apply; Index applies the plan and saves the
// file before it touches the store, so that the file always says what the
// store is to hold, even when the pass is killed.
type Plan struct {
	// Unchanged are the ids of the files kept as they are.
	Unchanged []int
	// Removed are the files to drop from the store: vanished, or the old
	// version of a changed file (Changed).
	Removed []RemovedFile
	// Added are the files to index, in the order they were read.
	Added []AddedFile
	// Resumed are the ids of Unchanged files that Index embedded again
	// because the store lacked them (an earlier pass was interrupted).
	Resumed []int
	// Gap is how Index found the store to differ from the RAG's file
	// before the pass (an earlier pass did not finish), which the pass
	// closed; nil when it held what the file listed, or cannot list its
	// files. Completed says it to the user.
	Gap *Gap
	// NextFileID is the file's next_file_id after the plan.
	NextFileID int
	// Extracted is how many chunks Index sent through entity extraction
	// successfully, ExtractSkipped how many it left out of the graph (the
	// extractor failed, or answered no JSON twice), ExtractErr why the
	// first was left out.
	Extracted, ExtractSkipped int
	ExtractErr                error
	// GraphCapped is set when the graph outgrew MaxGraphNodes and its
	// least connected nodes were dropped.
	GraphCapped bool
}

// GraphNote is the line that tells the user what entity extraction did,
// "" when there was none.
func (p *Plan) GraphNote(rag string) string {
	if p.Extracted == 0 && p.ExtractSkipped == 0 {
		return ""
	}
	s := fmt.Sprintf("RAG %s: entities extracted from %d chunks", rag, p.Extracted)
	if p.ExtractSkipped > 0 {
		s += fmt.Sprintf("; %d chunks left out of the knowledge graph (%v)", p.ExtractSkipped, p.ExtractErr)
	}
	if p.GraphCapped {
		s += fmt.Sprintf("; the graph keeps its %d best-connected entities", MaxGraphNodes)
	}
	return s + "."
}

// Completed is the line that tells the user, once Index has finished,
// that the pass also completed what an earlier one had left undone; ""
// when there was nothing to complete. rag is the RAG's name.
func (p *Plan) Completed(rag string) string {
	if p.Gap.Empty() {
		return ""
	}
	return fmt.Sprintf("RAG %s was incomplete (an indexing run did not finish): %s; this indexing completed it.", rag, p.Gap.Closed())
}

// RemovedFile is a file a plan drops.
type RemovedFile struct {
	ID      int
	Path    string
	Changed bool // a new version of it is among Added
}

// AddedFile is a file a plan indexes, as it will stand in the RAG file.
type AddedFile struct {
	ID int
	// Replaces is the id of the file's previous version, or -1 for a new
	// file.
	Replaces int
	// NumChunks is how many chunks the file has. Index leaves Documents
	// out: the chunks wait on disk, and are read one file at a time.
	NumChunks int
	FileEntry
}

// MakePlan works out a re-sync of f to sources. A full plan (.rebuild
// rag) re-indexes every document: all files are dropped and added again.
// File ids are never reused, so the store may take the removals and the
// additions in any order. Documents are split with f's chunk_size and
// chunk_overlap, the separators picked by each path's extension. It
// changes nothing (it decodes f's files if LoadSettings left them aside).
// Index works the same plan out one document at a time (planner).
func MakePlan(f *File, sources []Source, full bool) (*Plan, error) {
	if err := f.LoadFiles(); err != nil {
		return nil, err
	}
	pl, err := newPlanner(f, full)
	if err != nil {
		return nil, err
	}
	for _, s := range sources {
		if a, ok := pl.add(s); ok {
			pl.p.Added = append(pl.p.Added, a)
		}
	}
	return pl.finish(), nil
}

// planner works a plan out one document at a time: add splits each new
// or changed one, and the caller keeps its chunks (MakePlan, in the plan)
// or puts them aside (Index) and adds the file to the plan's Added
// without them.
type planner struct {
	f        *File
	full     bool
	p        *Plan
	entries  []diskEntry
	byPath   map[string][]int // path → indexes in entries, in id order
	kept     map[int]bool
	replaced map[int]bool
	seen     map[string]bool
	// onSplit, when set, is told how many chunks each added document
	// made (RAG.hold counts the chunks indexing holds).
	onSplit func(n int)
}

func newPlanner(f *File, full bool) (*planner, error) {
	if f.Attached {
		return nil, errors.New("an attached RAG has no documents to index")
	}
	if f.ChunkSize < 1 {
		return nil, errors.New("chunk_size must be at least 1")
	}
	entries, err := f.entries()
	if err != nil {
		return nil, err
	}
	pl := &planner{f: f, full: full, p: &Plan{NextFileID: f.NextFileID}, entries: entries,
		byPath: map[string][]int{}, kept: map[int]bool{}, replaced: map[int]bool{}, seen: map[string]bool{}}
	if n := len(entries); n > 0 && entries[n-1].ID >= pl.p.NextFileID {
		pl.p.NextFileID = entries[n-1].ID + 1 // a hand-edited next_file_id must not reuse an id
	}
	for i, e := range entries {
		pl.byPath[e.Path] = append(pl.byPath[e.Path], i)
	}
	return pl, nil
}

// add plans a document: ok is false when it is unchanged (or read
// twice), else a is the file to index, its chunks in Documents.
func (pl *planner) add(s Source) (a AddedFile, ok bool) {
	if pl.seen[s.Path] {
		return AddedFile{}, false
	}
	pl.seen[s.Path] = true
	old := pl.byPath[s.Path]
	if !pl.full {
		for _, i := range old {
			if pl.entries[i].Hash == s.Hash {
				pl.kept[pl.entries[i].ID] = true
				return AddedFile{}, false
			}
		}
	}
	docs := chunkDocuments(pl.f, s)
	if pl.onSplit != nil {
		pl.onSplit(len(docs))
	}
	a = AddedFile{ID: pl.p.NextFileID, Replaces: -1, NumChunks: len(docs), FileEntry: FileEntry{Hash: s.Hash, Path: s.Path, Documents: docs}}
	if len(old) > 0 {
		a.Replaces = pl.entries[old[0]].ID
		for _, i := range old {
			pl.replaced[pl.entries[i].ID] = true
		}
	}
	pl.p.NextFileID++
	return a, true
}

// finish ends the plan: the files not added again are kept or removed.
func (pl *planner) finish() *Plan {
	for _, e := range pl.entries {
		switch {
		case pl.kept[e.ID]:
			pl.p.Unchanged = append(pl.p.Unchanged, e.ID)
		default:
			pl.p.Removed = append(pl.p.Removed, RemovedFile{ID: e.ID, Path: e.Path, Changed: pl.replaced[e.ID]})
		}
	}
	return pl.p
}

// chunkDocuments splits a source into the documents of its file entry.
// A chunk is stored without the blank lines around it and the white space
// that ends it; chunks with nothing else are left out.
func chunkDocuments(f *File, s Source) []Document {
	text, _ := textutil.Valid(s.Text)
	sp := NewSplitter(f.ChunkSize, f.ChunkOverlap, s.Path)
	var docs []Document
	for _, c := range sp.Split(text) {
		c = trimChunk(c)
		if c == "" {
			continue
		}
		docs = append(docs, Document{PageContent: c, Metadata: map[string]string{}})
	}
	return docs
}

// trimChunk drops the white space at the end of a chunk and the blank
// lines at its start, keeping the indentation of its first line.
func trimChunk(c string) string {
	c = strings.TrimRight(c, " \t\r\n\v\f")
	lead := len(c) - len(strings.TrimLeft(c, " \t\r\n\v\f"))
	if nl := strings.LastIndexByte(c[:lead], '\n'); nl >= 0 {
		c = c[nl+1:]
	}
	return c
}

// Chunks returns the chunks of an added file for the store, without
// vectors; each one's metadata says its source.
func (a AddedFile) Chunks() []ragstore.Chunk {
	out := make([]ragstore.Chunk, len(a.Documents))
	for i, d := range a.Documents {
		meta := make(map[string]string, len(d.Metadata)+1)
		maps.Copy(meta, d.Metadata)
		meta["source"] = a.Path
		out[i] = ragstore.Chunk{ID: rank.ChunkID(a.ID, i), FileID: fileKey(a.ID), Text: d.PageContent, Metadata: meta}
	}
	return out
}

// FileKey is the file's id as the store names it
// (ragstore.DeleteFileRequest.FileID).
func (r RemovedFile) FileKey() string { return fileKey(r.ID) }

// Empty reports whether the plan changes nothing.
func (p *Plan) Empty() bool { return len(p.Added) == 0 && len(p.Removed) == 0 }

// Apply records the plan in f: removed files dropped, added ones in, and
// next_file_id moved on.
func (p *Plan) Apply(f *File) {
	if f.Files == nil {
		f.Files = map[int]FileEntry{}
	}
	for _, r := range p.Removed {
		delete(f.Files, r.ID)
	}
	for _, a := range p.Added {
		f.Files[a.ID] = a.FileEntry
	}
	f.NextFileID = p.NextFileID
}
