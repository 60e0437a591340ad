package fsx

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockHolder runs this test binary as a process that takes path's lock,
// says "locked" and holds it until its standard input closes.
func lockHolder(t *testing.T, path string) (stop func(), pid int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockHelperProcess$")
	cmd.Env = append(os.Environ(), "FSUTIL_LOCK="+path)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "locked\n" {
		t.Fatalf("helper: %q %v", line, err)
	}
	return func() { in.Close(); cmd.Wait() }, cmd.Process.Pid
}

func TestLockHelperProcess(t *testing.T) {
	path := os.Getenv("FSUTIL_LOCK")
	if path == "" {
		t.Skip("helper process")
	}
	l, err := LockFile(path, time.Second)
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	fmt.Println("locked")
	buf := make([]byte, 1)
	os.Stdin.Read(buf)
	l.Unlock()
	os.Exit(0)
}

// Another process's lock keeps this one out and is named; once it is
// released this one gets it and learns who wrote last.
func TestLockFileExcludesOtherProcessesAndNamesThem(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sessions", "s.yaml")
	stop, pid := lockHolder(t, path)
	_, err := LockFile(path, 20*time.Millisecond)
	var locked *LockedError
	if !errors.As(err, &locked) || locked.PID != pid {
		stop()
		t.Fatalf("got %v, want a LockedError naming pid %d", err, pid)
	}
	if want := fmt.Sprintf("%s is being changed by another coyote (pid %d)", path, pid); !strings.Contains(err.Error(), want) {
		t.Errorf("message %q lacks %q", err, want)
	}
	stop()
	l, err := LockFile(path, DefaultLockWait)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	if l.Previous != pid {
		t.Fatalf("Previous = %d, want %d", l.Previous, pid)
	}
	st, err := os.Stat(LockPath(path))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("lock file: %v %v", st, err)
	}
}

// A waiting writer gets the lock as soon as the holder lets go: a
// counter incremented under the lock by many goroutines, each with its
// own lock file handle, loses no increment.
func TestLockFileSerialisesWriters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "counter")
	if err := WriteFileAtomic(path, []byte("0"), 0o600); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 10 {
				l, err := LockFile(path, DefaultLockWait)
				if err != nil {
					t.Error(err)
					return
				}
				b, _ := os.ReadFile(path)
				var n int
				fmt.Sscan(string(b), &n)
				if err := WriteFileAtomic(path, []byte(fmt.Sprint(n+1)), 0o600); err != nil {
					t.Error(err)
				}
				l.Unlock()
			}
		})
	}
	wg.Wait()
	if b, _ := os.ReadFile(path); string(b) != "80" {
		t.Fatalf("counter %s, want 80", b)
	}
}

// Update applies each edit to the file as it is then: many concurrent
// increments lose none; the file is private; nil leaves it alone and an
// error writes nothing.
func TestUpdateEditsTheFileAsItIsNowUnderItsLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dir", "counter")
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		created int
	)
	for range 8 {
		wg.Go(func() {
			for range 10 {
				err := Update(path, DefaultLockWait, func(current []byte, exists bool) ([]byte, error) {
					if !exists {
						mu.Lock()
						created++
						mu.Unlock()
					}
					var n int
					fmt.Sscan(string(current), &n)
					return []byte(fmt.Sprint(n + 1)), nil
				})
				if err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if b, _ := os.ReadFile(path); string(b) != "80" || created != 1 {
		t.Fatalf("counter %s, created %d times; want 80, once", b, created)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != PrivateFileMode {
		t.Fatalf("mode: %v %v", st, err)
	}

	before, _ := os.Stat(path)
	if err := Update(path, DefaultLockWait, func([]byte, bool) ([]byte, error) { return nil, nil }); err != nil {
		t.Fatal(err)
	}
	refused := errors.New("refused")
	if err := Update(path, DefaultLockWait, func([]byte, bool) ([]byte, error) { return []byte("x"), refused }); err != refused {
		t.Fatalf("edit's error came back as %v", err)
	}
	after, _ := os.Stat(path)
	if b, _ := os.ReadFile(path); string(b) != "80" || !os.SameFile(before, after) {
		t.Fatalf("a nil result or an error changed the file: %q", b)
	}

	stop, pid := lockHolder(t, path)
	defer stop()
	err := Update(path, 20*time.Millisecond, func([]byte, bool) ([]byte, error) {
		t.Error("edit ran without the lock")
		return nil, nil
	})
	var locked *LockedError
	if !errors.As(err, &locked) || locked.PID != pid {
		t.Fatalf("got %v, want a LockedError naming pid %d", err, pid)
	}
}
