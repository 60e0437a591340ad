package plugins

import "syscall"

func sysProcAttr() *syscall.SysProcAttr { return nil }

func awaitExit(int) bool { return false }

// killGroup does nothing: Windows has no process groups to signal; Kill
// ends the plugin process itself.
func killGroup(int) {}
