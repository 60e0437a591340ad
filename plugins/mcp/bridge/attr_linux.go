package bridge

import (
	"sync"
	"syscall"
)

// sysProcAttr puts a stdio server in its own process group, and has Linux
// send it SIGTERM if the plugin dies without stopping it.
func sysProcAttr() *syscall.SysProcAttr {
	becomeSubreaper()
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER of prctl(2).
const prSetChildSubreaper = 36

// becomeSubreaper makes the plugin the parent of the orphaned processes
// of its servers (a server's children whose parent has exited), so that
// reapGroup can collect them: under an init that does not reap (some
// containers and sandboxes), they would otherwise stay zombies in the
// server's process group forever.
var becomeSubreaper = sync.OnceFunc(func() {
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
})
