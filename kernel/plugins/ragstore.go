package plugins

import (
	"context"
	"fmt"
	"sync"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/ragstore"
)

// RagStore is the kernel's supervised handle on a RAG store plugin
// (coyote-rag-<driver>). It implements ragstore.Store,
// ragstore.KeywordSearcher, ragstore.CollectionLister, ragstore.Dropper,
// ragstore.FileLister and ragstore.DriverSetup: each call goes to the live plugin process
// (started on first use), and a process that dies mid-call is reported as
// a *CrashError. The next call starts a new process and opens in it,
// with the same request, every store that was open in the old one; what
// the old process had not persisted (before Rebuild, for stores that
// write lazily) is gone, and the kernel's next sync puts it back.
type RagStore struct {
	pl *Plugin

	mu   sync.Mutex
	open map[string]openEntry // by store name
	revs int
}

// openEntry is the request a store was opened with, and its revision,
// which grows with each Open so that a process can tell it is out of date.
type openEntry struct {
	req ragstore.OpenRequest
	rev int
}

// ragState is what one process has been told.
type ragState struct {
	mu     sync.Mutex
	client ragstore.Store
	opened map[string]int // store name → revision opened
}

// RagStore returns the handle of the store plugin of a driver ("duckdb"
// for coyote-rag-duckdb), without starting it.
func (h *Host) RagStore(driver string) (*RagStore, error) {
	pl, err := h.Lookup(sdk.KindRAG, driver)
	if err != nil {
		return nil, err
	}
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if pl.ragStore == nil {
		pl.ragStore = &RagStore{pl: pl, open: map[string]openEntry{}}
	}
	return pl.ragStore, nil
}

// Plugin is the supervised plugin behind the handle.
func (r *RagStore) Plugin() *Plugin { return r.pl }

// Open opens a store in the plugin, starting the plugin if needed. A store
// that is open already is closed first, so that reopening read-write a
// store open read-only (or the reverse) releases the old handle.
func (r *RagStore) Open(ctx context.Context, req *ragstore.OpenRequest) (*ragstore.OpenResponse, error) {
	r.mu.Lock()
	r.revs++
	rev := r.revs
	r.mu.Unlock()
	var resp *ragstore.OpenResponse
	err := r.pl.Call(ctx, func(proc *Process) error {
		st, err := r.state(ctx, proc)
		if err != nil {
			return err
		}
		st.mu.Lock()
		defer st.mu.Unlock()
		if _, ok := st.opened[req.Store]; ok {
			delete(st.opened, req.Store)
			if err := st.client.Close(ctx, &ragstore.CloseRequest{Store: req.Store}); err != nil {
				return fmt.Errorf("reopen RAG store %q: %w", req.Store, err)
			}
		}
		resp, err = st.client.Open(ctx, req)
		if err != nil {
			return err
		}
		st.opened[req.Store] = rev
		return nil
	})
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		delete(r.open, req.Store)
		return nil, err
	}
	r.open[req.Store] = openEntry{req: *req, rev: rev}
	return resp, nil
}

// Upsert adds or replaces chunks (the SDK's client splits them into
// messages of at most ragstore.MaxBatchBytes).
func (r *RagStore) Upsert(ctx context.Context, req *ragstore.UpsertRequest) error {
	return r.call(ctx, req.Store, func(_ *Process, c ragstore.Store) error { return c.Upsert(ctx, req) })
}

// DeleteFile removes a file's chunks.
func (r *RagStore) DeleteFile(ctx context.Context, req *ragstore.DeleteFileRequest) error {
	return r.call(ctx, req.Store, func(_ *Process, c ragstore.Store) error { return c.DeleteFile(ctx, req) })
}

// VectorSearch asks the store for the chunks nearest to a vector.
func (r *RagStore) VectorSearch(ctx context.Context, req *ragstore.VectorSearchRequest) (resp *ragstore.SearchResponse, err error) {
	err = r.call(ctx, req.Store, func(_ *Process, c ragstore.Store) error {
		resp, err = c.VectorSearch(ctx, req)
		return err
	})
	return resp, err
}

// KeywordSearch asks the store's own keyword index. A plugin without the
// keyword-search capability gets a readable sdk.ErrUnsupported, without a
// call; a store whose backend lacks it (while its plugin has it) answers
// sdk.ErrUnsupported itself. The kernel checks the store's capabilities
// from Open first and ranks keywords itself when they lack it.
func (r *RagStore) KeywordSearch(ctx context.Context, req *ragstore.KeywordSearchRequest) (resp *ragstore.SearchResponse, err error) {
	err = r.call(ctx, req.Store, func(proc *Process, c ragstore.Store) error {
		if err := r.pl.requireCap(ctx, proc, ragstore.CapKeywordSearch, "keyword search"); err != nil {
			return err
		}
		resp, err = c.(ragstore.KeywordSearcher).KeywordSearch(ctx, req)
		return err
	})
	return resp, err
}

// ListCollections lists the collections of the server a driver_config
// names. It needs no open store; a plugin without the list-collections
// capability gets a readable sdk.ErrUnsupported.
func (r *RagStore) ListCollections(ctx context.Context, req *ragstore.ListCollectionsRequest) (resp *ragstore.ListCollectionsResponse, err error) {
	err = r.pl.Call(ctx, func(proc *Process) error {
		st, err := r.state(ctx, proc)
		if err != nil {
			return err
		}
		if err := r.pl.requireCap(ctx, proc, ragstore.CapListCollections, "listing collections"); err != nil {
			return err
		}
		resp, err = st.client.(ragstore.CollectionLister).ListCollections(ctx, req)
		return err
	})
	return resp, err
}

// Describe is what the store plugin says about itself (its capabilities
// say what its driver can do), starting the plugin if needed.
func (r *RagStore) Describe(ctx context.Context) (desc *sdk.Description, err error) {
	err = r.pl.Call(ctx, func(proc *Process) error {
		if _, err := r.state(ctx, proc); err != nil {
			return err
		}
		desc, err = proc.Describe(ctx)
		return err
	})
	return desc, err
}

// Setup asks for the questions that set up a new RAG of the driver. It
// needs no open store; a plugin without the setup capability gets a
// readable sdk.ErrUnsupported.
func (r *RagStore) Setup(ctx context.Context, req *ragstore.SetupRequest) (resp *ragstore.SetupResponse, err error) {
	err = r.pl.Call(ctx, func(proc *Process) error {
		st, err := r.state(ctx, proc)
		if err != nil {
			return err
		}
		if err := r.pl.requireCap(ctx, proc, ragstore.CapSetup, "driver setup"); err != nil {
			return err
		}
		resp, err = st.client.(ragstore.DriverSetup).Setup(ctx, req)
		return err
	})
	return resp, err
}

// ValidateConfig asks the plugin to check a driver_config, as Setup.
func (r *RagStore) ValidateConfig(ctx context.Context, req *ragstore.ValidateConfigRequest) error {
	return r.pl.Call(ctx, func(proc *Process) error {
		st, err := r.state(ctx, proc)
		if err != nil {
			return err
		}
		if err := r.pl.requireCap(ctx, proc, ragstore.CapSetup, "driver setup"); err != nil {
			return err
		}
		return st.client.(ragstore.DriverSetup).ValidateConfig(ctx, req)
	})
}

// Drop asks the plugin to remove what it keeps of a RAG outside the RAG's
// yaml, before the kernel removes the yaml. A plugin without the drop
// capability keeps nothing there, so it is not asked, and nil is
// returned. A store open through this handle is refused with
// sdk.ErrFailedPrecondition without a call: close it first.
func (r *RagStore) Drop(ctx context.Context, req *ragstore.DropRequest) error {
	r.mu.Lock()
	_, open := r.open[req.Store]
	r.mu.Unlock()
	if open {
		return fmt.Errorf("RAG store %q is open in plugin %s; close it before deleting it: %w", req.Store, r.pl.Binary, sdk.ErrFailedPrecondition)
	}
	return r.pl.Call(ctx, func(proc *Process) error {
		st, err := r.state(ctx, proc)
		if err != nil {
			return err
		}
		desc, err := proc.Describe(ctx)
		if err != nil {
			return err
		}
		if !desc.Has(ragstore.CapDrop) {
			return nil
		}
		return st.client.(ragstore.Dropper).Drop(ctx, req)
	})
}

// ListFiles asks an open store which files it holds. A plugin without the
// list-files capability gets a readable sdk.ErrUnsupported, without a
// call.
func (r *RagStore) ListFiles(ctx context.Context, req *ragstore.ListFilesRequest) (resp *ragstore.ListFilesResponse, err error) {
	err = r.call(ctx, req.Store, func(proc *Process, c ragstore.Store) error {
		if err := r.pl.requireCap(ctx, proc, ragstore.CapListFiles, "listing a store's files"); err != nil {
			return err
		}
		resp, err = c.(ragstore.FileLister).ListFiles(ctx, req)
		return err
	})
	return resp, err
}

// FetchContent asks for the text of chunks, in the order given.
func (r *RagStore) FetchContent(ctx context.Context, req *ragstore.FetchContentRequest) (resp *ragstore.FetchContentResponse, err error) {
	err = r.call(ctx, req.Store, func(_ *Process, c ragstore.Store) error {
		resp, err = c.FetchContent(ctx, req)
		return err
	})
	return resp, err
}

// Stats asks for the size of a store.
func (r *RagStore) Stats(ctx context.Context, req *ragstore.StatsRequest) (resp *ragstore.Stats, err error) {
	err = r.call(ctx, req.Store, func(_ *Process, c ragstore.Store) error {
		resp, err = c.Stats(ctx, req)
		return err
	})
	return resp, err
}

// Rebuild ends an indexing pass.
func (r *RagStore) Rebuild(ctx context.Context, req *ragstore.RebuildRequest) error {
	return r.call(ctx, req.Store, func(_ *Process, c ragstore.Store) error { return c.Rebuild(ctx, req) })
}

// Close releases a store. It starts no process: a store that is open in
// no live process is closed already.
func (r *RagStore) Close(ctx context.Context, req *ragstore.CloseRequest) error {
	r.mu.Lock()
	_, known := r.open[req.Store]
	delete(r.open, req.Store)
	r.mu.Unlock()
	if !known || r.pl.live() == nil {
		return nil
	}
	return r.pl.Call(ctx, func(proc *Process) error {
		st, err := r.state(ctx, proc)
		if err != nil {
			return err
		}
		st.mu.Lock()
		_, ok := st.opened[req.Store]
		delete(st.opened, req.Store)
		st.mu.Unlock()
		if !ok {
			return nil
		}
		return st.client.Close(ctx, req)
	})
}

// call runs fn with the live process's client, store open in it. A store
// never opened through this handle (or closed) is refused before any
// process starts.
func (r *RagStore) call(ctx context.Context, store string, fn func(*Process, ragstore.Store) error) error {
	r.mu.Lock()
	_, ok := r.open[store]
	r.mu.Unlock()
	if !ok {
		return r.notOpen(store)
	}
	return r.pl.Call(ctx, func(proc *Process) error {
		c, err := r.conn(ctx, proc, store)
		if err != nil {
			return err
		}
		return fn(proc, c)
	})
}

func (r *RagStore) notOpen(store string) error {
	return fmt.Errorf("RAG store %q is not open in plugin %s: %w", store, r.pl.Binary, sdk.ErrFailedPrecondition)
}

// conn returns the process's client with store open in it: a store opened
// in an earlier process (or with an older request) is opened again first.
func (r *RagStore) conn(ctx context.Context, proc *Process, store string) (ragstore.Store, error) {
	st, err := r.state(ctx, proc)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	entry, ok := r.open[store]
	r.mu.Unlock()
	if !ok { // closed meanwhile
		return nil, r.notOpen(store)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.opened[store] != entry.rev {
		r.pl.log.Debug("opening the RAG store again in a new process", "store", store, "generation", proc.Gen)
		req := entry.req
		if _, err := st.client.Open(ctx, &req); err != nil {
			return nil, err
		}
		st.opened[store] = entry.rev
	}
	return st.client, nil
}

// state returns what the process has been told, dispensing its client on
// first use. A plugin that does not serve RAG stores (a provider binary
// named like a store) is refused readably.
func (r *RagStore) state(ctx context.Context, proc *Process) (*ragState, error) {
	st := proc.State(sdk.KindRAG, func() any {
		return &ragState{opened: map[string]int{}}
	}).(*ragState)
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.client != nil {
		return st, nil
	}
	c, err := dispense[ragstore.Store](ctx, proc, r.pl.Binary, sdk.KindRAG, "a RAG store")
	if err != nil {
		return nil, err
	}
	st.client = c
	return st, nil
}

var (
	_ ragstore.Store            = (*RagStore)(nil)
	_ ragstore.KeywordSearcher  = (*RagStore)(nil)
	_ ragstore.CollectionLister = (*RagStore)(nil)
	_ ragstore.Dropper          = (*RagStore)(nil)
	_ ragstore.DriverSetup      = (*RagStore)(nil)
	_ ragstore.FileLister       = (*RagStore)(nil)
)
