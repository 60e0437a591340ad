package bridge

import (
	"os"
	"syscall"
)

// Windows has no process groups to signal: the server process itself is
// killed.
var (
	termSignal = syscall.SIGTERM
	killSignal = syscall.SIGKILL
)

func sysProcAttr() *syscall.SysProcAttr { return nil }

func signalGroup(p *os.Process, _ syscall.Signal) { _ = p.Kill() }

// groupAlive cannot look at a group on Windows; it is asked only once the
// process has exited.
func groupAlive(int) bool { return false }

func reapGroup(int) {}
