//go:build !(linux || darwin || dragonfly || freebsd || netbsd || openbsd)

package iostreams

// echoOff does nothing here: term.ReadPassword turns echo off itself, a
// moment after the prompt is shown.
func echoOff(int) (func(), error) { return func() {}, nil }
