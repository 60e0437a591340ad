package e2e

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/coyote-cli/coyote/kernel/plugins"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// testPlugins copies the test plugins into a directory of the test's own,
// so each test has its own launched.log.
func testPlugins(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		src := filepath.Join(testPluginDir, "coyote-provider-"+n)
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "coyote-provider-"+n), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func launchedPIDs(t *testing.T, dir string) []int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "launched.log"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		pids = append(pids, pid)
	}
	return pids
}

func TestVersionAndHelpStartNoPlugin(t *testing.T) {
	dir := testPlugins(t, "testing")
	e := newEnv(t, testingConfig).set("COYOTE_PLUGINS_DIR=" + dir)
	for _, args := range [][]string{{"--version"}, {"-V"}, {"--help"}, {"-h"}, {"--list-models"}} {
		r := e.run("", args...)
		e.mustSucceed(r)
		if pids := launchedPIDs(t, dir); pids != nil {
			t.Fatalf("coyote %v started a plugin (pids %v)", args, pids)
		}
	}
	// A version a user can report: the release and the commit.
	if r := e.run("", "--version"); !regexp.MustCompile(`^coyote \d+\.\d+\.\d+ \([0-9a-f]{7,}(-dirty)?\)\n$`).MatchString(r.stdout) {
		t.Fatalf("--version printed %q, want \"coyote X.Y.Z (commit)\"", r.stdout)
	}
	// The marker works: a prompt does start the plugin.
	e.mustSucceed(e.run("", "hello"))
	if pids := launchedPIDs(t, dir); len(pids) != 1 {
		t.Fatalf("a prompt started %d plugin processes, want 1", len(pids))
	}
}

func TestPromptThroughAThirdPartyPluginFromThePluginDir(t *testing.T) {
	e := newEnv(t, "model: e\nclients:\n  - type: echo\n    name: e\n    models: [{name: parrot}]\n").
		set("COYOTE_PLUGINS_DIR=" + echoPluginDir)
	r := e.run("", "hello", "plugin", "world")
	e.mustSucceed(r)
	if r.stdout != "hello plugin world\n" {
		t.Fatalf("stdout = %q", r.stdout)
	}
}

func TestPluginCrashMidStreamIsReportedAndExits1(t *testing.T) {
	tests := []struct {
		prompt string
		want   string
	}{
		{"crash", "plugin coyote-provider-testing crashed (exit status 3)"},
		{"panic", "plugin coyote-provider-testing crashed (exit status 2): panic: the test provider panicked"},
		// A Go program dying of a signal prints a stack and registers; the
		// signal is the reason, not the last register.
		{"abort", "plugin coyote-provider-testing crashed (exit status 2): SIGABRT: abort"},
	}
	for _, tt := range tests {
		t.Run(tt.prompt, func(t *testing.T) {
			e := newEnv(t, testingConfig).set("COYOTE_PLUGINS_DIR=" + testPlugins(t, "testing"))
			line := oneLineError(t, e.run("", tt.prompt))
			if !strings.Contains(line, tt.want) {
				t.Fatalf("stderr %q does not contain %q", line, tt.want)
			}
		})
	}
}

// The one-shot CLI makes one call per kernel process, so the relaunch is
// driven through the kernel's plugin host in this process, against the
// real plugin binary.
func TestCrashedPluginIsRelaunchedOnTheNextCall(t *testing.T) {
	dir := testPlugins(t, "testing")
	h := plugins.New(plugins.Options{Dirs: []string{dir}})
	defer h.Close()
	p, err := h.Provider("testing")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, _ = p.Configure(ctx, &provider.ConfigureRequest{Client: provider.ClientConfig{Name: "t", Type: "testing"}})
	ask := func(text string) (string, error) {
		var out strings.Builder
		err := p.Chat(ctx, &provider.ChatRequest{Client: "t", Model: "m",
			Messages: []provider.Message{provider.TextMessage("user", text)}},
			func(ev *provider.ChatEvent) error { out.WriteString(ev.Text); return nil })
		return out.String(), err
	}
	if _, err := ask("crash"); !errors.As(err, new(*plugins.CrashError)) {
		t.Fatalf("first call: err = %v, want a crash", err)
	}
	got, err := ask("pid")
	if err != nil {
		t.Fatalf("second call: %v", err)
	}
	pids := launchedPIDs(t, dir)
	if len(pids) != 2 || got != strconv.Itoa(pids[1]) {
		t.Fatalf("second call answered by pid %s; launches: %v", got, pids)
	}
}

func TestWrongProtocolVersionNamesBothVersions(t *testing.T) {
	e := newEnv(t, "model: f:m\nclients:\n  - {type: future, name: f, models: [{name: m}]}\n").
		set("COYOTE_PLUGINS_DIR=" + testPluginDir)
	line := oneLineError(t, e.run("", "hello"))
	want := "plugin coyote-provider-future speaks plugin protocol 2 but this coyote speaks protocol 1: upgrade coyote"
	if !strings.Contains(line, want) {
		t.Fatalf("stderr %q does not contain %q", line, want)
	}
}

func TestGarbageBeforeTheHandshakeIsAReadableError(t *testing.T) {
	e := newEnv(t, "model: g:m\nclients:\n  - {type: garbage, name: g, models: [{name: m}]}\n").
		set("COYOTE_PLUGINS_DIR=" + testPluginDir)
	line := oneLineError(t, e.run("", "hello"))
	want := `plugin coyote-provider-garbage failed to start: it printed "starting up, please wait..." instead of the plugin handshake; is it a Coyote plugin?`
	if !strings.Contains(line, want) {
		t.Fatalf("stderr %q does not contain %q", line, want)
	}
}

func TestUnknownClientTypeSaysWhichPluginIsMissing(t *testing.T) {
	tests := []struct{ typ, want string }{
		{"nosuch", `client "x" (line 3 of the config file) has type "nosuch", which no installed plugin serves; the installed provider plugins serve: azure-openai, bedrock, claude, cohere, gemini, openai, openai-compatible, vertexai (a plugin coyote-provider-nosuch in `},
		{"opneai", `has type "opneai", which no installed plugin serves: did you mean "openai"?; the installed provider plugins serve: azure-openai, bedrock, claude, cohere, gemini, openai, openai-compatible, vertexai`},
	}
	for _, tt := range tests {
		e := newEnv(t, "model: x:m\nclients:\n  - {type: "+tt.typ+", name: x, models: [{name: m}]}\n")
		line := oneLineError(t, e.run("", "hello"))
		if !strings.Contains(line, tt.want) {
			t.Errorf("stderr = %q\nwant   %q", line, tt.want)
		}
	}
}

func TestPluginsListsEachPluginAndNeverCrashes(t *testing.T) {
	e := newEnv(t, "").set("COYOTE_PLUGINS_DIR=" + testPluginDir)
	for _, args := range [][]string{{"plugins"}, {"--list-plugins"}} {
		r := e.run("", args...)
		e.mustSucceed(r)
		rows := map[string]string{}
		for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n")[1:] {
			rows[strings.Fields(l)[0]] = l
		}
		checks := map[string][]string{
			"coyote-provider-openai":  {"provider", "0.1.0", " 1 ", "chat,streaming,embeddings,rerank,tools,reasoning", filepath.Join(binDir, "plugins")},
			"coyote-provider-testing": {"provider", "0.0.1", "chat,streaming", testPluginDir},
			"coyote-provider-future":  {"error: plugin coyote-provider-future speaks plugin protocol 2"},
			"coyote-provider-garbage": {"error: plugin coyote-provider-garbage failed to start"},
		}
		for name, wants := range checks {
			row, ok := rows[name]
			if !ok {
				t.Fatalf("coyote %v does not list %s:\n%s", args, name, r.stdout)
			}
			for _, w := range wants {
				if !strings.Contains(row, w) {
					t.Errorf("row of %s lacks %q:\n%s", name, w, row)
				}
			}
		}
	}
}

// slowTestingEnv is an environment whose model is the test provider's,
// which answers `coyote slow` with "word " every 50 ms until cancelled.
func slowTestingEnv(t *testing.T) *env {
	t.Helper()
	return newEnv(t, testingConfig).set("COYOTE_PLUGINS_DIR=" + testPlugins(t, "testing"))
}

// startSlow starts coyote in e with args, a prompt whose reply streams
// slowly, "word" first, and returns once the reply is streaming, with the
// pid of the one plugin coyote then runs.
func startSlow(t *testing.T, e *env, args ...string) (cmd *startedCmd, pluginPID int) {
	t.Helper()
	c := e.command(context.Background(), "", args...)
	stdout, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	sc := &startedCmd{cmd: c, words: lines(stdout)}
	t.Cleanup(func() { _ = c.Process.Kill(); _ = c.Wait() })
	if w := <-sc.words; w != "word" {
		t.Fatalf("first output %q; log:\n%s", w, e.log())
	}
	kids := children(c.Process.Pid)
	if len(kids) != 1 {
		t.Fatalf("coyote runs %v, want the one plugin", kids)
	}
	for pid := range kids {
		pluginPID = pid
	}
	return sc, pluginPID
}

type startedCmd struct {
	cmd   *exec.Cmd
	words <-chan string
}

// waitGone waits for a process that is not our child to end, through a
// pidfd: no polling.
func waitGone(t *testing.T, pid int, limit time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return time.Since(start)
	}
	if err != nil {
		t.Skipf("pidfd_open: %v", err)
	}
	defer unix.Close(fd)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, int(limit.Milliseconds()))
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Fatalf("plugin process %d still running %s after the kernel ended", pid, limit)
		}
		return time.Since(start)
	}
}

func TestKernelKilledWithSIGKILLLeavesNoPluginBehind(t *testing.T) {
	killKernelMidReply(t, slowTestingEnv(t), 5*time.Second, "slow")
}

// killKernelMidReply starts coyote in e with args (startSlow), kills it
// with SIGKILL while the reply streams, and fails unless its plugin has
// ended within limit and removed its socket directory, which nobody else
// is left to remove.
func killKernelMidReply(t *testing.T, e *env, limit time.Duration, args ...string) {
	t.Helper()
	tmp := t.TempDir() // where go-plugin makes the socket directory
	sc, pid := startSlow(t, e.set("TMPDIR="+tmp), args...)
	if err := sc.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = sc.cmd.Wait()
	took := waitGone(t, pid, limit)
	t.Logf("plugin gone %s after the kernel's SIGKILL", took)
	if left, _ := filepath.Glob(filepath.Join(tmp, "plugin-dir*")); len(left) > 0 {
		t.Errorf("socket directory left behind: %v", left)
	}
}

func TestInterruptStopsTheReplyAndThePlugin(t *testing.T) {
	// The exit code is the shell's for the signal: 128 + its number.
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			sc, pid := startSlow(t, slowTestingEnv(t), "slow")
			if err := sc.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err := sc.cmd.Wait()
			if code, want := exitCode(err), 128+int(sig); code != want {
				t.Fatalf("exit code %d, want %d", code, want)
			}
			// The kernel shuts its plugins down before it exits.
			if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
				t.Fatalf("plugin %d still exists after the kernel exited (kill 0: %v)", pid, err)
			}
		})
	}
}

// Without the host's Pdeathsig (not every OS has one), a plugin built with
// the SDK still exits when its kernel goes: the lifeline pipe reads EOF.
// The kernel read the plugin's stderr, so that has no reader any more
// either: the plugin's last log line must not kill it (SIGPIPE) before it
// has removed its socket directory and exited cleanly.
func TestPluginExitsWhenItsLifelineCloses(t *testing.T) {
	lifeR, lifeW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	sockDir, err := os.MkdirTemp(t.TempDir(), "plugin-dir") // named as go-plugin names it
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(testPlugins(t, "testing"), "coyote-provider-testing"))
	cmd.Env = []string{
		sdk.Handshake.MagicCookieKey + "=" + sdk.Handshake.MagicCookieValue,
		"PLUGIN_PROTOCOL_VERSIONS=1",
		sdk.EnvLifelineFD + "=3",
		sdk.EnvLogLevel + "=debug",
		"PLUGIN_UNIX_SOCKET_DIR=" + sockDir,
	}
	cmd.ExtraFiles = []*os.File{lifeR}
	cmd.Stderr = errW
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lifeR.Close()
	errW.Close()
	handshake := make([]byte, 256)
	n, err := stdout.Read(handshake)
	if err != nil || !strings.HasPrefix(string(handshake[:n]), "1|1|unix|") {
		t.Fatalf("handshake %q, %v", handshake[:n], err)
	}
	// The kernel is gone: both its ends close.
	errR.Close()
	lifeW.Close()
	if err := cmd.Wait(); err != nil || ctx.Err() != nil {
		t.Fatalf("plugin did not exit cleanly after its lifeline closed: %v (%v)", err, ctx.Err())
	}
	if _, err := os.Stat(sockDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket directory left behind (stat: %v)", err)
	}
}
