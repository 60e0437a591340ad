package rag

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/ragstore"
	"github.com/coyote-cli/coyote/sdk/ragstore/rank"
	"github.com/coyote-cli/coyote/sdk/ragstore/storetest"
)

// fc is one file a store holds.
func fc(id string, chunks int64) ragstore.FileChunks {
	return ragstore.FileChunks{FileID: id, Chunks: chunks}
}

func TestCompareStore(t *testing.T) {
	docs := func(n int) FileEntry { return FileEntry{Path: "p", Documents: make([]Document, n)} }
	f := &File{Files: map[int]FileEntry{0: docs(2), 3: docs(1), 4: docs(0), 10: docs(3)}}
	for _, tc := range []struct {
		name string
		held []ragstore.FileChunks
		want Gap
	}{
		{"complete", []ragstore.FileChunks{fc("0", 2), fc("3", 1), fc("10", 3)}, Gap{Files: 3}},
		{"empty store", nil, Gap{Files: 3, Missing: []int{0, 3, 10}}},
		{"a file in part", []ragstore.FileChunks{fc("0", 2), fc("3", 1), fc("10", 2)}, Gap{Files: 3, Missing: []int{10}}},
		{"more chunks than listed", []ragstore.FileChunks{fc("0", 3), fc("3", 1), fc("10", 3)}, Gap{Files: 3, Missing: []int{0}}},
		{"files no longer listed", []ragstore.FileChunks{fc("0", 2), fc("3", 1), fc("10", 3), fc("12", 5), fc("9", 1), fc("4", 1)}, Gap{Files: 3, Stale: []string{"4", "9", "12"}}},
		{"an interrupted full rebuild", []ragstore.FileChunks{fc("0", 2), fc("1", 1), fc("2", 4)}, Gap{Files: 3, Missing: []int{3, 10}, Stale: []string{"1", "2"}}},
		{"a file listed twice adds up", []ragstore.FileChunks{fc("0", 1), fc("0", 1), fc("3", 1), fc("10", 3)}, Gap{Files: 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			entries, err := f.entries()
			if err != nil {
				t.Fatal(err)
			}
			if got := compareStore(entries, tc.held); !reflect.DeepEqual(*got, tc.want) {
				t.Fatalf("gap = %+v, want %+v", *got, tc.want)
			}
		})
	}
}

func TestGapString(t *testing.T) {
	for _, tc := range []struct {
		gap  Gap
		want string
	}{
		{Gap{Files: 201, Missing: make([]int, 175)}, "its store lacks 175 of its 201 files"},
		{Gap{Files: 3, Stale: []string{"9"}}, "its store holds 1 file the RAG no longer lists"},
		{Gap{Files: 3, Missing: []int{1}, Stale: []string{"7", "8"}}, "its store lacks 1 of its 3 files and holds 2 files the RAG no longer lists"},
	} {
		if got := tc.gap.String(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
	if !(*Gap)(nil).Empty() || !(&Gap{Files: 4}).Empty() || (&Gap{Stale: []string{"1"}}).Empty() {
		t.Error("Empty")
	}
}

var errKilled = errors.New("killed")

// mortal is a store whose process dies after a number of calls that
// change it: every later call fails, and what it had not persisted is
// lost (the test reopens the store from its file). durable stores persist
// every call at once (DuckDB commits each batch); the others only at
// Rebuild (the yaml store).
type mortal struct {
	ragstore.Store
	durable bool
	left    atomic.Int64
}

func (m *mortal) dies() error {
	if m.left.Add(-1) < 0 {
		return errKilled
	}
	return nil
}

func (m *mortal) persist(ctx context.Context, store string) error {
	if !m.durable {
		return nil
	}
	return m.Store.Rebuild(ctx, &ragstore.RebuildRequest{Store: store})
}

func (m *mortal) Upsert(ctx context.Context, req *ragstore.UpsertRequest) error {
	if err := m.dies(); err != nil {
		return err
	}
	if err := m.Store.Upsert(ctx, req); err != nil {
		return err
	}
	return m.persist(ctx, req.Store)
}

func (m *mortal) DeleteFile(ctx context.Context, req *ragstore.DeleteFileRequest) error {
	if err := m.dies(); err != nil {
		return err
	}
	if err := m.Store.DeleteFile(ctx, req); err != nil {
		return err
	}
	return m.persist(ctx, req.Store)
}

func (m *mortal) Rebuild(ctx context.Context, req *ragstore.RebuildRequest) error {
	if err := m.dies(); err != nil {
		return err
	}
	return m.Store.Rebuild(ctx, req)
}

func (m *mortal) ListFiles(ctx context.Context, req *ragstore.ListFilesRequest) (*ragstore.ListFilesResponse, error) {
	return m.Store.(ragstore.FileLister).ListFiles(ctx, req)
}

// killRig is a RAG of six documents, each with a word of its own, built
// once with the reference store.
type killRig struct {
	t     *testing.T
	dir   string
	docs  string
	path  string
	words map[string]string // document → its word
	mu    sync.Mutex
	dims  map[string]int // word → its dimension
}

// embed gives each word a dimension of its own, so that a document's word
// finds its chunks and no other's.
func (k *killRig) embed(texts []string) [][]float32 {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 64)
		for _, w := range rank.Tokenize(t) {
			d, ok := k.dims[w]
			if !ok {
				d = len(k.dims)
				k.dims[w] = d
			}
			v[d%64]++
		}
		out[i] = v
	}
	return out
}

func newKillRig(t *testing.T) *killRig {
	// Chunks are stored two files at a time, so that a kill lands between
	// upserts too.
	old := storeBatch
	storeBatch = 4
	t.Cleanup(func() { storeBatch = old })
	k := &killRig{t: t, dir: t.TempDir(), words: map[string]string{}, dims: map[string]int{}}
	k.docs = filepath.Join(k.dir, "docs")
	k.path = filepath.Join(k.dir, "kb.yaml")
	if err := os.MkdirAll(k.docs, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, w := range []string{"aardvark", "bison", "caracal", "dingo", "echidna", "fennec"} {
		k.write(fmt.Sprintf("d%d.md", i), w)
	}
	f := &File{Path: k.path, Driver: "yaml", EmbeddingModel: "fake:embed", ChunkSize: 60, ChunkOverlap: 0, TopK: 2, BatchSize: 2, DocumentPaths: []string{k.docs}}
	r, _ := k.open(f, &mortal{durable: true}, 1<<30)
	if _, err := r.Index(context.Background(), true, nil); err != nil {
		t.Fatal(err)
	}
	return k
}

// write writes a document of two chunks that both name word.
func (k *killRig) write(name, word string) {
	k.t.Helper()
	text := fmt.Sprintf("The %[1]s one.\n\nA %[1]s two, with more words.\n\nThe %[1]s three, and more words still.", word)
	if err := os.WriteFile(filepath.Join(k.docs, name), []byte(text), 0o644); err != nil {
		k.t.Fatal(err)
	}
	k.words[name] = word
}

// open opens the RAG as a new process would: its file as it is on disk
// (or f), the reference store read-write from its own file, wrapped to
// die after calls changes; embedded counts the texts embedded.
func (k *killRig) open(f *File, m *mortal, calls int64) (*RAG, *atomic.Int64) {
	k.t.Helper()
	if f == nil {
		var err error
		if f, err = Load(k.path); err != nil {
			k.t.Fatal(err)
		}
	}
	m.Store = storetest.Reference()
	m.left.Store(calls)
	if _, err := m.Open(context.Background(), &ragstore.OpenRequest{Store: "kb", Path: k.path, Dimension: 64, Mode: ragstore.ReadWrite}); err != nil {
		k.t.Fatal(err)
	}
	embedded := &atomic.Int64{}
	embed := func(ctx context.Context, texts []string, typ string) ([][]float32, error) {
		embedded.Add(int64(len(texts)))
		return k.embed(texts), nil
	}
	return &RAG{Name: "kb", File: f, Store: m, Lister: m, Embed: embed}, embedded
}

// complete checks that r answers from every document: each one's word
// finds it, its file lists every chunk the store holds and no other.
func (k *killRig) complete(r *RAG, what string) {
	k.t.Helper()
	ctx := context.Background()
	gap, err := r.CheckStore(ctx)
	if err != nil || !gap.Empty() {
		k.t.Fatalf("%s: the store still differs from the file: %v (%v)", what, gap, err)
	}
	// What the file on disk lists (after Index, r.File keeps its chunks
	// there).
	onDisk, err := Load(r.File.Path)
	if err != nil {
		k.t.Fatal(err)
	}
	chunks := 0
	for _, fe := range onDisk.Files {
		chunks += len(fe.Documents)
	}
	stats, _ := r.Store.Stats(ctx, &ragstore.StatsRequest{Store: "kb"})
	if int(stats.Chunks) != chunks || len(onDisk.Files) != len(k.words) {
		k.t.Fatalf("%s: the store holds %d chunks of %d files, the file lists %d of %d, the documents are %d", what, stats.Chunks, stats.Files, chunks, len(onDisk.Files), len(k.words))
	}
	for doc, word := range k.words {
		n := 0
		for _, fe := range onDisk.Files {
			if strings.HasSuffix(fe.Path, doc) {
				n = len(fe.Documents)
			}
		}
		got, err := r.Search(ctx, word, n)
		if err != nil {
			k.t.Fatal(err)
		}
		if n == 0 || len(got) != n {
			k.t.Fatalf("%s: %q found %d chunks, want the %d of %s", what, word, len(got), n, doc)
		}
		for _, c := range got {
			if !strings.HasSuffix(c.Source, doc) || !strings.Contains(c.Text, word) {
				k.t.Fatalf("%s: %q found %+v, want the chunks of %s", what, word, c, doc)
			}
		}
	}
}

// TestAPassKilledAnywhereIsFoundAndResumed kills a full rebuild and an
// incremental sync after each of their store calls, with a store that
// persists each call and one that persists only at Rebuild. Every time,
// the RAG opened afterwards either is complete or CheckStore finds the
// difference, and Resume completes it by embedding only the chunks of the
// files the store lacks.
func TestAPassKilledAnywhereIsFoundAndResumed(t *testing.T) {
	for _, full := range []bool{true, false} {
		for _, durable := range []bool{true, false} {
			t.Run(fmt.Sprintf("full=%v/durable=%v", full, durable), func(t *testing.T) {
				for calls := int64(0); ; calls++ {
					k := newKillRig(t)
					if !full {
						k.write("d1.md", "gazelle") // changed
						if err := os.Remove(filepath.Join(k.docs, "d2.md")); err != nil {
							t.Fatal(err)
						}
						delete(k.words, "d2.md")
						k.write("d6.md", "hyena") // new
					}
					r, _ := k.open(nil, &mortal{durable: durable}, calls)
					_, err := r.Index(context.Background(), full, nil)
					if err == nil {
						k.complete(r, "a pass that finished")
						if calls < 3 {
							t.Fatalf("a pass finished with %d store calls", calls)
						}
						return
					}
					if !errors.Is(err, errKilled) {
						t.Fatal(err)
					}
					// The next coyote: the file as the pass left it, the
					// store as it persisted.
					r, embedded := k.open(nil, &mortal{durable: durable}, 1<<30)
					gap, err := r.CheckStore(context.Background())
					if err != nil {
						t.Fatal(err)
					}
					missing := 0
					for _, id := range gap.Missing {
						missing += len(r.File.Files[id].Documents)
					}
					if err := r.Resume(context.Background(), gap, nil); err != nil {
						t.Fatal(err)
					}
					if embedded.Load() != int64(missing) {
						t.Fatalf("killed after %d calls: resuming embedded %d chunks, the store lacked %d", calls, embedded.Load(), missing)
					}
					k.complete(r, fmt.Sprintf("killed after %d calls, then resumed", calls))
				}
			})
		}
	}
}

// TestIndexCompletesWhatAKilledPassLeft: after a kill, the next sync
// (.edit rag-docs, say) embeds again the unchanged files the store lacks
// and drops what it holds that the file no longer lists, and its plan
// says it completed the RAG.
func TestIndexCompletesWhatAKilledPassLeft(t *testing.T) {
	k := newKillRig(t)
	// A full rebuild of six files of two chunks (6-11) killed after its
	// six deletes and its first upsert (files 6 and 7).
	r, _ := k.open(nil, &mortal{durable: true}, 7)
	if _, err := r.Index(context.Background(), true, nil); !errors.Is(err, errKilled) {
		t.Fatalf("err = %v", err)
	}
	k.write("d5.md", "gazelle") // and a document changed since
	r, embedded := k.open(nil, &mortal{durable: true}, 1<<30)
	plan, err := r.Index(context.Background(), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Added) != 1 || len(plan.Removed) != 1 || !reflect.DeepEqual(plan.Resumed, []int{8, 9, 10}) || embedded.Load() != 8 {
		t.Fatalf("plan %+v, %d chunks embedded; want files 8-10 resumed and d5.md indexed again (8 chunks)", plan, embedded.Load())
	}
	if got, want := plan.Completed("kb"), "RAG kb was incomplete (an indexing run did not finish): its store lacked 4 of its 6 files; this indexing completed it."; got != want {
		t.Fatalf("plan.Completed = %q, want %q", got, want)
	}
	k.complete(r, "after a sync")
	// Complete, the next pass has nothing to complete and says nothing.
	if plan, err = r.Index(context.Background(), true, nil); err != nil {
		t.Fatal(err)
	}
	if got := plan.Completed("kb"); got != "" {
		t.Fatalf("a rebuild of the complete RAG: plan.Completed = %q, want nothing", got)
	}
}

// TestIndexingIsOneCoyoteAtATime: a second Index while another holds
// the RAG's indexing lock stops at once, naming the other.
func TestIndexingIsOneCoyoteAtATime(t *testing.T) {
	k := newKillRig(t)
	lock, err := LockIndexing("kb", k.path)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock()
	// Another process's lock; in this one, a second lock of the same
	// file is refused the same way.
	r, _ := k.open(nil, &mortal{durable: true}, 1<<30)
	_, err = r.Index(context.Background(), false, nil)
	want := fmt.Sprintf("RAG kb is being indexed by another coyote process (PID %d); try again once it has finished", os.Getpid())
	if !errors.Is(err, sdk.ErrUnavailable) || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
	// Whoever else asks for the lock is told the same way.
	_, err = LockIndexing("kb", k.path)
	var busy *BusyError
	if !errors.As(err, &busy) || busy.RAG != "kb" || busy.PID != os.Getpid() {
		t.Fatalf("a second LockIndexing: %v, want a *BusyError naming RAG kb and PID %d", err, os.Getpid())
	}
}

// TestAFailedPassKeepsWhatItStored: embeddings that fail half way leave
// the store holding the files it took, even a store that writes only at
// Rebuild, so that completing the RAG embeds only the rest.
func TestAFailedPassKeepsWhatItStored(t *testing.T) {
	k := newKillRig(t)
	r, _ := k.open(nil, &mortal{durable: false}, 1<<30)
	// The fourth file's batch fails (files are embedded in order, d0.md
	// first, two chunks a call, stored two files an upsert): files 6-7
	// reach the store, the third file waits for the fourth and never
	// does. Chosen by its word, since the calls overlap (embedAhead).
	r.Embed = func(_ context.Context, texts []string, _ string) ([][]float32, error) {
		if strings.Contains(texts[0], "dingo") {
			return nil, errors.New("rate limited")
		}
		return k.embed(texts), nil
	}
	if _, err := r.Index(context.Background(), true, nil); err == nil || !strings.Contains(err.Error(), "rate limited") {
		t.Fatalf("err = %v", err)
	}
	r, embedded := k.open(nil, &mortal{durable: false}, 1<<30)
	gap, err := r.CheckStore(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gap.Missing, []int{8, 9, 10, 11}) || len(gap.Stale) != 0 {
		t.Fatalf("gap %+v, want files 8-11 missing", gap)
	}
	if err := r.Resume(context.Background(), gap, nil); err != nil {
		t.Fatal(err)
	}
	if embedded.Load() != 8 {
		t.Fatalf("resuming embedded %d chunks, want the 8 of files 8-11", embedded.Load())
	}
	k.complete(r, "after resuming a failed pass")
}
