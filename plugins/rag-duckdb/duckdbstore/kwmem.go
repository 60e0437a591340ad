package duckdbstore

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/ragstore"
	"github.com/coyote-cli/coyote/sdk/ragstore/rank"
)

// memKeywords is a read-only store's keyword index. DuckDB's BM25 in SQL
// costs 15 ms at 10,000 chunks and 35–40 ms at 100,000; the same ranking
// from postings costs well under a millisecond. A read-only store whose
// vector file is current answers from the file's keyword part (file),
// mapped at Open (see kwfile.go). Otherwise it starts building the index
// in memory in the background at Open (the kernel's BM25, the formula the
// SQL computes, from the same term counts: see loadKeywords), beside the
// vectors, and keyword searches use it once it is there, SQL before.
// Stores open read-write change under the index and keep to SQL.
type memKeywords struct {
	// file and vf are set at Open, before any search, or never.
	file *rank.FrozenBM25
	vf   *vecFile

	start   sync.Once
	idx     atomic.Pointer[rank.BM25]
	halt    atomic.Bool   // asks the build to give up
	done    chan struct{} // closed when the build has ended
	mu      sync.Mutex    // guards done and started
	started bool
}

// search answers from the index, ok false while there is none.
func (m *memKeywords) search(query string, k int) ([]ragstore.Hit, bool, error) {
	if m.file != nil {
		// The mapping goes at close: searches hold it meanwhile.
		m.vf.mu.RLock()
		defer m.vf.mu.RUnlock()
		if m.vf.closed {
			return nil, false, fmt.Errorf("the store is closed: %w", sdk.ErrFailedPrecondition)
		}
		return m.file.Search(query, k), true, nil
	}
	idx := m.idx.Load()
	if idx == nil {
		return nil, false, nil
	}
	return idx.Search(query, k), true, nil
}

// build starts building the index from the store's chunks, once.
func (m *memKeywords) build(s *store) {
	m.start.Do(func() {
		done := make(chan struct{})
		m.mu.Lock()
		m.done, m.started = done, true
		m.mu.Unlock()
		go func() {
			defer close(done)
			idx, err := loadKeywords(s.path, s.opts, &m.halt)
			switch {
			case err != nil:
				sdk.Logger().Warn("keyword index not loaded: keyword searches stay in SQL", "store", s.name, "err", err)
			case idx != nil:
				m.idx.Store(idx)
			}
		}()
	})
}

// stop cancels a build in progress and waits for it, so the database can
// be closed under it.
func (m *memKeywords) stop() {
	m.mu.Lock()
	done, started := m.done, m.started
	m.mu.Unlock()
	if started {
		m.halt.Store(true)
		<-done
	}
}
