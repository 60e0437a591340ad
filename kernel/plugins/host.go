package plugins

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
	"github.com/hashicorp/go-plugin/runner"
	"google.golang.org/grpc"

	"github.com/coyote-cli/coyote/sdk"
)

// Options configure a Host.
type Options struct {
	// Dirs is the plugin search path (see SearchPath).
	Dirs []string
	// Logger receives the host's log and every plugin's stderr.
	Logger hclog.Logger
	// StartTimeout bounds launch plus handshake. Zero means 10 seconds.
	StartTimeout time.Duration
	// Environ is the kernel's environment (os.Environ() if nil); plugins get
	// only the allowlisted part of it.
	Environ []string
}

// Host owns every plugin process of one kernel.
type Host struct {
	opts Options

	mu      sync.Mutex
	plugins map[string]*Plugin // by binary name; aliases share one
	closed  bool
	// aside counts starts abandoned by their caller that are being
	// stopped; Close waits for them.
	aside sync.WaitGroup
}

// New returns a host; it starts nothing.
func New(opts Options) *Host {
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = 10 * time.Second
	}
	if opts.Environ == nil {
		opts.Environ = os.Environ()
	}
	return &Host{opts: opts, plugins: map[string]*Plugin{}}
}

// Dirs is the host's plugin search path.
func (h *Host) Dirs() []string { return h.opts.Dirs }

// Lookup finds the plugin of a kind and name and returns its supervisor,
// without starting it.
func (h *Host) Lookup(kind, name string) (*Plugin, error) {
	binary := BinaryName(kind, name)
	h.mu.Lock()
	p, ok := h.plugins[binary]
	h.mu.Unlock()
	if ok {
		return p, nil
	}
	f, err := Find(h.opts.Dirs, kind, name)
	if err != nil {
		return nil, err
	}
	return h.Plugin(f), nil
}

// Plugin returns the supervisor of a found plugin, without starting it.
// Names that are links to the same binary (coyote-provider-openai and its
// alias coyote-provider-openai-compatible) share one supervisor, and so one
// process.
func (h *Host) Plugin(f Found) *Plugin {
	h.mu.Lock()
	defer h.mu.Unlock()
	if p, ok := h.plugins[f.Binary]; ok {
		return p
	}
	real := f.Path
	if rp, err := filepath.EvalSymlinks(f.Path); err == nil {
		real = rp
	}
	for _, p := range h.plugins {
		if p.real == real {
			h.plugins[f.Binary] = p
			return p
		}
	}
	p := &Plugin{host: h, Found: f, real: real, log: h.opts.Logger.Named(f.Binary), handles: map[string]any{}}
	h.plugins[f.Binary] = p
	return p
}

// Close stops every plugin process, in parallel, and waits for them. It is
// safe to call more than once.
func (h *Host) Close() {
	h.mu.Lock()
	h.closed = true
	seen := map[*Plugin]bool{}
	ps := make([]*Plugin, 0, len(h.plugins))
	for _, p := range h.plugins {
		if !seen[p] {
			seen[p] = true
			ps = append(ps, p)
		}
	}
	h.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range ps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.stop()
		}()
	}
	wg.Wait()
	h.aside.Wait()
}

func (h *Host) isClosed() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.closed
}

// Failure policy: a plugin may fail (crash or fail to start) this many times
// within failureWindow before the host rests it, for restBase doubling with
// each further failure, capped at restMax.
const (
	maxFailures   = 3
	failureWindow = time.Minute
	restBase      = 2 * time.Second
	restMax       = time.Minute
	// exitGrace is how long a failed call waits for the plugin process to
	// be reaped before deciding it is still alive.
	exitGrace = 2 * time.Second
)

// Plugin supervises the process of one plugin binary.
type Plugin struct {
	Found
	real string // the binary's path with links resolved
	host *Host
	log  hclog.Logger

	mu       sync.Mutex
	cur      *Process
	gen      int
	failures []time.Time
	lastErr  error
	handles  map[string]any // the typed handle of each kind, by kind name
}

// Process is one running plugin process.
type Process struct {
	Gen    int
	client *goplugin.Client
	rpc    goplugin.ClientProtocol
	runner *procRunner
	tail   *tail

	mu    sync.Mutex
	state map[string]any // per-process state of typed clients
	desc  *sdk.Description
}

// Dispense returns the kernel-side client of one kind for this process.
func (p *Process) Dispense(kind string) (any, error) { return p.rpc.Dispense(kind) }

// Describe asks the process who it is, once.
func (p *Process) Describe(ctx context.Context) (*sdk.Description, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.desc != nil {
		return p.desc, nil
	}
	d, err := sdk.DispenseDescriber(p.rpc)
	if err != nil {
		return nil, err
	}
	desc, err := d.Describe(ctx)
	if err != nil {
		return nil, err
	}
	p.desc = desc
	return desc, nil
}

// PID is the process id.
func (p *Process) PID() int { return p.runner.pid }

// Exited is closed when the process has ended.
func (p *Process) Exited() <-chan struct{} { return p.runner.exited }

// Acquire returns the live process, starting one if there is none (or the
// last one died). Concurrent callers share one start.
func (pl *Plugin) Acquire(ctx context.Context) (*Process, error) {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if pl.cur != nil {
		if !pl.cur.runner.hasExited() {
			return pl.cur, nil
		}
		pl.recordFailureLocked(pl.crashError(pl.cur))
		pl.cur = nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if pl.host.isClosed() {
		return nil, &StartError{Binary: pl.Binary, Path: pl.Path, Reason: "the kernel is shutting down"}
	}
	if err := pl.restingLocked(); err != nil {
		return nil, err
	}
	// The start itself is bounded by StartTimeout, not ctx; a caller whose
	// ctx ends (Ctrl-C) returns at once and the process, if it comes up,
	// is stopped.
	type started struct {
		proc *Process
		err  error
	}
	done := make(chan started, 1)
	launched := make(chan *procRunner, 1)
	go func() {
		proc, err := pl.start(launched)
		done <- started{proc, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			pl.recordFailureLocked(r.err)
			return nil, r.err
		}
		if pl.host.isClosed() { // Close ran during the start
			r.proc.client.Kill()
			return nil, &StartError{Binary: pl.Binary, Path: pl.Path, Reason: "the kernel is shutting down"}
		}
		pl.cur = r.proc
		return r.proc, nil
	case <-ctx.Done():
		pl.host.aside.Add(1)
		go func() {
			defer pl.host.aside.Done()
			// Stop the process being started rather than wait for its
			// handshake (or its start timeout).
			select {
			case r := <-launched:
				_ = r.Kill(context.Background())
			case <-done:
				done <- started{} // not launched at all
			}
			if r := <-done; r.proc != nil {
				r.proc.client.Kill()
			}
		}()
		return nil, ctx.Err()
	}
}

// Call runs fn against the live process. If fn fails because the process
// died, the error becomes a *CrashError naming the plugin and how it ended;
// the next call starts a fresh process.
func (pl *Plugin) Call(ctx context.Context, fn func(*Process) error) error {
	proc, err := pl.Acquire(ctx)
	if err != nil {
		return err
	}
	err = fn(proc)
	if !sdk.IsTransportError(err) {
		return err
	}
	// Not an error the plugin reported: the connection broke. If the
	// process is gone, say so.
	if !waitExit(proc.runner, exitGrace) {
		return fmt.Errorf("plugin %s: %w", pl.Binary, err)
	}
	crash := pl.crashError(proc)
	pl.mu.Lock()
	if pl.cur == proc {
		pl.recordFailureLocked(crash)
		pl.cur = nil
	}
	pl.mu.Unlock()
	pl.log.Error("plugin crashed", "error", crash, "cause", err)
	// Reap go-plugin's goroutines and socket directory. The process is
	// gone, so this returns at once.
	proc.client.Kill()
	return crash
}

func (pl *Plugin) crashError(proc *Process) *CrashError {
	return &CrashError{Binary: pl.Binary, Exit: proc.runner.exitDescription(), Reason: proc.tail.reason()}
}

func (pl *Plugin) recordFailureLocked(err error) {
	now := time.Now()
	keep := pl.failures[:0]
	for _, t := range pl.failures {
		if now.Sub(t) < failureWindow {
			keep = append(keep, t)
		}
	}
	pl.failures = append(keep, now)
	pl.lastErr = err
}

// restingLocked refuses a start while a plugin that keeps failing rests.
func (pl *Plugin) restingLocked() error {
	now := time.Now()
	n := 0
	var last time.Time
	for _, t := range pl.failures {
		if now.Sub(t) < failureWindow {
			n++
			last = t
		}
	}
	if n < maxFailures {
		return nil
	}
	rest := restBase << (n - maxFailures)
	if rest > restMax || rest <= 0 {
		rest = restMax
	}
	if wait := rest - now.Sub(last); wait > 0 {
		return &BackoffError{Binary: pl.Binary, Failures: n, Window: failureWindow, RetryIn: wait, Last: pl.lastErr}
	}
	return nil
}

// start launches a process and completes the handshake. The runner is
// sent on launched as soon as it exists, so that a caller who gives up can
// stop it.
func (pl *Plugin) start(launched chan<- *procRunner) (*Process, error) {
	h := pl.host
	t := newTail(8 << 10)
	var r *procRunner
	client := goplugin.NewClient(&goplugin.ClientConfig{
		HandshakeConfig:  sdk.Handshake,
		VersionedPlugins: hostPlugins(),
		RunnerFunc: func(_ hclog.Logger, cmd *exec.Cmd, _ string) (runner.Runner, error) {
			var err error
			r, err = newProcRunner(pl.Path, append(pluginEnv(h.opts.Environ, h.opts.Logger), cmd.Env...))
			if err == nil {
				r.launched = launched
			}
			return r, err
		},
		AllowedProtocols: []goplugin.Protocol{goplugin.ProtocolGRPC},
		Logger:           quietLogger{pl.log},
		StartTimeout:     h.opts.StartTimeout,
		SkipHostEnv:      true,
		Stderr:           t,
		GRPCDialOptions:  dialOptions,
	})
	started := time.Now()
	rpc, err := client.Client()
	if err != nil {
		client.Kill()
		return nil, classifyStartError(pl.Found, r, t, sdk.ProtocolVersion, err)
	}
	pl.gen++
	proc := &Process{Gen: pl.gen, client: client, rpc: rpc, runner: r, tail: t, state: map[string]any{}}
	pl.log.Debug("plugin started", "pid", r.pid, "generation", pl.gen, "took", time.Since(started))
	return proc, nil
}

// dialOptions open gRPC's flow-control windows wide: with the default
// 64 KiB window a large reply (a batch of 64 embeddings is about 100 KiB)
// waits for window updates; measured, one batch at a time through the
// Gemini plugin went from about 18,500 to about 21,500 inputs/s.
var dialOptions = []grpc.DialOption{
	grpc.WithInitialWindowSize(windowSize),
	grpc.WithInitialConnWindowSize(windowSize),
}

const windowSize = 4 << 20

// stop ends the live process, if any.
func (pl *Plugin) stop() {
	pl.mu.Lock()
	proc := pl.cur
	pl.cur = nil
	pl.mu.Unlock()
	if proc != nil {
		proc.client.Kill()
	}
}

// State returns the per-process value stored under key, creating it with mk
// on first use. Typed handles keep what they have set up in a process here
// (for example which provider clients were configured), so a restarted
// process is set up again.
func (p *Process) State(key string, mk func() any) any {
	p.mu.Lock()
	defer p.mu.Unlock()
	v, ok := p.state[key]
	if !ok {
		v = mk()
		p.state[key] = v
	}
	return v
}

// pluginEnv is the environment a plugin gets: the allowlisted variables of
// the kernel's environment (never API keys or other secrets; those reach a
// plugin through Configure), plus the log level.
func pluginEnv(environ []string, log hclog.Logger) []string {
	env := make([]string, 0, 16)
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if envAllowed(k) {
			env = append(env, kv)
		}
	}
	return append(env, sdk.EnvLogLevel+"="+levelName(log))
}

var allowedEnv = map[string]bool{
	"PATH": true, "HOME": true, "USER": true, "LOGNAME": true, "SHELL": true,
	"TMPDIR": true, "TMP": true, "TEMP": true, "TZ": true, "LANG": true, "LANGUAGE": true,
	"HTTP_PROXY": true, "HTTPS_PROXY": true, "NO_PROXY": true, "ALL_PROXY": true,
	"http_proxy": true, "https_proxy": true, "no_proxy": true, "all_proxy": true,
	// TLS trust: a corporate CA bundle must reach the plugins that call
	// out, and the stdio MCP servers the bridge starts (Node reads
	// NODE_EXTRA_CA_CERTS).
	// TERM lets a stdio MCP server (or a tool it runs) know what it may print.
	"SSL_CERT_FILE": true, "SSL_CERT_DIR": true, "NODE_EXTRA_CA_CERTS": true, "TERM": true,
	"XDG_CONFIG_HOME": true, "XDG_CACHE_HOME": true, "XDG_DATA_HOME": true, "XDG_RUNTIME_DIR": true,
	// Windows needs these to start processes and find its own directories.
	"SYSTEMROOT": true, "SystemRoot": true, "WINDIR": true, "COMSPEC": true, "PATHEXT": true,
	"APPDATA": true, "LOCALAPPDATA": true, "USERPROFILE": true,
}

func envAllowed(k string) bool {
	if allowedEnv[k] || strings.HasPrefix(k, "LC_") {
		return true
	}
	return runtime.GOOS == "windows" && allowedEnv[strings.ToUpper(k)]
}

func levelName(l hclog.Logger) string {
	switch {
	case l.IsTrace():
		return "trace"
	case l.IsDebug():
		return "debug"
	case l.IsInfo():
		return "info"
	case l.IsWarn():
		return "warn"
	}
	return "error"
}

// live returns the running process, or nil; it starts nothing.
func (pl *Plugin) live() *Process {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if pl.cur != nil && !pl.cur.runner.hasExited() {
		return pl.cur
	}
	return nil
}

// requireCap refuses, with a readable sdk.ErrUnsupported, a process whose
// plugin did not announce capability; what names the feature in the
// message ("embeddings", "keyword search"). A failed Describe is returned
// as it is: Plugin.Call names the plugin of a broken connection.
func (pl *Plugin) requireCap(ctx context.Context, proc *Process, capability, what string) error {
	desc, err := proc.Describe(ctx)
	if err != nil {
		return err
	}
	if !desc.Has(capability) {
		return fmt.Errorf("%s is not supported by plugin %s %s: %w", what, pl.Binary, desc.Version, sdk.ErrUnsupported)
	}
	return nil
}
