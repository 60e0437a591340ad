//go:build linux

package iostreams

import (
	"bytes"
	"os"
	"testing"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// promptProbe plays a user who types the secret the moment the prompt
// appears, and records whether the terminal would echo it then.
type promptProbe struct {
	ptmx, tty *os.File
	echoOn    []bool
	rendered  bytes.Buffer
}

func (p *promptProbe) Write(b []byte) (int, error) {
	t, err := unix.IoctlGetTermios(int(p.tty.Fd()), ioctlGetTermios)
	if err != nil {
		return 0, err
	}
	p.echoOn = append(p.echoOn, t.Lflag&unix.ECHO != 0)
	if p.rendered.Len() == 0 {
		if _, err := p.ptmx.Write([]byte("s3cret\n")); err != nil {
			return 0, err
		}
	}
	return p.rendered.Write(b)
}

func TestReadHiddenTurnsEchoOffBeforeThePrompt(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	before, err := unix.IoctlGetTermios(int(tty.Fd()), ioctlGetTermios)
	if err != nil {
		t.Fatal(err)
	}
	if before.Lflag&unix.ECHO == 0 {
		t.Fatal("a new pty should echo")
	}
	probe := &promptProbe{ptmx: ptmx, tty: tty}
	got, err := ReadHidden(tty, probe, "Value: ")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "s3cret" {
		t.Fatalf("read %q", got)
	}
	if len(probe.echoOn) == 0 || probe.echoOn[0] {
		t.Fatalf("echo was on when the prompt was written (%v)", probe.echoOn)
	}
	if probe.rendered.String() != "Value: \n" {
		t.Fatalf("wrote %q", probe.rendered.String())
	}
	after, err := unix.IoctlGetTermios(int(tty.Fd()), ioctlGetTermios)
	if err != nil {
		t.Fatal(err)
	}
	if after.Lflag != before.Lflag {
		t.Fatalf("terminal not restored: lflag %#x, was %#x", after.Lflag, before.Lflag)
	}
	// Everything the terminal showed up to a marker written after the
	// read: an echo would be in it.
	if _, err := tty.Write([]byte("END")); err != nil {
		t.Fatal(err)
	}
	var shown []byte
	buf := make([]byte, 256)
	for !bytes.Contains(shown, []byte("END")) {
		n, err := ptmx.Read(buf)
		if err != nil {
			t.Fatalf("read the terminal: %v (so far %q)", err, shown)
		}
		shown = append(shown, buf[:n]...)
	}
	if bytes.Contains(shown, []byte("s3cret")) {
		t.Fatalf("the terminal echoed the secret: %q", shown)
	}
}
