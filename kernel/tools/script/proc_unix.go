//go:build unix

package script

import (
	"errors"
	"os"
	"syscall"
)

// killCall ends a call that timed out or was cancelled. A call in its own
// session is killed with its whole process group. A Terminal call shares
// the kernel's process group, so its process tree is stopped from the top
// (no new children can start), collected, and killed.
func killCall(p *os.Process, terminal bool) error {
	if p == nil {
		return nil
	}
	if !terminal {
		err := syscall.Kill(-p.Pid, syscall.SIGKILL)
		if errors.Is(err, syscall.ESRCH) {
			return os.ErrProcessDone
		}
		return err
	}
	return killTree(p.Pid)
}

// killTree stops root and its descendants, looking again until no new
// one appears, then kills them all.
func killTree(root int) error {
	if err := syscall.Kill(root, syscall.SIGSTOP); errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	stopped := map[int]bool{root: true}
	for range 8 { // a stopped process cannot fork; a few rounds catch the ones caught mid-fork
		parents := processParents()
		grew := false
		for changed := true; changed; {
			changed = false
			for pid, ppid := range parents {
				if stopped[ppid] && !stopped[pid] {
					_ = syscall.Kill(pid, syscall.SIGSTOP)
					stopped[pid], changed, grew = true, true, true
				}
			}
		}
		if !grew {
			break
		}
	}
	for pid := range stopped {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	return nil
}
