package duckdbstore

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/ragstore"
)

// The tests here run a second process (this test binary again, in
// TestHelperProcess) that holds or writes a store, as another coyote
// process would.

const (
	helperEnv     = "COYOTE_DUCKDB_HELPER"
	helperBatch   = 400
	helperDim     = 64
	helperTimeout = 60 * time.Second
)

// TestHelperProcess is not a test: it is the other process.
//
//	hold-rw, hold-ro: open the store, say "ready", wait for stdin to close.
//	index: open read-write and upsert batches (one file each) forever,
//	saying "committed N" after each.
//	index-stall: the same, but the third batch stops before its COMMIT.
//	memory: open read-only, load, search once each way, print VmRSS/VmHWM.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		t.Skip("helper process only")
	}
	dir, name := os.Getenv("HELPER_DIR"), os.Getenv("HELPER_STORE")
	d := New()
	m := ragstore.ReadWrite
	if mode == "hold-ro" || mode == "memory" {
		m = ragstore.ReadOnly
	}
	dim := helperDim
	if mode == "memory" {
		dim = 0
	}
	_, err := d.Open(context.Background(), &ragstore.OpenRequest{
		Store: name, Path: filepath.Join(dir, name+".yaml"), Mode: m, Dimension: dim,
	})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	switch mode {
	case "memory":
		// A query process: the vectors loaded, one search of each kind.
		s, _ := d.get(name)
		if _, err := s.vectorsFor(context.Background()); err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		q := make([]float32, s.dim)
		q[0] = 1
		_, err1 := d.VectorSearch(context.Background(), &ragstore.VectorSearchRequest{Store: name, Vector: q, TopK: 10})
		_, err2 := d.KeywordSearch(context.Background(), &ragstore.KeywordSearchRequest{Store: name, Query: "w1 w2 w300", TopK: 10})
		if err := errors.Join(err1, err2); err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		status, _ := os.ReadFile("/proc/self/status")
		for _, l := range strings.Split(string(status), "\n") {
			if strings.HasPrefix(l, "VmRSS:") || strings.HasPrefix(l, "VmHWM:") {
				fmt.Println(strings.Join(strings.Fields(l), " "))
			}
		}
		os.Exit(0)
	case "hold-rw", "hold-ro":
		fmt.Println("ready")
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	case "index", "index-stall":
		if mode == "index-stall" {
			// The third batch stops inside its transaction, after its
			// rows are written and before COMMIT.
			n := 0
			beforeCommit = func() {
				if n++; n == 3 {
					fmt.Println("in transaction")
					time.Sleep(time.Hour)
				}
			}
		}
		st, _ := d.Stats(context.Background(), &ragstore.StatsRequest{Store: name})
		n := int(st.Chunks)
		for batch := int(st.Files); ; batch++ {
			chunks := make([]ragstore.Chunk, helperBatch)
			for i := range chunks {
				vec := make([]float32, helperDim)
				vec[(batch+i)%helperDim] = 1
				vec[(batch*7+i)%helperDim] += 0.5
				chunks[i] = ragstore.Chunk{
					ID: fmt.Sprintf("f%d-%d", batch, i), FileID: fmt.Sprintf("f%d", batch),
					Text:     fmt.Sprintf("batch %d chunk %d words words and more words w%d", batch, i, i%17),
					Metadata: map[string]string{"source": fmt.Sprintf("/f%d", batch)}, Vector: vec,
				}
			}
			if err := d.Upsert(context.Background(), &ragstore.UpsertRequest{Store: name, Chunks: chunks}); err != nil {
				fmt.Println("error", err)
				os.Exit(2)
			}
			n += helperBatch
			fmt.Println("committed", n)
		}
	}
	os.Exit(3)
}

// helper starts the other process and returns it with its stdout lines.
func helper(t *testing.T, mode, dir, name string) (*exec.Cmd, io.WriteCloser, <-chan string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode, "HELPER_DIR="+dir, "HELPER_STORE="+name)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 1024)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd, stdin, lines
}

// expect waits for a line starting with prefix.
func expect(t *testing.T, lines <-chan string, prefix string) string {
	t.Helper()
	timeout := time.After(helperTimeout)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("helper ended before %q", prefix)
			}
			if strings.HasPrefix(l, "error") {
				t.Fatalf("helper: %s", l)
			}
			if strings.HasPrefix(l, prefix) {
				return l
			}
		case <-timeout:
			t.Fatalf("no %q from the helper in %v", prefix, helperTimeout)
		}
	}
}

// openWithin opens a store, failing the test if Open takes more than a
// few seconds: a lock conflict must be reported, never waited out.
func openWithin(t *testing.T, d *Driver, dir, name string, mode ragstore.Mode) error {
	t.Helper()
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		_, err := d.Open(context.Background(), &ragstore.OpenRequest{
			Store: name, Path: filepath.Join(dir, name+".yaml"), Mode: mode, Dimension: helperDim,
		})
		done <- err
	}()
	select {
	case err := <-done:
		if el := time.Since(start); el > 2*time.Second {
			t.Errorf("open took %v", el)
		}
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("open hangs on a locked store")
		return nil
	}
}

func TestOpenLockedByAnIndexingProcessSaysWhoAtOnce(t *testing.T) {
	dir := t.TempDir()
	cmd, stdin, lines := helper(t, "hold-rw", dir, "docs")
	expect(t, lines, "ready")

	d := New()
	for _, mode := range []ragstore.Mode{ragstore.ReadOnly, ragstore.ReadWrite} {
		err := openWithin(t, d, dir, "docs", mode)
		var le *LockedError
		if !errors.As(err, &le) {
			t.Fatalf("mode %v: open of a locked store: %v", mode, err)
		}
		if !errors.Is(err, sdk.ErrUnavailable) {
			t.Errorf("a lock conflict does not match ErrUnavailable: %v", err)
		}
		want := fmt.Sprintf("RAG docs is being indexed by another coyote process (PID %d); try again once it has finished", cmd.Process.Pid)
		if err.Error() != want {
			t.Errorf("mode %v: error %q, want %q", mode, err, want)
		}
	}

	// Once the other process is gone the store opens.
	_ = stdin.Close()
	_ = cmd.Wait()
	if err := openWithin(t, d, dir, "docs", ragstore.ReadWrite); err != nil {
		t.Fatalf("open after the other process exited: %v", err)
	}
	_ = d.CloseAll()
}

func TestReadersShareAndKeepTheWriterOut(t *testing.T) {
	dir := t.TempDir()
	d := New()
	open(t, d, dir, "docs", ragstore.ReadWrite, helperDim)
	vec := make([]float32, helperDim)
	vec[0] = 1
	upsert(t, d, "docs", ragstore.Chunk{ID: "0-0", FileID: "0", Text: "x", Vector: vec})
	if err := d.CloseAll(); err != nil {
		t.Fatal(err)
	}

	cmd, _, lines := helper(t, "hold-ro", dir, "docs")
	expect(t, lines, "ready")
	if err := openWithin(t, d, dir, "docs", ragstore.ReadOnly); err != nil {
		t.Fatalf("a second reader: %v", err)
	}
	_ = d.CloseAll()
	err := openWithin(t, d, dir, "docs", ragstore.ReadWrite)
	var le *LockedError
	if !errors.As(err, &le) || !le.Reading || le.PID != cmd.Process.Pid {
		t.Fatalf("indexing while another process reads: %v (%+v)", err, le)
	}
	if !strings.Contains(err.Error(), "PID "+strconv.Itoa(cmd.Process.Pid)) {
		t.Errorf("message does not name the reader: %v", err)
	}
}

// TestKillDuringIndexingLeavesACommittedPrefix kills a writer in the middle
// of its upserts, three times over, and checks after each that the store
// opens read-write and holds whole batches only.
func TestKillDuringIndexingLeavesACommittedPrefix(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills processes")
	}
	dir := t.TempDir()
	for round := range 3 {
		cmd, _, lines := helper(t, "index", dir, "docs")
		var last string
		for range 2 + round {
			last = expect(t, lines, "committed")
		}
		// Let it get into the next batch, then kill it.
		time.Sleep(time.Duration(5+round*20) * time.Millisecond)
		killAndCheck(t, dir, cmd, lines, last, round)
	}
}

// TestKillInsideATransactionLosesOnlyThatBatch kills a writer that has
// written a batch's rows but not committed them.
func TestKillInsideATransactionLosesOnlyThatBatch(t *testing.T) {
	dir := t.TempDir()
	cmd, _, lines := helper(t, "index-stall", dir, "docs")
	expect(t, lines, "committed")
	last := expect(t, lines, "committed")
	expect(t, lines, "in transaction")
	if n := killAndCheck(t, dir, cmd, lines, last, 0); n != 2*helperBatch {
		t.Errorf("%d chunks after killing the third batch's transaction, want %d", n, 2*helperBatch)
	}
}

// killAndCheck kills the writer and checks that the store opens read-write
// and holds whole batches only, at least those reported committed: every
// file complete, every chunk with its term counts and vector.
// It returns the number of chunks.
func killAndCheck(t *testing.T, dir string, cmd *exec.Cmd, lines <-chan string, last string, round int) int64 {
	t.Helper()
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	for l := range lines {
		if strings.HasPrefix(l, "committed") {
			last = l
		}
	}
	committed, _ := strconv.Atoi(strings.TrimPrefix(last, "committed "))
	_, walErr := os.Stat(filepath.Join(dir, "docs.duckdb.wal"))

	d := New()
	defer d.CloseAll()
	// A reader first: it must see the committed batches, WAL and all.
	if err := openWithin(t, d, dir, "docs", ragstore.ReadOnly); err != nil {
		t.Fatalf("round %d: read-only open after a kill: %v", round, err)
	}
	ro := stats(t, d, "docs")
	if err := openWithin(t, d, dir, "docs", ragstore.ReadWrite); err != nil {
		t.Fatalf("round %d: reopen after a kill: %v", round, err)
	}
	s, _ := d.get("docs")
	v, err := s.vectorsFor(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	st := stats(t, d, "docs")
	t.Logf("round %d: %d chunks committed when killed, %d in the store (WAL left behind: %v)",
		round, committed, st.Chunks, walErr == nil)
	if st.Chunks < int64(committed) || st.Chunks > int64(committed+helperBatch) || st.Chunks%helperBatch != 0 {
		t.Errorf("round %d: %d chunks after a kill with %d committed (batches of %d)", round, st.Chunks, committed, helperBatch)
	}
	if ro != st {
		t.Errorf("round %d: a reader saw %+v, the writer %+v", round, ro, st)
	}
	if st.Files*helperBatch != st.Chunks {
		t.Errorf("round %d: %d files for %d chunks: a partial batch", round, st.Files, st.Chunks)
	}
	if v.ix.Len() != int(st.Chunks) {
		t.Errorf("round %d: %d vectors loaded for %d chunks", round, v.ix.Len(), st.Chunks)
	}
	var bare int
	err = s.db.QueryRow(`SELECT count(*) FROM chunks WHERE length > 0 AND octet_length(terms) = 0`).Scan(&bare)
	if err != nil || bare != 0 {
		t.Errorf("round %d: %d chunks without their term counts (%v)", round, bare, err)
	}
	if got := ksearch(t, d, "docs", "batch 0 chunk 7 w7", 1); len(got) != 1 || got[0].ID != "f0-7" {
		t.Errorf("round %d: keyword search after the kill: %v", round, got)
	}
	return st.Chunks
}
