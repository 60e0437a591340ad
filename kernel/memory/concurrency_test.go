package memory

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// writeMany writes n entries named <prefix>-<i>.md to the store.
func writeMany(s Store, prefix string, n int) error {
	for i := range n {
		name := fmt.Sprintf("%s-%02d", prefix, i)
		if _, _, err := Write(s, name, Draft{Description: "fact " + name, Body: "body of " + name}, time.Now()); err != nil {
			return err
		}
	}
	return nil
}

// TestMemoryWriterProcess is the other coyote of the concurrency test:
// it writes entries to the store of MEMORY_WRITER_DIR.
func TestMemoryWriterProcess(t *testing.T) {
	dir := os.Getenv("MEMORY_WRITER_DIR")
	if dir == "" {
		t.Skip("helper process")
	}
	if err := writeMany(Store{Scope: Global, Dir: dir}, os.Getenv("MEMORY_WRITER_PREFIX"), 20); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// Two processes and two goroutines each write 20 entries to one store at
// once, and one goroutine keeps editing the index: every entry keeps its
// file and its index line, and the edits are all there.
func TestConcurrentWritersLoseNothing(t *testing.T) {
	s := newStore(t, Global, "# Shared\n", nil)
	var procs []*exec.Cmd
	for _, p := range []string{"proc1", "proc2"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMemoryWriterProcess$")
		cmd.Env = append(os.Environ(), "MEMORY_WRITER_DIR="+s.Dir, "MEMORY_WRITER_PREFIX="+p)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs = append(procs, cmd)
	}
	var wg sync.WaitGroup
	for _, p := range []string{"g1", "g2"} {
		wg.Go(func() {
			if err := writeMany(s, p, 20); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Go(func() {
		for i := range 20 {
			if err := AppendIndex(s, fmt.Sprintf("note %d", i)); err != nil {
				t.Error(err)
			}
		}
	})
	wg.Wait()
	for _, cmd := range procs {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("writer process: %v", err)
		}
	}
	index, err := os.ReadFile(s.Index())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"proc1", "proc2", "g1", "g2"} {
		for i := range 20 {
			name := fmt.Sprintf("%s-%02d.md", p, i)
			if !strings.Contains(string(index), "]("+name+"): fact ") {
				t.Errorf("the index lost %s", name)
			}
			if _, err := os.Stat(s.Dir + "/" + name); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
	}
	for i := range 20 {
		if !strings.Contains(string(index), fmt.Sprintf("\nnote %d\n", i)) {
			t.Errorf("the index lost note %d", i)
		}
	}
	if got, _ := LintStore(s, time.Now()); len(got) != 0 {
		t.Errorf("lint after the writes: %q", got)
	}
	if n := strings.Count(string(index), "\n"); n != 1+80+20 {
		t.Errorf("the index has %d lines, want %d", n, 101)
	}
}

// BenchmarkReadAndRender reads a store of an index and 20 drill files and
// renders it for the prompt, as each request does (with the functions,
// and inlined without them).
func BenchmarkReadAndRender(b *testing.B) {
	var index strings.Builder
	files := map[string]string{}
	for i := range 20 {
		f := fmt.Sprintf("entry-%02d.md", i)
		fmt.Fprintf(&index, "- [Entry %d](%s): what entry %d is about, in one line\n", i, f, i)
		files[f] = drill(f, "created: 2025-01-02\nupdated: 2025-03-04\nexpires: 2099-01-01\n", strings.Repeat("A line of what was learnt.\n", 12))
	}
	s := newStore(b, Workspace, index.String(), files)
	for _, inline := range []bool{false, true} {
		b.Run(fmt.Sprintf("inline=%v", inline), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m, err := Read(s)
				if err != nil {
					b.Fatal(err)
				}
				r := Render([]*Memory{m}, RenderOptions{Cap: 12000, CapKey: "memory_cap_without_tools", Inline: inline, Now: day})
				if len(r.Text) == 0 {
					b.Fatal("empty")
				}
			}
		})
	}
}
