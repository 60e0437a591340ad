package e2e

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"

	"github.com/coyote-cli/coyote/kernel/plugins"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// The Node.js provider of sdk/examples/node-provider proves that the .proto
// files are the whole contract: a plugin in another language, run by the
// real kernel.
const nodeBinary = "coyote-provider-node-echo"

// nodePluginDir returns a plugin directory holding the Node.js example, as
// its header says to install it (a symbolic link, so that Node.js finds
// its packages and the .proto files). Without Node.js or its packages the
// test is skipped, except in CI, where that is a failure.
func nodePluginDir(t *testing.T) string {
	t.Helper()
	src, err := filepath.Abs(filepath.Join("..", "sdk", "examples", "node-provider"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		skipUnlessCI(t, "node is not installed: the Node.js plugin example needs Node.js 18 or later")
	}
	if _, err := os.Stat(filepath.Join(src, "node_modules", "@grpc", "grpc-js")); err != nil {
		skipUnlessCI(t, "the Node.js plugin example's packages are not installed: run ./scripts/install-test-deps.sh")
	}
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(src, nodeBinary), filepath.Join(dir, nodeBinary)); err != nil {
		t.Fatal(err)
	}
	return dir
}

func skipUnlessCI(t *testing.T, reason string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatal(reason + " (CI is set: the Node.js plugin must be tested there)")
	}
	t.Skip(reason)
}

// nodeConfig is a config.yaml whose default model is the Node.js plugin's;
// extra is YAML added to its client entry.
func nodeConfig(extra string) string {
	return "model: n:parrot\nclients:\n  - type: node-echo\n    name: n\n    models: [{name: parrot}]\n" + extra
}

func TestNodePluginAnswersAPromptThroughTheKernel(t *testing.T) {
	e := newEnv(t, nodeConfig("")).set("COYOTE_PLUGINS_DIR=" + nodePluginDir(t))
	r := e.run("", "hello", "from", "node")
	e.mustSucceed(r)
	if r.stdout != "hello from node\n" {
		t.Fatalf("stdout = %q", r.stdout)
	}
	log := e.log()
	// The plugin's hclog JSON line became a record of the kernel's log at
	// its own level, with its fields (in no particular order).
	if !recordLogged(log, "[DEBUG] coyote.coyote-provider-node-echo.coyote-provider-node-echo: echoed: ", "@module=node-echo", "client=n", "model=parrot", "words=3") {
		t.Errorf("the plugin's log record is not in the kernel's log:\n%s", log)
	}
	if strings.Contains(log, `{"@level"`) {
		t.Errorf("a plugin log line reached the kernel's log unparsed:\n%s", log)
	}
	// The kernel's GRPCController.Shutdown ended it; go-plugin did not
	// have to kill it.
	if !strings.Contains(log, "the kernel asked to shut down") || strings.Contains(log, "failed to exit gracefully") {
		t.Errorf("the plugin did not exit on Shutdown:\n%s", log)
	}
}

// recordLogged reports whether one line of log starts (after its time)
// with head and holds every field.
func recordLogged(log, head string, fields ...string) bool {
	for _, l := range strings.Split(log, "\n") {
		_, rest, _ := strings.Cut(l, " ")
		if !strings.HasPrefix(rest, head) {
			continue
		}
		all := true
		for _, f := range fields {
			all = all && strings.Contains(rest, " "+f)
		}
		if all {
			return true
		}
	}
	return false
}

// nodeProvider starts the Node.js plugin through a plugin host, as the
// kernel does, with its client "n" configured with options (the client's
// extra keys in config.yaml). It returns the provider and the host's log,
// which holds what the plugin logs.
func nodeProvider(t *testing.T, options map[string]any) (*plugins.Provider, *hostLog) {
	t.Helper()
	log := newHostLog()
	h := plugins.New(plugins.Options{Dirs: []string{nodePluginDir(t)},
		Logger: hclog.New(&hclog.LoggerOptions{Output: log, Level: hclog.Debug})})
	t.Cleanup(h.Close)
	p, err := h.Provider("node-echo")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Configure(context.Background(), &provider.ConfigureRequest{
		Client: provider.ClientConfig{Name: "n", Type: "node-echo", Options: options}}); err != nil {
		t.Fatal(err)
	}
	return p, log
}

// hostLog is a plugin host's log, which a test reads while the plugin
// runs.
type hostLog struct {
	mu      sync.Mutex
	text    strings.Builder
	changed chan struct{} // closed at each write
}

func newHostLog() *hostLog { return &hostLog{changed: make(chan struct{})} }

func (l *hostLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.text.Write(p)
	close(l.changed)
	l.changed = make(chan struct{})
	return len(p), nil
}

func (l *hostLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.text.String()
}

// waitFor returns the log once found reports true of it. After limit it
// fails the test: limit guards against a hang, it times nothing.
func (l *hostLog) waitFor(t *testing.T, limit time.Duration, found func(log string) bool) string {
	t.Helper()
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	for {
		l.mu.Lock()
		text, changed := l.text.String(), l.changed
		l.mu.Unlock()
		if found(text) {
			return text
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("the host's log did not show what the test waits for within %v:\n%s", limit, text)
		}
	}
}

func TestNodePluginIsListedWithItsVersionAndCapabilities(t *testing.T) {
	dir := nodePluginDir(t)
	e := newEnv(t, "").set("COYOTE_PLUGINS_DIR=" + dir)
	row := listedRow(t, e, nodeBinary)
	want := []string{nodeBinary, "provider", "0.1.0", "1", "chat,streaming", filepath.Join(dir, nodeBinary)}
	if got := strings.Fields(row); !reflect.DeepEqual(got, want) {
		t.Fatalf("row %q, want fields %q", row, want)
	}
}

func TestNodePluginErrorsKeepTheirClassAcrossTheWire(t *testing.T) {
	tests := []struct {
		name    string
		options map[string]any
		text    string
		want    error
	}{
		{"configure refuses a bad option", map[string]any{"word_delay_ms": -5}, "hello", sdk.ErrInvalidArgument},
		{"chat refuses a conversation with nothing to echo", nil, " ", sdk.ErrInvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, log := nodeProvider(t, tt.options)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			err := p.Chat(ctx, &provider.ChatRequest{Client: "n", Model: "parrot",
				Messages: []provider.Message{provider.TextMessage(provider.RoleUser, tt.text)}},
				func(*provider.ChatEvent) error { return nil })
			if !errors.Is(err, tt.want) || !sdk.IsPluginError(err) {
				t.Fatalf("err = %v (%T), want a plugin error matching %v; host log:\n%s", err, err, tt.want, log)
			}
		})
	}
}

func TestNodePluginStreamsTextUsageAndFinishReason(t *testing.T) {
	p, log := nodeProvider(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var events []provider.ChatEvent
	err := p.Chat(ctx, &provider.ChatRequest{Client: "n", Model: "parrot", Messages: []provider.Message{
		provider.TextMessage(provider.RoleSystem, "be a parrot"),
		provider.TextMessage(provider.RoleUser, "polly wants  a cracker"),
	}}, func(ev *provider.ChatEvent) error { events = append(events, *ev); return nil })
	if err != nil {
		t.Fatalf("%v; host log:\n%s", err, log)
	}
	want := []provider.ChatEvent{
		{Text: "polly"}, {Text: " wants"}, {Text: " a"}, {Text: " cracker"}, {Text: "\n"},
		{Usage: &provider.Usage{InputTokens: 7, OutputTokens: 4}},
		{FinishReason: "stop"},
	}
	if !reflect.DeepEqual(events, want) {
		t.Fatalf("events:\n%+v\nwant:\n%+v", events, want)
	}
}

// A cancelled call ends at once on the kernel's side, the plugin stops
// sending, and it keeps serving the next call.
func TestNodePluginChatCanBeCancelled(t *testing.T) {
	p, log := nodeProvider(t, map[string]any{"word_delay_ms": 20})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ask := func(ctx context.Context, cancelAfter int) (string, error) {
		var out strings.Builder
		n := 0
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		err := p.Chat(cctx, &provider.ChatRequest{Client: "n", Model: "parrot",
			Messages: []provider.Message{provider.TextMessage(provider.RoleUser, strings.Repeat("word ", 500))}},
			func(ev *provider.ChatEvent) error {
				out.WriteString(ev.Text)
				if n++; n == cancelAfter {
					cancel()
				}
				return nil
			})
		return out.String(), err
	}
	got, err := ask(ctx, 1)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled chat: err = %v after %q", err, got)
	}
	// That error is grpc-go's own, whatever the plugin does; only the
	// plugin can say it stopped. It logs "cancelled" with the words it had
	// sent when it stops early, and "echoed" when it sent them all.
	text := log.waitFor(t, time.Minute, func(s string) bool {
		return strings.Contains(s, ": cancelled: ") || strings.Contains(s, ": echoed: ")
	})
	if sent, words, ok := cancelledAt(text); !ok || sent >= words {
		t.Fatalf("the plugin did not stop when the call was cancelled; host log:\n%s", text)
	}
	// A word already on its way may still arrive after the cancel.
	if got, err := ask(ctx, 2); !errors.Is(err, context.Canceled) || !strings.HasPrefix(got, "word word") {
		t.Fatalf("the next chat: %q, %v", got, err)
	}
}

// cancelledAt finds the plugin's "cancelled" record in the host's log and
// returns the words it had sent of how many.
func cancelledAt(log string) (sent, words int, ok bool) {
	for _, l := range strings.Split(log, "\n") {
		if !strings.Contains(l, ": cancelled: ") {
			continue
		}
		s := regexp.MustCompile(` sent=(\d+)\b`).FindStringSubmatch(l)
		w := regexp.MustCompile(` words=(\d+)\b`).FindStringSubmatch(l)
		if s == nil || w == nil {
			return 0, 0, false
		}
		sent, _ = strconv.Atoi(s[1])
		words, _ = strconv.Atoi(w[1])
		return sent, words, true
	}
	return 0, 0, false
}

// startNodePlugin runs the plugin as the kernel would, with env, a
// lifeline pipe on descriptor 3 and its own socket directory; it returns
// the process, its stdout, the kernel's end of the lifeline and the socket
// directory.
func startNodePlugin(t *testing.T, dir string, env ...string) (*exec.Cmd, *bufio.Reader, *os.File, string) {
	t.Helper()
	lifeR, lifeW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lifeW.Close() })
	sockDir, err := os.MkdirTemp(t.TempDir(), "plugin-dir")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(dir, nodeBinary))
	cmd.Env = append([]string{
		"PATH=" + os.Getenv("PATH"),
		sdk.Handshake.MagicCookieKey + "=" + sdk.Handshake.MagicCookieValue,
		sdk.EnvLifelineFD + "=3",
		"PLUGIN_UNIX_SOCKET_DIR=" + sockDir,
	}, env...)
	cmd.ExtraFiles = []*os.File{lifeR}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lifeR.Close()
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd, bufio.NewReader(stdout), lifeW, sockDir
}

// The handshake line comes first on stdout, names the negotiated version
// (go-plugin's rule: the highest both sides speak, else the plugin's
// lowest for the host to refuse), and is all the plugin ever prints there.
// When the lifeline closes the plugin exits and removes its socket
// directory. The host's Pdeathsig is not involved: this test starts it.
func TestNodePluginHandshakeAndLifeline(t *testing.T) {
	dir := nodePluginDir(t)
	for _, offered := range []string{"1", "2,1", "3", ""} {
		t.Run("offered="+offered, func(t *testing.T) {
			cmd, stdout, lifeline, sockDir := startNodePlugin(t, dir, "PLUGIN_PROTOCOL_VERSIONS="+offered)
			line, err := stdout.ReadString('\n')
			if err != nil {
				t.Fatalf("handshake: %v (read %q)", err, line)
			}
			f := strings.Split(strings.TrimSuffix(line, "\n"), "|")
			if len(f) != 6 || f[0] != "1" || f[1] != "1" || f[2] != "unix" || filepath.Dir(f[3]) != sockDir || f[4] != "grpc" || f[5] != "" {
				t.Fatalf("handshake line %q, want 1|1|unix|%s/plugin…|grpc|", line, sockDir)
			}
			if _, err := os.Stat(f[3]); err != nil {
				t.Fatalf("socket: %v", err)
			}
			lifeline.Close() // the kernel is gone
			var rest []byte
			done := make(chan error, 1)
			go func() {
				rest, _ = io.ReadAll(stdout)
				done <- cmd.Wait()
			}()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("plugin ended with %v after its lifeline closed", err)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("plugin still running 30s after its lifeline closed")
			}
			if len(rest) > 0 {
				t.Errorf("plugin printed %q on stdout after the handshake", rest)
			}
			if _, err := os.Stat(sockDir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("socket directory left behind (stat: %v)", err)
			}
		})
	}
}

// go-plugin's own client, as any go-plugin host would use it: the health
// check it pings, Describe, and a graceful Kill through GRPCController.
func TestNodePluginServesWhatGoPluginExpects(t *testing.T) {
	dir := nodePluginDir(t)
	var logBuf bytes.Buffer
	client := goplugin.NewClient(&goplugin.ClientConfig{
		HandshakeConfig:  sdk.Handshake,
		VersionedPlugins: map[int]goplugin.PluginSet{sdk.ProtocolVersion: sdk.PluginSet(sdk.Info{}, provider.Plugin(nil))},
		Cmd:              exec.Command(filepath.Join(dir, nodeBinary)),
		AllowedProtocols: []goplugin.Protocol{goplugin.ProtocolGRPC},
		Logger:           hclog.New(&hclog.LoggerOptions{Output: &logBuf, Level: hclog.Debug}),
		StartTimeout:     30 * time.Second,
	})
	defer client.Kill()
	rpc, err := client.Client()
	if err != nil {
		t.Fatal(err)
	}
	if err := rpc.Ping(); err != nil {
		t.Fatalf("health check: %v", err)
	}
	d, err := sdk.DispenseDescriber(rpc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	desc, err := d.Describe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := &sdk.Description{Name: "node-echo", Kinds: []string{"provider"}, Version: "0.1.0", ProtocolVersion: 1,
		Capabilities: []string{"chat", "streaming"}, Description: "echoes the prompt back (Node.js)"}
	if !reflect.DeepEqual(desc, want) {
		t.Fatalf("Describe = %+v, want %+v", desc, want)
	}
	// Errors keep their class (ErrorInfo of the SDK's domain).
	raw, err := rpc.Dispense(sdk.KindProvider)
	if err != nil {
		t.Fatal(err)
	}
	prov := raw.(provider.Provider)
	if _, err := prov.ListModels(ctx, &provider.ListModelsRequest{Client: "nope"}); !errors.Is(err, sdk.ErrFailedPrecondition) ||
		err.Error() != `client "nope" is not configured` {
		t.Errorf("ListModels of an unconfigured client: %v", err)
	}
	if _, err := prov.(provider.Embedder).Embed(ctx, &provider.EmbedRequest{Client: "n", Inputs: []string{"x"}}); !errors.Is(err, sdk.ErrUnsupported) {
		t.Errorf("Embed: %v", err)
	}
	client.Kill()
	// Kill asked the plugin to shut down and did not have to force it;
	// the stdio stream go-plugin opens was served, not refused.
	if log := logBuf.String(); !client.Exited() || strings.Contains(log, "failed to exit gracefully") || strings.Contains(log, "Unimplemented") {
		t.Fatalf("go-plugin's log:\n%s", log)
	}
}

func TestNodePluginRunByHandExplainsItself(t *testing.T) {
	path := filepath.Join(nodePluginDir(t), nodeBinary)
	var out, errOut bytes.Buffer
	cmd := exec.Command(path)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); exitCode(err) != 1 || out.Len() > 0 ||
		!strings.Contains(errOut.String(), nodeBinary+" is a Coyote plugin (node-echo 0.1.0, protocol 1). coyote starts it when it is needed;") {
		t.Fatalf("run by hand: %v\nstdout %q\nstderr %q", err, out.String(), errOut.String())
	}
	v, err := exec.Command(path, "--version").Output()
	if err != nil || !strings.HasPrefix(string(v), "node-echo 0.1.0 (coyote provider plugin, protocol 1, node v") {
		t.Fatalf("--version: %q, %v", v, err)
	}
}

// The Node.js side's own unit tests (goplugin.test.js): version
// negotiation with several versions, and the error status encoding.
func TestNodePluginUnitTests(t *testing.T) {
	nodePluginDir(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "--test")
	cmd.Dir = filepath.Join("..", "sdk", "examples", "node-provider")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node --test: %v\n%s", err, out)
	}
}

func TestNodePluginExitsWhenTheKernelIsKilled(t *testing.T) {
	e := newEnv(t, nodeConfig("    word_delay_ms: 50\n")).set("COYOTE_PLUGINS_DIR=" + nodePluginDir(t))
	killKernelMidReply(t, e, 10*time.Second, strings.Repeat("word ", 400))
}
