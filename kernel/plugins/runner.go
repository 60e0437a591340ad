package plugins

import (
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

	"github.com/hashicorp/go-plugin/runner"

	"github.com/coyote-cli/coyote/sdk"
)

// procRunner runs one plugin process for go-plugin. Unlike go-plugin's own
// runner it gives the plugin no stdin (that belongs to the kernel), hands
// it a lifeline pipe so it exits when the kernel dies, keeps the tail of
// its stderr, and records how the process ended.
type procRunner struct {
	cmd      *exec.Cmd
	stdout   io.ReadCloser
	stderr   io.ReadCloser
	lifeline *os.File // our end of the lifeline pipe; closed when the process ends
	pid      int
	// launched, if set, receives the runner once the process runs.
	launched chan<- *procRunner

	exited  chan struct{} // closed once the process has been waited for
	mu      sync.Mutex
	state   *os.ProcessState
	waitErr error
}

// newProcRunner prepares path to run with env (the host's allowlist plus
// go-plugin's own variables).
func newProcRunner(path string, env []string) (*procRunner, error) {
	cmd := exec.Command(path)
	cmd.Env = env
	cmd.Stdin = nil // /dev/null: plugins never read the kernel's stdin
	cmd.SysProcAttr = sysProcAttr()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	return &procRunner{cmd: cmd, stdout: stdout, stderr: stderr, exited: make(chan struct{})}, nil
}

func (r *procRunner) Start(context.Context) error {
	if runtime.GOOS == "windows" { // no descriptor inheritance by number
		if err := r.cmd.Start(); err != nil {
			return err
		}
		r.pid = r.cmd.Process.Pid
		r.announce()
		return nil
	}
	lifeR, lifeW, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("create lifeline pipe: %w", err)
	}
	// ExtraFiles[0] is descriptor 3 in the child.
	r.cmd.ExtraFiles = []*os.File{lifeR}
	r.cmd.Env = append(r.cmd.Env, sdk.EnvLifelineFD+"="+strconv.Itoa(3))
	err = r.cmd.Start()
	_ = lifeR.Close()
	if err != nil {
		_ = lifeW.Close()
		return err
	}
	r.lifeline = lifeW
	r.pid = r.cmd.Process.Pid
	r.announce()
	return nil
}

func (r *procRunner) announce() {
	if r.launched != nil {
		r.launched <- r
	}
}

// Wait waits for the process and records how it ended.
func (r *procRunner) Wait(context.Context) error {
	err := r.cmd.Wait()
	r.mu.Lock()
	r.state, r.waitErr = r.cmd.ProcessState, err
	r.mu.Unlock()
	if r.lifeline != nil {
		_ = r.lifeline.Close()
	}
	close(r.exited)
	return err
}

func (r *procRunner) Kill(context.Context) error {
	if r.cmd.Process == nil {
		return nil
	}
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

// tail keeps the last bytes a plugin wrote to stderr, to explain a crash.
type tail struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func newTail(max int) *tail { return &tail{max: max} }

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// reason picks the most telling line of the tail: a Go panic or fatal
// error if there is one, else the last non-empty line that is not a JSON
// log record.
func (t *tail) reason() string {
	t.mu.Lock()
	lines := strings.Split(string(t.buf), "\n")
	t.mu.Unlock()
	for _, l := range lines {
		if strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: ") {
			return strings.TrimSpace(l)
		}
	}
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" || strings.HasPrefix(l, "{") || strings.HasPrefix(l, "goroutine ") {
			continue
		}
		return l
	}
	return ""
}

var _ runner.Runner = (*procRunner)(nil)
