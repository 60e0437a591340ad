package duckdbstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"slices"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/ragstore"
)

// Upsert adds or replaces chunks: they are appended to staging tables
// (DuckDB's Appender, far faster than INSERTs) and merged into the store in
// one transaction, so a batch is all there or not at all.
func (d *Driver) Upsert(ctx context.Context, req *ragstore.UpsertRequest) error {
	s, err := d.writable(req.Store)
	if err != nil {
		return err
	}
	if len(req.Chunks) == 0 {
		return nil
	}
	// The last of several chunks with one id wins, as if upserted in turn.
	chunks := make([]*ragstore.Chunk, 0, len(req.Chunks))
	pos := make(map[string]int, len(req.Chunks))
	for i := range req.Chunks {
		c := &req.Chunks[i]
		if c.ID == "" {
			return fmt.Errorf("upsert into RAG %s: chunk %d has no id: %w", s.name, i, sdk.ErrInvalidArgument)
		}
		if p, ok := pos[c.ID]; ok {
			chunks[p] = c
			continue
		}
		pos[c.ID] = len(chunks)
		chunks = append(chunks, c)
	}

	dim, err := s.lockWrites()
	if err != nil {
		return err
	}
	defer s.wmu.Unlock()
	if dim == 0 {
		// A new store opened without a dimension takes the first vector's.
		dim = len(chunks[0].Vector)
		if err := createSchema(ctx, s.wconn, dim); err != nil {
			return fmt.Errorf("RAG %s: %w", s.name, err)
		}
		s.mu.Lock()
		s.dim = dim
		s.mu.Unlock()
		s.nextKey = 1
	}
	for _, c := range chunks {
		if len(c.Vector) != dim {
			return fmt.Errorf("upsert into RAG %s: chunk %s has %d dimensions, the store %d: %w",
				s.name, c.ID, len(c.Vector), dim, sdk.ErrInvalidArgument)
		}
	}

	if err := s.stage(ctx, chunks); err != nil {
		return fmt.Errorf("upsert into RAG %s: %w", s.name, err)
	}
	var stmts []string
	if slices.ContainsFunc(chunks, func(c *ragstore.Chunk) bool { return s.ids.has(c.ID) }) {
		stmts = append(stmts,
			// Terms belong to chunk keys; a replaced chunk's go with it.
			`DELETE FROM terms WHERE key IN (SELECT c.key FROM chunks c SEMI JOIN staging_chunks s ON c.id = s.id)`,
			`DELETE FROM chunks WHERE id IN (SELECT id FROM staging_chunks)`)
	}
	if err := s.tx(ctx, append(stmts,
		`INSERT INTO chunks SELECT * FROM staging_chunks`,
		// New terms get the next numbers.
		`INSERT INTO vocab
			SELECT term, (SELECT coalesce(max(tid), 0) FROM vocab) + row_number() OVER (ORDER BY term)
			FROM (SELECT DISTINCT term FROM staging_terms) s
			WHERE NOT EXISTS (SELECT 1 FROM vocab v WHERE v.term = s.term)`,
		`INSERT INTO terms SELECT s.key, v.tid, s.tf, s.length FROM staging_terms s JOIN vocab v ON v.term = s.term`,
	)...); err != nil {
		return fmt.Errorf("upsert into RAG %s: %w", s.name, err)
	}
	for _, c := range chunks {
		s.ids.add(c.ID)
	}
	s.stale()
	return nil
}

// lockWrites takes the store's write lock and returns its dimension; the
// caller unlocks s.wmu. A store closed meanwhile is refused, unlocked.
func (s *store) lockWrites() (dim int, err error) {
	s.wmu.Lock()
	if s.wconn == nil {
		s.wmu.Unlock()
		return 0, fmt.Errorf("RAG store %q is closed: %w", s.name, sdk.ErrFailedPrecondition)
	}
	return s.dimension(), nil
}

// stage empties the staging tables (creating them on first use) and
// appends chunks to them.
func (s *store) stage(ctx context.Context, chunks []*ragstore.Chunk) error {
	if !s.staged {
		for _, q := range stagingDDL() {
			if _, err := s.wconn.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		s.staged = true
	} else {
		for _, q := range []string{"DELETE FROM staging_chunks", "DELETE FROM staging_terms"} {
			if _, err := s.wconn.ExecContext(ctx, q); err != nil {
				return err
			}
		}
	}
	return s.wconn.Raw(func(dc any) error {
		conn, ok := dc.(driver.Conn)
		if !ok {
			return fmt.Errorf("duckdb: unexpected driver connection %T", dc)
		}
		ca, err := duckdb.NewAppender(conn, "temp", "main", "staging_chunks")
		if err != nil {
			return err
		}
		ta, err := duckdb.NewAppender(conn, "temp", "main", "staging_terms")
		if err != nil {
			_ = ca.Close()
			return err
		}
		err = s.appendChunks(ca, ta, chunks)
		if cerr := ca.Close(); err == nil {
			err = cerr
		}
		if cerr := ta.Close(); err == nil {
			err = cerr
		}
		return err
	})
}

func (s *store) appendChunks(ca, ta *duckdb.Appender, chunks []*ragstore.Chunk) error {
	for _, c := range chunks {
		key := s.nextKey
		s.nextKey++
		meta := c.Metadata
		if meta == nil {
			meta = map[string]string{}
		}
		mj, err := json.Marshal(meta)
		if err != nil {
			return err
		}
		tf, length := termCounts(c.Text)
		if err := ca.AppendRow(key, c.ID, c.FileID, c.Text, string(mj), int32(length), c.Vector); err != nil {
			return err
		}
		for t, n := range tf {
			if err := ta.AppendRow(key, t, int32(n), int32(length)); err != nil {
				return err
			}
		}
	}
	return nil
}

// beforeCommit, when set (by tests), runs inside every write transaction
// just before its COMMIT.
var beforeCommit func()

// inTx runs f in one transaction on conn, rolled back if f or the commit
// fails.
func inTx(ctx context.Context, conn *sql.Conn, f func() error) error {
	if _, err := conn.ExecContext(ctx, "BEGIN TRANSACTION"); err != nil {
		return err
	}
	err := f()
	if err == nil {
		if beforeCommit != nil {
			beforeCommit()
		}
		_, err = conn.ExecContext(ctx, "COMMIT")
	}
	if err != nil {
		// A cancelled context must not stop the rollback.
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
	}
	return err
}

// execAll runs statements on conn in turn.
func execAll(ctx context.Context, conn *sql.Conn, stmts ...string) error {
	for _, q := range stmts {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// tx runs statements in one transaction on the write connection.
func (s *store) tx(ctx context.Context, stmts ...string) error {
	return inTx(ctx, s.wconn, func() error { return execAll(ctx, s.wconn, stmts...) })
}

// DeleteFile removes every chunk of a file.
func (d *Driver) DeleteFile(ctx context.Context, req *ragstore.DeleteFileRequest) error {
	s, err := d.writable(req.Store)
	if err != nil {
		return err
	}
	dim, err := s.lockWrites()
	if err != nil {
		return err
	}
	defer s.wmu.Unlock()
	if dim == 0 {
		return nil
	}
	ids, err := s.deleteFile(ctx, req.FileID)
	if err != nil {
		return fmt.Errorf("delete file %s from RAG %s: %w", req.FileID, s.name, err)
	}
	for _, id := range ids {
		s.ids.remove(id)
	}
	s.stale()
	return nil
}

// deleteFile deletes a file's chunks and terms in one transaction and
// returns the ids it deleted.
func (s *store) deleteFile(ctx context.Context, fileID string) (ids []string, err error) {
	err = inTx(ctx, s.wconn, func() error {
		if _, err := s.wconn.ExecContext(ctx,
			"DELETE FROM terms WHERE key IN (SELECT key FROM chunks WHERE file_id = $1)", fileID); err != nil {
			return err
		}
		rows, err := s.wconn.QueryContext(ctx, "DELETE FROM chunks WHERE file_id = $1 RETURNING id", fileID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return rows.Err()
	})
	return ids, err
}

// Rebuild ends an indexing pass. A full pass rewrites the terms table
// sorted by term, so that keyword queries read a few row ranges of it
// instead of all (upserts append in chunk order); either pass indexes the
// ids again (see createIDIndex) and checkpoints,
// which folds the WAL into the file and lets DuckDB vacuum deleted rows.
func (d *Driver) Rebuild(ctx context.Context, req *ragstore.RebuildRequest) error {
	s, err := d.writable(req.Store)
	if err != nil {
		return err
	}
	dim, err := s.lockWrites()
	if err != nil {
		return err
	}
	defer s.wmu.Unlock()
	if dim == 0 {
		return nil
	}
	if req.Full {
		if err := s.tx(ctx,
			termsDDL("terms_sorted"),
			"INSERT INTO terms_sorted SELECT * FROM terms ORDER BY tid, key",
			"DROP TABLE terms",
			"ALTER TABLE terms_sorted RENAME TO terms",
			// Terms no chunk uses any more go too.
			"DELETE FROM vocab WHERE tid NOT IN (SELECT DISTINCT tid FROM terms)",
		); err != nil {
			return fmt.Errorf("rebuild RAG %s: %w", s.name, err)
		}
	}
	if err := s.tx(ctx, createIDIndex); err != nil {
		return fmt.Errorf("rebuild RAG %s: index the ids: %w", s.name, err)
	}
	if _, err := s.wconn.ExecContext(ctx, "CHECKPOINT"); err != nil {
		return fmt.Errorf("rebuild RAG %s: checkpoint: %w", s.name, err)
	}
	return nil
}

// fetchContent reads the chunks of ids, keyed by id.
func fetchContent(ctx context.Context, db *sql.DB, ids []string) (map[string]ragstore.Content, error) {
	rows, err := db.QueryContext(ctx,
		"SELECT id, text, metadata FROM chunks WHERE id IN (SELECT unnest($1::VARCHAR[]))", ids)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	found := make(map[string]ragstore.Content, len(ids))
	for rows.Next() {
		var c ragstore.Content
		var meta string
		if err := rows.Scan(&c.ID, &c.Text, &meta); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(meta), &c.Metadata); err != nil {
			return nil, fmt.Errorf("chunk %s: metadata: %w", c.ID, err)
		}
		found[c.ID] = c
	}
	return found, rows.Err()
}
