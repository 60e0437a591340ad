package fsx

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// DefaultLockWait is how long LockFile's callers wait for another coyote
// to finish writing the same file: a write holds the lock for the time of
// one read, merge and write, well under a second.
const DefaultLockWait = 10 * time.Second

// Lock is the advisory lock of one file (see LockFile), held by this
// process until Unlock.
type Lock struct {
	f *os.File
	// Previous is the process id of the coyote that took this lock before
	// this one, which is the last one to have written the file (0 when
	// unknown): the "other process" that changed a file since it was read.
	Previous int
}

// LockedError is LockFile's error when another process held the lock for
// longer than the wait.
type LockedError struct {
	Path string // the file, not its lock file
	PID  int    // the holder, 0 when unknown
}

func (e *LockedError) Error() string {
	who := "another process"
	if e.PID > 0 {
		who = fmt.Sprintf("another coyote (pid %d)", e.PID)
	}
	return fmt.Sprintf("%s is being changed by %s; try again once it has finished", e.Path, who)
}

// LockPath is the lock file of path: .<name>.lock in the same directory.
// It is created on first use and left in place, since removing a lock
// file that another process is opening would let two writers in.
func LockPath(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".lock")
}

// LockFile takes the advisory lock of path, a file that several coyote
// processes may write: an exclusive lock (flock, or LockFileEx on
// Windows) on its lock file (LockPath, created 0600, its directory 0700
// when missing), which then holds this process's id. Every writer of path
// takes it around its read, merge and write, so that none of them works
// from a copy another has just replaced. It waits up to wait for the
// holder to let go, then fails with a *LockedError naming the holder.
// The lock is advisory: a program that does not take it is not stopped.
// It is released by Unlock or when the process ends.
func LockFile(path string, wait time.Duration) (*Lock, error) {
	lockPath := LockPath(path)
	if err := os.MkdirAll(filepath.Dir(lockPath), privateDirMode); err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	f, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE, PrivateFileMode)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	deadline := time.Now().Add(wait)
	pause := time.Millisecond
	for {
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if ok {
			break
		}
		if !time.Now().Before(deadline) {
			pid := readPID(f)
			f.Close()
			return nil, &LockedError{Path: path, PID: pid}
		}
		time.Sleep(min(pause, time.Until(deadline)))
		pause = min(2*pause, 50*time.Millisecond)
	}
	l := &Lock{f: f, Previous: readPID(f)}
	// Best effort: the id only names this process in others' messages.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return l, nil
}

// Update changes the file at path the way every writer of a file that
// several coyote processes change must: under its lock (LockFile, waiting
// up to wait), on the file as it is now, not on a copy read earlier, so
// that a change another process made in between is kept. edit gets the
// current content (exists is false, and current nil, when there is no
// file) and returns the new content, which is written privately
// (WritePrivate: atomically, 0600). A nil result leaves the file as it
// is; an error from edit is returned as it is, and nothing is written.
func Update(path string, wait time.Duration, edit func(current []byte, exists bool) ([]byte, error)) error {
	lock, err := LockFile(path, wait)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	current, err := os.ReadFile(path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read %s: %w", path, err)
	}
	next, err := edit(current, exists)
	if err != nil || next == nil {
		return err
	}
	return WritePrivate(path, next)
}

// Unlock releases the lock. It may be called more than once.
func (l *Lock) Unlock() {
	if l == nil || l.f == nil {
		return
	}
	_ = unlock(l.f)
	_ = l.f.Close()
	l.f = nil
}

// readPID reads the process id a lock file holds, 0 when it holds none.
func readPID(f *os.File) int {
	buf := make([]byte, 32)
	n, err := f.ReadAt(buf, 0)
	if err != nil && err != io.EOF {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	if err != nil || pid < 0 {
		return 0
	}
	return pid
}
