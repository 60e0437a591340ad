//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package repl

// pendingInput is not known here, so a line feed stays Enter (Ctrl+J
// does not continue the line): an Enter typed ahead must never become a
// newline.
func pendingInput(int) (n int, ok bool) { return 0, false }
