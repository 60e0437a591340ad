package duckdbstore

import (
	"errors"
	"fmt"
	"sync/atomic"
	"unsafe"

	bindings "github.com/duckdb/duckdb-go-bindings"
	duckdb "github.com/duckdb/duckdb-go/v2"
	"github.com/duckdb/duckdb-go/v2/mapping"

	"github.com/coyote-cli/coyote/sdk/ragstore/vecindex"
)

// loadVectors reads every chunk's id and vector through DuckDB's C
// API and adds them to ix. database/sql would box each float of a FLOAT[n]
// array in an interface (100,000 × 384 took 1.6 s here); reading the data
// chunks directly copies each vector with one memmove (0.3 s).
//
// The database is the one the *sql.DB holds: duckdb-go keeps file
// databases in an instance cache, and asking it for the same path with the
// same settings returns that instance (and only adds a reference).
//
// It stops early, leaving ix partial, once stop is set.
func loadVectors(path string, opts [][2]string, ix *vecindex.Index, stop *atomic.Bool) error {
	var cfg mapping.Config
	if mapping.CreateConfig(&cfg) == mapping.StateError {
		return errors.New("duckdb: create config")
	}
	defer mapping.DestroyConfig(&cfg)
	// duckdb-go adds this setting to every database it opens; the cache
	// refuses an instance whose settings differ.
	all := append([][2]string{{"duckdb_api", "go"}}, opts...)
	for _, o := range all {
		if mapping.SetConfig(cfg, o[0], o[1]) == mapping.StateError {
			return fmt.Errorf("duckdb: set %s=%s", o[0], o[1])
		}
	}
	var db mapping.Database
	var msg string
	if mapping.GetOrCreateFromCache(duckdb.GetInstanceCache(), path, &db, cfg, &msg) == mapping.StateError {
		mapping.Close(&db)
		return fmt.Errorf("duckdb: %s", msg)
	}
	defer mapping.Close(&db)
	var conn mapping.Connection
	if mapping.Connect(db, &conn) == mapping.StateError {
		return errors.New("duckdb: connect")
	}
	defer mapping.Disconnect(&conn)

	var count mapping.Result
	if mapping.Query(conn, "SELECT count(*) FROM chunks", &count) == mapping.StateError {
		err := fmt.Errorf("duckdb: count chunks: %s", mapping.ResultError(&count))
		mapping.DestroyResult(&count)
		return err
	}
	n := int(mapping.ValueInt64(&count, 0, 0))
	mapping.DestroyResult(&count)
	ix.Grow(n)

	// Streamed, so that DuckDB does not first copy every vector into a
	// materialised result.
	var stmt mapping.PreparedStatement
	if mapping.Prepare(conn, "SELECT id, embedding FROM chunks", &stmt) == mapping.StateError {
		err := fmt.Errorf("duckdb: load vectors: %s", mapping.PrepareError(stmt))
		mapping.DestroyPrepare(&stmt)
		return err
	}
	defer mapping.DestroyPrepare(&stmt)
	var pending mapping.PendingResult
	if bindings.PendingPreparedStreaming(stmt, &pending) == mapping.StateError {
		err := fmt.Errorf("duckdb: load vectors: %s", mapping.PendingError(pending))
		mapping.DestroyPending(&pending)
		return err
	}
	defer mapping.DestroyPending(&pending)
	var res mapping.Result
	if mapping.ExecutePending(pending, &res) == mapping.StateError {
		err := fmt.Errorf("duckdb: load vectors: %s", mapping.ResultError(&res))
		mapping.DestroyResult(&res)
		return err
	}
	defer mapping.DestroyResult(&res)

	dim := ix.Dim()
	for !stop.Load() {
		ch := mapping.FetchChunk(res)
		if ch.Ptr == nil {
			break
		}
		n := int(mapping.DataChunkGetSize(ch))
		if n == 0 {
			mapping.DestroyDataChunk(&ch)
			break
		}
		strs := unsafe.Slice((*mapping.StringT)(mapping.VectorGetData(mapping.DataChunkGetVector(ch, 0))), n)
		child := mapping.ArrayVectorGetChild(mapping.DataChunkGetVector(ch, 1))
		floats := unsafe.Slice((*float32)(mapping.VectorGetData(child)), n*dim)
		for i := range n {
			ix.Put(mapping.StringTData(&strs[i]), floats[i*dim:(i+1)*dim])
		}
		mapping.DestroyDataChunk(&ch)
	}
	return nil
}
