package plugins

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// sysProcAttr puts the plugin in its own process group, so a Ctrl-C at the
// terminal reaches only the kernel (which then shuts plugins down in order)
// and the host can kill the plugin with everything it started, and asks
// Linux to send it SIGTERM if the kernel dies (an SDK plugin then removes
// its socket directory and exits; any other program is ended by SIGTERM's
// default action). The lifeline pipe does the same portably for plugins
// built with the SDK.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}

// awaitExit waits for process pid to exit without reaping it, so that its
// pid (and so its process group id) stays its own until cmd.Wait.
func awaitExit(pid int) bool {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			return err == nil
		}
	}
}

// killGroup kills every process of the process group pid leads.
func killGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }
