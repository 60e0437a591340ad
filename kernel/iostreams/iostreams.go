// Package iostreams owns the kernel's standard streams and what is known
// about them (terminal or not, colour or not), so that commands write
// through one injected value and tests can capture everything.
package iostreams

import (
	"bytes"
	"io"
	"os"

	"golang.org/x/term"
)

// IOStreams are the streams a command reads and writes.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	stdinTTY, stdoutTTY, stderrTTY bool
	noColor                        bool
}

// System returns the process's streams.
func System() *IOStreams {
	return &IOStreams{
		In:        os.Stdin,
		Out:       os.Stdout,
		ErrOut:    os.Stderr,
		stdinTTY:  term.IsTerminal(int(os.Stdin.Fd())),
		stdoutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		stderrTTY: term.IsTerminal(int(os.Stderr.Fd())),
		noColor:   os.Getenv("NO_COLOR") != "",
	}
}

// Test returns streams backed by buffers, none of them a terminal.
func Test() (s *IOStreams, in, out, errOut *bytes.Buffer) {
	in, out, errOut = &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut, noColor: true}, in, out, errOut
}

// StdinHungUp reports whether standard input was a terminal that has
// since gone away (the window was closed): the terminal then fails every
// request, which a read that just ended cannot tell from end of input.
func (s *IOStreams) StdinHungUp() bool {
	f, ok := s.In.(*os.File)
	return s.stdinTTY && ok && !term.IsTerminal(int(f.Fd()))
}

// SetTTY marks the streams as terminals or not (for tests).
func (s *IOStreams) SetTTY(stdin, stdout, stderr bool) {
	s.stdinTTY, s.stdoutTTY, s.stderrTTY = stdin, stdout, stderr
}

// IsStdinTTY reports whether standard input is a terminal.
func (s *IOStreams) IsStdinTTY() bool { return s.stdinTTY }

// IsStdoutTTY reports whether standard output is a terminal.
func (s *IOStreams) IsStdoutTTY() bool { return s.stdoutTTY }

// IsStderrTTY reports whether error output is a terminal.
func (s *IOStreams) IsStderrTTY() bool { return s.stderrTTY }

// ColorErr reports whether error output may be coloured: stderr is a
// terminal and NO_COLOR is unset.
func (s *IOStreams) ColorErr() bool { return s.stderrTTY && !s.noColor }
