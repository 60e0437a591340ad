//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package repl

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// fionread is FIONREAD, _IOR('f', 127, int), on macOS and the BSDs
// (x/sys/unix does not name it there).
const fionread = 0x4004667f

// pendingInput is how many bytes wait unread on the terminal in; ok is
// false when in is not a terminal or the count is unknown.
func pendingInput(in io.Reader) (n int, ok bool) {
	f, isFile := in.(*os.File)
	if !isFile {
		return 0, false
	}
	n, err := unix.IoctlGetInt(int(f.Fd()), fionread)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}
