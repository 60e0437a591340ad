package duckdbstore

import (
	"context"
	"database/sql"
	"hash/maphash"
)

// idSet is what a writer knows of the chunk ids its store holds: a count
// of each id's 64-bit hash. It answers "maybe held" (a hash another id
// shares) or "not held", never wrongly "not held": every id inserted is
// counted and each deleted one uncounted at most once. An upsert whose
// ids are all new (every upsert of a first indexing pass) so skips the
// deletes that replace chunks, which without an index on the ids would
// each read the whole chunks table. It costs about 16 bytes a chunk.
type idSet struct {
	seed maphash.Seed
	n    map[uint64]int32
}

func newIDSet() idSet {
	return idSet{seed: maphash.MakeSeed(), n: make(map[uint64]int32)}
}

func (s idSet) hash(id string) uint64 { return maphash.String(s.seed, id) }

// has reports whether id may be held.
func (s idSet) has(id string) bool { return s.n[s.hash(id)] > 0 }

// add counts an id inserted.
func (s idSet) add(id string) { s.n[s.hash(id)]++ }

// remove uncounts an id deleted.
func (s idSet) remove(id string) {
	h := s.hash(id)
	if s.n[h] <= 1 {
		delete(s.n, h)
		return
	}
	s.n[h]--
}

// load counts the ids of the chunks table.
func (s idSet) load(ctx context.Context, conn *sql.Conn) error {
	rows, err := conn.QueryContext(ctx, "SELECT id FROM chunks")
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return err
		}
		s.add(id)
	}
	return rows.Err()
}
