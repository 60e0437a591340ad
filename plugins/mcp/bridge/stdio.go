package bridge

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coyote-cli/coyote/sdk"
)

// Shutdown of a stdio server: stdin is closed, and a server still running
// stdinGrace later gets SIGTERM (its whole process group), then SIGKILL
// killWait after that. Many servers (server-everything among them) ignore
// stdin closing, so the grace is short.
const (
	stdinGrace = 100 * time.Millisecond
	killWait   = 500 * time.Millisecond
	// stderrGrace is how long describe waits for the rest of a dead
	// server's stderr.
	stderrGrace = 200 * time.Millisecond
)

// transport returns the go-sdk transport of the server, launching its
// process for stdio.
func (s *server) transport() (mcp.Transport, error) {
	if isRemote(&s.cfg) {
		return s.remoteTransport()
	}
	p, err := startProcess(s.cfg.Name, s.cfg.Command, s.cfg.Args, s.cfg.Env, s.cfg.Cwd, s.b.log)
	if err != nil {
		return nil, err
	}
	s.proc = p
	return &mcp.IOTransport{Reader: p.stdout, Writer: p.stdin}, nil
}

// process is a stdio server's process, leader of its own process group.
type process struct {
	name   string
	cmd    *exec.Cmd
	stdin  *os.File // our ends of its pipes
	stdout *os.File
	exited chan struct{} // closed when it has been reaped
	state  *os.ProcessState
	last   lastLine      // its last line of stderr
	errEOF chan struct{} // closed when its stderr has been read to the end

	termOnce sync.Once
	termDone chan struct{}
}

// startProcess runs a stdio server with a minimal environment plus env,
// its stderr going to the log, in a process group of its own.
func startProcess(name, command string, args []string, env map[string]string, cwd string, log hclog.Logger) (*process, error) {
	cmd := exec.Command(command, args...)
	cmd.Env = serverEnv(os.Environ(), env)
	cmd.Dir = cwd
	cmd.SysProcAttr = sysProcAttr()
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start MCP server %q: %w", name, err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, fmt.Errorf("start MCP server %q: %w", name, err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, fmt.Errorf("start MCP server %q: %w", name, err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := cmd.Start(); err != nil {
		closeAll(inR, inW, outR, outW, errR, errW)
		return nil, fmt.Errorf("MCP server %q: cannot run %q: %v; check its command in mcp.json: %w",
			name, command, unwrapExec(err), sdk.ErrUnavailable)
	}
	closeAll(inR, outW, errW) // the child's ends
	p := &process{name: name, cmd: cmd, stdin: inW, stdout: outR, exited: make(chan struct{}), errEOF: make(chan struct{}), termDone: make(chan struct{})}
	slog := log.Named("server").With("server", name)
	go p.copyStderr(errR, slog)
	go func() {
		_ = cmd.Wait()
		p.state = cmd.ProcessState
		close(p.exited)
	}()
	slog.Debug("started", "pid", cmd.Process.Pid, "command", command)
	return p, nil
}

func unwrapExec(err error) error {
	if e, ok := err.(*exec.Error); ok {
		return e.Err
	}
	return err
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		_ = f.Close()
	}
}

func (p *process) copyStderr(r io.ReadCloser, log hclog.Logger) {
	defer close(p.errEOF)
	defer r.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		p.last.set(line)
		log.Info(line)
	}
}

// describe says how the process ended, with its last stderr line when it
// exited with an error status of its own. It is called once the process
// has exited; its last words may still be in the pipe, so it waits a
// little for the end of stderr (a child that outlives it may hold the
// pipe open).
func (p *process) describe() string {
	select {
	case <-p.errEOF:
	case <-time.After(stderrGrace):
	}
	how := "exited"
	if p.state != nil {
		how = p.state.String() // "exit status 1", "signal: killed"
	}
	if l := p.last.get(); l != "" && p.state != nil && p.state.Exited() && p.state.ExitCode() != 0 {
		how += ": " + truncate(l, 160)
	}
	return how
}

// terminate ends the process group: stdin closed, then SIGTERM, then
// SIGKILL. It returns when the group is gone (or after the SIGKILL).
func (p *process) terminate() {
	p.termOnce.Do(func() {
		defer close(p.termDone)
		_ = p.stdin.Close()
		select {
		case <-p.exited:
		case <-time.After(stdinGrace):
		}
		if !p.waitGroupGone(0) {
			signalGroup(p.cmd.Process, termSignal)
			if !p.waitGroupGone(killWait) {
				signalGroup(p.cmd.Process, killSignal)
				p.waitGroupGone(killWait)
			}
		}
		_ = p.stdout.Close()
	})
	<-p.termDone
}

// waitGroupGone reports whether the process's group is gone within d. It
// waits for the leader to be reaped, then polls the rest of the group
// (which sends no event), reaping the orphans that end.
func (p *process) waitGroupGone(d time.Duration) bool {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	select {
	case <-p.exited:
	default: // checked first: with d == 0 both cases may be ready
		select {
		case <-p.exited:
		case <-deadline.C:
			return false
		}
	}
	pid := p.cmd.Process.Pid
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		reapGroup(pid)
		if !groupAlive(pid) {
			return true
		}
		select {
		case <-tick.C:
		case <-deadline.C:
			return false
		}
	}
}

// serverEnv is a stdio server's environment: the basics a program needs
// from the plugin's own environment (never its API keys; the plugin's is
// already allowlisted by the kernel) plus the server's env from mcp.json.
func serverEnv(environ []string, extra map[string]string) []string {
	env := make([]string, 0, 16+len(extra))
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if _, override := extra[k]; !override && serverEnvAllowed(k) {
			env = append(env, kv)
		}
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+extra[k])
	}
	return env
}

var serverEnvVars = map[string]bool{
	"PATH": true, "HOME": true, "USER": true, "LOGNAME": true, "SHELL": true,
	"TMPDIR": true, "TMP": true, "TEMP": true, "TZ": true, "LANG": true, "LANGUAGE": true, "TERM": true,
	"HTTP_PROXY": true, "HTTPS_PROXY": true, "NO_PROXY": true, "ALL_PROXY": true,
	"http_proxy": true, "https_proxy": true, "no_proxy": true, "all_proxy": true,
	"SSL_CERT_FILE": true, "SSL_CERT_DIR": true, "NODE_EXTRA_CA_CERTS": true,
	"XDG_CONFIG_HOME": true, "XDG_CACHE_HOME": true, "XDG_DATA_HOME": true, "XDG_RUNTIME_DIR": true,
	"SYSTEMROOT": true, "SystemRoot": true, "WINDIR": true, "COMSPEC": true, "PATHEXT": true,
	"APPDATA": true, "LOCALAPPDATA": true, "USERPROFILE": true,
}

func serverEnvAllowed(k string) bool {
	return serverEnvVars[k] || strings.HasPrefix(k, "LC_") ||
		runtime.GOOS == "windows" && serverEnvVars[strings.ToUpper(k)]
}

// lastLine keeps the last line written to it.
type lastLine struct {
	mu   sync.Mutex
	line string
}

func (l *lastLine) set(s string) {
	l.mu.Lock()
	l.line = s
	l.mu.Unlock()
}

func (l *lastLine) get() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.line
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
