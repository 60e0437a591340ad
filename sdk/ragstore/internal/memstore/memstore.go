// Package memstore is the reference RAG store: every chunk in memory,
// exact cosine similarity, a naive keyword search, the list of its files,
// and the whole store written to one JSON file beside the RAG's yaml at
// each Rebuild (which Drop removes). It is what the contract suite (storetest) is checked
// against and what drivers compare their top results with; it is not
// meant for real RAGs.
package memstore

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/fsx"
	"github.com/coyote-cli/coyote/sdk/ragstore"
)

// Store serves any number of open stores, as one plugin process does.
type Store struct {
	mu   sync.Mutex
	open map[string]*store
}

// New returns a Store with nothing open.
func New() *Store {
	return &Store{open: map[string]*store{}}
}

// store is one open RAG store.
type store struct {
	file   string // where the store is persisted
	mode   ragstore.Mode
	dim    int
	chunks map[string]ragstore.Chunk
}

// FileName is where the store of the RAG file path is persisted:
// rags/<name>.yaml → rags/<name>.memstore.json.
func FileName(path string) string {
	ext := filepath.Ext(path)
	if ext == ".yaml" || ext == ".yml" {
		path = strings.TrimSuffix(path, ext)
	}
	return path + ".memstore.json"
}

// Open loads the store's file; read-write creates an empty store when
// there is none, read-only reports sdk.ErrNotFound. Opening a store that
// is open already replaces it (unsaved changes are lost).
func (s *Store) Open(_ context.Context, req *ragstore.OpenRequest) (*ragstore.OpenResponse, error) {
	if req.Store == "" || req.Path == "" {
		return nil, fmt.Errorf("open: a store needs a name and a path: %w", sdk.ErrInvalidArgument)
	}
	st := &store{file: FileName(req.Path), mode: req.Mode, dim: req.Dimension, chunks: map[string]ragstore.Chunk{}}
	if err := st.load(); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("open RAG %q: %w", req.Store, err)
		}
		if req.Mode != ragstore.ReadWrite {
			return nil, fmt.Errorf("RAG %q has no store yet (%s): %w", req.Store, st.file, sdk.ErrNotFound)
		}
	} else if req.Dimension != 0 && st.dim != 0 && req.Dimension != st.dim {
		return nil, fmt.Errorf("RAG %q holds %d-dimensional vectors, not %d: rebuild it: %w",
			req.Store, st.dim, req.Dimension, sdk.ErrFailedPrecondition)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.open[req.Store] = st
	return &ragstore.OpenResponse{
		Stats:        st.stats(),
		Capabilities: []string{ragstore.CapKeywordSearch, ragstore.CapOwned},
	}, nil
}

// file is the JSON form of a store.
type file struct {
	Dimension int              `json:"dimension"`
	Chunks    []ragstore.Chunk `json:"chunks"`
}

func (st *store) load() error {
	b, err := os.ReadFile(st.file)
	if err != nil {
		return err
	}
	var f file
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("%s: %w", st.file, err)
	}
	if f.Dimension != 0 {
		st.dim = f.Dimension
	}
	for _, c := range f.Chunks {
		st.chunks[c.ID] = c
	}
	return nil
}

func (st *store) save() error {
	f := file{Dimension: st.dim, Chunks: make([]ragstore.Chunk, 0, len(st.chunks))}
	for _, c := range st.chunks {
		f.Chunks = append(f.Chunks, c)
	}
	slices.SortFunc(f.Chunks, func(a, b ragstore.Chunk) int { return strings.Compare(a.ID, b.ID) })
	b, err := json.Marshal(&f)
	if err != nil {
		return err
	}
	return fsx.WritePrivate(st.file, b)
}

func (st *store) stats() ragstore.Stats {
	files := map[string]bool{}
	for _, c := range st.chunks {
		files[c.FileID] = true
	}
	return ragstore.Stats{Chunks: int64(len(st.chunks)), Files: int64(len(files)), Dimension: st.dim}
}

// get returns an open store, locked by s.mu; the caller unlocks.
func (s *Store) get(name string, write bool) (*store, error) {
	s.mu.Lock()
	st, ok := s.open[name]
	if !ok {
		s.mu.Unlock()
		return nil, fmt.Errorf("RAG store %q is not open: %w", name, sdk.ErrFailedPrecondition)
	}
	if write && st.mode != ragstore.ReadWrite {
		s.mu.Unlock()
		return nil, fmt.Errorf("RAG store %q is open read-only: %w", name, sdk.ErrFailedPrecondition)
	}
	return st, nil
}

// Upsert adds or replaces chunks, all or none: a chunk without an id or
// with a vector of the wrong size fails the whole batch.
func (s *Store) Upsert(_ context.Context, req *ragstore.UpsertRequest) error {
	st, err := s.get(req.Store, true)
	if err != nil {
		return err
	}
	defer s.mu.Unlock()
	dim := st.dim
	for i := range req.Chunks {
		c := &req.Chunks[i]
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
	st.dim = dim
	for _, c := range req.Chunks {
		c.Vector = slices.Clone(c.Vector)
		c.Metadata = maps.Clone(c.Metadata)
		st.chunks[c.ID] = c
	}
	return nil
}

// DeleteFile removes a file's chunks; an unknown file is not an error.
func (s *Store) DeleteFile(_ context.Context, req *ragstore.DeleteFileRequest) error {
	st, err := s.get(req.Store, true)
	if err != nil {
		return err
	}
	defer s.mu.Unlock()
	for id, c := range st.chunks {
		if c.FileID == req.FileID {
			delete(st.chunks, id)
		}
	}
	return nil
}

// VectorSearch scores every chunk by exact cosine similarity.
func (s *Store) VectorSearch(_ context.Context, req *ragstore.VectorSearchRequest) (*ragstore.SearchResponse, error) {
	st, err := s.get(req.Store, false)
	if err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	if req.TopK <= 0 {
		return nil, fmt.Errorf("vector search: top_k %d: %w", req.TopK, sdk.ErrInvalidArgument)
	}
	if len(st.chunks) == 0 {
		return &ragstore.SearchResponse{}, nil
	}
	if len(req.Vector) != st.dim {
		return nil, fmt.Errorf("vector search: query has %d dimensions, the store %d: %w", len(req.Vector), st.dim, sdk.ErrInvalidArgument)
	}
	var hits []ragstore.Hit
	for id, c := range st.chunks {
		score := Cosine(req.Vector, c.Vector)
		if req.MinScore != 0 && score < req.MinScore {
			continue
		}
		hits = append(hits, ragstore.Hit{ID: id, Score: score})
	}
	return &ragstore.SearchResponse{Hits: best(hits, req.TopK)}, nil
}

// Cosine is the cosine similarity of two vectors of equal length, computed
// in float64; 0 when either is all zeros.
func Cosine(a, b []float32) float32 {
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return float32(dot / math.Sqrt(na*nb))
}

// KeywordSearch scores a chunk by how often the query's words occur in it.
func (s *Store) KeywordSearch(_ context.Context, req *ragstore.KeywordSearchRequest) (*ragstore.SearchResponse, error) {
	st, err := s.get(req.Store, false)
	if err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	if req.TopK <= 0 {
		return nil, fmt.Errorf("keyword search: top_k %d: %w", req.TopK, sdk.ErrInvalidArgument)
	}
	words := map[string]bool{}
	for _, w := range Words(req.Query) {
		words[w] = true
	}
	var hits []ragstore.Hit
	for id, c := range st.chunks {
		n := 0
		for _, w := range Words(c.Text) {
			if words[w] {
				n++
			}
		}
		if n > 0 {
			hits = append(hits, ragstore.Hit{ID: id, Score: float32(n)})
		}
	}
	return &ragstore.SearchResponse{Hits: best(hits, req.TopK)}, nil
}

// Words splits text into lowercase runs of letters and digits.
func Words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// best sorts hits by score, ties by id, and keeps the first k.
func best(hits []ragstore.Hit, k int) []ragstore.Hit {
	slices.SortFunc(hits, func(a, b ragstore.Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	if len(hits) > k {
		hits = hits[:k]
	}
	return hits
}

// FetchContent returns the chunks asked for, in that order, skipping
// unknown ids.
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

// ListFiles counts the chunks of each file.
func (s *Store) ListFiles(_ context.Context, req *ragstore.ListFilesRequest) (*ragstore.ListFilesResponse, error) {
	st, err := s.get(req.Store, false)
	if err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	counts := map[string]int64{}
	for _, c := range st.chunks {
		counts[c.FileID]++
	}
	out := &ragstore.ListFilesResponse{Files: make([]ragstore.FileChunks, 0, len(counts))}
	for _, id := range slices.Sorted(maps.Keys(counts)) {
		out.Files = append(out.Files, ragstore.FileChunks{FileID: id, Chunks: counts[id]})
	}
	return out, nil
}

// Rebuild writes the store to its file; memstore has no index to rebuild.
func (s *Store) Rebuild(_ context.Context, req *ragstore.RebuildRequest) error {
	st, err := s.get(req.Store, true)
	if err != nil {
		return err
	}
	defer s.mu.Unlock()
	if err := st.save(); err != nil {
		return fmt.Errorf("save RAG store %q: %w", req.Store, err)
	}
	return nil
}

// Close forgets a store; what was not saved by Rebuild is lost. Closing a
// store that is not open does nothing.
func (s *Store) Close(_ context.Context, req *ragstore.CloseRequest) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.open, req.Store)
	return nil
}

// Drop removes the store's file (and a temporary one a killed Rebuild
// left). A store open in this process is refused; a store never built is
// not an error.
func (s *Store) Drop(_ context.Context, req *ragstore.DropRequest) error {
	if req.Store == "" || req.Path == "" {
		return fmt.Errorf("drop: a store needs a name and a path: %w", sdk.ErrInvalidArgument)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.open[req.Store]; ok {
		return fmt.Errorf("drop RAG %q: its store is open; close it first: %w", req.Store, sdk.ErrFailedPrecondition)
	}
	file := FileName(req.Path)
	for _, f := range []string{file + ".tmp", file} {
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("drop RAG %q: %w", req.Store, err)
		}
	}
	return nil
}

var (
	_ ragstore.Store           = (*Store)(nil)
	_ ragstore.KeywordSearcher = (*Store)(nil)
	_ ragstore.Dropper         = (*Store)(nil)
	_ ragstore.FileLister      = (*Store)(nil)
)
