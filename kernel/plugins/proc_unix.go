//go:build unix && !linux

package plugins

import "syscall"

// sysProcAttr puts the plugin in its own process group, so a Ctrl-C at the
// terminal reaches only the kernel, which shuts plugins down in order.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
