package duckdbstore

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"unsafe"

	bindings "github.com/duckdb/duckdb-go-bindings"
	duckdb "github.com/duckdb/duckdb-go/v2"
	"github.com/duckdb/duckdb-go/v2/mapping"

	"github.com/coyote-cli/coyote/sdk/ragstore"
	"github.com/coyote-cli/coyote/sdk/ragstore/rank"
	"github.com/coyote-cli/coyote/sdk/ragstore/vecindex"
)

// The loaders below read whole tables through DuckDB's C API, a data
// chunk (2,048 rows) at a time, copying columns without boxing each value
// as database/sql would.
//
// The database is the one the *sql.DB holds: duckdb-go keeps file
// databases in an instance cache, and asking it for the same path with the
// same settings returns that instance (and only adds a reference).

// rawConn is a C API connection to the store's database.
type rawConn struct {
	db   mapping.Database
	conn mapping.Connection
}

func connectRaw(path string, opts [][2]string) (*rawConn, error) {
	var cfg mapping.Config
	if mapping.CreateConfig(&cfg) == mapping.StateError {
		return nil, errors.New("duckdb: create config")
	}
	defer mapping.DestroyConfig(&cfg)
	// duckdb-go adds this setting to every database it opens; the cache
	// refuses an instance whose settings differ.
	all := append([][2]string{{"duckdb_api", "go"}}, opts...)
	for _, o := range all {
		if mapping.SetConfig(cfg, o[0], o[1]) == mapping.StateError {
			return nil, fmt.Errorf("duckdb: set %s=%s", o[0], o[1])
		}
	}
	r := &rawConn{}
	var msg string
	if mapping.GetOrCreateFromCache(duckdb.GetInstanceCache(), path, &r.db, cfg, &msg) == mapping.StateError {
		mapping.Close(&r.db)
		return nil, fmt.Errorf("duckdb: %s", msg)
	}
	if mapping.Connect(r.db, &r.conn) == mapping.StateError {
		mapping.Close(&r.db)
		return nil, errors.New("duckdb: connect")
	}
	return r, nil
}

func (r *rawConn) close() {
	mapping.Disconnect(&r.conn)
	mapping.Close(&r.db)
}

// count runs a query of one BIGINT.
func (r *rawConn) count(query string) (int, error) {
	var res mapping.Result
	defer mapping.DestroyResult(&res)
	if mapping.Query(r.conn, query, &res) == mapping.StateError {
		return 0, fmt.Errorf("duckdb: %s: %s", query, mapping.ResultError(&res))
	}
	return int(mapping.ValueInt64(&res, 0, 0)), nil
}

// stream runs query and calls fn with each data chunk of its result and
// the chunk's row count, until the result ends or stop (if not nil) is set. Streamed,
// so that DuckDB does not first materialise the whole result.
func (r *rawConn) stream(query string, stop *atomic.Bool, fn func(ch mapping.DataChunk, n int)) error {
	var stmt mapping.PreparedStatement
	defer mapping.DestroyPrepare(&stmt)
	if mapping.Prepare(r.conn, query, &stmt) == mapping.StateError {
		return fmt.Errorf("duckdb: %s", mapping.PrepareError(stmt))
	}
	var pending mapping.PendingResult
	defer mapping.DestroyPending(&pending)
	if bindings.PendingPreparedStreaming(stmt, &pending) == mapping.StateError {
		return fmt.Errorf("duckdb: %s", mapping.PendingError(pending))
	}
	var res mapping.Result
	defer mapping.DestroyResult(&res)
	if mapping.ExecutePending(pending, &res) == mapping.StateError {
		return fmt.Errorf("duckdb: %s", mapping.ResultError(&res))
	}
	for stop == nil || !stop.Load() {
		ch := mapping.FetchChunk(res)
		if ch.Ptr == nil {
			break
		}
		n := int(mapping.DataChunkGetSize(ch))
		if n > 0 {
			fn(ch, n)
		}
		mapping.DestroyDataChunk(&ch)
		if n == 0 {
			break
		}
	}
	return nil
}

// column returns the data of column i of ch, n values of T (which must be
// the column's C type: int32 for INTEGER, int64 for BIGINT, mapping.StringT
// for VARCHAR).
func column[T any](ch mapping.DataChunk, i, n int) []T {
	return unsafe.Slice((*T)(mapping.VectorGetData(mapping.DataChunkGetVector(ch, mapping.IdxT(i)))), n)
}

// loadVectors reads every chunk's id and vector into ix: each vector with
// one memmove (100,000 × 384 floats took 1.6 s through database/sql, 0.3
// s so). It stops early, leaving ix partial, once stop is set.
func loadVectors(path string, opts [][2]string, ix *vecindex.Index, stop *atomic.Bool) error {
	r, err := connectRaw(path, opts)
	if err != nil {
		return err
	}
	defer r.close()
	n, err := r.count("SELECT count(*) FROM chunks")
	if err != nil {
		return err
	}
	ix.Grow(n)
	dim := ix.Dim()
	err = r.stream("SELECT id, embedding FROM chunks", stop, func(ch mapping.DataChunk, n int) {
		strs := column[mapping.StringT](ch, 0, n)
		child := mapping.ArrayVectorGetChild(mapping.DataChunkGetVector(ch, 1))
		floats := unsafe.Slice((*float32)(mapping.VectorGetData(child)), n*dim)
		for i := range n {
			ix.Put(mapping.StringTData(&strs[i]), floats[i*dim:(i+1)*dim])
		}
	})
	if err != nil {
		return fmt.Errorf("load vectors: %w", err)
	}
	return nil
}

// loadKeywords builds the keyword index from the vocab, chunks and terms
// tables: the term counts the upserts wrote (with the kernel's tokenizer),
// so no text is read or tokenized again (100,000 chunks of ~150 words:
// 25 s reading and tokenizing the texts through database/sql, under a
// second so). It gives up, returning nil, once stop is set.
func loadKeywords(path string, opts [][2]string, stop *atomic.Bool) (*rank.BM25, error) {
	r, err := connectRaw(path, opts)
	if err != nil {
		return nil, err
	}
	defer r.close()
	maxTID, err := r.count("SELECT coalesce(max(tid), 0)::BIGINT FROM vocab")
	if err != nil {
		return nil, err
	}
	maxKey, err := r.count("SELECT coalesce(max(key), 0) FROM chunks")
	if err != nil {
		return nil, err
	}
	chunks, err := r.count("SELECT count(*) FROM chunks")
	if err != nil {
		return nil, err
	}
	b := rank.NewBM25Builder()
	b.Grow(chunks)
	// Term numbers by tid, -1 for none.
	term := make([]int32, maxTID+1)
	for i := range term {
		term[i] = -1
	}
	docOf := newKeyRows(maxKey, chunks)
	err = r.stream("SELECT tid, term FROM vocab", stop, func(ch mapping.DataChunk, n int) {
		tids, terms := column[int32](ch, 0, n), column[mapping.StringT](ch, 1, n)
		for i := range n {
			if t := tids[i]; t >= 0 && int(t) < len(term) {
				term[t] = b.Term(mapping.StringTData(&terms[i]))
			}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("load keywords: %w", err)
	}
	err = r.stream("SELECT key, id, file_id, length FROM chunks", stop, func(ch mapping.DataChunk, n int) {
		keys, ids, files, lengths := column[int64](ch, 0, n), column[mapping.StringT](ch, 1, n),
			column[mapping.StringT](ch, 2, n), column[int32](ch, 3, n)
		for i := range n {
			d := b.Doc(mapping.StringTData(&files[i]), mapping.StringTData(&ids[i]), int(lengths[i]))
			docOf.set(keys[i], d)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("load keywords: %w", err)
	}
	err = r.stream("SELECT key, tid, tf FROM terms", stop, func(ch mapping.DataChunk, n int) {
		keys, tids, tfs := column[int64](ch, 0, n), column[int32](ch, 1, n), column[int32](ch, 2, n)
		for i := range n {
			d, t := docOf.get(keys[i]), int32(-1)
			if tid := tids[i]; tid >= 0 && int(tid) < len(term) {
				t = term[tid]
			}
			if d >= 0 && t >= 0 {
				b.Posting(t, d, int(tfs[i]))
			}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("load keywords: %w", err)
	}
	if stop.Load() {
		return nil, nil
	}
	return b.Build(), nil
}

// ExactIndex reads every vector of the RAG whose yaml is yamlPath into an
// exact index (opening its file read-only), for measuring the recall of
// the store's quantised search against the exact scan (internal/bench).
func ExactIndex(yamlPath string) (*vecindex.Index, error) {
	path, err := filepath.Abs(FilePath(yamlPath))
	if err != nil {
		return nil, err
	}
	opts, err := dbOptions(ragstore.ReadOnly, nil)
	if err != nil {
		return nil, err
	}
	r, err := connectRaw(path, opts)
	if err != nil {
		return nil, err
	}
	dim, err := r.count("SELECT value::BIGINT FROM coyote_meta WHERE key = 'dimension'")
	r.close()
	if err != nil {
		return nil, err
	}
	ix := vecindex.New(dim)
	var stop atomic.Bool
	if err := loadVectors(path, opts, ix, &stop); err != nil {
		return nil, err
	}
	return ix, nil
}
