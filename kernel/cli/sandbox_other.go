//go:build !linux

package cli

import "syscall"

func insideProcAttr() *syscall.SysProcAttr { return nil }
