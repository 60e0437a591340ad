package plugins

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/coyote-cli/coyote/kernel/envlist"
	"github.com/coyote-cli/coyote/sdk"
)

// Options configure a Host.
type Options struct {
	// Dirs is the plugin search path (see SearchPath).
	Dirs []string
	// Logger receives the host's log and every plugin's stderr.
	Logger hclog.Logger
	// StartTimeout bounds a plugin's whole start: launch, handshake and
	// its first answer. Zero means 10 seconds.
	StartTimeout time.Duration
	// Environ is the kernel's environment (os.Environ() if nil); plugins get
	// only the allowlisted part of it.
	Environ []string
	// LockFile is the plugin lock (see Lock). When the file exists, only
	// binaries it lists with their digest are launched; "" or a missing
	// file checks nothing.
	LockFile string
	// CacheDir keeps the digests of plugin binaries between runs, so the
	// lock check does not hash a binary at every launch. "" keeps them
	// for this host only.
	CacheDir string
}

// Host owns every plugin process of one kernel.
type Host struct {
	opts Options

	mu      sync.Mutex
	plugins map[string]*Plugin // by binary name; aliases share one

	closing   chan struct{} // closed by Close: starts in progress give up
	closeOnce sync.Once
	// aside counts processes being stopped in the background (starts
	// abandoned by their caller, plugins that stopped answering); Close
	// waits for them, for a while.
	aside sync.WaitGroup
	// digests are the plugin binaries' SHA-256, for the lock.
	digests digestCache
	// startTimeout is opts.StartTimeout, changed by SetStartTimeout.
	startTimeout atomic.Int64
}

// SetStartTimeout bounds the starts from now on (a host made before the
// configuration was read, to resolve its secrets, learns
// plugin_start_timeout this way).
func (h *Host) SetStartTimeout(d time.Duration) {
	if d > 0 {
		h.startTimeout.Store(int64(d))
	}
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
	h := &Host{opts: opts, plugins: map[string]*Plugin{}, closing: make(chan struct{})}
	h.startTimeout.Store(int64(opts.StartTimeout))
	if opts.CacheDir != "" {
		h.digests.path = filepath.Join(opts.CacheDir, digestCacheName)
	}
	return h
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

// closeWait bounds how long Close waits for processes stopped in the
// background. They were killed already; only a process the OS cannot end
// (stuck in the kernel) would take longer, and it must not hold coyote.
const closeWait = 5 * time.Second

// Close stops every plugin process, in parallel, and waits for them. Starts
// in progress give up. It is safe to call more than once.
func (h *Host) Close() {
	h.closeOnce.Do(func() { close(h.closing) })
	h.mu.Lock()
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
	aside := make(chan struct{})
	go func() {
		h.aside.Wait()
		close(aside)
	}()
	select {
	case <-aside:
	case <-time.After(closeWait):
		h.opts.Logger.Warn("gave up waiting for plugin processes to end", "waited", closeWait)
	}
}

func (h *Host) isClosed() bool {
	select {
	case <-h.closing:
		return true
	default:
		return false
	}
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
	// stopGrace is how long stopping a process may take the polite way
	// (go-plugin's shutdown call, then its own kill) before the host kills
	// the process group itself: a plugin that no longer answers must not
	// hold coyote's exit.
	stopGrace = 3 * time.Second
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
	handles  map[string]any // the *Handle of each kind, by kind name
}

// Process is one running plugin process.
type Process struct {
	Gen    int
	client *goplugin.Client
	rpc    goplugin.ClientProtocol
	runner *procRunner
	tail   *tail

	desc *sdk.Description // set by the start, never nil

	mu    sync.Mutex
	state map[string]any // per-process state of typed handles, by kind
}

// Dispense returns the kernel-side client of one kind for this process.
func (p *Process) Dispense(kind string) (any, error) { return p.rpc.Dispense(kind) }

// Description says who the process is: the plugin's answer to Describe,
// which the host asks for once, as the last step of the start (a process
// that does not answer it never starts).
func (p *Process) Description() *sdk.Description { return p.desc }

func describe(ctx context.Context, rpc goplugin.ClientProtocol) (*sdk.Description, error) {
	d, err := sdk.DispenseDescriber(rpc)
	if err != nil {
		return nil, err
	}
	return d.Describe(ctx)
}

// PID is the process id.
func (p *Process) PID() int { return p.runner.pid }

// Exited is closed when the process has ended.
func (p *Process) Exited() <-chan struct{} { return p.runner.exited }

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

// Acquire returns the live process, starting one if there is none (or the
// last one died). Concurrent callers share one start.
//
// The start is bounded by StartTimeout as a whole, and a caller whose ctx
// ends (Ctrl-C, SIGTERM) or a Close returns at once; in every case the
// half-started process is killed with its process group, in the
// background.
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
		return nil, pl.shuttingDown()
	}
	if err := pl.restingLocked(); err != nil {
		return nil, err
	}
	// A refusal is not a failure of the plugin: it does not count
	// towards the backoff, and the next call checks again.
	if err := pl.host.CheckLaunch(pl.Found); err != nil {
		return nil, err
	}
	timeout := time.Duration(pl.host.startTimeout.Load())
	l := newLaunch(timeout)
	go func() {
		proc, err := pl.start(l)
		l.done <- launchResult{proc, err}
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case r := <-l.done:
		if r.err != nil {
			pl.recordFailureLocked(r.err)
			return nil, r.err
		}
		pl.gen++
		r.proc.Gen = pl.gen
		pl.cur = r.proc
		pl.log.Debug("plugin started", "pid", r.proc.PID(), "generation", pl.gen, "took", time.Since(l.began))
		return r.proc, nil
	case <-timer.C:
		err := l.timeoutError(pl.Found)
		pl.abandon(l)
		pl.recordFailureLocked(err)
		return nil, err
	case <-ctx.Done():
		pl.abandon(l)
		return nil, ctx.Err()
	case <-pl.host.closing:
		pl.abandon(l)
		return nil, pl.shuttingDown()
	}
}

func (pl *Plugin) shuttingDown() error {
	return &StartError{Binary: pl.Binary, Path: pl.Path, Reason: "the kernel is shutting down"}
}

// abandon stops a start that nobody waits for any more: its process is
// killed with its group at once, and whatever the start had built is
// released in the background (Close waits for that).
func (pl *Plugin) abandon(l *launch) {
	l.stop()
	pl.host.aside.Add(1)
	go func() {
		defer pl.host.aside.Done()
		if r := <-l.done; r.proc != nil {
			stopProcess(r.proc)
		}
	}()
}

// Call runs fn against the live process. If fn fails because the process
// died, the error becomes a *CrashError naming the plugin and how it ended;
// if the process lives but its connection broke, it is stopped and the
// error says it stopped answering. Either way the next call starts a fresh
// process.
func (pl *Plugin) Call(ctx context.Context, fn func(*Process) error) error {
	proc, err := pl.Acquire(ctx)
	if err != nil {
		return err
	}
	err = fn(proc)
	if !sdk.IsTransportError(err) || ctx.Err() != nil {
		return err
	}
	if status.Code(err) == codes.Unimplemented {
		// The plugin is older than the call: the contract grew since it
		// was built. Typed handles check capabilities first; this is the
		// net under a call that has none.
		return pl.unimplemented(proc, err)
	}
	// Not an error the plugin reported: the connection broke. If the
	// process is gone, say so.
	var failure *CrashError
	switch {
	case waitExit(proc.runner, exitGrace):
		failure = pl.crashError(proc)
	case status.Code(err) == codes.Unavailable:
		// Alive, but its socket no longer answers: it is of no use any
		// more, and would fail every call.
		failure = &CrashError{Binary: pl.Binary, Reason: socketReason(err), Unanswered: true}
	default:
		return fmt.Errorf("plugin %s: %w", pl.Binary, err)
	}
	pl.mu.Lock()
	if pl.cur == proc {
		pl.recordFailureLocked(failure)
		pl.cur = nil
	}
	pl.mu.Unlock()
	pl.log.Error("plugin failed", "error", failure, "cause", err)
	// Reap go-plugin's goroutines and socket directory; a process that
	// stopped answering is killed.
	pl.host.aside.Add(1)
	go func() {
		defer pl.host.aside.Done()
		stopProcess(proc)
	}()
	return failure
}

// unknownCall matches gRPC's answer to a method or service the plugin
// does not serve; compiled on first use, as nothing may cost start-up.
var unknownCall = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`unknown (?:method (\w+) for service|service) (\S+)`)
})

// unimplemented is a call the plugin does not serve, as a readable
// sdk.ErrUnsupported.
func (pl *Plugin) unimplemented(proc *Process, err error) error {
	what := "this call"
	if m := unknownCall().FindStringSubmatch(status.Convert(err).Message()); m != nil {
		what = "service " + m[2]
		if m[1] != "" {
			what = m[1] + " of " + m[2]
		}
	}
	return fmt.Errorf("%s is not supported by plugin %s %s (it is older than this coyote; upgrade it): %w", what, pl.Binary, versionName(proc.desc.Version), sdk.ErrUnsupported)
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

// stop ends the live process, if any.
func (pl *Plugin) stop() {
	pl.mu.Lock()
	proc := pl.cur
	pl.cur = nil
	pl.mu.Unlock()
	if proc != nil {
		stopProcess(proc)
	}
}

// stopProcess ends a process: politely through go-plugin (its shutdown
// call, then a kill), and by killing its process group when that takes
// longer than stopGrace, as it does for a plugin that accepts connections
// but no longer answers.
func stopProcess(proc *Process) {
	done := make(chan struct{})
	go func() {
		proc.client.Kill()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(stopGrace):
		_ = proc.runner.Kill(context.Background())
		<-done
	}
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
// message ("embeddings", "keyword search").
func (pl *Plugin) requireCap(proc *Process, capability, what string) error {
	if desc := proc.Description(); !desc.Has(capability) {
		return fmt.Errorf("%s is not supported by plugin %s %s: %w", what, pl.Binary, versionName(desc.Version), sdk.ErrUnsupported)
	}
	return nil
}

// versionName is a plugin's version as messages show it: "v1.2.3".
func versionName(v string) string {
	if v == "" || strings.HasPrefix(v, "v") {
		return v
	}
	return "v" + v
}

// pluginEnv is the environment a plugin gets: the allowlisted variables of
// the kernel's environment (never API keys or other secrets; those reach a
// plugin through Configure), plus the log level.
func pluginEnv(environ []string, log hclog.Logger) []string {
	env := make([]string, 0, 16)
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if envlist.Base.Has(k) || pluginProxyEnv.Has(k) {
			env = append(env, kv)
		}
	}
	return append(env, sdk.EnvLogLevel+"="+levelName(log))
}

// pluginProxyEnv are the proxy variables, which a plugin gets on top of
// envlist.Base (the list tools start from too) as they are, credentials
// included, so that a plugin that calls out gets through an
// authenticating proxy. (Tools get them without the credentials.)
var pluginProxyEnv = envlist.Names{
	"HTTP_PROXY": true, "HTTPS_PROXY": true, "ALL_PROXY": true,
	"http_proxy": true, "https_proxy": true, "all_proxy": true,
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
