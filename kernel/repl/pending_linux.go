package repl

import "golang.org/x/sys/unix"

// pendingInput is how many bytes wait unread on the terminal fd; ok is
// false when fd is not a terminal or the count is unknown.
func pendingInput(fd int) (n int, ok bool) {
	n, err := unix.IoctlGetInt(fd, unix.TIOCINQ)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}
