package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// ptyTerm is coyote running in a pseudo-terminal of a fixed size, with an
// expect-style view of what it draws: a goroutine copies the terminal's
// output into a buffer, and expect waits for text to appear in it.
type ptyTerm struct {
	t    *testing.T
	e    *env
	cmd  *exec.Cmd
	ptmx *os.File

	mu      sync.Mutex
	text    []byte        // the output as ansiStripper leaves it
	raw     []byte        // the output as written, escape sequences and all
	strip   ansiStripper  // the state of the stripping between reads
	mark    int           // expect looks in text from here on
	changed chan struct{} // closed (and replaced) whenever text grows or the output ends
	eof     bool          // the terminal's output has ended
	read    chan struct{} // closed when the copying goroutine is done

	exited  chan struct{} // closed when the process has exited
	waitErr error         // its exit, once exited is closed
}

// Terminal size of every REPL test.
const ptyRows, ptyCols = 40, 120

// startPTY starts coyote with args in a new pseudo-terminal, with the
// test's environment plus TERM=xterm and NO_COLOR=1. The process is killed
// when the test ends, if it is still running.
func (e *env) startPTY(args ...string) *ptyTerm {
	e.t.Helper()
	cmd := exec.Command(e.coyote(), args...)
	cmd.Env = append(append([]string{}, e.vars...), "TERM=xterm", "NO_COLOR=1")
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: ptyRows, Cols: ptyCols})
	if err != nil {
		e.t.Fatalf("start coyote in a pty: %v", err)
	}
	ptmx = pollable(e.t, ptmx)
	p := &ptyTerm{t: e.t, e: e, cmd: cmd, ptmx: ptmx, changed: make(chan struct{}), read: make(chan struct{}), exited: make(chan struct{})}
	go p.copyOutput()
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	e.t.Cleanup(p.close)
	return p
}

// pollable returns the pty's master as a file Go's poller manages. pty
// sets its descriptor blocking (it calls Fd), and then Close cannot
// interrupt the copying goroutine's read: the descriptor stays open until
// the next output, so the terminal never hangs up. A non-blocking
// duplicate is closed at once, as closing a terminal window is.
func pollable(t *testing.T, f *os.File) *os.File {
	t.Helper()
	fd, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	syscall.CloseOnExec(fd)
	if err := syscall.SetNonblock(fd, true); err != nil {
		t.Fatal(err)
	}
	return os.NewFile(uintptr(fd), "ptmx")
}

// startREPL starts coyote in a pseudo-terminal (startPTY) and waits for
// its first prompt, the default one with the fake client's model.
func (e *env) startREPL(args ...string) *ptyTerm {
	e.t.Helper()
	p := e.startPTY(args...)
	p.expect(replPrompt, replTimeout)
	return p
}

// copyOutput reads the terminal until its last writer is gone (EIO).
func (p *ptyTerm) copyOutput() {
	defer close(p.read)
	buf := make([]byte, 32<<10)
	for {
		n, err := p.ptmx.Read(buf)
		p.mu.Lock()
		if n > 0 {
			p.text = p.strip.append(p.text, buf[:n])
			p.raw = append(p.raw, buf[:n]...)
		}
		if err != nil {
			p.eof = true
		}
		close(p.changed)
		p.changed = make(chan struct{})
		p.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// close kills the process if it still runs and releases the terminal.
func (p *ptyTerm) close() {
	select {
	case <-p.exited:
	default:
		_ = p.cmd.Process.Kill()
		select {
		case <-p.exited:
		case <-time.After(10 * time.Second):
			p.t.Errorf("coyote (pid %d) did not exit after SIGKILL", p.cmd.Process.Pid)
		}
	}
	select {
	case <-p.read:
	case <-time.After(5 * time.Second):
	}
	_ = p.ptmx.Close()
}

// send types s on the terminal: "\r" is Enter, "\x03" Ctrl+C, "\x04"
// Ctrl+D, "\t" Tab.
func (p *ptyTerm) send(s string) {
	p.t.Helper()
	if _, err := p.ptmx.Write([]byte(s)); err != nil {
		p.t.Fatalf("write %q to the pty: %v", s, err)
	}
}

// enter types line and Enter, then waits for each of wants in turn.
func (p *ptyTerm) enter(line string, wants ...string) {
	p.t.Helper()
	p.send(line + "\r")
	for _, w := range wants {
		p.expect(w, replTimeout)
	}
}

// exit types .exit and fails unless coyote then exits with status 0.
func (p *ptyTerm) exit() {
	p.t.Helper()
	p.send(".exit\r")
	if code := p.waitExit(replTimeout); code != 0 {
		p.fail(".exit: exit code %d", code)
	}
}

// expect waits until the output after the last match contains want, moves
// the match point past it and returns the output from the old match point
// to the end of want. On timeout the test fails with the tail of the
// output and of the kernel's log.
func (p *ptyTerm) expect(want string, timeout time.Duration) string {
	p.t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		p.mu.Lock()
		if i := strings.Index(string(p.text[p.mark:]), want); i >= 0 {
			got := string(p.text[p.mark : p.mark+i+len(want)])
			p.mark += i + len(want)
			p.mu.Unlock()
			return got
		}
		changed, eof := p.changed, p.eof
		p.mu.Unlock()
		if eof {
			p.fail("the terminal closed before %q appeared", want)
		}
		select {
		case <-changed:
		case <-deadline.C:
			p.fail("%q did not appear within %v", want, timeout)
		}
	}
}

// expectNext waits for want and fails unless only a carriage return
// comes before it: nothing was printed since the last match. It checks
// that an error was one line, with the prompt right after it.
func (p *ptyTerm) expectNext(want string) {
	p.t.Helper()
	if got := p.expect(want, replTimeout); strings.TrimLeft(got, "\r") != want {
		p.fail("%q came after other output: %q", want, got)
	}
}

// fail ends the test with the tail of the output and of the log.
func (p *ptyTerm) fail(format string, args ...any) {
	p.t.Helper()
	p.mu.Lock()
	text, mark := string(p.text), p.mark
	p.mu.Unlock()
	p.t.Fatalf("%s\n--- output after the last match (%d bytes before it) ---\n%s\n--- end of output ---\nlog tail:\n%s",
		fmt.Sprintf(format, args...), mark, tail(text[mark:], 3000), tail(p.e.log(), 3000))
}

// output returns everything drawn so far, escape sequences removed.
func (p *ptyTerm) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return string(p.text)
}

// rawOutput is everything written to the terminal so far, escape
// sequences included.
func (p *ptyTerm) rawOutput() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return string(p.raw)
}

// waitExit waits for the process to exit and returns its exit code.
func (p *ptyTerm) waitExit(timeout time.Duration) int {
	p.t.Helper()
	select {
	case <-p.exited:
	case <-time.After(timeout):
		p.fail("coyote did not exit within %v", timeout)
	}
	return exitCode(p.waitErr)
}

// pid is the coyote process's id.
func (p *ptyTerm) pid() int { return p.cmd.Process.Pid }

// children lists the processes whose parent is pid, with their command
// lines (NUL-separated arguments joined by spaces).
func children(pid int) map[int]string {
	out := map[int]string{}
	tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "children"))
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, field := range strings.Fields(string(b)) {
			child, err := strconv.Atoi(field)
			if err != nil {
				continue
			}
			cmdline, err := os.ReadFile(filepath.Join("/proc", field, "cmdline"))
			if err != nil {
				continue // already gone
			}
			out[child] = strings.TrimSpace(strings.ReplaceAll(string(cmdline), "\x00", " "))
		}
	}
	return out
}

// pluginPID returns the pid of coyote's child process running binary (a
// plugin, started under that name or an alias that extends it), or fails.
// Call it once the plugin is known to run (reply text has arrived through
// it): nothing announces a new process, so there is nothing to wait for.
func (p *ptyTerm) pluginPID(binary string) int {
	p.t.Helper()
	kids := children(p.pid())
	for pid, cmdline := range kids {
		if args := strings.Fields(cmdline); len(args) > 0 && strings.HasPrefix(filepath.Base(args[0]), binary) {
			return pid
		}
	}
	p.fail("coyote has no child process %s; its children: %v", binary, kids)
	return 0
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// ansiStripper removes terminal escape sequences and the bell from a
// stream that may split them across reads, turns \r\n into \n and drops a
// \r at the start of a line. Its zero value starts in plain text.
type ansiStripper struct {
	state stripState
}

type stripState uint8

const (
	stripPlain     stripState = iota
	stripEscape               // after ESC
	stripCSI                  // in ESC [ … final
	stripOSC                  // in ESC ] … BEL or ESC \
	stripOSCEscape            // ESC inside an OSC
	stripCharset              // after ESC ( or ESC ): one more byte
	stripCR                   // after \r: \n follows or not
)

// append adds what b shows as text to dst.
func (s *ansiStripper) append(dst, b []byte) []byte {
	for _, c := range b {
		switch s.state {
		case stripCR:
			// A carriage return at the start of a line moves nothing:
			// readline sends one before every redraw.
			s.state = stripPlain
			if c != '\n' && len(dst) > 0 && dst[len(dst)-1] != '\n' {
				dst = append(dst, '\r')
			}
			fallthrough
		case stripPlain:
			switch c {
			case 0x1b:
				s.state = stripEscape
			case '\r':
				s.state = stripCR
			case 0x07: // bell
			default:
				dst = append(dst, c)
			}
		case stripEscape:
			switch c {
			case '[':
				s.state = stripCSI
			case ']':
				s.state = stripOSC
			case '(', ')', '*', '+', '#', '%':
				s.state = stripCharset
			default:
				s.state = stripPlain // a two-byte sequence: ESC 7, ESC 8, ESC =, …
			}
		case stripCSI:
			if c >= 0x40 && c <= 0x7e {
				s.state = stripPlain
			}
		case stripOSC:
			switch c {
			case 0x07:
				s.state = stripPlain
			case 0x1b:
				s.state = stripOSCEscape
			}
		case stripOSCEscape:
			s.state = stripOSC
			if c == '\\' {
				s.state = stripPlain
			}
		case stripCharset:
			s.state = stripPlain
		}
	}
	return dst
}
