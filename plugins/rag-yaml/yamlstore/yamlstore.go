// Package yamlstore is the yaml RAG store: the original's own format, where
// the vectors live in the RAG's file (rags/<name>.yaml) as base64
// little-endian float32 under `vectors`, and the chunks' text under
// `files.<id>.documents`. A RAG built by the original keeps working
// unchanged, and one built here reads back in the original.
//
// The kernel writes the file's settings and `files`; this store owns only
// `vectors`, which it writes on Rebuild by reading the file again and
// replacing that one section line by line, so nothing else in the file
// changes and no YAML tree of a large file is built (sdk/ragstore/ragfile).
// Searches are exact, on the SDK's in-memory index (sdk/ragstore/vecindex).
//
// The files section is the list of chunks, and the vectors follow it: the
// kernel lists an indexing pass's chunks before it upserts them, a write
// keeps exactly the vectors of the chunks the file lists, and a load drops
// the vectors of chunks it no longer lists (what a pass killed between the
// kernel's write and this store's left behind) and rewrites the file
// without them at the next write. A listed chunk without a vector is one
// the pass did not reach: ListFiles leaves it out, so that the kernel
// embeds it again.
package yamlstore

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"sync"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/fsx"
	"github.com/coyote-cli/coyote/sdk/ragstore"
	"github.com/coyote-cli/coyote/sdk/ragstore/vecindex"
)

// Store serves every open yaml store of the plugin.
type Store struct {
	mu     sync.Mutex
	stores map[string]*store
}

// New returns a Store with nothing open.
func New() *Store { return &Store{stores: map[string]*store{}} }

// store is one RAG's chunks in memory: those the file lists (with their
// vector, when it has one) and those upserted since.
type store struct {
	name   string
	path   string
	mode   ragstore.Mode
	dim    int
	chunks map[string]*chunk
	// ix holds the vectors for search (nil until the dimension is known).
	ix    *vecindex.Index
	dirty bool
}

// index puts a chunk's vector into the search index; a vector of another
// dimension than the store's is kept in the file but not searched.
func (st *store) index(id string, vec []float32) {
	if st.dim == 0 {
		st.dim = len(vec)
	}
	if len(vec) != st.dim || st.dim == 0 {
		return
	}
	if st.ix == nil {
		st.ix = vecindex.New(st.dim)
	}
	st.ix.Put(id, vec)
}

type chunk struct {
	fileID string
	text   string
	meta   map[string]string
	vec    []float32 // as stored
}

// get returns the open store named name (s.mu held); write refuses a
// store opened read-only.
func (s *Store) get(name string, write bool) (*store, error) {
	st, ok := s.stores[name]
	if !ok {
		return nil, fmt.Errorf("RAG store %q is not open: %w", name, sdk.ErrFailedPrecondition)
	}
	if write && st.mode != ragstore.ReadWrite {
		return nil, fmt.Errorf("RAG store %q is open read-only: %w", name, sdk.ErrFailedPrecondition)
	}
	return st, nil
}

// Open reads the RAG file's documents and vectors.
func (s *Store) Open(_ context.Context, req *ragstore.OpenRequest) (*ragstore.OpenResponse, error) {
	switch {
	case req.Store == "" || req.Path == "":
		return nil, fmt.Errorf("open: a store needs a name and a path: %w", sdk.ErrInvalidArgument)
	case req.Attached:
		return nil, fmt.Errorf("RAG %s: the yaml driver keeps its vectors in the RAG file and cannot attach to a collection: %w", req.Store, sdk.ErrUnsupported)
	}
	st := &store{name: req.Store, path: req.Path, mode: req.Mode, dim: req.Dimension, chunks: map[string]*chunk{}}
	data, err := os.ReadFile(req.Path)
	switch {
	case errors.Is(err, os.ErrNotExist) && req.Mode == ragstore.ReadWrite:
	case errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("RAG %s has not been built (%s is missing): build it with coyote --rag %s --rebuild-rag: %w", req.Store, req.Path, req.Store, sdk.ErrNotFound)
	case err != nil:
		return nil, fmt.Errorf("open RAG %s: %w", req.Path, err)
	default:
		if err := st.load(data); err != nil {
			return nil, fmt.Errorf("open RAG %s: %w", req.Path, err)
		}
	}
	s.mu.Lock()
	s.stores[req.Store] = st
	s.mu.Unlock()
	return &ragstore.OpenResponse{Stats: st.stats(), Capabilities: []string{ragstore.CapOwned}}, nil
}

// load reads the chunks' text from the file's files and their vectors
// from its vectors section. A vector whose chunk the file does not list
// is dropped: an indexing pass was killed after the kernel had listed its
// chunks and before this store had written their vectors, and the old
// vectors left behind belong to no chunk. The file is rewritten without
// them at the next write of a read-write store.
func (st *store) load(data []byte) error {
	f, err := readRAGFile(st.path, data)
	if err != nil {
		return err
	}
	f.chunks(func(id, fileID, text string, meta map[string]string) {
		st.chunks[id] = &chunk{fileID: fileID, text: text, meta: meta}
	})
	dropped := 0
	for id, vec := range f.vectors {
		c, ok := st.chunks[id]
		if !ok {
			dropped++
			continue
		}
		c.vec = vec
		st.index(id, vec)
	}
	if dropped > 0 {
		sdk.Logger().Info("dropped vectors of chunks the RAG file does not list", "store", st.name, "vectors", dropped)
		st.dirty = true
	}
	return nil
}

// Upsert adds or replaces chunks in memory; Rebuild writes them.
func (s *Store) Upsert(_ context.Context, req *ragstore.UpsertRequest) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.get(req.Store, true)
	if err != nil {
		return err
	}
	for _, c := range req.Chunks {
		if st.dim == 0 {
			st.dim = len(c.Vector)
		}
		if len(c.Vector) != st.dim {
			return fmt.Errorf("upsert into RAG %s: chunk %s has %d dimensions, the store %d: %w", req.Store, c.ID, len(c.Vector), st.dim, sdk.ErrInvalidArgument)
		}
		meta := maps.Clone(c.Metadata)
		if meta == nil {
			meta = map[string]string{}
		}
		vec := append([]float32(nil), c.Vector...)
		st.chunks[c.ID] = &chunk{fileID: c.FileID, text: c.Text, meta: meta, vec: vec}
		st.index(c.ID, vec)
	}
	st.dirty = true
	return nil
}

// DeleteFile drops a file's chunks.
func (s *Store) DeleteFile(_ context.Context, req *ragstore.DeleteFileRequest) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.get(req.Store, true)
	if err != nil {
		return err
	}
	for id, c := range st.chunks {
		if c.fileID == req.FileID {
			delete(st.chunks, id)
			if st.ix != nil {
				st.ix.Remove(id)
			}
			st.dirty = true
		}
	}
	return nil
}

// VectorSearch scans every vector (cosine similarity).
func (s *Store) VectorSearch(_ context.Context, req *ragstore.VectorSearchRequest) (*ragstore.SearchResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.get(req.Store, false)
	if err != nil {
		return nil, err
	}
	if st.dim != 0 && len(req.Vector) != st.dim {
		return nil, fmt.Errorf("vector search in RAG %s: query has %d dimensions, the store %d: %w", req.Store, len(req.Vector), st.dim, sdk.ErrInvalidArgument)
	}
	if st.ix == nil {
		return &ragstore.SearchResponse{}, nil
	}
	return &ragstore.SearchResponse{Hits: st.ix.Search(req.Vector, req.TopK, req.MinScore)}, nil
}

// FetchContent returns texts in the order asked, skipping unknown ids.
func (s *Store) FetchContent(_ context.Context, req *ragstore.FetchContentRequest) (*ragstore.FetchContentResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.get(req.Store, false)
	if err != nil {
		return nil, err
	}
	out := &ragstore.FetchContentResponse{}
	for _, id := range req.IDs {
		if c, ok := st.chunks[id]; ok {
			out.Contents = append(out.Contents, ragstore.Content{ID: id, Text: c.text, Metadata: c.meta})
		}
	}
	return out, nil
}

// Stats counts chunks and files.
func (s *Store) Stats(_ context.Context, req *ragstore.StatsRequest) (*ragstore.Stats, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.get(req.Store, false)
	if err != nil {
		return nil, err
	}
	stats := st.stats()
	return &stats, nil
}

// stats counts the chunks a search can find (those with a vector) and
// their files.
func (st *store) stats() ragstore.Stats {
	counts := st.fileCounts()
	var chunks int64
	for _, n := range counts {
		chunks += n
	}
	return ragstore.Stats{Chunks: chunks, Files: int64(len(counts)), Dimension: st.dim}
}

// fileCounts counts the searchable chunks of each file.
func (st *store) fileCounts() map[string]int64 {
	counts := map[string]int64{}
	for _, c := range st.chunks {
		if c.vec != nil && len(c.vec) == st.dim {
			counts[c.fileID]++
		}
	}
	return counts
}

// ListFiles counts the chunks of each file that have a vector: a chunk the
// file lists without one was not reached by the indexing pass that listed
// it, and is left out so that the kernel embeds it again.
func (s *Store) ListFiles(_ context.Context, req *ragstore.ListFilesRequest) (*ragstore.ListFilesResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.get(req.Store, false)
	if err != nil {
		return nil, err
	}
	counts := st.fileCounts()
	out := &ragstore.ListFilesResponse{Files: make([]ragstore.FileChunks, 0, len(counts))}
	for id, n := range counts {
		out.Files = append(out.Files, ragstore.FileChunks{FileID: id, Chunks: n})
	}
	return out, nil
}

// Rebuild writes the vectors into the RAG file. A full rebuild and an
// incremental one do the same: the file is rewritten from memory.
func (s *Store) Rebuild(_ context.Context, req *ragstore.RebuildRequest) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.get(req.Store, false)
	if err != nil {
		return err
	}
	if st.mode != ragstore.ReadWrite || !st.dirty {
		return nil
	}
	if err := st.persist(); err != nil {
		return fmt.Errorf("write the vectors of %s: %w", st.path, err)
	}
	st.dirty = false
	return nil
}

// Close forgets a store; unsaved changes of a read-write store are
// written first.
func (s *Store) Close(ctx context.Context, req *ragstore.CloseRequest) error {
	if err := s.Rebuild(ctx, &ragstore.RebuildRequest{Store: req.Store}); err != nil {
		return err
	}
	s.mu.Lock()
	delete(s.stores, req.Store)
	s.mu.Unlock()
	return nil
}

// persist replaces the file's vectors key (adding it when missing) and
// keeps every other line as written where the layout allows (see
// replaceVectors). It writes exactly the vectors of the chunks the file
// lists now (the kernel lists a pass's chunks before it upserts them): a
// vector the file does not list would belong to no chunk. A file without
// a files section (nothing the kernel wrote yet) keeps every vector.
func (st *store) persist() error {
	data, err := os.ReadFile(st.path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	listed, err := listedChunks(st.path, data)
	if err != nil {
		return err
	}
	vectors := make(map[string][]float32, len(st.chunks))
	for id, c := range st.chunks {
		if c.vec != nil && (listed == nil || listed(id)) {
			vectors[id] = c.vec
		}
	}
	out, err := replaceVectors(data, vectors)
	if err != nil {
		return err
	}
	return fsx.WritePrivate(st.path, out) // RAG files hold the user's documents
}

// Interface guards.
var (
	_ ragstore.Store      = (*Store)(nil)
	_ ragstore.FileLister = (*Store)(nil)
)
