package plugins

import (
	"context"
	"fmt"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/ragstore"
)

// ragKind declares RAG store plugins, coyote-rag-<driver>. The setup each
// process is given is every store open in it, by store name, opened with
// the same request again.
var ragKind = Declare(&Kind[ragstore.Store, ragstore.OpenRequest]{
	Name:   sdk.KindRAG,
	Noun:   "a RAG store",
	Plugin: ragstore.Plugin(nil),
	Replay: func(ctx context.Context, c ragstore.Store, _ string, req ragstore.OpenRequest) error {
		_, err := c.Open(ctx, &req)
		return err
	},
	Missing: func(binary, store string) error {
		return fmt.Errorf("RAG store %q is not open in plugin %s: %w", store, binary, sdk.ErrFailedPrecondition)
	},
})

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
	h *Handle[ragstore.Store, ragstore.OpenRequest]
}

// RagStore returns the handle of the store plugin of a driver ("duckdb"
// for coyote-rag-duckdb), without starting it.
func (h *Host) RagStore(driver string) (*RagStore, error) {
	hd, err := handleOf(h, ragKind, driver)
	if err != nil {
		return nil, err
	}
	return typedHandle(hd, func(hd *Handle[ragstore.Store, ragstore.OpenRequest]) *RagStore { return &RagStore{h: hd} }), nil
}

// Plugin is the supervised plugin behind the handle.
func (r *RagStore) Plugin() *Plugin { return r.h.Plugin() }

// Open opens a store in the plugin, starting the plugin if needed. A store
// that is open already is closed first, so that reopening read-write a
// store open read-only (or the reverse) releases the old handle.
func (r *RagStore) Open(ctx context.Context, req *ragstore.OpenRequest) (resp *ragstore.OpenResponse, err error) {
	err = r.h.Update(ctx, req.Store, *req, func(c ragstore.Store, open bool) error {
		if open {
			if err := c.Close(ctx, &ragstore.CloseRequest{Store: req.Store}); err != nil {
				return fmt.Errorf("reopen RAG store %q: %w", req.Store, err)
			}
		}
		resp, err = c.Open(ctx, req)
		return err
	})
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// Upsert adds or replaces chunks (the SDK's client splits them into
// messages of at most ragstore.MaxBatchBytes).
func (r *RagStore) Upsert(ctx context.Context, req *ragstore.UpsertRequest) error {
	return r.h.CallFor(ctx, req.Store, func(_ *Process, c ragstore.Store) error { return c.Upsert(ctx, req) })
}

// DeleteFile removes a file's chunks.
func (r *RagStore) DeleteFile(ctx context.Context, req *ragstore.DeleteFileRequest) error {
	return r.h.CallFor(ctx, req.Store, func(_ *Process, c ragstore.Store) error { return c.DeleteFile(ctx, req) })
}

// VectorSearch asks the store for the chunks nearest to a vector.
func (r *RagStore) VectorSearch(ctx context.Context, req *ragstore.VectorSearchRequest) (resp *ragstore.SearchResponse, err error) {
	err = r.h.CallFor(ctx, req.Store, func(_ *Process, c ragstore.Store) error {
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
	err = r.h.CallFor(ctx, req.Store, func(proc *Process, c ragstore.Store) error {
		if err := r.Plugin().requireCap(proc, ragstore.CapKeywordSearch, "keyword search"); err != nil {
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
	err = r.h.Call(ctx, func(proc *Process, c ragstore.Store) error {
		if err := r.Plugin().requireCap(proc, ragstore.CapListCollections, "listing collections"); err != nil {
			return err
		}
		resp, err = c.(ragstore.CollectionLister).ListCollections(ctx, req)
		return err
	})
	return resp, err
}

// Describe is what the store plugin says about itself (its capabilities
// say what its driver can do), starting the plugin if needed.
func (r *RagStore) Describe(ctx context.Context) (desc *sdk.Description, err error) {
	err = r.h.Call(ctx, func(proc *Process, _ ragstore.Store) error {
		desc = proc.Description()
		return nil
	})
	return desc, err
}

// Setup asks for the questions that set up a new RAG of the driver. It
// needs no open store; a plugin without the setup capability gets a
// readable sdk.ErrUnsupported.
func (r *RagStore) Setup(ctx context.Context, req *ragstore.SetupRequest) (resp *ragstore.SetupResponse, err error) {
	err = r.h.Call(ctx, func(proc *Process, c ragstore.Store) error {
		if err := r.Plugin().requireCap(proc, ragstore.CapSetup, "driver setup"); err != nil {
			return err
		}
		resp, err = c.(ragstore.DriverSetup).Setup(ctx, req)
		return err
	})
	return resp, err
}

// ValidateConfig asks the plugin to check a driver_config, as Setup.
func (r *RagStore) ValidateConfig(ctx context.Context, req *ragstore.ValidateConfigRequest) error {
	return r.h.Call(ctx, func(proc *Process, c ragstore.Store) error {
		if err := r.Plugin().requireCap(proc, ragstore.CapSetup, "driver setup"); err != nil {
			return err
		}
		return c.(ragstore.DriverSetup).ValidateConfig(ctx, req)
	})
}

// Drop asks the plugin to remove what it keeps of a RAG outside the RAG's
// yaml, before the kernel removes the yaml. A plugin without the drop
// capability keeps nothing there, so it is not asked, and nil is
// returned. A store open through this handle is refused with
// sdk.ErrFailedPrecondition without a call: close it first.
func (r *RagStore) Drop(ctx context.Context, req *ragstore.DropRequest) error {
	if r.h.Knows(req.Store) {
		return fmt.Errorf("RAG store %q is open in plugin %s; close it before deleting it: %w", req.Store, r.Plugin().Binary, sdk.ErrFailedPrecondition)
	}
	return r.h.Call(ctx, func(proc *Process, c ragstore.Store) error {
		if !proc.Description().Has(ragstore.CapDrop) {
			return nil
		}
		return c.(ragstore.Dropper).Drop(ctx, req)
	})
}

// ListFiles asks an open store which files it holds. A plugin without the
// list-files capability gets a readable sdk.ErrUnsupported, without a
// call.
func (r *RagStore) ListFiles(ctx context.Context, req *ragstore.ListFilesRequest) (resp *ragstore.ListFilesResponse, err error) {
	err = r.h.CallFor(ctx, req.Store, func(proc *Process, c ragstore.Store) error {
		if err := r.Plugin().requireCap(proc, ragstore.CapListFiles, "listing a store's files"); err != nil {
			return err
		}
		resp, err = c.(ragstore.FileLister).ListFiles(ctx, req)
		return err
	})
	return resp, err
}

// SaveGraph replaces the knowledge graph an open store keeps. A plugin
// without the graph capability gets a readable sdk.ErrUnsupported,
// without a call.
func (r *RagStore) SaveGraph(ctx context.Context, req *ragstore.SaveGraphRequest) error {
	return r.h.CallFor(ctx, req.Store, func(proc *Process, c ragstore.Store) error {
		if err := r.Plugin().requireCap(proc, ragstore.CapGraph, "keeping a knowledge graph"); err != nil {
			return err
		}
		return c.(ragstore.GraphKeeper).SaveGraph(ctx, req)
	})
}

// LoadGraph returns the knowledge graph an open store keeps (empty: none).
func (r *RagStore) LoadGraph(ctx context.Context, req *ragstore.LoadGraphRequest) (resp *ragstore.LoadGraphResponse, err error) {
	err = r.h.CallFor(ctx, req.Store, func(proc *Process, c ragstore.Store) error {
		if err := r.Plugin().requireCap(proc, ragstore.CapGraph, "keeping a knowledge graph"); err != nil {
			return err
		}
		resp, err = c.(ragstore.GraphKeeper).LoadGraph(ctx, req)
		return err
	})
	return resp, err
}

// FetchContent asks for the text of chunks, in the order given.
func (r *RagStore) FetchContent(ctx context.Context, req *ragstore.FetchContentRequest) (resp *ragstore.FetchContentResponse, err error) {
	err = r.h.CallFor(ctx, req.Store, func(_ *Process, c ragstore.Store) error {
		resp, err = c.FetchContent(ctx, req)
		return err
	})
	return resp, err
}

// Stats asks for the size of a store.
func (r *RagStore) Stats(ctx context.Context, req *ragstore.StatsRequest) (resp *ragstore.Stats, err error) {
	err = r.h.CallFor(ctx, req.Store, func(_ *Process, c ragstore.Store) error {
		resp, err = c.Stats(ctx, req)
		return err
	})
	return resp, err
}

// Rebuild ends an indexing pass.
func (r *RagStore) Rebuild(ctx context.Context, req *ragstore.RebuildRequest) error {
	return r.h.CallFor(ctx, req.Store, func(_ *Process, c ragstore.Store) error { return c.Rebuild(ctx, req) })
}

// Close releases a store. It starts no process: a store that is open in
// no live process is closed already.
func (r *RagStore) Close(ctx context.Context, req *ragstore.CloseRequest) error {
	return r.h.Withdraw(ctx, req.Store, func(c ragstore.Store) error { return c.Close(ctx, req) })
}

var (
	_ ragstore.Store            = (*RagStore)(nil)
	_ ragstore.KeywordSearcher  = (*RagStore)(nil)
	_ ragstore.CollectionLister = (*RagStore)(nil)
	_ ragstore.Dropper          = (*RagStore)(nil)
	_ ragstore.DriverSetup      = (*RagStore)(nil)
	_ ragstore.FileLister       = (*RagStore)(nil)
)
