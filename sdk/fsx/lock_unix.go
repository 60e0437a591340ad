//go:build unix

package fsx

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes an exclusive flock on f without waiting and reports
// whether it got it.
func tryLock(f *os.File) (bool, error) {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false, nil
		case errors.Is(err, syscall.EINTR):
			continue
		}
		return false, err
	}
}

func unlock(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
}

// maxPID bounds process ids (Linux's PID_MAX_LIMIT; other systems stay
// below it): a larger number in a temporary file's name is no process.
const maxPID = 1 << 22

// processAlive reports whether a process with this id exists (one of
// another user counts).
func processAlive(pid int) bool {
	if pid <= 0 || pid > maxPID {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
