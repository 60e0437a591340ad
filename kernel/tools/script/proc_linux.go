package script

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// sysProcAttr puts a call in a session of its own (no controlling
// terminal: a read of /dev/tty fails instead of stopping the tool), unless
// it may use the terminal. Linux also sends SIGTERM to the tool if the
// kernel dies.
func sysProcAttr(terminal bool) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: !terminal, Pdeathsig: syscall.SIGTERM}
}

// processParents maps every process to its parent, from /proc.
func processParents() map[int]int {
	out := map[int]int{}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return out
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 {
			continue
		}
		if ppid, err := strconv.Atoi(f[1]); err == nil {
			out[pid] = ppid
		}
	}
	return out
}
