//go:build unix

package bridge

import (
	"os"
	"syscall"
)

var (
	termSignal = syscall.SIGTERM
	killSignal = syscall.SIGKILL
)

// signalGroup signals the process group p leads.
func signalGroup(p *os.Process, sig syscall.Signal) {
	_ = syscall.Kill(-p.Pid, sig)
}

// groupAlive reports whether any process of the group pid leads is left.
func groupAlive(pid int) bool {
	return syscall.Kill(-pid, 0) == nil
}

// reapGroup collects the ended processes of a server's group that are the
// plugin's children (orphans adopted as subreaper). It must run only after
// the group's leader has been waited for, so as not to take its status
// from os/exec.
func reapGroup(pid int) {
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-pid, &ws, syscall.WNOHANG, nil)
		if got <= 0 || err != nil {
			return
		}
	}
}
