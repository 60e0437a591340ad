package duckdbstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/coyote-cli/coyote/sdk/ragstore"
)

// The knowledge graph of a RAG is kept in the store's file, in a table of
// one row: the kernel's bytes, opaque here (ragstore.GraphKeeper).

const graphDDL = "CREATE TABLE IF NOT EXISTS coyote_graph(id INTEGER PRIMARY KEY, data BLOB NOT NULL)"

// SaveGraph replaces the RAG's knowledge graph and checkpoints, so that
// it is on disk when the call returns.
func (d *Driver) SaveGraph(ctx context.Context, req *ragstore.SaveGraphRequest) error {
	s, err := d.writable(req.Store)
	if err != nil {
		return err
	}
	if _, err := s.lockWrites(); err != nil {
		return err
	}
	defer s.wmu.Unlock()
	stmts := []string{graphDDL, "DELETE FROM coyote_graph"}
	err = inTx(ctx, s.wconn, func() error {
		if err := execAll(ctx, s.wconn, stmts...); err != nil {
			return err
		}
		if len(req.Data) == 0 {
			return nil
		}
		_, err := s.wconn.ExecContext(ctx, "INSERT INTO coyote_graph VALUES (1, $1)", req.Data)
		return err
	})
	if err == nil {
		_, err = s.wconn.ExecContext(ctx, "CHECKPOINT")
	}
	if err != nil {
		return fmt.Errorf("save the knowledge graph of RAG %s: %w", s.name, err)
	}
	return nil
}

// LoadGraph returns the RAG's knowledge graph, empty when it has none (a
// store written before graphs were kept has no table for it).
func (d *Driver) LoadGraph(ctx context.Context, req *ragstore.LoadGraphRequest) (*ragstore.LoadGraphResponse, error) {
	s, err := d.get(req.Store)
	if err != nil {
		return nil, err
	}
	var data []byte
	err = s.db.QueryRowContext(ctx, "SELECT data FROM coyote_graph WHERE id = 1").Scan(&data)
	switch {
	case errors.Is(err, sql.ErrNoRows), err != nil && strings.Contains(err.Error(), "coyote_graph does not exist"):
		return &ragstore.LoadGraphResponse{}, nil
	case err != nil:
		return nil, fmt.Errorf("read the knowledge graph of RAG %s: %w", s.name, err)
	}
	return &ragstore.LoadGraphResponse{Data: data}, nil
}
