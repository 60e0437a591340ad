package duckdbstore

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/coyote-cli/coyote/sdk/ragstore"
	"github.com/coyote-cli/coyote/sdk/ragstore/rank"
)

// keywordSQL ranks chunks by BM25 over the terms table, for the term
// numbers spliced in as a literal list (so that DuckDB checks each against
// the zone maps of the sorted terms table; a join would read every row).
// Each query term counts once. IDF is ln(1 + (N − df + 0.5)/(df + 0.5)),
// which never goes negative. The terms table carries each chunk's length;
// its rows are joined to the chunks' keys only to skip those of deleted
// chunks, which stay until the next Rebuild (see deleteFile).
const keywordSQL = `
WITH corpus AS (SELECT count(*)::DOUBLE AS n, coalesce(avg(length), 0)::DOUBLE AS avgdl FROM chunks),
hits AS (SELECT t.key, t.tid, t.tf, t.length FROM terms t SEMI JOIN chunks c ON c.key = t.key WHERE t.tid IN (%s)),
df AS (SELECT tid, count(*)::DOUBLE AS df FROM hits GROUP BY tid),
scores AS (
	SELECT h.key,
		sum(ln(1 + (corpus.n - df.df + 0.5) / (df.df + 0.5))
			* h.tf * ($1 + 1)
			/ (h.tf + $1 * (1 - $2 + $2 * h.length / greatest(corpus.avgdl, 1e-9)))) AS score
	FROM hits h JOIN df ON h.tid = df.tid CROSS JOIN corpus
	GROUP BY h.key
	ORDER BY score DESC
	LIMIT $3)
SELECT c.id, s.score FROM scores s JOIN chunks c ON c.key = s.key`

// keywordSearch runs BM25 for query.
func keywordSearch(ctx context.Context, db *sql.DB, query string, k int) ([]ragstore.Hit, error) {
	terms := rank.Tokenize(query)
	if len(terms) == 0 || k <= 0 {
		return nil, nil
	}
	slices.Sort(terms)
	terms = slices.Compact(terms)
	tids, err := termIDs(ctx, db, terms)
	if err != nil || len(tids) == 0 {
		return nil, err
	}
	// Ties at the cut are settled in Go, in the kernel's chunk order (as
	// the index in memory and the kernel's own BM25 settle them), so ask
	// for some more rows than k and cut after sorting.
	rows, err := db.QueryContext(ctx, fmt.Sprintf(keywordSQL, strings.Join(tids, ",")), rank.BM25K1, rank.BM25B, k+16)
	if err != nil {
		return nil, fmt.Errorf("keyword search: %w", err)
	}
	defer rows.Close()
	type scored struct {
		id    string
		score float64
	}
	var all []scored
	for rows.Next() {
		var s scored
		if err := rows.Scan(&s.id, &s.score); err != nil {
			return nil, err
		}
		all = append(all, s)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	slices.SortFunc(all, func(a, b scored) int {
		return cmp.Or(cmp.Compare(b.score, a.score), rank.CompareChunkIDs(a.id, b.id))
	})
	hits := make([]ragstore.Hit, min(k, len(all)))
	for i := range hits {
		hits[i] = ragstore.Hit{ID: all[i].id, Score: float32(all[i].score)}
	}
	return hits, nil
}

// termIDs returns the numbers of the terms the store knows, as SQL
// literals.
func termIDs(ctx context.Context, db *sql.DB, terms []string) ([]string, error) {
	rows, err := db.QueryContext(ctx, "SELECT tid FROM vocab WHERE term IN (SELECT unnest($1::VARCHAR[]))", terms)
	if err != nil {
		return nil, fmt.Errorf("keyword search: %w", err)
	}
	defer rows.Close()
	var tids []string
	for rows.Next() {
		var tid int32
		if err := rows.Scan(&tid); err != nil {
			return nil, err
		}
		tids = append(tids, strconv.Itoa(int(tid)))
	}
	return tids, rows.Err()
}
