package plugins

import "syscall"

// sysProcAttr puts the plugin in its own process group, so a Ctrl-C at the
// terminal reaches only the kernel (which then shuts plugins down in order),
// and asks Linux to send it SIGTERM if the kernel dies (an SDK plugin then
// removes its socket directory and exits; any other program is ended by
// SIGTERM's default action). The lifeline pipe does the same portably for
// plugins built with the SDK.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
