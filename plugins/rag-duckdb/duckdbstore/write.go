package duckdbstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/duckdb/duckdb-go/v2/mapping"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/ragstore"
	"github.com/coyote-cli/coyote/sdk/ragstore/rank"
)

// Upsert adds or replaces chunks in one transaction (see write), so a
// batch is all there or not at all.
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
		s.vocab = nil
	}
	for _, c := range chunks {
		if len(c.Vector) != dim {
			return fmt.Errorf("upsert into RAG %s: chunk %s has %d dimensions, the store %d: %w",
				s.name, c.ID, len(c.Vector), dim, sdk.ErrInvalidArgument)
		}
	}

	if err := s.write(chunks); err != nil {
		return fmt.Errorf("upsert into RAG %s: %w", s.name, err)
	}
	for _, c := range chunks {
		s.ids.add(c.ID)
	}
	s.stale()
	return nil
}

// write stores chunks in one transaction on the write connection's C API
// twin: the chunks they replace go, their rows (with their term counts)
// are appended to chunks, and terms the store has not seen yet to vocab,
// numbered here (the writer holds vocab in memory). On failure
// nothing is kept, in the store or in memory.
func (s *store) write(chunks []*ragstore.Chunk) error {
	if err := s.loadVocab(); err != nil {
		return err
	}
	if err := s.dropVecToken(); err != nil {
		return err
	}
	var replaced []string
	for _, c := range chunks {
		if s.ids.has(c.ID) {
			replaced = append(replaced, sqlString(c.ID))
		}
	}
	if err := s.raw.exec("BEGIN TRANSACTION"); err != nil {
		return err
	}
	added, err := s.appendAll(chunks, replaced)
	if err == nil {
		if beforeCommit != nil {
			beforeCommit()
		}
		err = s.raw.exec("COMMIT")
	}
	if err != nil {
		_ = s.raw.exec("ROLLBACK")
		return err
	}
	for _, t := range added {
		s.vocab[t.term] = t.tid
	}
	if len(added) > 0 {
		s.maxTID = added[len(added)-1].tid
	}
	return nil
}

// dropVecToken removes the vector file's token before the writer's first
// change, so that readers no longer take the file for the store's.
func (s *store) dropVecToken() error {
	if s.vecTokenGone {
		return nil
	}
	if err := s.raw.exec("DELETE FROM coyote_meta WHERE key = " + sqlString(vecMetaKey)); err != nil {
		return err
	}
	s.vecTokenGone = true
	return nil
}

// newTerm is a term an upsert numbered.
type newTerm struct {
	term string
	tid  int32
}

// appendAll runs inside write's transaction and returns the terms it
// added to vocab.
func (s *store) appendAll(chunks []*ragstore.Chunk, replaced []string) ([]newTerm, error) {
	if len(replaced) > 0 {
		if err := s.raw.exec("DELETE FROM chunks WHERE id IN (" + strings.Join(replaced, ",") + ")"); err != nil {
			return nil, err
		}
	}
	ca, err := newTableAppender(s.raw.conn, "chunks", s.dim)
	if err != nil {
		return nil, err
	}
	var added []newTerm
	pending := make(map[string]int32)
	// Looked up by the token's bytes: string(t) in a map index does not
	// allocate, so only a new term costs a string.
	tid := func(t []byte) int32 {
		if n, ok := s.vocab[string(t)]; ok {
			return n
		}
		if n, ok := pending[string(t)]; ok {
			return n
		}
		n := s.maxTID + int32(len(added)) + 1
		term := string(t)
		pending[term] = n
		added = append(added, newTerm{term, n})
		return n
	}
	err = s.appendChunks(ca, chunks, tid)
	if cerr := ca.close(); err == nil {
		err = cerr
	}
	if err != nil || len(added) == 0 {
		return added, err
	}
	va, err := newTableAppender(s.raw.conn, "vocab", 0)
	if err != nil {
		return nil, err
	}
	for _, t := range added {
		row, aerr := va.next()
		if aerr != nil {
			err = aerr
			break
		}
		va.string(0, row, t.term)
		va.int32(1, row, t.tid)
	}
	if cerr := va.close(); err == nil {
		err = cerr
	}
	return added, err
}

// appendChunks appends each chunk's row, with its term counts.
func (s *store) appendChunks(ca *tableAppender, chunks []*ragstore.Chunk, tid func([]byte) int32) error {
	var blob []byte
	var words []int32
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
		// The terms are sdk/ragstore/rank's, so that the index in memory
		// (memKeywords) ranks as the kernel's BM25 does.
		words = words[:0]
		rank.EachToken(c.Text, func(t []byte) {
			words = append(words, tid(t))
		})
		length := len(words)
		row, err := ca.next()
		if err != nil {
			return err
		}
		ca.int64(0, row, key)
		ca.string(1, row, c.ID)
		ca.string(2, row, c.FileID)
		ca.string(3, row, c.Text)
		ca.string(4, row, string(mj))
		ca.int32(5, row, int32(length))
		ca.floats(6, row, c.Vector)
		blob = appendTerms(blob[:0], words)
		ca.bytes(7, row, blob)
	}
	return nil
}

// loadVocab reads the vocab table into memory once per writer.
func (s *store) loadVocab() error {
	if s.vocab != nil {
		return nil
	}
	vocab := make(map[string]int32)
	var maxTID int32
	err := s.raw.stream("SELECT term, tid FROM vocab", nil, func(ch mapping.DataChunk, n int) {
		terms, tids := column[mapping.StringT](ch, 0, n), column[int32](ch, 1, n)
		for i := range n {
			vocab[mapping.StringTData(&terms[i])] = tids[i]
			maxTID = max(maxTID, tids[i])
		}
	})
	if err != nil {
		return fmt.Errorf("read the vocabulary: %w", err)
	}
	s.vocab, s.maxTID = vocab, maxTID
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
	if err := s.dropVecToken(); err != nil {
		return fmt.Errorf("delete file %s from RAG %s: %w", req.FileID, s.name, err)
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

// deleteFile deletes a file's chunks (and so their term counts) and
// returns the ids it deleted.
func (s *store) deleteFile(ctx context.Context, fileID string) (ids []string, err error) {
	err = inTx(ctx, s.wconn, func() error {
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

// Rebuild ends an indexing pass: it indexes the ids again (see
// createIDIndex), writes the vector file and checkpoints, which folds the
// WAL into the file and lets DuckDB vacuum deleted rows. A full pass is
// no different: the term counts live on the chunks' rows and go with
// them, so nothing is left to sort or remove.
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
	if err := s.tx(ctx, createIDIndex); err != nil {
		return fmt.Errorf("rebuild RAG %s: index the ids: %w", s.name, err)
	}
	// The vector file is an aid to readers, which do without it: one
	// that cannot be written is reported, not a failed rebuild.
	if token, err := s.writeVecFile(); err != nil {
		sdk.Logger().Warn("vector file not written: readers will load the vectors from the database", "store", s.name, "err", err)
	} else if err := s.tx(ctx,
		"DELETE FROM coyote_meta WHERE key = "+sqlString(vecMetaKey),
		"INSERT INTO coyote_meta VALUES ("+sqlString(vecMetaKey)+", "+sqlString(token)+")"); err != nil {
		return fmt.Errorf("rebuild RAG %s: %w", s.name, err)
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
