package plugins

import "syscall"

// sysProcAttr puts the plugin in its own process group, so a Ctrl-C at the
// terminal reaches only the kernel (which then shuts plugins down in order),
// and asks Linux to kill it if the kernel dies; the lifeline pipe does the
// same portably for plugins built with the SDK.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
