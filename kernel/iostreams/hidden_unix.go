//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package iostreams

import "golang.org/x/sys/unix"

// echoOff clears the terminal's ECHO flag and returns a function that
// puts the previous settings back.
func echoOff(fd int) (func(), error) {
	old, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return nil, err
	}
	quiet := *old
	quiet.Lflag &^= unix.ECHO
	if err := unix.IoctlSetTermios(fd, ioctlSetTermios, &quiet); err != nil {
		return nil, err
	}
	return func() { _ = unix.IoctlSetTermios(fd, ioctlSetTermios, old) }, nil
}
