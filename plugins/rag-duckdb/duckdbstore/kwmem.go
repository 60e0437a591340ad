package duckdbstore

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/ragstore"
	"github.com/coyote-cli/coyote/sdk/ragstore/rank"
)

// memKeywords is a store's keyword index: the kernel's BM25 (the same
// formula, terms and tie order). A read-only store whose vector file is
// current answers from the file's keyword part (file, a rank.FrozenBM25
// mapped at Open: see kwfile.go), at once. Otherwise the index is built
// in memory (rank.BM25) from the term counts on the chunks' rows (see
// loadKeywords; no text is read again): by a read-only store in the
// background from Open, beside the vectors, with keyword searches waiting
// for it; by a read-write store when first searched, dropped at each
// write (indexing never searches, so it never holds it).
type memKeywords struct {
	// file and vf are set at Open, before any search, or never.
	file *rank.FrozenBM25
	vf   *vecFile

	mu     sync.Mutex
	b      *kwBuild // the current build, nil when none
	halt   atomic.Bool
	builds sync.WaitGroup // every build running, dropped ones too
}

// kwBuild is one build of the index; done closes when idx or err is set.
type kwBuild struct {
	done chan struct{}
	idx  *rank.BM25
	err  error
}

// start starts a build unless one is there (running or done) or the
// store is closing, and returns it (nil when closing).
func (m *memKeywords) start(s *store) *kwBuild {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.b != nil || m.halt.Load() {
		return m.b
	}
	b := &kwBuild{done: make(chan struct{})}
	m.b = b
	m.builds.Add(1)
	go func() {
		defer m.builds.Done()
		defer close(b.done)
		b.idx, b.err = loadKeywords(s.path, s.opts, &m.halt)
		switch {
		case m.halt.Load():
			b.idx, b.err = nil, fmt.Errorf("the store is closed: %w", sdk.ErrFailedPrecondition)
		case b.err != nil:
			sdk.Logger().Warn("keyword index not loaded", "store", s.name, "err", b.err)
		}
	}()
	return b
}

// search answers from the file, or from the index in memory, starting its
// build if needed and waiting for it.
func (m *memKeywords) search(ctx context.Context, s *store, query string, k int) ([]ragstore.Hit, error) {
	if m.file != nil {
		// The mapping goes at close: searches hold it meanwhile.
		m.vf.mu.RLock()
		defer m.vf.mu.RUnlock()
		if m.vf.closed {
			return nil, fmt.Errorf("the store is closed: %w", sdk.ErrFailedPrecondition)
		}
		return m.file.Search(query, k), nil
	}
	b := m.start(s)
	if b == nil {
		return nil, fmt.Errorf("RAG store %q is closed: %w", s.name, sdk.ErrFailedPrecondition)
	}
	select {
	case <-b.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if b.err != nil {
		return nil, b.err
	}
	return b.idx.Search(query, k), nil
}

// drop forgets the index after a write, so that the next search builds it
// again from what is committed. A build still running finishes unseen.
func (m *memKeywords) drop() {
	m.mu.Lock()
	m.b = nil
	m.mu.Unlock()
}

// stop cancels the builds, waits for them, and refuses new ones, so that
// the database can be closed under them.
func (m *memKeywords) stop() {
	m.mu.Lock()
	m.halt.Store(true)
	m.mu.Unlock()
	m.builds.Wait()
}
