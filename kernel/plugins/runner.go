package plugins

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-plugin/runner"

	"github.com/coyote-cli/coyote/sdk"
)

// drainGrace is how long the plugin's stdout and stderr are still read
// after it exits (the process counts as ended once they are read). A
// plugin's output normally ends with its exit, at once; only a child that
// left the plugin's process group still holding the pipes (a shell script
// that started a daemon) keeps them open, and the kernel stops reading
// them after this long instead of waiting for that child forever.
const drainGrace = 250 * time.Millisecond

// procRunner runs one plugin process for go-plugin. Unlike go-plugin's own
// runner it gives the plugin no stdin (that belongs to the kernel), hands
// it a lifeline pipe so it exits when the kernel dies, runs it in a process
// group of its own and kills the whole group (so a shell script's children
// go with it), never lets a pipe held open by a child block the kernel,
// keeps the tail of its stderr, and records how the process ended.
//
// go-plugin waits for the output pipes to close before it waits for the
// process; a child that inherited them would make that wait endless. So
// the runner reaps the process itself, as soon as it exits, and ends the
// pipes shortly after (drainGrace).
type procRunner struct {
	cmd      *exec.Cmd
	stdout   *pipeReader
	stderr   *pipeReader
	childOut []*os.File // the child's ends of the pipes, closed once it runs
	lifeline *os.File   // our end of the lifeline pipe; closed when the process ends
	pid      int
	// started, if set, is told about the runner once the process runs; if
	// it answers false (the start was abandoned meanwhile) the process is
	// killed at once.
	started func(*procRunner) bool

	exited  chan struct{} // closed once the process has been waited for
	mu      sync.Mutex
	gone    bool // the process has exited: its pid is no longer ours to signal
	state   *os.ProcessState
	waitErr error
}

// newProcRunner prepares path to run with env (the host's allowlist plus
// go-plugin's own variables).
func newProcRunner(path string, env []string, started func(*procRunner) bool) (*procRunner, error) {
	cmd := exec.Command(path)
	cmd.Env = env
	cmd.Stdin = nil // /dev/null: plugins never read the kernel's stdin
	cmd.SysProcAttr = sysProcAttr()
	r := &procRunner{cmd: cmd, started: started, exited: make(chan struct{})}
	// Pipes of our own rather than cmd.StdoutPipe: exec's pipes are closed
	// only by cmd.Wait, which go-plugin calls after it has read them to the
	// end.
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		_ = outR.Close()
		_ = outW.Close()
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	r.stdout, r.stderr = newPipeReader(outR), newPipeReader(errR)
	r.childOut = []*os.File{outW, errW}
	return r, nil
}

func (r *procRunner) Start(context.Context) error {
	var lifeR *os.File
	if runtime.GOOS != "windows" { // no descriptor inheritance by number there
		var lifeW *os.File
		var err error
		if lifeR, lifeW, err = os.Pipe(); err != nil {
			r.closeChildEnds()
			return fmt.Errorf("create lifeline pipe: %w", err)
		}
		r.lifeline = lifeW
		// ExtraFiles[0] is descriptor 3 in the child.
		r.cmd.ExtraFiles = []*os.File{lifeR}
		r.cmd.Env = append(r.cmd.Env, sdk.EnvLifelineFD+"="+strconv.Itoa(3))
	}
	err := r.cmd.Start()
	if lifeR != nil {
		_ = lifeR.Close()
	}
	r.closeChildEnds()
	if err != nil {
		if r.lifeline != nil {
			_ = r.lifeline.Close()
		}
		// go-plugin reads nothing when the start fails.
		_ = r.stdout.Close()
		_ = r.stderr.Close()
		return err
	}
	r.pid = r.cmd.Process.Pid
	go r.reap()
	if r.started != nil && !r.started(r) {
		_ = r.Kill(context.Background())
	}
	return nil
}

func (r *procRunner) closeChildEnds() {
	for _, f := range r.childOut {
		_ = f.Close()
	}
	r.childOut = nil
}

// reap waits for the process, kills what is left of its process group,
// records how it ended, ends its output pipes after drainGrace and closes
// them once read.
func (r *procRunner) reap() {
	// Wait for the exit without reaping, where the OS allows it: until the
	// process is reaped its pid cannot be reused, so signalling its group
	// cannot reach a stranger.
	if awaitExit(r.pid) {
		r.mu.Lock()
		killGroup(r.pid)
		r.gone = true
		r.mu.Unlock()
	}
	err := r.cmd.Wait()
	r.mu.Lock()
	r.gone = true
	r.state, r.waitErr = r.cmd.ProcessState, err
	r.mu.Unlock()
	deadline := time.Now().Add(drainGrace)
	r.stdout.endBy(deadline)
	r.stderr.endBy(deadline)
	if r.lifeline != nil {
		_ = r.lifeline.Close()
	}
	// What the plugin wrote last explains its exit: let go-plugin read it
	// (into the tail) before anyone is told the process has ended. The
	// readers end by the deadline; the timer only guards against nobody
	// reading at all.
	guard := make(chan struct{})
	limit := time.AfterFunc(drainGrace+time.Second, func() { close(guard) })
	defer limit.Stop()
	for _, p := range []*pipeReader{r.stdout, r.stderr} {
		select {
		case <-p.ended:
		case <-guard:
		}
		_ = p.Close() // a read still waiting, if any, reports EOF
	}
	close(r.exited)
}

// Wait waits for the process to end and returns how it ended.
func (r *procRunner) Wait(context.Context) error {
	<-r.exited
	return r.waitErr
}

// Kill kills the plugin's whole process group: a plugin that is a script
// takes its children with it. It does nothing once the process has been
// reaped.
func (r *procRunner) Kill(context.Context) error {
	if r.cmd.Process == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.gone {
		return nil
	}
	killGroup(r.pid)
	if err := r.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	return nil
}

func (r *procRunner) Stdout() io.ReadCloser { return r.stdout }
func (r *procRunner) Stderr() io.ReadCloser { return r.stderr }
func (r *procRunner) Name() string          { return r.cmd.Path }
func (r *procRunner) ID() string            { return strconv.Itoa(r.pid) }

// Diagnose returns nothing: the host writes its own one-line diagnosis.
func (r *procRunner) Diagnose(context.Context) string { return "" }

func (r *procRunner) PluginToHost(network, addr string) (string, string, error) {
	return network, addr, nil
}

func (r *procRunner) HostToPlugin(network, addr string) (string, string, error) {
	return network, addr, nil
}

// hasExited reports whether the process has ended and been waited for.
func (r *procRunner) hasExited() bool {
	select {
	case <-r.exited:
		return true
	default:
		return false
	}
}

// exitDescription says how the process ended, e.g. "exit status 2" or
// "killed by signal 9 (killed)". It is only meaningful after exited closes.
func (r *procRunner) exitDescription() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.state == nil {
		if r.waitErr != nil {
			return r.waitErr.Error()
		}
		return "ended"
	}
	if ws, ok := r.state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return fmt.Sprintf("killed by signal %d (%s)", int(ws.Signal()), ws.Signal())
	}
	return "exit status " + strconv.Itoa(r.state.ExitCode())
}

// pipeReader is the kernel's end of a plugin's stdout or stderr. Once the
// plugin has exited it reads what is left for a short while and then
// reports EOF, whoever still holds the other end. It reads no faster than
// outputRate (and 2,048 lines a second): a plugin that writes faster blocks in its own writes once
// the pipe is full, so a runaway logger costs neither process a core.
type pipeReader struct {
	f         *os.File
	t         throttle
	ended     chan struct{} // closed when a read has reported the end
	endedOnce sync.Once
}

func newPipeReader(f *os.File) *pipeReader {
	return &pipeReader{f: f, t: throttle{rate: outputRate, burst: outputBurst, now: time.Now, sleep: time.Sleep}, ended: make(chan struct{})}
}

// Output limits: far above what a plugin logs even at trace level.
const (
	outputRate  = 1 << 20 // bytes per second
	outputBurst = 1 << 20
	outputChunk = 32 << 10 // the most one read takes, so a wait is short
	lineCost    = 512      // so at most outputRate/lineCost = 2,048 lines a second
)

var newline = []byte{'\n'}

func (p *pipeReader) Read(b []byte) (int, error) {
	if len(b) > outputChunk {
		b = b[:outputChunk]
	}
	n, err := p.f.Read(b)
	if errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, os.ErrClosed) {
		err = io.EOF
	}
	if err != nil {
		p.endedOnce.Do(func() { close(p.ended) })
	}
	// The kernel's cost is per line as much as per byte (go-plugin logs
	// each line): a short line counts as lineCost bytes.
	p.t.take(max(n, lineCost*bytes.Count(b[:n], newline)))
	return n, err
}

func (p *pipeReader) Close() error { return p.f.Close() }

// endBy makes reads end at t. Where the OS cannot time out a pipe read
// (Windows), the pipe is left to close with its last writer.
func (p *pipeReader) endBy(t time.Time) { _ = p.f.SetReadDeadline(t) }

// throttle is a token bucket of bytes; one reader uses it.
type throttle struct {
	rate, burst float64
	tokens      float64
	last        time.Time
	now         func() time.Time
	sleep       func(time.Duration)
}

// take spends n bytes, waiting while the bucket is in debt.
func (t *throttle) take(n int) {
	now := t.now()
	if t.last.IsZero() {
		t.tokens = t.burst
	} else {
		t.tokens = min(t.burst, t.tokens+now.Sub(t.last).Seconds()*t.rate)
	}
	t.last = now
	t.tokens -= float64(n)
	if t.tokens < 0 {
		t.sleep(time.Duration(-t.tokens / t.rate * float64(time.Second)))
	}
}

// tail keeps the last bytes a plugin wrote to stderr, to explain a crash.
// It is a ring: a plugin that writes without pause costs the kernel a copy
// of what it writes, nothing more. A Go crash report can be far longer
// than the ring (a stack per goroutine, then registers), so the line that
// starts it ("panic: …", "SIGABRT: abort") is kept aside as it passes.
type tail struct {
	mu   sync.Mutex
	buf  []byte // len(buf) == max once full
	next int    // where the next byte goes, once full
	full bool
	max  int

	line     []byte // the start of the line being written, up to maxLine
	written  int64  // bytes written in all
	header   string // the last crash header seen
	headerAt int64  // written when it was seen
}

const (
	// maxLine is how much of a line is kept to recognise a crash header.
	maxLine = 512
	// crashWindow is how far back a crash header still explains an exit:
	// more than a Go crash report of a plugin with a few hundred
	// goroutines.
	crashWindow = 1 << 20
)

func newTail(max int) *tail { return &tail{max: max, buf: make([]byte, 0, max)} }

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.scanLines(p)
	t.written += int64(len(p))
	t.ring(p)
	return len(p), nil
}

// scanLines notes crash headers among the lines p completes.
func (t *tail) scanLines(p []byte) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		if room := maxLine - len(t.line); room > 0 {
			t.line = append(t.line, chunk[:min(room, len(chunk))]...)
		}
		if i < 0 {
			return
		}
		if l := string(t.line); isCrashHeader(l) {
			t.header, t.headerAt = strings.TrimSpace(l), t.written+int64(i)
		}
		t.line = t.line[:0]
		p = p[i+1:]
	}
}

func (t *tail) ring(p []byte) {
	if len(p) >= t.max {
		t.buf = append(t.buf[:0], p[len(p)-t.max:]...)
		t.next, t.full = 0, true
		return
	}
	if !t.full {
		room := t.max - len(t.buf)
		if len(p) <= room {
			t.buf = append(t.buf, p...)
			t.full = len(t.buf) == t.max
			return
		}
		t.buf = append(t.buf, p[:room]...)
		p = p[room:]
		t.full = true
	}
	for len(p) > 0 {
		c := copy(t.buf[t.next:], p)
		p = p[c:]
		t.next = (t.next + c) % t.max
	}
}

// bytes returns the kept bytes, oldest first, and whether older ones were
// dropped.
func (t *tail) bytes() (b []byte, cut bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.full {
		return append([]byte(nil), t.buf...), false
	}
	out := make([]byte, 0, t.max)
	out = append(out, t.buf[t.next:]...)
	return append(out, t.buf[:t.next]...), true
}

// reason picks the most telling line of the tail: the first line of a
// recent Go crash report (a panic, a fatal error, or the signal a Go
// program died of, as "SIGABRT: abort"), else the last line that is not
// part of a stack trace, a register dump or a JSON log record.
func (t *tail) reason() string {
	t.mu.Lock()
	header, recent := t.header, t.header != "" && t.written-t.headerAt <= crashWindow
	t.mu.Unlock()
	if recent {
		return header
	}
	b, cut := t.bytes()
	lines := strings.Split(string(b), "\n")
	if cut {
		lines = lines[1:] // the first line may be cut anywhere
	}
	for i := len(lines) - 1; i >= 0; i-- {
		l := lines[i]
		if s := strings.TrimSpace(l); s == "" || isTraceLine(l) {
			continue
		}
		return strings.TrimSpace(l)
	}
	return ""
}

// isCrashHeader matches the line a Go program's crash report starts with.
func isCrashHeader(l string) bool {
	if strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: ") {
		return true
	}
	// "SIGSEGV: segmentation violation", "SIGABRT: abort", "SIGQUIT: quit".
	name, _, ok := strings.Cut(l, ": ")
	if !ok || len(name) < 4 || !strings.HasPrefix(name, "SIG") {
		return false
	}
	for _, c := range name[3:] {
		if (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// isTraceLine matches lines that never explain a crash by themselves: JSON
// log records, goroutine headers and stack frames, and the register dump
// a Go program prints when it dies of a signal ("rax    0x0", "PC=0x…").
func isTraceLine(l string) bool {
	s := strings.TrimSpace(l)
	switch {
	case strings.HasPrefix(s, "{"),
		strings.HasPrefix(s, "goroutine "),
		strings.HasPrefix(s, "created by "),
		strings.HasPrefix(s, "PC="),
		strings.HasPrefix(s, "signal arrived"),
		strings.HasPrefix(l, "\t"):
		return true
	}
	// A register: a short lower-case name, spaces, a hex value.
	name, value, ok := strings.Cut(s, " ")
	if !ok || len(name) > 8 {
		return false
	}
	value = strings.TrimSpace(value)
	if !strings.HasPrefix(value, "0x") || strings.ContainsAny(value, " \t") {
		return false
	}
	for _, c := range name {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

var _ runner.Runner = (*procRunner)(nil)
