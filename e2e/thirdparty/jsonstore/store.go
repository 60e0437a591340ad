// Package jsonstore is a RAG store kept in one JSON file per RAG, written
// against Coyote's SDK alone: vectors searched exactly in memory
// (sdk/ragstore/vecindex), keywords ranked with the kernel's own BM25
// (sdk/ragstore/rank), the file written atomically (sdk/fsx). A RAG
// may put its file in another directory with driver_config.dir, which the
// store asks for when a RAG is set up.
package jsonstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/fsx"
	"github.com/coyote-cli/coyote/sdk/ragstore"
	"github.com/coyote-cli/coyote/sdk/ragstore/rank"
	"github.com/coyote-cli/coyote/sdk/ragstore/vecindex"
)

// Info is what the plugin reports about itself.
var Info = sdk.Info{
	Name:         "jsonfile",
	Version:      "0.1.0",
	Description:  "a RAG's chunks in a JSON file (a third-party example)",
	Capabilities: []string{ragstore.CapOwned},
}

// Store serves every open store of the plugin.
type Store struct {
	mu   sync.Mutex
	open map[string]*store
}

// New returns a Store with nothing open.
func New() *Store { return &Store{open: map[string]*store{}} }

type store struct {
	file   string
	mode   ragstore.Mode
	dim    int
	chunks map[string]ragstore.Chunk
	vec    *vecindex.Index
	kw     *rank.BM25
}

// fileOf is where a RAG's store lives: <dir or the RAG's directory>/<name>.jsonfile.json.
func fileOf(path string, dc map[string]any) (string, error) {
	dir, err := configDir(dc)
	if err != nil {
		return "", err
	}
	if dir == "" {
		dir = filepath.Dir(path)
	}
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	return filepath.Join(dir, base+".jsonfile.json"), nil
}

func configDir(dc map[string]any) (string, error) {
	v, ok := dc["dir"]
	if !ok || v == nil || v == "" {
		return "", nil
	}
	s, ok := v.(string)
	if !ok || !filepath.IsAbs(s) {
		return "", fmt.Errorf("driver_config.dir must be an absolute directory, not %v: %w", v, sdk.ErrInvalidArgument)
	}
	return s, nil
}

// Setup asks where the store's file goes.
func (s *Store) Setup(_ context.Context, req *ragstore.SetupRequest) (*ragstore.SetupResponse, error) {
	if req.Attached {
		return nil, fmt.Errorf("the jsonfile driver cannot attach: %w", sdk.ErrUnsupported)
	}
	return &ragstore.SetupResponse{
		Questions: []ragstore.Question{{Key: "dir", Prompt: "Directory of the store's file (empty: beside the RAG's file)"}},
		Note:      "The chunks are kept in a JSON file.",
	}, nil
}

// ValidateConfig checks driver_config.dir.
func (s *Store) ValidateConfig(_ context.Context, req *ragstore.ValidateConfigRequest) error {
	_, err := configDir(req.DriverConfig)
	return err
}

type fileForm struct {
	Dimension int              `json:"dimension"`
	Chunks    []ragstore.Chunk `json:"chunks"`
}

// Open loads the store's file; read-write creates an empty store.
func (s *Store) Open(_ context.Context, req *ragstore.OpenRequest) (*ragstore.OpenResponse, error) {
	if req.Store == "" || req.Path == "" {
		return nil, fmt.Errorf("open: a store needs a name and a path: %w", sdk.ErrInvalidArgument)
	}
	if req.Attached {
		return nil, fmt.Errorf("RAG %s: the jsonfile driver cannot attach: %w", req.Store, sdk.ErrUnsupported)
	}
	file, err := fileOf(req.Path, req.DriverConfig)
	if err != nil {
		return nil, fmt.Errorf("RAG %s: %w", req.Store, err)
	}
	st := &store{file: file, mode: req.Mode, dim: req.Dimension, chunks: map[string]ragstore.Chunk{}, kw: rank.NewBM25()}
	data, err := os.ReadFile(file)
	switch {
	case errors.Is(err, fs.ErrNotExist) && req.Mode == ragstore.ReadWrite:
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("RAG %s has not been built (%s is missing): %w", req.Store, file, sdk.ErrNotFound)
	case err != nil:
		return nil, fmt.Errorf("open RAG %s: %w", req.Store, err)
	default:
		var f fileForm
		if err := json.Unmarshal(data, &f); err != nil {
			return nil, fmt.Errorf("open RAG %s: %s: %w", req.Store, file, err)
		}
		if req.Dimension != 0 && f.Dimension != 0 && req.Dimension != f.Dimension {
			return nil, fmt.Errorf("RAG %s holds %d-dimensional vectors, not %d: rebuild it: %w", req.Store, f.Dimension, req.Dimension, sdk.ErrFailedPrecondition)
		}
		if f.Dimension != 0 {
			st.dim = f.Dimension
		}
		st.put(f.Chunks)
	}
	s.mu.Lock()
	s.open[req.Store] = st
	s.mu.Unlock()
	return &ragstore.OpenResponse{Stats: st.stats(), Capabilities: []string{ragstore.CapOwned, ragstore.CapKeywordSearch}}, nil
}

// put adds chunks to the store and its indexes, a file's chunks at a time
// for the keyword index.
func (st *store) put(chunks []ragstore.Chunk) {
	files := map[string]bool{}
	for _, c := range chunks {
		st.chunks[c.ID] = c
		files[c.FileID] = true
		if st.dim == 0 {
			st.dim = len(c.Vector)
		}
		if st.vec == nil && st.dim > 0 {
			st.vec = vecindex.New(st.dim)
		}
		if st.vec != nil && len(c.Vector) == st.dim {
			st.vec.Put(c.ID, c.Vector)
		}
	}
	for f := range files {
		st.reindex(f)
	}
}

// reindex puts a file's chunks into the keyword index again.
func (st *store) reindex(fileID string) {
	var ps []rank.Passage
	for _, c := range st.chunks {
		if c.FileID == fileID {
			ps = append(ps, rank.Passage{ID: c.ID, Text: c.Text})
		}
	}
	st.kw.AddFile(fileID, ps)
}

func (st *store) stats() ragstore.Stats {
	files := map[string]bool{}
	for _, c := range st.chunks {
		files[c.FileID] = true
	}
	return ragstore.Stats{Chunks: int64(len(st.chunks)), Files: int64(len(files)), Dimension: st.dim}
}

// get returns an open store with s.mu held; the caller unlocks.
func (s *Store) get(name string, write bool) (*store, error) {
	s.mu.Lock()
	st, ok := s.open[name]
	switch {
	case !ok:
		s.mu.Unlock()
		return nil, fmt.Errorf("RAG store %q is not open: %w", name, sdk.ErrFailedPrecondition)
	case write && st.mode != ragstore.ReadWrite:
		s.mu.Unlock()
		return nil, fmt.Errorf("RAG store %q is open read-only: %w", name, sdk.ErrFailedPrecondition)
	}
	return st, nil
}

// Upsert adds or replaces chunks, all or none.
func (s *Store) Upsert(_ context.Context, req *ragstore.UpsertRequest) error {
	st, err := s.get(req.Store, true)
	if err != nil {
		return err
	}
	defer s.mu.Unlock()
	dim := st.dim
	for i, c := range req.Chunks {
		if c.ID == "" || c.FileID == "" {
			return fmt.Errorf("upsert: chunk %d has no id or file id: %w", i, sdk.ErrInvalidArgument)
		}
		if dim == 0 {
			dim = len(c.Vector)
		}
		if len(c.Vector) != dim || dim == 0 {
			return fmt.Errorf("upsert: chunk %s has %d dimensions, the store %d: %w", c.ID, len(c.Vector), dim, sdk.ErrInvalidArgument)
		}
	}
	chunks := make([]ragstore.Chunk, len(req.Chunks))
	for i, c := range req.Chunks {
		c.Vector = slices.Clone(c.Vector)
		c.Metadata = maps.Clone(c.Metadata)
		chunks[i] = c
	}
	st.put(chunks)
	return nil
}

// DeleteFile removes a file's chunks.
func (s *Store) DeleteFile(_ context.Context, req *ragstore.DeleteFileRequest) error {
	st, err := s.get(req.Store, true)
	if err != nil {
		return err
	}
	defer s.mu.Unlock()
	for id, c := range st.chunks {
		if c.FileID == req.FileID {
			delete(st.chunks, id)
			if st.vec != nil {
				st.vec.Remove(id)
			}
		}
	}
	st.kw.RemoveFile(req.FileID)
	return nil
}

// VectorSearch ranks by cosine similarity.
func (s *Store) VectorSearch(_ context.Context, req *ragstore.VectorSearchRequest) (*ragstore.SearchResponse, error) {
	st, err := s.get(req.Store, false)
	if err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	if st.vec == nil || len(st.chunks) == 0 {
		return &ragstore.SearchResponse{}, nil
	}
	if len(req.Vector) != st.dim {
		return nil, fmt.Errorf("vector search: query has %d dimensions, the store %d: %w", len(req.Vector), st.dim, sdk.ErrInvalidArgument)
	}
	return &ragstore.SearchResponse{Hits: st.vec.Search(req.Vector, req.TopK, req.MinScore)}, nil
}

// KeywordSearch ranks with BM25, as the kernel would.
func (s *Store) KeywordSearch(_ context.Context, req *ragstore.KeywordSearchRequest) (*ragstore.SearchResponse, error) {
	st, err := s.get(req.Store, false)
	if err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	return &ragstore.SearchResponse{Hits: st.kw.Search(req.Query, req.TopK)}, nil
}

// FetchContent returns chunks in the order asked, skipping unknown ids.
func (s *Store) FetchContent(_ context.Context, req *ragstore.FetchContentRequest) (*ragstore.FetchContentResponse, error) {
	st, err := s.get(req.Store, false)
	if err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	out := &ragstore.FetchContentResponse{}
	for _, id := range req.IDs {
		if c, ok := st.chunks[id]; ok {
			out.Contents = append(out.Contents, ragstore.Content{ID: id, Text: c.Text, Metadata: c.Metadata})
		}
	}
	return out, nil
}

// Stats counts chunks and files.
func (s *Store) Stats(_ context.Context, req *ragstore.StatsRequest) (*ragstore.Stats, error) {
	st, err := s.get(req.Store, false)
	if err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	stats := st.stats()
	return &stats, nil
}

// Rebuild writes the store's file.
func (s *Store) Rebuild(_ context.Context, req *ragstore.RebuildRequest) error {
	st, err := s.get(req.Store, true)
	if err != nil {
		return err
	}
	defer s.mu.Unlock()
	f := fileForm{Dimension: st.dim, Chunks: make([]ragstore.Chunk, 0, len(st.chunks))}
	for _, c := range st.chunks {
		f.Chunks = append(f.Chunks, c)
	}
	slices.SortFunc(f.Chunks, func(a, b ragstore.Chunk) int { return rank.CompareChunkIDs(a.ID, b.ID) })
	data, err := json.Marshal(&f)
	if err != nil {
		return err
	}
	if err := fsx.WriteFileAtomic(st.file, data, 0o600); err != nil {
		return fmt.Errorf("save RAG %s: %w", req.Store, err)
	}
	return nil
}

// Close forgets a store.
func (s *Store) Close(_ context.Context, req *ragstore.CloseRequest) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.open, req.Store)
	return nil
}

// Drop removes the store's file.
func (s *Store) Drop(_ context.Context, req *ragstore.DropRequest) error {
	if req.Store == "" || req.Path == "" {
		return fmt.Errorf("drop: a store needs a name and a path: %w", sdk.ErrInvalidArgument)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.open[req.Store]; ok {
		return fmt.Errorf("drop RAG %q: its store is open; close it first: %w", req.Store, sdk.ErrFailedPrecondition)
	}
	file, err := fileOf(req.Path, req.DriverConfig)
	if err != nil {
		return err
	}
	if err := os.Remove(file); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("drop RAG %q: %w", req.Store, err)
	}
	return nil
}

var (
	_ ragstore.Store           = (*Store)(nil)
	_ ragstore.KeywordSearcher = (*Store)(nil)
	_ ragstore.Dropper         = (*Store)(nil)
	_ ragstore.DriverSetup     = (*Store)(nil)
)
