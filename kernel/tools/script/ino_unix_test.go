//go:build unix

package script

import (
	"os"
	"syscall"
)

func statIno(st os.FileInfo) uint64 { return uint64(st.Sys().(*syscall.Stat_t).Ino) }
