//go:build unix && !linux

package script

import (
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// sysProcAttr puts a call in a session of its own (no controlling
// terminal: a read of /dev/tty fails instead of stopping the tool), unless
// it may use the terminal.
func sysProcAttr(terminal bool) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: !terminal}
}

// processParents maps every process to its parent, from ps.
func processParents() map[int]int {
	out := map[int]int{}
	b, err := exec.Command("ps", "-A", "-o", "pid=", "-o", "ppid=").Output()
	if err != nil {
		return out
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		pid, err1 := strconv.Atoi(f[0])
		ppid, err2 := strconv.Atoi(f[1])
		if err1 == nil && err2 == nil {
			out[pid] = ppid
		}
	}
	return out
}
