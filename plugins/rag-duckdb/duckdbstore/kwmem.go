package duckdbstore

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/coyote-cli/coyote/sdk/ragstore"
	"github.com/coyote-cli/coyote/sdk/ragstore/rank"
)

// memKeywords is a read-only store's keyword index in memory. DuckDB's
// BM25 in SQL costs 15 ms at 10,000 chunks and 35–40 ms at 100,000; the
// same ranking from postings in memory costs well under a millisecond. So
// a read-only store starts building the index in the background at Open
// (the kernel's BM25, the formula the SQL computes, over the same terms),
// beside the vectors, and keyword searches use it once it is there, SQL
// before. Stores open read-write change under the index and keep to SQL.
type memKeywords struct {
	start  sync.Once
	idx    atomic.Pointer[rank.BM25]
	cancel context.CancelFunc
	done   chan struct{} // closed when the build has ended (or never started)
	mu     sync.Mutex    // guards cancel and done
}

// search answers from the index, ok false while there is none.
func (m *memKeywords) search(query string, k int) ([]ragstore.Hit, bool) {
	idx := m.idx.Load()
	if idx == nil {
		return nil, false
	}
	return idx.Search(query, k), true
}

// build starts building the index from the store's chunks, once.
func (m *memKeywords) build(s *store) {
	m.start.Do(func() {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		m.mu.Lock()
		m.cancel, m.done = cancel, done
		m.mu.Unlock()
		go func() {
			defer close(done)
			if idx, err := loadKeywords(ctx, s); err == nil {
				m.idx.Store(idx)
			}
		}()
	})
}

// stop cancels a build in progress and waits for it, so the database can
// be closed under it.
func (m *memKeywords) stop() {
	m.mu.Lock()
	cancel, done := m.cancel, m.done
	m.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

// loadKeywords reads every chunk's text, a file at a time, into a BM25
// index.
func loadKeywords(ctx context.Context, s *store) (*rank.BM25, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT id, file_id, text FROM chunks ORDER BY file_id")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	idx := rank.NewBM25()
	var file string
	var passages []rank.Passage
	for rows.Next() {
		var id, fileID, text string
		if err := rows.Scan(&id, &fileID, &text); err != nil {
			return nil, err
		}
		if fileID != file && len(passages) > 0 {
			idx.AddFile(file, passages)
			passages = nil
		}
		file = fileID
		passages = append(passages, rank.Passage{ID: id, Text: text})
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(passages) > 0 {
		idx.AddFile(file, passages)
	}
	return idx, nil
}
