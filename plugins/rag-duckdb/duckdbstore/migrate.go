package duckdbstore

import (
	"errors"
	"fmt"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/duckdb/duckdb-go/v2/mapping"
)

// errOldLayout is init's answer, read-only, for a store of layout 1,
// which Open migrates and opens again.
var errOldLayout = errors.New("layout 1")

// migrateV1 moves the term counts of a layout-1 store from its terms table
// onto the chunks' rows (layout 2, terms.go), in one transaction, so that
// a store indexed before keeps its chunks and vectors: nothing is embedded
// again. opts must open the file read-write. One connection reads the old
// table in chunk order while another appends each chunk's counts, encoded,
// to a table the update then joins; the terms of deleted chunks (which
// layout 1 kept until a Rebuild) are left behind with the table.
func migrateV1(path string, opts [][2]string) (err error) {
	read, err := connectRaw(path, opts)
	if err != nil {
		return err
	}
	defer read.close()
	w, err := connectRaw(path, opts)
	if err != nil {
		return err
	}
	defer w.close()
	if err := w.exec("BEGIN TRANSACTION",
		"CREATE TEMP TABLE coyote_migrate(key BIGINT NOT NULL, terms BLOB NOT NULL)"); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = w.exec("ROLLBACK")
		}
	}()
	app, err := newTableAppender(w.conn, "coyote_migrate", 0)
	if err != nil {
		return err
	}
	key := int64(-1)
	var counts []termCount
	var blob []byte
	var appendErr error
	flush := func() {
		if key < 0 || appendErr != nil {
			return
		}
		row, err := app.next()
		if err != nil {
			appendErr = err
			return
		}
		blob = appendCounts(blob[:0], counts)
		app.int64(0, row, key)
		app.bytes(1, row, blob)
		counts = counts[:0]
	}
	err = read.stream("SELECT t.key, t.tid, t.tf FROM terms t SEMI JOIN chunks c ON c.key = t.key ORDER BY t.key, t.tid", nil,
		func(ch mapping.DataChunk, n int) {
			keys, tids, tfs := column[int64](ch, 0, n), column[int32](ch, 1, n), column[int32](ch, 2, n)
			for i := range n {
				if keys[i] != key {
					flush()
					key = keys[i]
				}
				counts = append(counts, termCount{tids[i], tfs[i]})
			}
		})
	flush()
	if cerr := app.close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = appendErr
	}
	if err != nil {
		return fmt.Errorf("read the term counts: %w", err)
	}
	var dim int
	if dim, err = w.count("SELECT value::BIGINT FROM coyote_meta WHERE key = 'dimension'"); err != nil {
		return err
	}
	// The column is added with an empty default and filled by an update,
	// which holds only the blobs in memory: writing the table again
	// (INSERT … SELECT) ran out of a read-only open's 128MB at 100,000
	// chunks. It is made NOT NULL once the update is checkpointed (DuckDB
	// refuses it with the update outstanding).
	err = w.exec(
		"ALTER TABLE chunks ADD COLUMN terms BLOB DEFAULT ''::BLOB",
		"UPDATE chunks SET terms = m.terms FROM coyote_migrate m WHERE chunks.key = m.key",
		"DROP TABLE terms",
		"DROP TABLE coyote_migrate",
		// The mark of deleted chunks' terms has nothing left to mark, and
		// the vector file, of the layout before the keyword index, is
		// no longer the store's.
		"DELETE FROM coyote_meta WHERE key IN ('orphans', "+sqlString(vecMetaKey)+")",
		"UPDATE coyote_meta SET value = '"+schemaVersion+"' WHERE key = 'schema'",
		"COMMIT",
		"CHECKPOINT",
		// The index on the ids stands in the way of the ALTER; it is made
		// again as Rebuild leaves it.
		dropIDIndex,
		"ALTER TABLE chunks ALTER COLUMN terms SET NOT NULL",
		createIDIndex,
		"CHECKPOINT")
	if err != nil {
		return err
	}
	// A vector file with the keyword index, as Rebuild writes it, so that
	// readers keep answering at once instead of loading every vector and
	// building the index at each open until the next indexing pass. The
	// store is migrated without it: a failure is reported, not returned.
	s := &store{path: path, dim: dim, raw: w}
	token, verr := s.writeVecFile()
	if verr == nil {
		verr = w.exec("INSERT INTO coyote_meta VALUES (" + sqlString(vecMetaKey) + ", " + sqlString(token) + ")")
	}
	if verr != nil {
		sdk.Logger().Warn("vector file not written after the upgrade: readers will load the vectors from the database", "path", path, "err", verr)
	}
	return nil
}
