package cli

import "syscall"

// insideProcAttr kills the sandbox when the kernel dies, SIGKILL
// included; bwrap's --die-with-parent then takes everything inside.
func insideProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
