package storetest_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/coyote-cli/coyote/sdk/ragstore"
	"github.com/coyote-cli/coyote/sdk/ragstore/storetest"
)

func TestReferencePassesTheSuite(t *testing.T) {
	storetest.Run(t, func(*testing.T) ragstore.Store { return storetest.Reference() })
}

func TestReferencePassesTheSuiteOverGRPC(t *testing.T) {
	storetest.RunGRPC(t, func(*testing.T) ragstore.Store { return storetest.Reference() })
}

func TestSuiteHooksSeeEveryOpenAndTheIndexedChunks(t *testing.T) {
	var opened, indexed []string
	storetest.Suite{
		Open: func(*testing.T) ragstore.Store { return storetest.Reference() },
		Request: func(t *testing.T, req *ragstore.OpenRequest) {
			req.DriverConfig = map[string]any{"collection": req.Store}
			opened = append(opened, req.Store)
		},
		AfterIndexing: func(t *testing.T, req *ragstore.OpenRequest, chunks []ragstore.Chunk) {
			if req.DriverConfig["collection"] != req.Store || len(chunks) != 6 {
				t.Errorf("AfterIndexing got %+v and %d chunks", req, len(chunks))
			}
			indexed = append(indexed, req.Store)
		},
	}.Run(t)
	if len(opened) < 10 || len(indexed) != 4 {
		t.Fatalf("opened %v, indexed %v", opened, indexed)
	}
}

// brokenStores each break one rule of the contract, and the subtest of
// the suite that must notice.
var brokenStores = map[string]struct {
	wrap func(ragstore.Store) ragstore.Store
	sub  string
}{
	"floor":    {func(s ragstore.Store) ragstore.Store { return floorAtZero{s} }, "MinScoreZeroKeepsNegativeScores"},
	"sorted":   {func(s ragstore.Store) ragstore.Store { return sortedFetch{s} }, "FetchContentKeepsOrderAndSkipsMissing"},
	"wipe":     {func(s ragstore.Store) ragstore.Store { return wipingRebuild{s} }, "IncrementalRebuildNeverWipes"},
	"creating": {func(s ragstore.Store) ragstore.Store { return creatingOpen{s} }, "ReadOnlyOpenNeverCreates"},
	"leaky":    {func(s ragstore.Store) ragstore.Store { return leakyDrop{s} }, "DropRemovesTheStoreAndOnlyIt"},
	"eager":    {func(s ragstore.Store) ragstore.Store { return eagerDrop{s} }, "DropRemovesTheStoreAndOnlyIt"},
	"greedy":   {func(s ragstore.Store) ragstore.Store { return greedyDrop{s} }, "DropRemovesTheStoreAndOnlyIt"},
	"counting": {func(s ragstore.Store) ragstore.Store { return &countingUpserts{Store: s} }, "ListFilesCountsEachFilesChunks"},
}

// TestSuiteCatchesBrokenStores runs the suite against each broken store
// in a child process (a failing subtest here would fail this test) and
// expects the subtest that checks the broken rule to fail (others may
// notice too).
func TestSuiteCatchesBrokenStores(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary again")
	}
	for name, b := range brokenStores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(os.Args[0], "-test.run=^TestBrokenStoreChild$", "-test.v")
			cmd.Env = append(os.Environ(), "STORETEST_BROKEN="+name)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("the suite passed a store that breaks %s:\n%s", b.sub, out)
			}
			if !strings.Contains(string(out), "--- FAIL: TestBrokenStoreChild/"+b.sub) {
				t.Fatalf("%s did not fail:\n%s", b.sub, out)
			}
		})
	}
}

// TestBrokenStoreChild is TestSuiteCatchesBrokenStores's child.
func TestBrokenStoreChild(t *testing.T) {
	b, ok := brokenStores[os.Getenv("STORETEST_BROKEN")]
	if !ok {
		t.Skip("run by TestSuiteCatchesBrokenStores")
	}
	storetest.Run(t, func(*testing.T) ragstore.Store { return b.wrap(storetest.Reference()) })
}

type floorAtZero struct{ ragstore.Store }

func (f floorAtZero) VectorSearch(ctx context.Context, req *ragstore.VectorSearchRequest) (*ragstore.SearchResponse, error) {
	r, err := f.Store.VectorSearch(ctx, req)
	if err != nil {
		return nil, err
	}
	var keep []ragstore.Hit
	for _, h := range r.Hits {
		if h.Score >= 0 {
			keep = append(keep, h)
		}
	}
	return &ragstore.SearchResponse{Hits: keep}, nil
}

type sortedFetch struct{ ragstore.Store }

func (f sortedFetch) FetchContent(ctx context.Context, req *ragstore.FetchContentRequest) (*ragstore.FetchContentResponse, error) {
	r, err := f.Store.FetchContent(ctx, req)
	if err != nil {
		return nil, err
	}
	cs := r.Contents
	for i := range cs {
		for j := i + 1; j < len(cs); j++ {
			if strings.Compare(cs[j].ID, cs[i].ID) < 0 {
				cs[i], cs[j] = cs[j], cs[i]
			}
		}
	}
	return r, nil
}

type wipingRebuild struct{ ragstore.Store }

func (w wipingRebuild) Rebuild(ctx context.Context, req *ragstore.RebuildRequest) error {
	if !req.Full {
		for _, f := range []string{"1", "2", "3"} {
			_ = w.Store.DeleteFile(ctx, &ragstore.DeleteFileRequest{Store: req.Store, FileID: f})
		}
	}
	return w.Store.Rebuild(ctx, req)
}

type creatingOpen struct{ ragstore.Store }

func (c creatingOpen) Open(ctx context.Context, req *ragstore.OpenRequest) (*ragstore.OpenResponse, error) {
	if req.Mode == ragstore.ReadOnly {
		if _, err := os.Stat(strings.TrimSuffix(req.Path, ".yaml") + ".memstore.json"); errors.Is(err, os.ErrNotExist) {
			rw := *req
			rw.Mode = ragstore.ReadWrite
			if _, err := c.Store.Open(ctx, &rw); err != nil {
				return nil, err
			}
			_ = c.Store.Rebuild(ctx, &ragstore.RebuildRequest{Store: req.Store})
		}
	}
	return c.Store.Open(ctx, req)
}

// leakyDrop claims to drop and keeps everything.
type leakyDrop struct{ ragstore.Store }

func (leakyDrop) Drop(context.Context, *ragstore.DropRequest) error { return nil }

// eagerDrop closes an open store and drops it instead of refusing.
type eagerDrop struct{ ragstore.Store }

func (e eagerDrop) Drop(ctx context.Context, req *ragstore.DropRequest) error {
	_ = e.Store.Close(ctx, &ragstore.CloseRequest{Store: req.Store})
	return e.Store.(ragstore.Dropper).Drop(ctx, req)
}

// greedyDrop drops every store of the directory.
type greedyDrop struct{ ragstore.Store }

func (g greedyDrop) Drop(ctx context.Context, req *ragstore.DropRequest) error {
	if err := g.Store.(ragstore.Dropper).Drop(ctx, req); err != nil {
		return err
	}
	other := *req
	other.Store, other.Path = "other", filepath.Join(filepath.Dir(req.Path), "other.yaml")
	_ = g.Store.Close(ctx, &ragstore.CloseRequest{Store: "other"})
	return g.Store.(ragstore.Dropper).Drop(ctx, &other)
}

// countingUpserts lists each file with the number of chunks upserted into
// it, replaced ones counted again.
type countingUpserts struct {
	ragstore.Store
	mu     sync.Mutex
	counts map[string]int64
}

func (c *countingUpserts) Upsert(ctx context.Context, req *ragstore.UpsertRequest) error {
	c.mu.Lock()
	if c.counts == nil {
		c.counts = map[string]int64{}
	}
	for _, ch := range req.Chunks {
		c.counts[ch.FileID]++
	}
	c.mu.Unlock()
	return c.Store.Upsert(ctx, req)
}

func (c *countingUpserts) ListFiles(ctx context.Context, req *ragstore.ListFilesRequest) (*ragstore.ListFilesResponse, error) {
	if _, err := c.Store.(ragstore.FileLister).ListFiles(ctx, req); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	out := &ragstore.ListFilesResponse{}
	for id, n := range c.counts {
		out.Files = append(out.Files, ragstore.FileChunks{FileID: id, Chunks: n})
	}
	return out, nil
}
