package plugins

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
	"github.com/hashicorp/go-plugin/runner"
	"google.golang.org/grpc"
	"google.golang.org/grpc/status"

	"github.com/coyote-cli/coyote/sdk"
)

// launch is one start of a plugin process, shared between the goroutine
// that runs it and the caller waiting for it (Acquire), who may give up.
type launch struct {
	timeout time.Duration
	began   time.Time
	done    chan launchResult // receives the start's outcome, once
	// ctx ends the start's own calls (its first Describe) when it is
	// abandoned.
	ctx    context.Context
	cancel context.CancelFunc
	// handshaken is set once the plugin has printed its handshake line.
	handshaken atomic.Bool

	mu      sync.Mutex
	runner  *procRunner
	stopped bool
}

type launchResult struct {
	proc *Process
	err  error
}

func newLaunch(timeout time.Duration) *launch {
	ctx, cancel := context.WithCancel(context.Background())
	return &launch{timeout: timeout, began: time.Now(), done: make(chan launchResult, 1), ctx: ctx, cancel: cancel}
}

// started records the running process; false means the launch was
// abandoned meanwhile and the process must be killed.
func (l *launch) started(r *procRunner) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.runner = r
	return !l.stopped
}

// stop abandons the launch: its process, if it runs, is killed with its
// process group, and its calls are cancelled.
func (l *launch) stop() {
	l.mu.Lock()
	l.stopped = true
	r := l.runner
	l.mu.Unlock()
	l.cancel()
	if r != nil {
		_ = r.Kill(context.Background())
	}
}

// timeoutError says where the start was when its time ran out.
func (l *launch) timeoutError(f Found) error {
	reason := fmt.Sprintf("it never completed the handshake within %s (plugin_start_timeout; raise it if the plugin is only slow)", l.timeout)
	if l.handshaken.Load() {
		reason = fmt.Sprintf("it completed the handshake but did not answer on its socket within %s (plugin_start_timeout)", l.timeout)
	}
	return &StartError{Binary: f.Binary, Path: f.Path, Reason: reason, Err: errStartTimeout}
}

var errStartTimeout = errors.New("plugin start timed out")

// exitedGrace is how long a start whose first call failed waits for the
// process to be seen exiting; a process that died reports its exit within
// a few milliseconds.
const exitedGrace = 250 * time.Millisecond

// start launches a process, completes the handshake and asks the plugin
// to describe itself. The caller (Acquire) bounds it; everything here
// also ends soon after the launch is stopped.
func (pl *Plugin) start(l *launch) (*Process, error) {
	h := pl.host
	t := newTail(8 << 10)
	var r *procRunner
	client := goplugin.NewClient(&goplugin.ClientConfig{
		HandshakeConfig:  sdk.Handshake,
		VersionedPlugins: hostPlugins(),
		RunnerFunc: func(_ hclog.Logger, cmd *exec.Cmd, _ string) (runner.Runner, error) {
			var err error
			r, err = newProcRunner(pl.Path, append(append(pluginEnv(h.opts.Environ, h.opts.Logger), kindEnv(pl.Kind, h.opts.Environ)...), cmd.Env...), l.started)
			return r, err
		},
		AllowedProtocols: []goplugin.Protocol{goplugin.ProtocolGRPC},
		Logger:           quietLogger{pl.log},
		// Acquire's timer bounds the start and names the plugin; go-plugin's
		// own is only a backstop and must not fire first.
		StartTimeout:    l.timeout + time.Second,
		SkipHostEnv:     true,
		Stderr:          t,
		GRPCDialOptions: dialOptions,
	})
	rpc, err := client.Client()
	if err != nil {
		err = classifyStartError(pl.Found, r, t, sdk.ProtocolVersion, err)
		// Kill the group before go-plugin's Kill, which waits for the
		// process and its output to end.
		if r != nil {
			_ = r.Kill(context.Background())
		}
		client.Kill()
		return nil, err
	}
	l.handshaken.Store(true)
	// The handshake only named a socket. Ask who answers there, so that a
	// plugin whose socket is dead fails its start with one line instead of
	// its first call with a gRPC error; the answer is kept, and every
	// typed handle needs it.
	desc, err := describe(l.ctx, rpc)
	if err != nil {
		// A plugin that died right after its handshake leaves a dead
		// socket too; tell the two apart before killing the process.
		exited := waitExit(r, exitedGrace)
		_ = r.Kill(context.Background())
		client.Kill()
		reason := "it completed the handshake but does not answer on its socket: " + socketReason(err)
		if exited {
			reason = "it exited right after the handshake (" + r.exitDescription() + ")"
			if why := t.reason(); why != "" {
				reason += ": " + why
			}
		}
		return nil, &StartError{Binary: pl.Binary, Path: pl.Path, Reason: reason, Err: err}
	}
	return &Process{client: client, rpc: rpc, runner: r, tail: t, state: map[string]any{}, desc: desc}, nil
}

// dialError matches the part of a gRPC connection error that says what
// failed: "dial unix /tmp/plugin…/plugin.sock: connect: connection refused".
var dialError = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`dial (\w+ \S+?): (.*?)"?$`)
})

// socketReason is a gRPC connection failure in a few words.
func socketReason(err error) string {
	msg := status.Convert(err).Message()
	if m := dialError().FindStringSubmatch(msg); m != nil {
		return m[1] + ": " + m[2]
	}
	if msg == "" {
		msg = err.Error()
	}
	return strings.TrimPrefix(msg, "connection error: desc = ")
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
