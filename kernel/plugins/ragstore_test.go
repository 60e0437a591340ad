package plugins

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/ragstore"
	"github.com/coyote-cli/coyote/sdk/ragstore/storetest"
)

// envRagPlugin makes the test binary a RAG store plugin. It is checked in
// init, before TestMain (host_test.go) looks at COYOTE_TEST_PLUGIN, and
// sdk.Serve never returns.
const envRagPlugin = "COYOTE_TEST_RAG_PLUGIN"

func init() {
	switch os.Getenv(envRagPlugin) {
	case "":
		return
	case "vectors": // a store without keyword search
		sdk.Serve(sdk.Info{Name: "vectors", Version: "0.0.1"}, ragstore.Plugin(vectorsOnly{storetest.Reference()}))
	default:
		sdk.Serve(sdk.Info{Name: "mem", Version: "0.0.1", Capabilities: []string{ragstore.CapOwned}},
			ragstore.Plugin(&testRag{Store: storetest.Reference()}))
	}
}

// testRag is the reference store, plus two keyword queries for tests:
// "crash" exits the process with status 3 and "pid" answers with the
// process id as a hit's id.
type testRag struct{ ragstore.Store }

func (s *testRag) KeywordSearch(ctx context.Context, req *ragstore.KeywordSearchRequest) (*ragstore.SearchResponse, error) {
	switch req.Query {
	case "crash":
		os.Exit(3)
	case "pid":
		return &ragstore.SearchResponse{Hits: []ragstore.Hit{{ID: strconv.Itoa(os.Getpid())}}}, nil
	}
	return s.Store.(ragstore.KeywordSearcher).KeywordSearch(ctx, req)
}

// Drop is the reference store's.
func (s *testRag) Drop(ctx context.Context, req *ragstore.DropRequest) error {
	return s.Store.(ragstore.Dropper).Drop(ctx, req)
}

// ListFiles is the reference store's.
func (s *testRag) ListFiles(ctx context.Context, req *ragstore.ListFilesRequest) (*ragstore.ListFilesResponse, error) {
	return s.Store.(ragstore.FileLister).ListFiles(ctx, req)
}

// vectorsOnly is a store without keyword search, Drop or ListFiles.
type vectorsOnly struct{ ragstore.Store }

// ragHost returns a host whose plugin directory holds coyote-rag-<mode>
// wrappers running this test binary as a store plugin, and
// coyote-rag-<mode> wrappers for provider modes listed in providers.
func ragHost(t *testing.T, modes []string, providers ...string) *Host {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, env, mode string) {
		script := fmt.Sprintf("#!/bin/sh\n%s=%s exec %q\n", env, mode, exe)
		if err := os.WriteFile(filepath.Join(dir, BinaryName(sdk.KindRAG, name)), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range modes {
		write(m, envRagPlugin, m)
	}
	for _, m := range providers {
		write(m, "COYOTE_TEST_PLUGIN", m)
	}
	h := New(Options{Dirs: []string{dir}, Logger: hclog.New(&hclog.LoggerOptions{Output: testWriter{t}, Level: hclog.Debug})})
	t.Cleanup(h.Close)
	return h
}

func ragStore(t *testing.T, h *Host, driver string) *RagStore {
	t.Helper()
	s, err := h.RagStore(driver)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The whole contract, through the kernel's handle and a real plugin
// process; each Open of the suite is a new process (a new host), so
// persistence is checked across processes.
func TestRagStorePassesTheContractSuiteThroughAPluginProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a plugin process per test")
	}
	storetest.Run(t, func(t *testing.T) ragstore.Store {
		return ragStore(t, ragHost(t, []string{"mem"}), "mem")
	})
}

func openKB(t *testing.T, s *RagStore, dir string, mode ragstore.Mode) *ragstore.OpenResponse {
	t.Helper()
	resp, err := s.Open(context.Background(), &ragstore.OpenRequest{Store: "kb", Path: filepath.Join(dir, "kb.yaml"), Dimension: storetest.Dimension, Mode: mode})
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func keyword(s *RagStore, q string) (string, error) {
	r, err := s.KeywordSearch(context.Background(), &ragstore.KeywordSearchRequest{Store: "kb", Query: q, TopK: 3})
	if err != nil {
		return "", err
	}
	if len(r.Hits) == 0 {
		return "", nil
	}
	return r.Hits[0].ID, nil
}

func TestRagStoreCrashIsReportedAndNextCallReopensTheStore(t *testing.T) {
	h := ragHost(t, []string{"mem"})
	s := ragStore(t, h, "mem")
	ctx := context.Background()
	dir := t.TempDir()
	openKB(t, s, dir, ragstore.ReadWrite)
	chunks := storetest.Chunks()
	if err := s.Upsert(ctx, &ragstore.UpsertRequest{Store: "kb", Chunks: chunks[:3]}); err != nil {
		t.Fatal(err)
	}
	if err := s.Rebuild(ctx, &ragstore.RebuildRequest{Store: "kb", Full: true}); err != nil {
		t.Fatal(err)
	}
	before, err := keyword(s, "pid")
	if err != nil {
		t.Fatal(err)
	}
	_, err = keyword(s, "crash")
	var crash *CrashError
	if !errors.As(err, &crash) || crash.Binary != "coyote-rag-mem" || crash.Exit != "exit status 3" {
		t.Fatalf("err = %v (%T), want the crash of coyote-rag-mem", err, err)
	}
	// The next call starts a new process and opens kb in it again,
	// read-write as before: what was rebuilt is there, and writes work.
	st, err := s.Stats(ctx, &ragstore.StatsRequest{Store: "kb"})
	if err != nil || st.Chunks != 3 {
		t.Fatalf("stats after the crash = %+v, %v", st, err)
	}
	if err := s.Upsert(ctx, &ragstore.UpsertRequest{Store: "kb", Chunks: chunks[3:]}); err != nil {
		t.Fatalf("upsert after the crash: %v", err)
	}
	if after, _ := keyword(s, "pid"); after == before || s.Plugin().cur.Gen != 2 {
		t.Fatalf("the calls after the crash ran in process %s (generation %d), before %s", after, s.Plugin().cur.Gen, before)
	}
	if id, err := keyword(s, "zebras"); err != nil || id != "3-0" {
		t.Fatalf("keyword search after the crash = %q, %v", id, err)
	}
}

func TestRagStoreCallsNeedAnOpenStoreAndStartNothing(t *testing.T) {
	h := ragHost(t, []string{"mem"})
	s := ragStore(t, h, "mem")
	_, err := s.Stats(context.Background(), &ragstore.StatsRequest{Store: "kb"})
	if !errors.Is(err, sdk.ErrFailedPrecondition) || !strings.Contains(err.Error(), `RAG store "kb" is not open`) {
		t.Fatalf("err = %v", err)
	}
	if err := s.Close(context.Background(), &ragstore.CloseRequest{Store: "kb"}); err != nil {
		t.Fatal(err)
	}
	if s.Plugin().cur != nil {
		t.Fatal("a call on a store that was never opened started the plugin")
	}
}

func TestRagStoreCloseAfterACrashStartsNothing(t *testing.T) {
	h := ragHost(t, []string{"mem"})
	s := ragStore(t, h, "mem")
	openKB(t, s, t.TempDir(), ragstore.ReadWrite)
	if _, err := keyword(s, "crash"); !errors.As(err, new(*CrashError)) {
		t.Fatalf("err = %v", err)
	}
	if err := s.Close(context.Background(), &ragstore.CloseRequest{Store: "kb"}); err != nil {
		t.Fatal(err)
	}
	if s.Plugin().live() != nil || s.Plugin().gen != 1 {
		t.Fatal("closing a store of a dead plugin started a new one")
	}
	if _, err := s.Stats(context.Background(), &ragstore.StatsRequest{Store: "kb"}); !errors.Is(err, sdk.ErrFailedPrecondition) {
		t.Fatalf("stats of a closed store: %v", err)
	}
}

func TestRagStoreReopenReplacesTheOpenStore(t *testing.T) {
	h := ragHost(t, []string{"mem"})
	s := ragStore(t, h, "mem")
	ctx := context.Background()
	dir := t.TempDir()
	openKB(t, s, dir, ragstore.ReadWrite)
	if err := s.Upsert(ctx, &ragstore.UpsertRequest{Store: "kb", Chunks: storetest.Chunks()}); err != nil {
		t.Fatal(err)
	}
	if err := s.Rebuild(ctx, &ragstore.RebuildRequest{Store: "kb"}); err != nil {
		t.Fatal(err)
	}
	resp := openKB(t, s, dir, ragstore.ReadOnly)
	if resp.Stats.Chunks != 6 {
		t.Fatalf("reopened read-only: %+v", resp.Stats)
	}
	if err := s.DeleteFile(ctx, &ragstore.DeleteFileRequest{Store: "kb", FileID: "1"}); err == nil {
		t.Fatal("the store reopened read-only accepted a delete")
	}
}

func TestRagStoreErrorsKeepTheirClassAndAreNotCrashes(t *testing.T) {
	h := ragHost(t, []string{"mem"})
	s := ragStore(t, h, "mem")
	_, err := s.Open(context.Background(), &ragstore.OpenRequest{Store: "kb", Path: filepath.Join(t.TempDir(), "kb.yaml")})
	if !errors.Is(err, sdk.ErrNotFound) || !strings.Contains(err.Error(), `RAG "kb" has no store yet`) {
		t.Fatalf("err = %v", err)
	}
	if len(s.Plugin().failures) != 0 {
		t.Fatal("an error the plugin reported was counted as a failure")
	}
	// The failed open left nothing to reopen.
	if _, err := s.Stats(context.Background(), &ragstore.StatsRequest{Store: "kb"}); !errors.Is(err, sdk.ErrFailedPrecondition) {
		t.Fatalf("stats after a failed open: %v", err)
	}
}

func TestRagStoreKeywordSearchWithoutTheCapabilityIsUnsupported(t *testing.T) {
	h := ragHost(t, []string{"vectors"})
	s := ragStore(t, h, "vectors")
	openKB(t, s, t.TempDir(), ragstore.ReadWrite)
	_, err := keyword(s, "fox")
	if !errors.Is(err, sdk.ErrUnsupported) || !strings.Contains(err.Error(), "keyword search is not supported by plugin coyote-rag-vectors v0.0.1") {
		t.Fatalf("err = %v", err)
	}
}

func TestRagStoreListsFilesOnlyWithTheCapability(t *testing.T) {
	h := ragHost(t, []string{"mem", "vectors"})
	ctx := context.Background()
	s := ragStore(t, h, "mem")
	openKB(t, s, t.TempDir(), ragstore.ReadWrite)
	if err := s.Upsert(ctx, &ragstore.UpsertRequest{Store: "kb", Chunks: storetest.Chunks()}); err != nil {
		t.Fatal(err)
	}
	resp, err := s.ListFiles(ctx, &ragstore.ListFilesRequest{Store: "kb"})
	if err != nil || len(resp.Files) != 3 || resp.Files[0] != (ragstore.FileChunks{FileID: "1", Chunks: 3}) {
		t.Fatalf("list files = %+v, %v", resp, err)
	}
	v := ragStore(t, h, "vectors")
	openKB(t, v, t.TempDir(), ragstore.ReadWrite)
	_, err = v.ListFiles(ctx, &ragstore.ListFilesRequest{Store: "kb"})
	if !errors.Is(err, sdk.ErrUnsupported) || !strings.Contains(err.Error(), "listing a store's files is not supported by plugin coyote-rag-vectors") {
		t.Fatalf("err = %v", err)
	}
}

func TestAProviderNamedLikeAStoreIsRefusedReadably(t *testing.T) {
	h := ragHost(t, nil, "good")
	s := ragStore(t, h, "good")
	_, err := s.Open(context.Background(), &ragstore.OpenRequest{Store: "kb", Path: filepath.Join(t.TempDir(), "kb.yaml"), Mode: ragstore.ReadWrite})
	if !errors.Is(err, sdk.ErrUnsupported) || err.Error() != "plugin coyote-rag-good is not a RAG store (it serves: provider): not supported" {
		t.Fatalf("err = %v", err)
	}
}

func TestRagStoreOfAMissingDriverIsNotFound(t *testing.T) {
	h := ragHost(t, nil)
	if _, err := h.RagStore("nosuch"); err == nil || !strings.Contains(err.Error(), "coyote-rag-nosuch") {
		t.Fatalf("err = %v", err)
	}
}

// builtKB indexes kb in dir through s, and closes it.
func builtKB(t *testing.T, s *RagStore, dir string) string {
	t.Helper()
	ctx := context.Background()
	openKB(t, s, dir, ragstore.ReadWrite)
	if err := s.Upsert(ctx, &ragstore.UpsertRequest{Store: "kb", Chunks: storetest.Chunks()}); err != nil {
		t.Fatal(err)
	}
	if err := s.Rebuild(ctx, &ragstore.RebuildRequest{Store: "kb", Full: true}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(ctx, &ragstore.CloseRequest{Store: "kb"}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "kb.memstore.json")
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("the store wrote no file: %v", err)
	}
	return file
}

func TestRagStoreDropRemovesTheStoresData(t *testing.T) {
	h := ragHost(t, []string{"mem"})
	s := ragStore(t, h, "mem")
	dir := t.TempDir()
	file := builtKB(t, s, dir)
	ctx := context.Background()
	openKB(t, s, dir, ragstore.ReadOnly)
	err := s.Drop(ctx, &ragstore.DropRequest{Store: "kb", Path: filepath.Join(dir, "kb.yaml")})
	if !errors.Is(err, sdk.ErrFailedPrecondition) || !strings.Contains(err.Error(), `RAG store "kb" is open in plugin coyote-rag-mem`) {
		t.Fatalf("drop of an open store: %v", err)
	}
	if err := s.Close(ctx, &ragstore.CloseRequest{Store: "kb"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Drop(ctx, &ragstore.DropRequest{Store: "kb", Path: filepath.Join(dir, "kb.yaml")}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the store's file after the drop: %v", err)
	}
}

// A plugin that does not announce drop keeps nothing outside the yaml
// (the yaml store): it is not asked, and the drop succeeds.
func TestRagStoreDropOfAPluginWithoutTheCapabilityDoesNothing(t *testing.T) {
	h := ragHost(t, []string{"vectors"})
	s := ragStore(t, h, "vectors")
	dir := t.TempDir()
	file := builtKB(t, s, dir)
	if err := s.Drop(context.Background(), &ragstore.DropRequest{Store: "kb", Path: filepath.Join(dir, "kb.yaml")}); err != nil {
		t.Fatalf("drop: %v", err)
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("a plugin without drop was asked to drop: %v", err)
	}
}

// A host has one handle per store plugin, whichever way it is asked for:
// convo.UseRAG tells a reopened RAG from another by its Store, and would
// close the store it just reopened if the handle changed.
func TestRagStoreHandleIsOnePerPlugin(t *testing.T) {
	h := ragHost(t, []string{"mem"})
	if a, b := ragStore(t, h, "mem"), ragStore(t, h, "mem"); a != b {
		t.Fatal("two handles on one store plugin")
	}
}
