package plugins

import "syscall"

func sysProcAttr() *syscall.SysProcAttr { return nil }
