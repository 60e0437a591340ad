package fsx

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestWriteFileAtomicCreatesAndReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "session.yaml")
	if err := WriteFileAtomic(path, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(path, []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if string(b) != "two" {
		t.Fatalf("content %q", b)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
	if st, _ := os.Stat(filepath.Dir(path)); st.Mode().Perm() != 0o700 {
		t.Fatalf("new directory mode %04o, want 0700", st.Mode().Perm())
	}
}

// WriteAtomicFunc: what the caller streams replaces the file; a write
// that fails leaves the old file and no temporary file.
func TestWriteAtomicFuncReplacesOnlyWhenTheWriteSucceeds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kb.yaml")
	if err := WriteFileAtomic(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	errHalf := errors.New("half way")
	err := WriteAtomicFunc(path, 0o600, func(w io.Writer) error {
		_, _ = io.WriteString(w, "new but")
		return errHalf
	})
	if !errors.Is(err, errHalf) {
		t.Fatalf("error %v, want the writer's", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatalf("after a failed write: %q", b)
	}
	if err := WriteAtomicFunc(path, 0o600, func(w io.Writer) error {
		for _, s := range []string{"one ", "two ", "three"} {
			if _, err := io.WriteString(w, s); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "one two three" {
		t.Fatalf("content %q", b)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
}

// A replaced file gets the caller's mode without the bits it lacked: a
// secret file left 0644 becomes 0600, a file the user made private stays
// private.
func TestWriteModesNeverLoosen(t *testing.T) {
	tests := []struct {
		name     string
		existing fs.FileMode // 0: no file yet
		write    func(path string) error
		want     fs.FileMode
	}{
		{"new file gets the caller's mode", 0, func(p string) error { return WriteFileAtomic(p, []byte("x"), 0o644) }, 0o644},
		{"a 0644 token file becomes 0600", 0o644, func(p string) error { return WriteFileAtomic(p, []byte("x"), 0o600) }, 0o600},
		{"a role the user made 0600 stays 0600", 0o600, func(p string) error { return WriteFileAtomic(p, []byte("x"), 0o644) }, 0o600},
		{"a 0640 file written 0644 stays 0640", 0o640, func(p string) error { return WriteFileAtomic(p, []byte("x"), 0o644) }, 0o640},
		{"WritePrivate makes a new file 0600", 0, func(p string) error { return WritePrivate(p, []byte("x")) }, 0o600},
		{"WritePrivate makes a 0666 file 0600", 0o666, func(p string) error { return WritePrivate(p, []byte("x")) }, 0o600},
		{"WritePrivate keeps 0400", 0o400, func(p string) error { return WritePrivate(p, []byte("x")) }, 0o400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "f")
			if tt.existing != 0 {
				if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(path, tt.existing); err != nil {
					t.Fatal(err)
				}
			}
			if err := tt.write(path); err != nil {
				t.Fatal(err)
			}
			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if st.Mode().Perm() != tt.want {
				t.Fatalf("mode %04o, want %04o", st.Mode().Perm(), tt.want)
			}
		})
	}
}

func TestPrivateDirAndMakePrivateTighten(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "repl-history")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "history.txt")
	if err := os.WriteFile(file, []byte("a prompt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	os.Chmod(file, 0o644)
	if err := PrivateDir(dir); err != nil {
		t.Fatal(err)
	}
	if err := MakePrivate(file); err != nil {
		t.Fatal(err)
	}
	if err := MakePrivate(filepath.Join(dir, "missing")); err != nil {
		t.Fatal(err)
	}
	if err := PrivateDir(filepath.Join(root, "new", "deeper")); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]fs.FileMode{dir: 0o700, file: 0o600, filepath.Join(root, "new"): 0o700, filepath.Join(root, "new", "deeper"): 0o700} {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != want {
			t.Errorf("%s: mode %04o, want %04o", path, st.Mode().Perm(), want)
		}
	}
}

func TestOpenPrivateAppendCreatesAndTightens(t *testing.T) {
	dir := t.TempDir()
	newPath := filepath.Join(dir, "logs", "coyote.log")
	old := filepath.Join(dir, "messages.md")
	os.WriteFile(old, []byte("old\n"), 0o644)
	os.Chmod(old, 0o644)
	for _, p := range []string{newPath, old} {
		f, err := OpenPrivateAppend(p)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("new\n")
		f.Close()
		if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %04o", p, st.Mode().Perm())
		}
	}
	if b, _ := os.ReadFile(old); string(b) != "old\nnew\n" {
		t.Fatalf("appended %q", b)
	}
	if st, _ := os.Stat(filepath.Dir(newPath)); st.Mode().Perm() != 0o700 {
		t.Fatalf("dir mode %04o", st.Mode().Perm())
	}
}

// Temporary files are made 0600 in the target's directory and carry the
// writer's process id.
func TestTemporaryFileIsPrivateAndNamedByItsProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp.json")
	f, err := createTemp(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %04o", st.Mode().Perm())
	}
	want := filepath.Join(filepath.Dir(path), fmt.Sprintf(".mcp.json.tmp-%d-", os.Getpid()))
	if !strings.HasPrefix(f.Name(), want) {
		t.Fatalf("name %s, want %s…", f.Name(), want)
	}
}

// deadPID returns the id of a process that has ended.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// The next writer of a file removes the temporary files of writers that
// died more than a minute ago, and only those.
func TestNextWriterRemovesStaleTemporaryFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.yaml")
	dead := deadPID(t)
	old := time.Now().Add(-2 * time.Minute)
	tests := []struct {
		name    string
		file    string
		mtime   time.Time
		removed bool
	}{
		{"a dead writer's old file", fmt.Sprintf(".s.yaml.tmp-%d-abc", dead), old, true},
		{"an old file of an older version", ".s.yaml.tmp-3918273645", old, true},
		{"a dead writer's fresh file", fmt.Sprintf(".s.yaml.tmp-%d-def", dead), time.Now(), false},
		{"a live writer's old file", fmt.Sprintf(".s.yaml.tmp-%d-ghi", os.Getppid()), old, false},
		{"this process's old file", fmt.Sprintf(".s.yaml.tmp-%d-jkl", os.Getpid()), old, false},
		{"another file's temporary file", fmt.Sprintf(".t.yaml.tmp-%d-mno", dead), old, false},
		{"not a temporary file", "s.yaml.tmp-1-x", old, false},
	}
	for _, tt := range tests {
		p := filepath.Join(dir, tt.file)
		if err := os.WriteFile(p, []byte("partial"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, tt.mtime, tt.mtime); err != nil {
			t.Fatal(err)
		}
	}
	if err := WriteFileAtomic(path, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		_, err := os.Stat(filepath.Join(dir, tt.file))
		if gone := errors.Is(err, fs.ErrNotExist); gone != tt.removed {
			t.Errorf("%s: removed %v, want %v", tt.name, gone, tt.removed)
		}
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
	// The killed writers' temporary files go at the next write once they
	// are a minute old.
	old := time.Now().Add(-2 * time.Minute)
	entries, _ := os.ReadDir(filepath.Dir(path))
	for _, e := range entries {
		os.Chtimes(filepath.Join(filepath.Dir(path), e.Name()), old, old)
	}
	if err := WriteFileAtomic(path, []byte("last"), 0o600); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Fatalf("files left: %v", entries)
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
