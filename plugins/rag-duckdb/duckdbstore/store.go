package duckdbstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/ragstore"
	"github.com/coyote-cli/coyote/sdk/ragstore/rank"
	"github.com/coyote-cli/coyote/sdk/ragstore/vecindex"
)

// Version is the plugin's version, reported by Describe.
const Version = "0.1.0"

// Driver serves every open DuckDB store of one plugin process, each named
// by its RAG. It implements ragstore.Store, ragstore.KeywordSearcher,
// ragstore.FileLister and ragstore.Dropper.
type Driver struct {
	mu     sync.Mutex
	stores map[string]*store
}

// New returns a Driver with no store open.
func New() *Driver {
	return &Driver{stores: make(map[string]*store)}
}

// store is one open .duckdb file.
type store struct {
	name string
	path string
	mode ragstore.Mode
	opts [][2]string
	db   *sql.DB
	ext  extensions

	// mu guards dim and vec: searches read them, writes replace them.
	mu  sync.RWMutex
	dim int // 0 until the first vector of a new store
	// vec is the vectors in memory, nil until a search asks for them in a
	// read-write store and again after each write there (indexing never
	// searches, so it never holds them). A read-only store starts loading
	// them in the background at Open, while the kernel embeds the query.
	vec *vectors
	// loads counts loaders still running, and stop (set under mu) asks
	// them to give up and refuses new ones, so that close can wait for
	// them before closing the database.
	loads sync.WaitGroup
	stop  atomic.Bool

	// kw is the keyword index in memory.
	kw memKeywords

	// wmu serialises writes, which go through wconn (read-write only)
	// and, for upserts, raw, a C API connection to the same database.
	wmu     sync.Mutex
	wconn   *sql.Conn
	raw     *rawConn
	nextKey int64
	// vecTokenGone is set once this writer has removed the vector file's
	// token from coyote_meta, before its first change (see vecfile.go).
	vecTokenGone bool
	// vocab numbers the terms the store holds, and maxTID is the largest
	// number (read-write only, read at the first upsert).
	vocab  map[string]int32
	maxTID int32
	// ids are the chunk ids the store holds (read-write only), so that an
	// upsert of new ids skips the deletes that replace old ones.
	ids idSet
}

// get returns the open store named name.
func (d *Driver) get(name string) (*store, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := d.stores[name]
	if s == nil {
		return nil, fmt.Errorf("RAG store %q is not open: %w", name, sdk.ErrFailedPrecondition)
	}
	return s, nil
}

// writable returns the open store named name if it was opened read-write.
func (d *Driver) writable(name string) (*store, error) {
	s, err := d.get(name)
	if err != nil {
		return nil, err
	}
	if s.mode != ragstore.ReadWrite {
		return nil, fmt.Errorf("RAG store %q is open read-only: %w", name, sdk.ErrFailedPrecondition)
	}
	return s, nil
}

// Open opens the store of a RAG: read-only, it must exist; read-write, it
// is created (or, when the embedding dimension changed, emptied). Opening a
// store that is already open closes it first, so a process can switch
// from querying to indexing.
func (d *Driver) Open(ctx context.Context, req *ragstore.OpenRequest) (*ragstore.OpenResponse, error) {
	switch {
	case req.Store == "":
		return nil, fmt.Errorf("open: no store name: %w", sdk.ErrInvalidArgument)
	case req.Path == "":
		return nil, fmt.Errorf("open RAG %s: no path: %w", req.Store, sdk.ErrInvalidArgument)
	case req.Attached:
		return nil, fmt.Errorf("RAG %s: the duckdb driver keeps its own chunks and cannot attach to a collection: %w", req.Store, sdk.ErrUnsupported)
	case req.Dimension < 0:
		return nil, fmt.Errorf("open RAG %s: dimension %d: %w", req.Store, req.Dimension, sdk.ErrInvalidArgument)
	}
	path, err := filepath.Abs(FilePath(req.Path))
	if err != nil {
		return nil, fmt.Errorf("open RAG %s: %w", req.Store, err)
	}
	opts, err := dbOptions(req.Mode, req.DriverConfig)
	if err != nil {
		return nil, fmt.Errorf("RAG %s: %w", req.Store, err)
	}

	d.mu.Lock()
	defer d.mu.Unlock()
	if old := d.stores[req.Store]; old != nil {
		delete(d.stores, req.Store)
		if err := old.close(); err != nil {
			return nil, err
		}
	}

	exists, err := fileExists(path)
	if err != nil {
		return nil, fmt.Errorf("open RAG %s: %w", req.Store, err)
	}
	if !exists {
		if req.Mode == ragstore.ReadOnly {
			return nil, fmt.Errorf("RAG %s has no store yet (%s): build it first: %w", req.Store, path, sdk.ErrNotFound)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, fmt.Errorf("open RAG %s: %w", req.Store, err)
		}
	}

	s, err := openStore(ctx, req, path, opts)
	if errors.Is(err, errOldLayout) {
		// Read-only, a store of layout 1: migrated by a short read-write
		// open (which another reader's lock refuses, saying who), then
		// opened again.
		if err = migrateV1(path, readWrite(opts)); err != nil {
			if isLockError(err) {
				return nil, fmt.Errorf("RAG %s must be upgraded to this version's layout, which needs it closed in every other coyote process: %w", req.Store, classifyOpenError(req.Store, path, err))
			}
			return nil, upgradeError(req.Store, path, err)
		}
		s, err = openStore(ctx, req, path, opts)
	}
	if err != nil {
		return nil, err
	}
	st, err := s.stats(ctx)
	if err != nil {
		_ = s.close()
		return nil, err
	}
	d.stores[req.Store] = s
	sdk.Logger().Debug("opened RAG store", "store", req.Store, "path", path, "mode", req.Mode,
		"chunks", st.Chunks, "dimension", st.Dimension, "fts", s.ext.fts, "vss", s.ext.vss)
	return &ragstore.OpenResponse{
		Stats:        *st,
		Capabilities: []string{ragstore.CapOwned, ragstore.CapKeywordSearch},
	}, nil
}

// upgradeError says that a store's upgrade failed, and how to start it
// afresh instead (its documents are embedded again).
func upgradeError(store, path string, err error) error {
	return fmt.Errorf("RAG %s: upgrade %s to this version's layout: %w (to build the store afresh instead, delete %s and run coyote --rag %s --rebuild-rag)",
		store, path, err, path, store)
}

// openStore opens the file and checks or prepares its tables.
func openStore(ctx context.Context, req *ragstore.OpenRequest, path string, opts [][2]string) (*store, error) {
	s := &store{name: req.Store, path: path, mode: req.Mode, opts: opts}
	var err error
	s.db, err = openDB(req.Store, path, opts)
	if err != nil {
		return nil, err
	}
	if err := s.init(ctx, req.Dimension); err != nil {
		_ = s.close()
		return nil, err
	}
	return s, nil
}

// init checks (read-only) or prepares (read-write) the tables, and loads
// the vectors.
func (s *store) init(ctx context.Context, dim int) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return classifyOpenError(s.name, s.path, err)
	}
	defer conn.Close()
	s.ext = probeExtensions(ctx, conn)
	version, have, ok, err := readMeta(ctx, conn)
	if err != nil {
		return fmt.Errorf("open RAG %s: %w", s.name, err)
	}
	if ok && version == "1" {
		if s.mode == ragstore.ReadOnly {
			return errOldLayout
		}
		if err := migrateV1(s.path, s.opts); err != nil {
			return upgradeError(s.name, s.path, err)
		}
		sdk.Logger().Info("upgraded RAG store", "store", s.name, "from_layout", version, "layout", schemaVersion)
		version = schemaVersion
	}
	if s.mode == ragstore.ReadOnly {
		switch {
		case !ok:
			return fmt.Errorf("RAG %s: %s holds no Coyote index (made by another program or never filled): rebuild the RAG: %w",
				s.name, s.path, sdk.ErrFailedPrecondition)
		case version != schemaVersion:
			return fmt.Errorf("RAG %s: %s has layout %q, this plugin reads %q: rebuild the RAG: %w",
				s.name, s.path, version, schemaVersion, sdk.ErrFailedPrecondition)
		case dim > 0 && have != dim:
			return fmt.Errorf("RAG %s was indexed with %d-dimensional vectors but its embedding model gives %d: rebuild the RAG: %w",
				s.name, have, dim, sdk.ErrFailedPrecondition)
		}
		s.dim = have
	} else {
		switch {
		case ok && version == schemaVersion && (dim == 0 || dim == have):
			s.dim = have
		case dim > 0:
			// New, another layout, or another embedding model: every
			// vector would be unusable, and the kernel is about to upsert.
			if ok {
				sdk.Logger().Info("recreating RAG store", "store", s.name, "layout", version, "dimension", have, "new_dimension", dim)
			}
			if err := createSchema(ctx, conn, dim); err != nil {
				return err
			}
			s.dim = dim
		case ok:
			return fmt.Errorf("RAG %s: %s has layout %q and no dimension was given to recreate it: %w",
				s.name, s.path, version, sdk.ErrFailedPrecondition)
		}
		// Otherwise a new store of unknown dimension: the first upsert
		// creates the tables.
	}
	if s.mode == ragstore.ReadWrite {
		s.nextKey = 1
		s.ids = newIDSet()
		if s.dim > 0 {
			if err := conn.QueryRowContext(ctx, "SELECT coalesce(max(key), 0) + 1 FROM chunks").Scan(&s.nextKey); err != nil {
				return fmt.Errorf("open RAG %s: %w", s.name, err)
			}
			if _, err := conn.ExecContext(ctx, dropIDIndex); err != nil {
				return fmt.Errorf("open RAG %s: %w", s.name, err)
			}
			if err := s.ids.load(ctx, conn); err != nil {
				return fmt.Errorf("open RAG %s: %w", s.name, err)
			}
		}
		s.wconn, err = s.db.Conn(ctx)
		if err != nil {
			return fmt.Errorf("open RAG %s: %w", s.name, err)
		}
		s.raw, err = connectRaw(s.path, s.opts)
		if err != nil {
			return fmt.Errorf("open RAG %s: %w", s.name, err)
		}
	}
	if s.mode == ragstore.ReadOnly && s.dim > 0 {
		s.vec = s.openVectors(ctx, conn)
		if s.kw.file == nil {
			s.kw.start(s)
		}
	}
	return nil
}

// openVectors returns a reader's vectors: the vector file's quantised
// index when the file is the store's current one, at once (and sets the
// keyword index from the file, s.kw.file); otherwise a load of every
// vector from DuckDB, started.
func (s *store) openVectors(ctx context.Context, conn *sql.Conn) *vectors {
	var token string
	err := conn.QueryRowContext(ctx, "SELECT value FROM coyote_meta WHERE key = $1", vecMetaKey).Scan(&token)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		sdk.Logger().Debug("vector file token not read", "store", s.name, "err", err)
	}
	vf, err := openVecFile(s.path, token, s.dim)
	if err == nil {
		var q *vecindex.Quantised
		var ids *fileIDs
		var kw *rank.FrozenBM25
		if ids, err = vf.ids(); err == nil {
			q, err = vf.index(ids)
		}
		if err == nil {
			kw, err = vf.keywords(ids)
		}
		if err == nil {
			s.kw.file, s.kw.vf = kw, vf
			done := make(chan struct{})
			close(done)
			return &vectors{q: q, file: vf, done: done}
		}
		_ = vf.close()
	}
	sdk.Logger().Debug("vector file not used: loading the vectors from the database", "store", s.name, "err", err)
	return s.startLoad(s.dim)
}

// vectors is the store's vectors for searching: one load of them into
// memory (ix), or the vector file (q over file). done closes when they are
// there, with err set if a load failed.
type vectors struct {
	ix   *vecindex.Index
	q    *vecindex.Quantised
	file *vecFile
	done chan struct{}
	err  error
}

// search answers a vector search.
func (v *vectors) search(q []float32, k int, minScore float32) ([]ragstore.Hit, error) {
	if v.q == nil {
		// A load's index is never written after it ends: searches share it.
		return v.ix.Search(q, k, minScore), nil
	}
	v.file.mu.RLock()
	defer v.file.mu.RUnlock()
	if v.file.closed {
		return nil, fmt.Errorf("the store is closed: %w", sdk.ErrFailedPrecondition)
	}
	return v.q.Search(q, k, minScore)
}

// len is the number of vectors.
func (v *vectors) len() int {
	if v.q != nil {
		return v.q.Len()
	}
	return v.ix.Len()
}

// startLoad starts reading the committed vectors into a new index.
func (s *store) startLoad(dim int) *vectors {
	v := &vectors{ix: vecindex.New(dim), done: make(chan struct{})}
	s.loads.Add(1)
	go func() {
		defer s.loads.Done()
		defer close(v.done)
		if err := loadVectors(s.path, s.opts, v.ix, &s.stop); err != nil {
			v.err = fmt.Errorf("RAG %s: %w", s.name, err)
		}
	}()
	return v
}

// vectorsFor returns the vectors in memory, starting a load if there are
// none, and waits until they are there.
func (s *store) vectorsFor(ctx context.Context) (*vectors, error) {
	s.mu.Lock()
	v := s.vec
	if v == nil {
		if s.stop.Load() {
			s.mu.Unlock()
			return nil, fmt.Errorf("RAG store %q is closed: %w", s.name, sdk.ErrFailedPrecondition)
		}
		v = s.startLoad(s.dim)
		s.vec = v
	}
	s.mu.Unlock()
	select {
	case <-v.done:
		return v, v.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// stale drops the vectors and the keyword index in memory after a write:
// the next search reads them again.
func (s *store) stale() {
	s.mu.Lock()
	s.vec = nil
	s.mu.Unlock()
	s.kw.drop()
}

// dimension is the store's vector size, 0 until the first vector of a new
// store.
func (s *store) dimension() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.dim
}

// close releases the store's connections and so its file lock (which the
// loader's connection also holds until it stops).
func (s *store) close() error {
	// Under mu, so that no search starts a load after it.
	s.mu.Lock()
	s.stop.Store(true)
	s.mu.Unlock()
	s.loads.Wait()
	s.kw.stop()
	s.mu.Lock()
	if s.vec != nil && s.vec.file != nil {
		_ = s.vec.file.close()
	}
	s.mu.Unlock()
	s.wmu.Lock()
	defer s.wmu.Unlock()
	var errs []error
	if s.raw != nil {
		s.raw.close()
		s.raw = nil
	}
	if s.wconn != nil {
		errs = append(errs, s.wconn.Close())
		s.wconn = nil
	}
	if s.db != nil {
		errs = append(errs, s.db.Close())
		s.db = nil
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close RAG %s: %w", s.name, err)
	}
	return nil
}

// Close closes a store; closing one that is not open does nothing.
func (d *Driver) Close(_ context.Context, req *ragstore.CloseRequest) error {
	d.mu.Lock()
	s := d.stores[req.Store]
	delete(d.stores, req.Store)
	d.mu.Unlock()
	if s == nil {
		return nil
	}
	return s.close()
}

// CloseAll closes every open store.
func (d *Driver) CloseAll() error {
	d.mu.Lock()
	stores := d.stores
	d.stores = make(map[string]*store)
	d.mu.Unlock()
	var errs []error
	for _, s := range stores {
		errs = append(errs, s.close())
	}
	return errors.Join(errs...)
}

// Stats reports the store's chunks, files and dimension.
func (d *Driver) Stats(ctx context.Context, req *ragstore.StatsRequest) (*ragstore.Stats, error) {
	s, err := d.get(req.Store)
	if err != nil {
		return nil, err
	}
	return s.stats(ctx)
}

func (s *store) stats(ctx context.Context) (*ragstore.Stats, error) {
	dim := s.dimension()
	st := &ragstore.Stats{Dimension: dim}
	if dim == 0 {
		return st, nil
	}
	err := s.db.QueryRowContext(ctx, "SELECT count(*), count(DISTINCT file_id) FROM chunks").Scan(&st.Chunks, &st.Files)
	if err != nil {
		return nil, fmt.Errorf("stats of RAG %s: %w", s.name, err)
	}
	return st, nil
}

// ListFiles counts each file's chunks, for the kernel to find what an
// interrupted indexing run left out (every chunk has its vector).
func (d *Driver) ListFiles(ctx context.Context, req *ragstore.ListFilesRequest) (*ragstore.ListFilesResponse, error) {
	s, err := d.get(req.Store)
	if err != nil {
		return nil, err
	}
	out := &ragstore.ListFilesResponse{}
	if s.dimension() == 0 {
		return out, nil
	}
	rows, err := s.db.QueryContext(ctx, "SELECT file_id, count(*) FROM chunks GROUP BY file_id")
	if err != nil {
		return nil, fmt.Errorf("list the files of RAG %s: %w", s.name, err)
	}
	defer rows.Close()
	for rows.Next() {
		var f ragstore.FileChunks
		if err := rows.Scan(&f.FileID, &f.Chunks); err != nil {
			return nil, fmt.Errorf("list the files of RAG %s: %w", s.name, err)
		}
		out.Files = append(out.Files, f)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list the files of RAG %s: %w", s.name, err)
	}
	return out, nil
}

// VectorSearch scans every vector in memory for the nearest by cosine.
func (d *Driver) VectorSearch(ctx context.Context, req *ragstore.VectorSearchRequest) (*ragstore.SearchResponse, error) {
	s, err := d.get(req.Store)
	if err != nil {
		return nil, err
	}
	if req.TopK < 0 {
		return nil, fmt.Errorf("vector search: top_k %d: %w", req.TopK, sdk.ErrInvalidArgument)
	}
	dim := s.dimension()
	if dim == 0 {
		return &ragstore.SearchResponse{}, nil
	}
	v, err := s.vectorsFor(ctx)
	if err != nil {
		return nil, err
	}
	if v.len() == 0 {
		return &ragstore.SearchResponse{}, nil
	}
	if len(req.Vector) != dim {
		return nil, fmt.Errorf("vector search in RAG %s: query has %d dimensions, the store %d: %w",
			s.name, len(req.Vector), dim, sdk.ErrInvalidArgument)
	}
	hits, err := v.search(req.Vector, req.TopK, req.MinScore)
	if err != nil {
		return nil, fmt.Errorf("vector search in RAG %s: %w", s.name, err)
	}
	return &ragstore.SearchResponse{Hits: hits}, nil
}

// KeywordSearch ranks chunks by BM25: a read-only store from the vector
// file's keyword part when the file is current, else from the index in
// memory (see memKeywords).
func (d *Driver) KeywordSearch(ctx context.Context, req *ragstore.KeywordSearchRequest) (*ragstore.SearchResponse, error) {
	s, err := d.get(req.Store)
	if err != nil {
		return nil, err
	}
	if req.TopK < 0 {
		return nil, fmt.Errorf("keyword search: top_k %d: %w", req.TopK, sdk.ErrInvalidArgument)
	}
	dim := s.dimension()
	if dim == 0 {
		return &ragstore.SearchResponse{}, nil
	}
	hits, err := s.kw.search(ctx, s, req.Query, req.TopK)
	if err != nil {
		return nil, fmt.Errorf("keyword search in RAG %s: %w", s.name, err)
	}
	return &ragstore.SearchResponse{Hits: hits}, nil
}

// FetchContent returns the chunks' texts in the order asked, skipping ids
// the store does not hold.
func (d *Driver) FetchContent(ctx context.Context, req *ragstore.FetchContentRequest) (*ragstore.FetchContentResponse, error) {
	s, err := d.get(req.Store)
	if err != nil {
		return nil, err
	}
	dim := s.dimension()
	if dim == 0 || len(req.IDs) == 0 {
		return &ragstore.FetchContentResponse{}, nil
	}
	found, err := fetchContent(ctx, s.db, req.IDs)
	if err != nil {
		return nil, fmt.Errorf("fetch content of RAG %s: %w", s.name, err)
	}
	out := make([]ragstore.Content, 0, len(req.IDs))
	for _, id := range req.IDs {
		if c, ok := found[id]; ok {
			out = append(out, c)
		}
	}
	return &ragstore.FetchContentResponse{Contents: out}, nil
}

// Interface guards.
var (
	_ ragstore.Store           = (*Driver)(nil)
	_ ragstore.KeywordSearcher = (*Driver)(nil)
	_ ragstore.FileLister      = (*Driver)(nil)
)
