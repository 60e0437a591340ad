//go:build unix && !linux

package plugins

import "syscall"

// sysProcAttr puts the plugin in its own process group, so a Ctrl-C at the
// terminal reaches only the kernel, which shuts plugins down in order, and
// the host can kill the plugin with everything it started.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// awaitExit would wait for the process to exit without reaping it; not
// every Unix has waitid's WNOWAIT, so the group is not killed after a
// plugin exits by itself there (Kill still kills it while it runs).
func awaitExit(int) bool { return false }

// killGroup kills every process of the process group pid leads.
func killGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }
