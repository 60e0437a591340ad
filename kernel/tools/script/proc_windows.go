package script

import (
	"errors"
	"os"
	"syscall"
)

func sysProcAttr(bool) *syscall.SysProcAttr { return nil }

// killCall ends a call that timed out or was cancelled: on Windows only
// the wrapper process itself.
func killCall(p *os.Process, _ bool) error {
	if p == nil {
		return nil
	}
	if err := p.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	return nil
}
