//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package repl

import "golang.org/x/sys/unix"

// fionread is FIONREAD, _IOR('f', 127, int), on macOS and the BSDs
// (x/sys/unix does not name it there).
const fionread = 0x4004667f

// pendingInput is how many bytes wait unread on the terminal fd; ok is
// false when fd is not a terminal or the count is unknown.
func pendingInput(fd int) (n int, ok bool) {
	n, err := unix.IoctlGetInt(fd, fionread)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}
