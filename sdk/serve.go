package sdk

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
)

// maxMessageSize bounds one gRPC message in either direction. It is well
// above the default 4 MiB so that large embedding batches, documents and
// tool results fit in one message.
const maxMessageSize = 256 << 20

var logger atomic.Pointer[hclog.Logger]

// Logger returns the plugin's logger. Its lines go to stderr as JSON, and the
// kernel copies them into its own log file at the kernel's log level.
func Logger() hclog.Logger {
	if l := logger.Load(); l != nil {
		return *l
	}
	l := newLogger("plugin")
	logger.CompareAndSwap(nil, &l)
	return *logger.Load()
}

func newLogger(name string) hclog.Logger {
	level := hclog.LevelFromString(os.Getenv(EnvLogLevel))
	if level == hclog.NoLevel {
		level = hclog.Info
	}
	return hclog.New(&hclog.LoggerOptions{
		Name:       name,
		Level:      level,
		Output:     os.Stderr,
		JSONFormat: true,
	})
}

// Serve runs the plugin until the kernel shuts it down, then exits the
// process. Call it from main with the plugin's Info and one Plugin per kind
// the binary serves (usually one).
//
// Run by hand (without the kernel's handshake cookie), the binary prints what
// it is and exits; with --version it prints its version.
func Serve(info Info, plugins ...Plugin) {
	if os.Getenv(Handshake.MagicCookieKey) != Handshake.MagicCookieValue {
		os.Exit(runByHand(info, plugins, os.Args, os.Stdout, os.Stderr))
	}
	// The kernel reads stdout and stderr; when it dies, a log line written
	// before the lifeline is seen would end the process with SIGPIPE,
	// skipping the exit hooks (a sandbox's run directory, an MCP server's
	// processes). Ignored, such a write just fails.
	signal.Ignore(syscall.SIGPIPE)
	l := newLogger(info.Name)
	logger.Store(&l)
	watchLifeline(l)
	watchTerm(l)
	goplugin.Serve(&goplugin.ServeConfig{
		HandshakeConfig:  Handshake,
		VersionedPlugins: VersionedPlugins(info, plugins...),
		GRPCServer:       newGRPCServer,
		Logger:           l,
	})
	runExitHooks()
	os.Exit(0)
}

// exitHooks run once before the plugin process exits.
var exitHooks hooks

// hooks is a list of functions run once, the last added first.
type hooks struct {
	mu   sync.Mutex
	fns  []func()
	once sync.Once
}

func (h *hooks) add(fn func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.fns = append(h.fns, fn)
}

// run runs the hooks once. A second caller (the lifeline's end and the
// kernel's death signal come together) waits until the first has finished
// them, so that neither exits the process half-way through.
func (h *hooks) run() {
	h.once.Do(func() {
		h.mu.Lock()
		fns := h.fns
		h.mu.Unlock()
		for i := len(fns) - 1; i >= 0; i-- {
			fns[i]()
		}
	})
}

// OnExit registers fn to run before the plugin process exits after Serve:
// when the kernel shuts it down, when the kernel has gone, and on
// SIGTERM. A plugin that owns child processes (the MCP bridge's servers)
// ends them here. Hooks run once, the last registered first; a hook
// should finish within a second or two.
func OnExit(fn func()) { exitHooks.add(fn) }

func runExitHooks() { exitHooks.run() }

// windowSize opens gRPC's flow-control windows wide: on a local socket the
// default 64 KiB window makes a large request wait for a window update.
const windowSize = 4 << 20

func newGRPCServer(opts []grpc.ServerOption) *grpc.Server {
	opts = append(opts,
		grpc.MaxRecvMsgSize(maxMessageSize), grpc.MaxSendMsgSize(maxMessageSize),
		grpc.InitialWindowSize(windowSize), grpc.InitialConnWindowSize(windowSize))
	return grpc.NewServer(opts...)
}

// runByHand explains the binary to a user who started it directly.
func runByHand(info Info, plugins []Plugin, args []string, stdout, stderr io.Writer) int {
	var kinds []string
	for _, p := range plugins {
		kinds = append(kinds, p.Kind())
	}
	self := "this program"
	if len(args) > 0 {
		self = filepath.Base(args[0])
	}
	for _, a := range args[1:] {
		if a == "--version" || a == "-V" || a == "version" {
			fmt.Fprintf(stdout, "%s %s (coyote %s plugin, protocol %d, sdk %s)\n",
				info.Name, info.Version, strings.Join(kinds, "+"), ProtocolVersion, Version)
			return 0
		}
	}
	fmt.Fprintf(stderr, "%s is a Coyote plugin (%s %s, protocol %d). coyote starts it when it is needed;\n"+
		"run `coyote plugins` to see the plugins coyote finds, or `%s --version`.\n",
		self, info.Name, info.Version, ProtocolVersion, self)
	return 1
}

// watchLifeline exits the process when the kernel's end of the lifeline pipe
// closes, which happens however the kernel ends, SIGKILL included.
func watchLifeline(l hclog.Logger) {
	s := os.Getenv(EnvLifelineFD)
	if s == "" {
		return
	}
	fd, err := strconv.Atoi(s)
	if err != nil || fd < 3 {
		l.Warn("ignoring bad lifeline descriptor", "value", s)
		return
	}
	f := os.NewFile(uintptr(fd), "coyote-lifeline")
	if f == nil {
		return
	}
	go func() {
		_, _ = io.Copy(io.Discard, f)
		exitAlone(l, "the kernel has gone; exiting")
	}()
}

// watchTerm exits cleanly on SIGTERM, which is also what Linux sends a
// plugin whose kernel died (the kernel asks for it with Pdeathsig).
func watchTerm(l hclog.Logger) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGTERM)
	go func() {
		<-ch
		exitAlone(l, "terminated; exiting")
	}()
}

// exitAlone ends a plugin whose kernel is gone, logging why. The kernel
// made the socket directory for this process alone; with the kernel gone,
// nobody else will remove it. Nobody reads stderr any more either: a write
// there (this log line, an exit hook's) must fail with EPIPE rather than
// kill the process with SIGPIPE before its exit hooks have run and the
// directory is gone.
func exitAlone(l hclog.Logger, why string) {
	signal.Ignore(syscall.SIGPIPE)
	l.Debug(why)
	runExitHooks()
	if dir := os.Getenv(goplugin.EnvUnixSocketDir); strings.HasPrefix(filepath.Base(dir), "plugin-dir") {
		_ = os.RemoveAll(dir)
	}
	os.Exit(0)
}
