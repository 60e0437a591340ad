package e2e

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/coyote-cli/coyote/internal/fakellm"
	"github.com/coyote-cli/coyote/kernel/plugins"
	"github.com/coyote-cli/coyote/kernel/rag"
	"github.com/coyote-cli/coyote/sdk/ragstore"
	"github.com/coyote-cli/coyote/sdk/ragstore/ragfile"
	"github.com/coyote-cli/coyote/sdk/ragstore/rank"
)

// Issue 14: `coyote --rag kb --rebuild-rag` killed part way left RAGs
// answering from part of their documents with no word said (DuckDB), and
// the yaml driver's file with the old pass's vectors for good. These tests
// kill rebuilds at random points inside them, with the real binaries, and
// check every time that the next question answers from the whole RAG:
// either the kill left it whole, or the question says in one line that it
// is incomplete and completes it first.
//
// The kill points: the fake embeddings server holds one batch of the
// rebuild (a random one) and the kernel is killed while it waits; or it
// answers that batch and the kernel is killed a random time later, which
// lands in the following batches, in the store's writes after the last
// one (DuckDB's transactions and checkpoint, the yaml store's rewrite of
// the file), or between the dimension probe and the first batch (the
// documents read, the RAG's file saved, the store's deletes). A kill that
// comes after the process has exited does not count.

// envKillTrials sets how many kills per driver
// TestKilledRebuildsNeverLeaveASilentlyWrongRAG lands (make soak-rag sets
// 30 or more); envKillSeed replays a run's kill points.
const (
	envKillTrials = "COYOTE_RAG_KILL_TRIALS"
	envKillSeed   = "COYOTE_RAG_KILL_SEED"
)

func TestKilledRebuildsNeverLeaveASilentlyWrongRAG(t *testing.T) {
	trials := 3 // a few in every test run; the soak runs many
	if v := os.Getenv(envKillTrials); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("%s=%q: want a number of trials", envKillTrials, v)
		}
		trials = n
	}
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv(envKillSeed); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q: want a number", envKillSeed, v)
		}
		seed = n
	}
	t.Logf("kill points from %s=%d", envKillSeed, seed)
	for i, driver := range []string{"duckdb", "yaml"} {
		t.Run(driver, func(t *testing.T) {
			k := newKillRig(t, driver, rand.New(rand.NewPCG(seed, uint64(i))))
			k.killRebuilds(trials)
		})
	}
}

// killRig is one driver's RAG over a corpus of small documents, each with
// a word no other has, and the fake server that embeds it.
type killRig struct {
	t      *testing.T
	driver string
	rnd    *rand.Rand
	fake   *fakellm.OpenAI
	env    *env
	file   string // rags/kb.yaml
	docs   string
	words  []string // document i's word
	edits  int

	mu      sync.Mutex
	respond func(*fakellm.EmbedCall) fakellm.Reply // when set, answers instead of onEmbed
	batches int                                    // embedding calls of documents in the current run
	times   []time.Time                            // when each was asked for
	probe   time.Time                              // when the dimension probe was asked for
	arm     *killPoint                             // where the current run is to be killed
	reached chan struct{}                          // closed when the armed batch is asked for
}

// killPoint is where a rebuild is killed: at batch (the 1-based embedding
// call of documents; 0 is the dimension probe), held until the kill or
// answered and followed by the kill after delay.
type killPoint struct {
	batch int
	hold  bool
	delay time.Duration
	mode  string
}

// The corpus: killDocs documents of killParas to killParas+2 chunks,
// about 1,250 chunks, which the kernel stores in two writes (it stores
// 1,024 chunks at a time), embedded killBatchSize at a time.
const (
	killDocs      = 40
	killParas     = 30
	killBatchSize = 32
)

// newKillRig builds the RAG of killDocs documents with driver.
func newKillRig(t *testing.T, driver string, rnd *rand.Rand) *killRig {
	k := &killRig{t: t, driver: driver, rnd: rnd}
	k.fake = &fakellm.OpenAI{
		Respond:      func(*fakellm.ChatRequest) fakellm.Reply { return fakellm.Reply{Text: "answered"} },
		RespondEmbed: k.onEmbed,
	}
	url := fakellm.StartOpenAI(t, k.fake)
	k.env = newEnv(t, fakeConfig(url, ""))
	k.docs = filepath.Join(t.TempDir(), "docs")
	if err := os.MkdirAll(k.docs, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range killDocs {
		k.words = append(k.words, fmt.Sprintf("kw%03dx", i))
		k.writeDoc(i, "")
	}
	rags := filepath.Join(k.env.configDir, "rags")
	if err := os.MkdirAll(rags, 0o700); err != nil {
		t.Fatal(err)
	}
	k.file = filepath.Join(rags, "kb.yaml")
	yaml := fmt.Sprintf("driver: %s\nembedding_model: fake:embed\nchunk_size: 300\nchunk_overlap: 0\ntop_k: 3\nbatch_size: %d\ndocument_paths:\n- %s\n", driver, killBatchSize, k.docs)
	if err := os.WriteFile(k.file, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	k.env.mustSucceed(k.env.run("", "--rag", "kb", "--rebuild-rag"))
	return k
}

// writeDoc writes document i: a paragraph naming its word, then
// paragraphs of about 200 bytes (one chunk each); extra is added at the
// end.
func (k *killRig) writeDoc(i int, extra string) {
	var b strings.Builder
	fmt.Fprintf(&b, "Document %d is about %s, the word of this document alone.\n\n", i, k.words[i])
	for p := range killParas + i%3 {
		fmt.Fprintf(&b, "Paragraph %d of document %d says things at length so that it fills most of a chunk of three hundred bytes; it goes on about rivers, stones, lanterns and harbours, and the weather.\n\n", p, i)
	}
	b.WriteString(extra)
	if err := os.WriteFile(filepath.Join(k.docs, fmt.Sprintf("doc%03d.md", i)), []byte(b.String()), 0o644); err != nil {
		k.t.Fatal(err)
	}
}

// onEmbed sees every embedding call: it counts the rebuild's batches and
// holds or marks the armed one.
func (k *killRig) onEmbed(call *fakellm.EmbedCall) fakellm.Reply {
	k.mu.Lock()
	respond := k.respond
	k.mu.Unlock()
	if respond != nil {
		return respond(call)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(call.Inputs) == 1 && call.Inputs[0] == "dimension probe" {
		k.probe = time.Now()
		if k.arm != nil && k.arm.batch == 0 {
			close(k.reached)
			k.arm = nil
		}
		return fakellm.Reply{}
	}
	k.batches++
	k.times = append(k.times, time.Now())
	if k.arm == nil || k.arm.batch != k.batches {
		return fakellm.Reply{}
	}
	hold := k.arm.hold
	close(k.reached)
	k.arm = nil
	if hold {
		// Until the kill: the kernel's plugin goes with it, which ends
		// the request and this wait.
		return fakellm.Reply{Delay: 10 * time.Minute}
	}
	return fakellm.Reply{}
}

// setRespond makes respond answer the embedding calls (nil: onEmbed).
func (k *killRig) setRespond(respond func(*fakellm.EmbedCall) fakellm.Reply) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.respond = respond
}

// calibrate times one rebuild from start to end: how many batches it
// embeds, how long from the probe to the first batch, between batches,
// and from the last batch to the end.
func (k *killRig) calibrate() (batches int, head, step, tail time.Duration) {
	k.mu.Lock()
	k.batches, k.times = 0, nil
	k.mu.Unlock()
	k.env.mustSucceed(k.env.run("", "--rag", "kb", "--rebuild-rag"))
	end := time.Now()
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.batches < 4 {
		k.t.Fatalf("a rebuild of %d documents took %d embedding calls, want several", killDocs, k.batches)
	}
	head = k.times[0].Sub(k.probe)
	step = k.times[len(k.times)-1].Sub(k.times[0]) / time.Duration(len(k.times)-1)
	return k.batches, head, step, end.Sub(k.times[len(k.times)-1])
}

// pick chooses a kill point inside a rebuild of batches batches.
func (k *killRig) pick(batches int, head, step, tail time.Duration) *killPoint {
	uniform := func(d time.Duration) time.Duration {
		return time.Duration(k.rnd.Int64N(int64(max(d, time.Millisecond))))
	}
	switch r := k.rnd.IntN(100); {
	case r < 40:
		return &killPoint{mode: "held batch", batch: 1 + k.rnd.IntN(batches), hold: true}
	case r < 70: // the store's writes after the last batch
		return &killPoint{mode: "after the last batch", batch: batches, delay: uniform(tail)}
	case r < 85:
		return &killPoint{mode: "after a batch", batch: 1 + k.rnd.IntN(batches), delay: uniform(2 * step)}
	default: // documents read, the RAG's file saved, the store's deletes
		return &killPoint{mode: "before the first batch", batch: 0, delay: uniform(head)}
	}
}

// killRebuilds lands trials kills inside rebuilds, and checks the RAG
// after each.
func (k *killRig) killRebuilds(trials int) {
	t := k.t
	batches, head, step, tail := k.calibrate()
	t.Logf("%s: a rebuild embeds %d batches; %s before the first, %s apart, %s after the last", k.driver, batches, head, step, tail)
	landed, resumed, missed := 0, 0, 0
	modes := map[string]int{}
	for attempt := 0; landed < trials; attempt++ {
		if attempt >= 3*trials+10 {
			t.Fatalf("only %d of %d kills landed inside a rebuild in %d attempts", landed, trials, attempt)
		}
		// The documents change a little between rebuilds, so that the
		// RAG's file and the store hold text of different rebuilds.
		k.edits++
		k.writeDoc(k.rnd.IntN(killDocs), fmt.Sprintf("Edit %d.\n", k.edits))
		kp := k.pick(batches, head, step, tail)
		if !k.killOne(kp) {
			missed++
			continue
		}
		landed++
		modes[kp.mode]++
		if k.ask(fmt.Sprintf("kill %d (%s, batch %d, %s)", landed, kp.mode, kp.batch, kp.delay)) {
			resumed++
		}
	}
	t.Logf("%s: %d kills inside a rebuild (%v), %d of them left the RAG incomplete and the next question completed it; %d kills came after the rebuild had ended (not counted)",
		k.driver, landed, modes, resumed, missed)
	if trials >= 10 && resumed == 0 {
		t.Fatalf("no kill of %d left the RAG incomplete: the kill points miss the rebuild's writes", landed)
	}
}

// killOne starts a rebuild and kills it at kp; it reports whether the
// kill landed before the rebuild ended.
func (k *killRig) killOne(kp *killPoint) bool {
	t := k.t
	k.mu.Lock()
	k.batches, k.times = 0, nil
	k.arm, k.reached = kp, make(chan struct{})
	reached := k.reached
	k.mu.Unlock()
	defer func() {
		k.mu.Lock()
		k.arm = nil
		k.mu.Unlock()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := k.env.command(ctx, "", "--rag", "kb", "--rebuild-rag")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the rebuild failed before its kill point (%s): %v\n%s\nlog:\n%s", kp.mode, err, stderr.String(), k.env.log())
		}
		t.Fatalf("the rebuild ended without reaching batch %d", kp.batch)
	case <-reached:
	case <-ctx.Done():
		t.Fatal("the rebuild hung")
	}
	if kp.delay > 0 {
		time.Sleep(kp.delay) // where the kill lands, not a wait for anything
	}
	kids := children(cmd.Process.Pid)
	_ = cmd.Process.Signal(syscall.SIGKILL)
	err := <-done
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		if err != nil {
			t.Fatal(err)
		}
		return false // it had finished
	}
	if ws, ok := exit.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the rebuild ended with %v before its kill:\n%s", err, stderr.String())
	}
	// Its plugins end with it (their lifeline closes); the next coyote
	// starts once they have, as a user's would a moment later.
	for pid := range kids {
		waitGone(t, pid, 10*time.Second)
	}
	// Killed while it shut down, the rebuild was over.
	return !strings.Contains(stderr.String(), "Rebuilt RAG kb")
}

// ask asks a question with the word of a random document and checks that
// the answer comes from the whole RAG; it reports whether the RAG said it
// was incomplete (and completed itself).
func (k *killRig) ask(what string) (resumed bool) {
	t := k.t
	doc := k.rnd.IntN(killDocs)
	asked := len(k.fake.Requests())
	r := k.env.run("", "--rag", "kb", k.words[doc])
	if r.code != 0 {
		t.Fatalf("%s: the question failed (exit %d):\n%s\nlog:\n%s", what, r.code, r.stderr, k.env.log())
	}
	if r.stderr != "" {
		lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
		if len(lines) != 1 || !strings.HasPrefix(lines[0], "warning: RAG kb is incomplete (an indexing run did not finish): its store ") || !strings.HasSuffix(lines[0], "; resuming") {
			t.Fatalf("%s: stderr is not the one line saying the RAG is incomplete and resumes:\n%s", what, r.stderr)
		}
		resumed = true
	}
	reqs := k.fake.Requests()
	if len(reqs) != asked+1 {
		t.Fatalf("%s: %d chat requests for one question", what, len(reqs)-asked)
	}
	sent := fmt.Sprint(reqs[asked].Messages[len(reqs[asked].Messages)-1]["content"])
	if want := fmt.Sprintf("Document %d is about %s", doc, k.words[doc]); !strings.Contains(sent, want) {
		t.Fatalf("%s: the question was not given the passage of document %d:\n%s", what, doc, sent)
	}
	k.checkWhole(what)
	return resumed
}

// checkWhole checks the RAG as a store plugin of its own reads it: its
// file lists every document, and its store holds exactly the chunks the
// file lists, with their text (and, for the yaml driver, the file holds
// exactly their vectors).
func (k *killRig) checkWhole(what string) {
	t := k.t
	f, err := rag.Load(k.file)
	if err != nil {
		t.Fatal(err)
	}
	paths := map[string]bool{}
	var ids []string
	texts := map[string]string{}
	for id, fe := range f.Files {
		paths[fe.Path] = true
		for i, d := range fe.Documents {
			cid := rank.ChunkID(id, i)
			ids = append(ids, cid)
			texts[cid] = d.PageContent
		}
	}
	if len(paths) != killDocs || len(f.Files) != killDocs {
		t.Fatalf("%s: the RAG's file lists %d files of %d paths, the corpus has %d documents", what, len(f.Files), len(paths), killDocs)
	}
	h := plugins.New(plugins.Options{Dirs: []string{filepath.Join(binDir, "plugins")}})
	defer h.Close()
	store, err := h.RagStore(k.driver)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := store.Open(ctx, &ragstore.OpenRequest{Store: "kb", Path: k.file, Mode: ragstore.ReadOnly}); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	defer func() { _ = store.Close(ctx, &ragstore.CloseRequest{Store: "kb"}) }()
	stats, err := store.Stats(ctx, &ragstore.StatsRequest{Store: "kb"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := store.FetchContent(ctx, &ragstore.FetchContentRequest{Store: "kb", IDs: ids})
	if err != nil {
		t.Fatal(err)
	}
	if int(stats.Chunks) != len(ids) || len(got.Contents) != len(ids) {
		t.Fatalf("%s: the store holds %d chunks (%d of those the file lists), the file lists %d", what, stats.Chunks, len(got.Contents), len(ids))
	}
	for _, c := range got.Contents {
		if c.Text != texts[c.ID] {
			t.Fatalf("%s: chunk %s is %q in the store, %q in the file", what, c.ID, c.Text, texts[c.ID])
		}
	}
	if k.driver == "yaml" {
		data, err := os.ReadFile(k.file)
		if err != nil {
			t.Fatal(err)
		}
		_, raw, _, ok := ragfile.Split(data, "vectors")
		if !ok {
			t.Fatalf("%s: cannot cut the vectors out of the RAG's file", what)
		}
		vectors, _, err := ragfile.DecodeVectors(raw["vectors"])
		if err != nil {
			t.Fatal(err)
		}
		held := make([]string, 0, len(vectors))
		for id := range vectors {
			held = append(held, id)
		}
		slices.Sort(held)
		slices.Sort(ids)
		if !slices.Equal(held, ids) {
			t.Fatalf("%s: the file holds %d vectors, for %d chunks it lists", what, len(held), len(ids))
		}
	}
}

// TestAFailedRebuildIsCompletedByTheNextQuestion: a rebuild whose
// embeddings fail half way (as a kill would, it stops between the RAG's
// file and its store) leaves a RAG that the next question says, in one
// line, is incomplete, and completes by embedding only what the store
// lacks; a rebuild after such a failure says, once, that it completed it.
func TestAFailedRebuildIsCompletedByTheNextQuestion(t *testing.T) {
	for i, driver := range []string{"duckdb", "yaml"} {
		t.Run(driver, func(t *testing.T) {
			k := newKillRig(t, driver, rand.New(rand.NewPCG(1, uint64(i))))
			batches, _, _, _ := k.calibrate()
			failAt := 1024/killBatchSize + 2 // the batch after the first store write
			if batches <= failAt {
				t.Fatalf("a rebuild of %d batches stores nothing before the end", batches)
			}
			failing := func(call *fakellm.EmbedCall) fakellm.Reply {
				if call.Inputs[0] == "dimension probe" {
					return fakellm.Reply{}
				}
				k.mu.Lock()
				defer k.mu.Unlock()
				if k.batches++; k.batches == failAt {
					return fakellm.Reply{Status: 400, ErrorMessage: "the batch is refused"}
				}
				return fakellm.Reply{}
			}
			k.mu.Lock()
			k.batches = 0
			k.mu.Unlock()
			k.setRespond(failing)
			r := k.env.run("", "--rag", "kb", "--rebuild-rag")
			if r.code != 1 || !strings.Contains(r.stderr, "the batch is refused") {
				t.Fatalf("the failing rebuild: exit %d\n%s", r.code, r.stderr)
			}
			// While documents still cannot be embedded, a question says
			// so too, and is answered from what the store holds.
			k.setRespond(func(call *fakellm.EmbedCall) fakellm.Reply {
				if len(call.Inputs) > 1 {
					return fakellm.Reply{Status: 400, ErrorMessage: "still refused"}
				}
				return fakellm.Reply{}
			})
			r = k.env.run("", "--rag", "kb", k.words[1])
			k.env.mustSucceed(r)
			if lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n"); len(lines) != 2 ||
				!strings.HasSuffix(lines[0], "; resuming") ||
				!strings.HasPrefix(lines[1], "warning: could not complete RAG kb: embed ") ||
				!strings.Contains(lines[1], "still refused") ||
				!strings.HasSuffix(lines[1], "; answers leave out what it lacks until it is completed") {
				t.Fatalf("a question while the documents cannot be embedded:\n%s", r.stderr)
			}
			k.setRespond(nil)
			embedsBefore := len(k.fake.EmbedRequests())
			if !k.ask("after a failed rebuild") {
				t.Fatal("the next question did not say the RAG was incomplete")
			}
			// It embedded the question and what the failed rebuild had
			// not stored (the chunks after the first 1,024), not the
			// whole RAG again.
			if n := len(k.fake.EmbedRequests()) - embedsBefore; n < 2 || n > batches-1024/killBatchSize+3 {
				t.Fatalf("completing the RAG took %d embedding calls of %d texts; a whole rebuild takes %d", n, killBatchSize, batches)
			}
			// Complete now: the next question says nothing.
			if r := k.env.run("", "--rag", "kb", k.words[0]); r.code != 0 || r.stderr != "" {
				t.Fatalf("a question to the completed RAG: exit %d\n%s", r.code, r.stderr)
			}
			// A rebuild over an incomplete RAG says that it completes it.
			k.mu.Lock()
			k.batches = 0
			k.mu.Unlock()
			k.setRespond(failing)
			if r := k.env.run("", "--rag", "kb", "--rebuild-rag"); r.code != 1 {
				t.Fatalf("the second failing rebuild: exit %d\n%s", r.code, r.stderr)
			}
			k.setRespond(nil)
			r = k.env.run("", "--rag", "kb", "--rebuild-rag")
			k.env.mustSucceed(r)
			if want := "RAG kb was incomplete (an indexing run did not finish): its store lacked "; !strings.HasPrefix(r.stderr, want) || !strings.HasSuffix(r.stderr, "; this indexing completed it.\nRebuilt RAG kb: 40 files.\n") || strings.Count(r.stderr, "\n") != 2 {
				t.Fatalf("stderr of the rebuild after a failed one:\n%s", r.stderr)
			}
			k.checkWhole("after the rebuild")
		})
	}
}

// TestAYAMLRAGBeingIndexedIsSaidSo: while one coyote indexes a yaml RAG
// (whose store another coyote can read meanwhile), a second indexing run
// stops at once naming it, and a question is answered from what the
// store holds with one line saying the RAG is incomplete and being
// indexed, without completing it a second time.
func TestAYAMLRAGBeingIndexedIsSaidSo(t *testing.T) {
	k := newKillRig(t, "yaml", rand.New(rand.NewPCG(2, 0)))
	held, release := make(chan struct{}), make(chan struct{})
	var once, freeOnce sync.Once
	free := func() { freeOnce.Do(func() { close(release) }) }
	t.Cleanup(free) // before the fake server closes
	k.setRespond(func(call *fakellm.EmbedCall) fakellm.Reply {
		if len(call.Inputs) > 1 {
			once.Do(func() { close(held) })
			<-release
		}
		return fakellm.Reply{}
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	indexer := k.env.command(ctx, "", "--rag", "kb", "--rebuild-rag")
	var indexerErr strings.Builder
	indexer.Stderr = &indexerErr
	if err := indexer.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-held:
	case <-ctx.Done():
		t.Fatalf("the indexing run sent no batch; stderr %s", indexerErr.String())
	}
	pid := indexer.Process.Pid
	line := oneLineError(t, k.env.run("", "--rag", "kb", "--rebuild-rag"))
	if want := fmt.Sprintf("RAG kb is being indexed by another coyote process (PID %d); try again once it has finished", pid); !strings.Contains(line, want) {
		t.Fatalf("a second indexing run: %q, want it to say %q", line, want)
	}
	r := k.env.run("", "--rag", "kb", k.words[3])
	k.env.mustSucceed(r)
	want := fmt.Sprintf("warning: RAG kb is incomplete: its store lacks 40 of its 40 files; another coyote process (PID %d) is indexing it, and answers leave out what it lacks until it has finished\n", pid)
	if r.stderr != want {
		t.Fatalf("a question meanwhile: stderr\n%s\nwant\n%s", r.stderr, want)
	}
	free()
	if err := indexer.Wait(); err != nil || !strings.Contains(indexerErr.String(), "Rebuilt RAG kb: 40 files") {
		t.Fatalf("the indexing run: %v\n%s", err, indexerErr.String())
	}
	k.setRespond(nil)
	r = k.env.run("", "--rag", "kb", k.words[5])
	if k.env.mustSucceed(r); r.stderr != "" {
		t.Fatalf("a question once it was indexed: %s", r.stderr)
	}
	k.checkWhole("once it was indexed")
}

// TestAnIncompleteRAGOpenInAnotherCoyoteSaysWhatToDo: a DuckDB RAG left
// incomplete by a failed rebuild is asked a question while another coyote
// has it open (DuckDB admits no writer beside a reader, so it cannot be
// completed): the question is answered from what the store holds, with
// one line saying why the RAG cannot be completed now and what completes
// it. Once the other coyote has closed it, the next question completes
// it.
func TestAnIncompleteRAGOpenInAnotherCoyoteSaysWhatToDo(t *testing.T) {
	var failDocs atomic.Bool
	held, release := make(chan struct{}), make(chan struct{})
	var holdOnce, releaseOnce sync.Once
	free := func() { releaseOnce.Do(func() { close(release) }) }
	fake := &fakellm.OpenAI{
		Respond: func(r *fakellm.ChatRequest) fakellm.Reply {
			if strings.Contains(lastText(r), "(hold)") {
				// The holder's question: it keeps the store open until
				// the test lets it answer.
				holdOnce.Do(func() { close(held) })
				<-release
			}
			return fakellm.Reply{Text: "answered"}
		},
		RespondEmbed: func(c *fakellm.EmbedCall) fakellm.Reply {
			if failDocs.Load() && len(c.Inputs) > 0 && strings.Contains(strings.Join(c.Inputs, " "), "Zebras") {
				return fakellm.Reply{Status: 400, ErrorMessage: "documents refused"}
			}
			return fakellm.Reply{}
		},
	}
	e, file, _ := ragEnv(t, fake)
	t.Cleanup(free) // before the fake server closes
	setDriver(t, file, "duckdb")
	e.mustSucceed(e.run("", "--rag", "kb", "--rebuild-rag"))
	// A rebuild that fails after its deletes: the store holds none of the
	// files the RAG's file lists.
	failDocs.Store(true)
	if r := e.run("", "--rag", "kb", "--rebuild-rag"); r.code != 1 || !strings.Contains(r.stderr, "documents refused") {
		t.Fatalf("the failing rebuild: exit %d\n%s", r.code, r.stderr)
	}

	// The other coyote: it cannot complete the RAG either (the documents
	// are still refused), and holds the store open, read-only, while it
	// waits for its answer.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	holder := e.command(ctx, "", "--rag", "kb", "which animal has stripes (hold)?")
	var holderErr strings.Builder
	holder.Stderr = &holderErr
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-held:
	case <-ctx.Done():
		t.Fatalf("the holder never asked its question; stderr:\n%s", holderErr.String())
	}
	failDocs.Store(false) // from here, only the holder stands in the way

	r := e.run("", "--rag", "kb", "which animal has stripes?")
	e.mustSucceed(r)
	const (
		head = "warning: RAG kb is incomplete (an indexing run did not finish): its store lacks 3 of its 3 files; it cannot be completed now ("
		open = "RAG kb is open in another coyote process (PID "
		fix  = "): answers leave out what it lacks until it is completed: close the other coyote using it and open the RAG again, or run `coyote --rag kb --rebuild-rag`\n"
	)
	if !strings.HasPrefix(r.stderr, head) || !strings.Contains(r.stderr, open) || !strings.HasSuffix(r.stderr, fix) || strings.Count(r.stderr, "\n") != 1 {
		t.Fatalf("a question while another coyote has the incomplete RAG open: stderr\n%s\nwant one line: %s…%s…%s", r.stderr, head, open, fix)
	}

	free()
	if err := holder.Wait(); err != nil || !strings.Contains(holderErr.String(), "could not complete RAG kb") {
		t.Fatalf("the holder: %v\n%s", err, holderErr.String())
	}
	asked := len(fake.Requests())
	r = e.run("", "--rag", "kb", "which animal has stripes?")
	e.mustSucceed(r)
	if want := "warning: RAG kb is incomplete (an indexing run did not finish): its store lacks 3 of its 3 files; resuming\n"; r.stderr != want {
		t.Fatalf("a question once the other coyote has closed the RAG: stderr\n%s\nwant\n%s", r.stderr, want)
	}
	if sent := lastText(&fake.Requests()[asked]); !strings.Contains(sent, "Zebras have black and white stripes") {
		t.Fatalf("the completed RAG did not give the question its passage:\n%s", sent)
	}
	if r := e.run("", "--rag", "kb", "which animal has stripes?"); r.code != 0 || r.stderr != "" {
		t.Fatalf("a question to the completed RAG: exit %d\n%s", r.code, r.stderr)
	}
}
