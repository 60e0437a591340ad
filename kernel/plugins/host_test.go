package plugins

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/provider"
	"github.com/coyote-cli/coyote/sdk/ragstore"
)

// The test binary doubles as every test plugin: the host under test runs
// it through a small wrapper script named like a plugin, which sets
// COYOTE_TEST_PLUGIN (the host itself passes no such variable through).
func TestMain(m *testing.M) {
	if mode := os.Getenv("COYOTE_TEST_PLUGIN"); mode != "" {
		serveTestPlugin(mode)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func serveTestPlugin(mode string) {
	switch mode {
	case "proto2":
		set := sdk.PluginSet(sdk.Info{Name: "proto2"}, provider.Plugin(&testProvider{}))
		goplugin.Serve(&goplugin.ServeConfig{
			HandshakeConfig:  sdk.Handshake,
			VersionedPlugins: map[int]goplugin.PluginSet{2: set},
			GRPCServer:       goplugin.DefaultGRPCServer,
		})
	case "garbage":
		fmt.Println("Hello! I am not a plugin at all.")
	case "dies":
		fmt.Fprintln(os.Stderr, "fatal: cannot read my settings")
		os.Exit(4)
	case "mute":
		time.Sleep(time.Hour) // never completes the handshake
	case "deadsocket":
		// A handshake naming a socket nobody listens on; then wait for the
		// kernel to go.
		fmt.Printf("1|1|unix|%s|grpc\n", filepath.Join(os.Getenv("PLUGIN_UNIX_SOCKET_DIR"), "nobody-listens-here"))
		_, _ = io.Copy(io.Discard, os.NewFile(3, "lifeline"))
	case "hangup":
		// Serves; "hangup" shuts its sockets down and the process stays,
		// as a plugin whose gRPC server died would.
		sdk.OnExit(func() {
			if hungUp.Load() {
				select {}
			}
		})
		sdk.Serve(sdk.Info{Name: mode, Version: "1.2.3"}, provider.Plugin(&testProvider{}))
	default:
		sdk.Serve(sdk.Info{Name: mode, Version: "1.2.3", Capabilities: []string{"testing"}}, provider.Plugin(&testProvider{}))
	}
}

// hungUp is set once the "hangup" mode has shut its sockets down.
var hungUp atomic.Bool

// testProvider acts on the last user message.
type testProvider struct{}

func (*testProvider) Configure(_ context.Context, req *provider.ConfigureRequest) (*provider.ConfigureResponse, error) {
	if req.Client.APIBase == "reject" {
		return nil, fmt.Errorf("api_base %q is not usable: %w", req.Client.APIBase, sdk.ErrInvalidArgument)
	}
	return &provider.ConfigureResponse{}, nil
}

func (*testProvider) ListModels(context.Context, *provider.ListModelsRequest) (*provider.ListModelsResponse, error) {
	return &provider.ListModelsResponse{Models: []provider.Model{{Name: "m", Type: provider.ModelChat}}}, nil
}

func (*testProvider) Chat(ctx context.Context, req *provider.ChatRequest, send func(*provider.ChatEvent) error) error {
	say := func(s string) error { return send(&provider.ChatEvent{Text: s}) }
	switch last := req.Messages[len(req.Messages)-1].Text(); last {
	case "crash":
		_ = say("partial ")
		os.Exit(3)
	case "panic":
		_ = say("partial ")
		panic("boom from the test plugin")
	case "pid":
		return say(strconv.Itoa(os.Getpid()))
	case "abort":
		// A Go program dying of SIGABRT prints "SIGABRT: abort", a stack
		// and a register dump, and exits with status 2.
		abortSelf()
		select {}
	case "hangup":
		hungUp.Store(true)
		shutdownSockets()
		select {}
	case "env":
		b, err := io.ReadAll(os.Stdin)
		return say(fmt.Sprintf("secret=%q stdin=%q/%v path=%v", os.Getenv("COYOTE_TEST_SECRET"), b, err, os.Getenv("PATH") != ""))
	case "notfound":
		return fmt.Errorf("model %q does not exist: %w", req.Model, sdk.ErrNotFound)
	case "wait":
		_ = say("waiting")
		<-ctx.Done()
		return ctx.Err()
	default:
		return say("ok:" + last)
	}
	return nil
}

// testHost returns a host whose plugin directory holds one wrapper per mode,
// named coyote-provider-<mode>.
func testHost(t *testing.T, opts Options, modes ...string) *Host {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, mode := range modes {
		script := fmt.Sprintf("#!/bin/sh\nCOYOTE_TEST_PLUGIN=%s exec %q\n", mode, exe)
		if err := os.WriteFile(filepath.Join(dir, BinaryName("provider", mode)), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	opts.Dirs = []string{dir}
	if opts.Logger == nil {
		opts.Logger = hclog.New(&hclog.LoggerOptions{Output: testWriter{t}, Level: hclog.Debug})
	}
	h := New(opts)
	t.Cleanup(h.Close)
	return h
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func chat(t *testing.T, p *Provider, text string) (string, error) {
	t.Helper()
	var out strings.Builder
	err := p.Chat(context.Background(), &provider.ChatRequest{
		Client:   "c",
		Model:    "m",
		Messages: []provider.Message{provider.TextMessage(provider.RoleUser, text)},
	}, func(ev *provider.ChatEvent) error {
		out.WriteString(ev.Text)
		return nil
	})
	return out.String(), err
}

func configured(t *testing.T, h *Host, mode string) *Provider {
	t.Helper()
	p, err := h.Provider(mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Configure(context.Background(), &provider.ConfigureRequest{Client: provider.ClientConfig{Name: "c", Type: mode}}); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestProviderStartsLazilyAndReusesOneProcess(t *testing.T) {
	h := testHost(t, Options{}, "good")
	p := configured(t, h, "good")
	if p.Plugin().cur != nil {
		t.Fatal("a process was started before the first call")
	}
	first, err := chat(t, p, "pid")
	if err != nil {
		t.Fatal(err)
	}
	second, err := chat(t, p, "pid")
	if err != nil {
		t.Fatal(err)
	}
	if first != second {
		t.Fatalf("second call ran in another process: %s then %s", first, second)
	}
	proc := p.Plugin().cur
	h.Close()
	select {
	case <-proc.Exited():
	default:
		t.Fatal("plugin process still running after Close")
	}
}

func TestCrashMidStreamIsReportedAndNextCallRelaunches(t *testing.T) {
	h := testHost(t, Options{}, "good")
	p := configured(t, h, "good")
	before, err := chat(t, p, "pid")
	if err != nil {
		t.Fatal(err)
	}
	got, err := chat(t, p, "crash")
	var crash *CrashError
	if !errors.As(err, &crash) {
		t.Fatalf("err = %v (%T), want *CrashError", err, err)
	}
	if crash.Binary != "coyote-provider-good" || crash.Exit != "exit status 3" {
		t.Fatalf("crash = %+v", crash)
	}
	// What the plugin sent just before dying may or may not have left its
	// buffers; nothing else may appear.
	if got != "partial " && got != "" {
		t.Fatalf("output before the crash = %q", got)
	}
	after, err := chat(t, p, "pid")
	if err != nil {
		t.Fatalf("call after crash: %v", err)
	}
	if after == before {
		t.Fatal("the call after the crash did not run in a new process")
	}
	if gen := p.Plugin().cur.Gen; gen != 2 {
		t.Fatalf("generation = %d, want 2", gen)
	}
}

func TestPanicReasonIsInTheCrashError(t *testing.T) {
	h := testHost(t, Options{}, "good")
	p := configured(t, h, "good")
	_, err := chat(t, p, "panic")
	var crash *CrashError
	if !errors.As(err, &crash) {
		t.Fatalf("err = %v, want *CrashError", err)
	}
	if crash.Reason != "panic: boom from the test plugin" || crash.Exit != "exit status 2" {
		t.Fatalf("crash = %+v", crash)
	}
}

func TestRepeatedCrashesBackOffInsteadOfLooping(t *testing.T) {
	h := testHost(t, Options{}, "good")
	p := configured(t, h, "good")
	for i := 0; i < maxFailures; i++ {
		if _, err := chat(t, p, "crash"); !errors.As(err, new(*CrashError)) {
			t.Fatalf("crash %d: err = %v", i, err)
		}
	}
	gen := p.Plugin().gen
	_, err := chat(t, p, "hello")
	var rest *BackoffError
	if !errors.As(err, &rest) {
		t.Fatalf("err = %v, want *BackoffError", err)
	}
	if rest.Failures != maxFailures || rest.RetryIn <= 0 || !errors.As(err, new(*CrashError)) {
		t.Fatalf("backoff = %+v", rest)
	}
	if p.Plugin().gen != gen {
		t.Fatal("a resting plugin was started anyway")
	}
}

func TestPluginErrorsKeepTheirClassAndDoNotCountAsCrashes(t *testing.T) {
	h := testHost(t, Options{}, "good")
	p := configured(t, h, "good")
	_, err := chat(t, p, "notfound")
	if !errors.Is(err, sdk.ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
	if !strings.Contains(err.Error(), `model "m" does not exist`) {
		t.Fatalf("message lost: %v", err)
	}
	if len(p.Plugin().failures) != 0 {
		t.Fatal("a plugin-reported error was counted as a failure")
	}
}

func TestConfigureErrorSurfacesOnPrepare(t *testing.T) {
	h := testHost(t, Options{}, "good")
	p, _ := h.Provider("good")
	_, _ = p.Configure(context.Background(), &provider.ConfigureRequest{Client: provider.ClientConfig{Name: "c", APIBase: "reject"}})
	if err := p.Prepare(context.Background(), "c"); !errors.Is(err, sdk.ErrInvalidArgument) {
		t.Fatalf("err = %v, want ErrInvalidArgument", err)
	}
}

func TestReconfigureReachesTheLiveProcess(t *testing.T) {
	h := testHost(t, Options{}, "good")
	p := configured(t, h, "good")
	if _, err := chat(t, p, "hi"); err != nil {
		t.Fatal(err)
	}
	_, _ = p.Configure(context.Background(), &provider.ConfigureRequest{Client: provider.ClientConfig{Name: "c", APIBase: "reject"}})
	if _, err := chat(t, p, "hi"); !errors.Is(err, sdk.ErrInvalidArgument) {
		t.Fatalf("err = %v: the new configuration was not sent", err)
	}
}

func TestPluginGetsNoSecretsAndNoStdin(t *testing.T) {
	environ := append(os.Environ(), "COYOTE_TEST_SECRET=sk-very-secret")
	h := testHost(t, Options{Environ: environ}, "good")
	p := configured(t, h, "good")
	got, err := chat(t, p, "env")
	if err != nil {
		t.Fatal(err)
	}
	if want := `secret="" stdin=""/<nil> path=true`; got != want {
		t.Fatalf("plugin saw %s, want %s", got, want)
	}
}

func TestCancelledCallIsNotACrash(t *testing.T) {
	h := testHost(t, Options{}, "good")
	p := configured(t, h, "good")
	ctx, cancel := context.WithCancel(context.Background())
	err := p.Chat(ctx, &provider.ChatRequest{Client: "c", Messages: []provider.Message{provider.TextMessage("user", "wait")}},
		func(*provider.ChatEvent) error { cancel(); return nil })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if _, err := chat(t, p, "hi"); err != nil || p.Plugin().gen != 1 {
		t.Fatalf("after cancel: err=%v gen=%d", err, p.Plugin().gen)
	}
}

func TestStartFailuresAreOneReadableLine(t *testing.T) {
	tests := []struct {
		mode string
		want string
	}{
		{"proto2", "plugin coyote-provider-proto2 speaks plugin protocol 2 but this coyote speaks protocol 1: upgrade coyote"},
		{"garbage", `plugin coyote-provider-garbage failed to start: it printed "Hello! I am not a plugin at all." instead of the plugin handshake; is it a Coyote plugin?`},
		{"dies", "plugin coyote-provider-dies failed to start: it exited before the handshake (exit status 4): fatal: cannot read my settings"},
		{"mute", "plugin coyote-provider-mute failed to start: it never completed the handshake within 2s (plugin_start_timeout; raise it if the plugin is only slow)"},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			t.Parallel()
			// Only the plugin that never answers waits for the timeout;
			// the others get plenty, as a loaded machine may need.
			timeout := 30 * time.Second
			if tt.mode == "mute" {
				timeout = 2 * time.Second
			}
			h := testHost(t, Options{StartTimeout: timeout}, tt.mode)
			p := configured(t, h, tt.mode)
			_, err := chat(t, p, "hi")
			if err == nil || err.Error() != tt.want {
				t.Fatalf("err =\n  %v\nwant\n  %s", err, tt.want)
			}
		})
	}
}

func TestInspectDescribesGoodPluginsAndReportsBadOnes(t *testing.T) {
	h := testHost(t, Options{}, "good", "garbage")
	reports := h.Inspect(context.Background(), Discover(h.Dirs()), nil)
	if len(reports) != 2 {
		t.Fatalf("reports = %+v", reports)
	}
	bad, good := reports[0], reports[1]
	if good.Err != nil || good.Desc == nil || good.Desc.Version != "1.2.3" || good.Desc.ProtocolVersion != 1 ||
		!good.Desc.Has("testing") || !good.Desc.Has(provider.CapChat) || good.Desc.Kinds[0] != "provider" {
		t.Fatalf("good = %+v / %+v", good, good.Desc)
	}
	if bad.Err == nil || bad.Desc != nil {
		t.Fatalf("bad = %+v", bad)
	}
	if p := h.Plugin(good.Found); p.cur != nil {
		t.Fatal("Inspect left a process running")
	}
}

// A plugin the kernel is using (a RAG's store while .rag attach asks
// every store plugin what it can do) is described as it runs and left
// running, not stopped under its user.
func TestInspectLeavesAPluginInUseRunning(t *testing.T) {
	h := testHost(t, Options{}, "good")
	p := configured(t, h, "good")
	if _, err := chat(t, p, "hi"); err != nil {
		t.Fatal(err)
	}
	running := p.Plugin().live()
	reports := h.Inspect(context.Background(), Discover(h.Dirs()), nil)
	if len(reports) != 1 || reports[0].Err != nil || reports[0].Desc == nil || reports[0].Desc.Version != "1.2.3" {
		t.Fatalf("reports = %+v", reports)
	}
	if running == nil || p.Plugin().live() != running {
		t.Fatal("Inspect stopped a plugin in use")
	}
}

func TestCallerGivingUpDuringAStartReturnsAtOnce(t *testing.T) {
	// The plugin never completes its handshake and the start timeout is a
	// minute; the caller's deadline must win.
	h := testHost(t, Options{StartTimeout: time.Minute}, "mute")
	p := configured(t, h, "mute")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := p.Prepare(ctx, "c"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the caller's deadline", err)
	}
}

func TestCallThePluginDoesNotServeIsUnsupportedNotACrash(t *testing.T) {
	h := testHost(t, Options{}, "good")
	p := configured(t, h, "good")
	// A provider plugin asked for a RAG store service it does not serve,
	// as an old plugin is asked for an RPC added after it was built.
	err := p.Plugin().Call(context.Background(), func(proc *Process) error {
		raw, err := proc.Dispense(sdk.KindRAG)
		if err != nil {
			return err
		}
		_, err = raw.(ragstore.Store).Stats(context.Background(), &ragstore.StatsRequest{Store: "x"})
		return err
	})
	if !errors.Is(err, sdk.ErrUnsupported) || !strings.HasPrefix(err.Error(), "service coyotecli.ragstore.v1.RagStore is not supported by plugin coyote-provider-good v1.2.3") {
		t.Fatalf("err = %v", err)
	}
	if len(p.Plugin().failures) != 0 || p.Plugin().live() == nil {
		t.Fatal("an unimplemented call was taken for a crash")
	}
}

func TestSetStartTimeoutAppliesToLaterStarts(t *testing.T) {
	h := New(Options{StartTimeout: 10 * time.Second})
	defer h.Close()
	if got := time.Duration(h.startTimeout.Load()); got != 10*time.Second {
		t.Fatalf("start timeout %v", got)
	}
	h.SetStartTimeout(3 * time.Second)
	h.SetStartTimeout(0) // ignored: no bound is no answer
	if got := time.Duration(h.startTimeout.Load()); got != 3*time.Second {
		t.Fatalf("after SetStartTimeout: %v", got)
	}
}
