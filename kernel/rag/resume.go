package rag

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/fsx"
	"github.com/coyote-cli/coyote/sdk/ragstore"
)

// An indexing pass writes two things that no single write can cover: the
// RAG's file (which files and chunks the RAG holds) and its store (their
// vectors). Index records the pass in the file first, then deletes and
// upserts; so a pass killed half way leaves a file that lists everything
// and a store that holds part of it, or files the file no longer lists.
// CheckStore finds that difference (for stores that list their files,
// ragstore.FileLister) and Resume completes the store from the chunks the
// file records, without reading or embedding anything else again.

// Gap is how a RAG's store differs from its file: what an indexing pass
// that did not finish left undone.
type Gap struct {
	// Files is how many files with chunks the RAG's file lists.
	Files int
	// Missing are the ids of the listed files the store lacks, wholly or in
	// part, in order.
	Missing []int
	// Stale are the file ids the store holds that the RAG's file does not
	// list, or lists without chunks (ragstore.Chunk.FileID), in order.
	Stale []string
}

// Empty reports whether the store holds exactly what the file lists.
func (g *Gap) Empty() bool {
	return g == nil || len(g.Missing) == 0 && len(g.Stale) == 0
}

// String says how the store differs, for a message that begins "RAG
// NAME is incomplete: ": "its store lacks 175 of its 201 files".
func (g *Gap) String() string { return g.say("lacks", "holds") }

// Closed says how the store differed before a pass closed the gap: "its
// store lacked 175 of its 201 files".
func (g *Gap) Closed() string { return g.say("lacked", "held") }

func (g *Gap) say(lacks, holds string) string {
	var parts []string
	if len(g.Missing) > 0 {
		parts = append(parts, fmt.Sprintf("%s %d of its %d files", lacks, len(g.Missing), g.Files))
	}
	switch n := len(g.Stale); {
	case n == 1:
		parts = append(parts, holds+" 1 file the RAG no longer lists")
	case n > 1:
		parts = append(parts, fmt.Sprintf("%s %d files the RAG no longer lists", holds, n))
	}
	return "its store " + strings.Join(parts, " and ")
}

// CheckStore compares the store with the RAG's file. It returns nil when
// the store cannot list its files (a plugin without
// ragstore.CapListFiles: such a store is trusted as it is), or for an
// attached RAG, which lists no files.
func (r *RAG) CheckStore(ctx context.Context) (*Gap, error) {
	if r.Lister == nil || r.File.Attached {
		return nil, nil
	}
	entries, err := r.File.entries()
	if err != nil {
		return nil, err
	}
	resp, err := r.Lister.ListFiles(ctx, &ragstore.ListFilesRequest{Store: r.Name})
	if err != nil {
		return nil, fmt.Errorf("check the store of RAG %s: %w", r.Name, err)
	}
	return compareStore(entries, resp.Files), nil
}

// compareStore works out the gap between the files a RAG's file lists
// and what a store holds.
func compareStore(entries []diskEntry, held []ragstore.FileChunks) *Gap {
	have := make(map[string]int64, len(held))
	for _, h := range held {
		have[h.FileID] += h.Chunks
	}
	g := &Gap{}
	for _, e := range entries {
		id := e.ID
		key := fileKey(id)
		want, got := int64(e.Chunks), have[key]
		delete(have, key)
		switch {
		case want == 0 && got > 0: // chunks of a file listed with none
			g.Stale = append(g.Stale, key)
		case want == 0:
		case got != want:
			g.Files++
			g.Missing = append(g.Missing, id)
		default:
			g.Files++
		}
	}
	for key, n := range have {
		if n > 0 {
			g.Stale = append(g.Stale, key)
		}
	}
	slices.SortFunc(g.Stale, compareFileKeys)
	return g
}

// compareFileKeys orders file ids numerically, other keys after them.
func compareFileKeys(a, b string) int {
	if len(a) != len(b) && isDigits(a) && isDigits(b) {
		return len(a) - len(b)
	}
	return strings.Compare(a, b)
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// Resume completes the store from the RAG's file: it drops the files the
// store holds that the file no longer lists, and embeds and upserts the
// chunks of the listed files it lacks, from the text the file records (no
// document is read again, and nothing the store holds whole is embedded
// again). The caller holds the RAG's indexing lock (LockIndexing) and has
// the store open read-write.
func (r *RAG) Resume(ctx context.Context, g *Gap, progress func(Progress)) error {
	if g.Empty() {
		return nil
	}
	drop, files, err := g.work(r.File, nil)
	if err != nil {
		return err
	}
	return r.write(ctx, drop, files, r.chunkSource(nil, 0), false, time.Now(), progress)
}

// work is what closing the gap takes: the file ids to drop from the store
// (the stale files, and what it holds of the missing ones) and the missing
// files to embed again from the chunks f records (without them: they are
// read one file at a time). keep, when set, picks the missing files to
// complete; the others are left out of both.
func (g *Gap) work(f *File, keep func(id int) bool) (drop []string, files []AddedFile, err error) {
	if g == nil {
		return nil, nil, nil
	}
	entries, err := f.entries()
	if err != nil {
		return nil, nil, err
	}
	drop = slices.Clone(g.Stale)
	for _, id := range g.Missing {
		if keep != nil && !keep(id) {
			continue
		}
		i, found := slices.BinarySearchFunc(entries, id, func(e diskEntry, id int) int { return e.ID - id })
		if !found {
			continue
		}
		e := entries[i]
		drop = append(drop, fileKey(id)) // what it holds of it, if anything
		files = append(files, AddedFile{ID: id, Replaces: id, NumChunks: e.Chunks, FileEntry: FileEntry{Hash: e.Hash, Path: e.Path}})
	}
	return drop, files, nil
}

// BusyError is an indexing run refused because another coyote process
// indexes the same RAG. It matches sdk.ErrUnavailable, as the DuckDB
// store's refusal of a second writer does, with the same words.
type BusyError struct {
	RAG string
	// PID is the other process, 0 when its lock file does not say.
	PID int
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("RAG %s is being indexed by %s; try again once it has finished", e.RAG, e.Holder())
}

// Holder names the process that indexes the RAG: "another coyote process
// (PID 42)".
func (e *BusyError) Holder() string {
	if e.PID > 0 {
		return fmt.Sprintf("another coyote process (PID %d)", e.PID)
	}
	return "another coyote process"
}

// Unwrap makes a BusyError match sdk.ErrUnavailable.
func (e *BusyError) Unwrap() error { return sdk.ErrUnavailable }

// LockIndexing takes the indexing lock of the RAG name whose file is
// path, so that one coyote at a time changes a RAG: the file's advisory
// lock (sdk/fsx), without waiting. Another coyote holding it is a
// *BusyError naming it. Index takes it itself.
func LockIndexing(name, path string) (*fsx.Lock, error) {
	lock, err := fsx.LockFile(path, 0)
	var le *fsx.LockedError
	if errors.As(err, &le) {
		return nil, &BusyError{RAG: name, PID: le.PID}
	}
	return lock, err // fsx's error names the file
}
