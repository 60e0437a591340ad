package fsutil

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

func TestWriteFileAtomicCreatesReplacesAndKeepsMode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "session.yaml")
	if err := WriteFileAtomic(path, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(path, []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	st, _ := os.Stat(path)
	if string(b) != "two" || st.Mode().Perm() != 0o640 {
		t.Fatalf("content %q mode %v", b, st.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
}

// A writer killed with SIGKILL at any moment leaves the old or the new
// content, never a mix: a helper process rewrites the file in a loop and
// is killed mid-way, many times.
func TestKilledWriterLeavesOldOrNew(t *testing.T) {
	if os.Getenv("FSUTIL_WRITER") != "" {
		path := os.Getenv("FSUTIL_WRITER")
		for i := 0; ; i++ {
			big := bytes.Repeat([]byte{byte('a' + i%2)}, 1<<20)
			if err := WriteFileAtomic(path, big, 0o600); err != nil {
				os.Exit(1)
			}
			fmt.Println(i) // tells the parent a write finished
		}
	}
	path := filepath.Join(t.TempDir(), "f")
	if err := WriteFileAtomic(path, bytes.Repeat([]byte{'a'}, 1<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 20; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestKilledWriterLeavesOldOrNew$")
		cmd.Env = append(os.Environ(), "FSUTIL_WRITER="+path)
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Let it finish a varying number of writes, then kill it while it
		// is in the middle of the next one.
		buf := make([]byte, 64)
		for seen := 0; seen <= round%3; {
			n, err := out.Read(buf)
			if err != nil {
				t.Fatal(err)
			}
			seen += bytes.Count(buf[:n], []byte("\n"))
		}
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) != 1<<20 || (!bytes.Equal(b, bytes.Repeat([]byte{'a'}, 1<<20)) && !bytes.Equal(b, bytes.Repeat([]byte{'b'}, 1<<20))) {
			t.Fatalf("round %d: the file is torn (%d bytes)", round, len(b))
		}
	}
}

func TestCreateNewNeverReplacesAFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.sh")
	if err := os.WriteFile(path, []byte("user"), 0o644); err != nil {
		t.Fatal(err)
	}
	created, err := CreateNew(path, []byte("bundled"), 0o755)
	if err != nil || created {
		t.Fatalf("CreateNew = %v, %v", created, err)
	}
	if data, _ := os.ReadFile(path); string(data) != "user" {
		t.Fatalf("replaced: %q", data)
	}
	created, err = CreateNew(filepath.Join(dir, "sub", "b.sh"), []byte("new"), 0o755)
	if st, serr := os.Stat(filepath.Join(dir, "sub", "b.sh")); err != nil || !created || serr != nil || st.Mode().Perm() != 0o755 {
		t.Fatalf("new file: %v %v %v", created, err, serr)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Fatalf("temporary files left: %v", entries)
	}
}
