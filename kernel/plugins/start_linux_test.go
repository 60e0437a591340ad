package plugins

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/coyote-cli/coyote/sdk/provider"
)

// scriptHost returns a host whose plugin directory holds one shell script
// per name, coyote-provider-<name>, and a FIFO, child.fifo, through which a
// script tells the test the pid of the child it started ($FIFO in a
// script is its path).
func scriptHost(t *testing.T, opts Options, scripts map[string]string) (*Host, string) {
	t.Helper()
	dir := t.TempDir()
	for name, body := range scripts {
		body = strings.ReplaceAll(body, "$FIFO", filepath.Join(dir, "child.fifo"))
		if err := os.WriteFile(filepath.Join(dir, BinaryName("provider", name)), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := unix.Mkfifo(filepath.Join(dir, "child.fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	opts.Dirs = []string{dir}
	h := New(opts)
	t.Cleanup(h.Close)
	return h, dir
}

// childPID reads, in the background, the pid a script writes to its FIFO.
func childPID(t *testing.T, dir string) <-chan int {
	t.Helper()
	ch := make(chan int, 1)
	go func() {
		b, err := os.ReadFile(filepath.Join(dir, "child.fifo"))
		if err != nil {
			return
		}
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			ch <- pid
		}
	}()
	return ch
}

func receivePID(t *testing.T, ch <-chan int) int {
	t.Helper()
	select {
	case pid := <-ch:
		return pid
	case <-time.After(time.Minute):
		t.Fatal("the plugin script never reported its child")
		return 0
	}
}

// within runs fn and fails the test if it has not returned after limit:
// the behaviour under test is that nothing hangs.
func within[T any](t *testing.T, limit time.Duration, what string, fn func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- fn() }()
	select {
	case v := <-done:
		return v
	case <-time.After(limit):
		t.Fatalf("%s still blocked after %s", what, limit)
		panic("unreachable")
	}
}

// waitGone waits for a process to end, through a pidfd: no polling.
func waitGone(t *testing.T, pid int, limit time.Duration) {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return
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
			t.Fatalf("process %d, started by the plugin, still runs %s later", pid, limit)
		}
		return
	}
}

func prepare(ctx context.Context, h *Host, name string) error {
	p, err := h.Provider(name)
	if err != nil {
		return err
	}
	_, _ = p.Configure(ctx, &provider.ConfigureRequest{Client: provider.ClientConfig{Name: "c", Type: name}})
	return p.Prepare(ctx, "c")
}

// testScript is one of internal/testplugins/scripts, the misbehaving
// plugins the end-to-end tests run too: hang, a shell script that starts
// its program without exec (the child holds the plugin's stdout and
// stderr, and survives the script), and noisy, whose child also writes to
// stderr without pause. Each reports its child's pid to child.fifo beside
// it.
func testScript(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "internal", "testplugins", "scripts", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestStartTimeoutBoundsAScriptWhoseChildHoldsThePipes(t *testing.T) {
	for _, name := range []string{"hang", "noisy"} {
		t.Run(name, func(t *testing.T) {
			h, dir := scriptHost(t, Options{StartTimeout: time.Second}, map[string]string{name: testScript(t, name)})
			pids := childPID(t, dir)
			err := within(t, time.Minute, "the start", func() error { return prepare(context.Background(), h, name) })
			want := fmt.Sprintf("plugin coyote-provider-%s failed to start: it never completed the handshake within 1s (plugin_start_timeout; raise it if the plugin is only slow)", name)
			if err == nil || err.Error() != want {
				t.Fatalf("err =\n  %v\nwant\n  %s", err, want)
			}
			// The whole process group was killed, the child with it.
			waitGone(t, receivePID(t, pids), 30*time.Second)
			within(t, time.Minute, "Close", func() struct{} { h.Close(); return struct{}{} })
		})
	}
}

func TestCancelEndsAHangingStartAtOnceAndKillsItsChild(t *testing.T) {
	// The start timeout is far away: only the cancel can end the wait.
	h, dir := scriptHost(t, Options{StartTimeout: time.Hour}, map[string]string{"hang": testScript(t, "hang")})
	pids := childPID(t, dir)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- prepare(ctx, h, "hang") }()
	pid := receivePID(t, pids) // the plugin runs, and waits for its child
	cancel()
	err := within(t, time.Minute, "the cancelled start", func() error { return <-errc })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	waitGone(t, pid, 30*time.Second)
	within(t, time.Minute, "Close", func() struct{} { h.Close(); return struct{}{} })
}

func TestCloseEndsAHangingStart(t *testing.T) {
	h, dir := scriptHost(t, Options{StartTimeout: time.Hour}, map[string]string{"hang": testScript(t, "hang")})
	pids := childPID(t, dir)
	errc := make(chan error, 1)
	go func() { errc <- prepare(context.Background(), h, "hang") }()
	pid := receivePID(t, pids)
	within(t, time.Minute, "Close", func() struct{} { h.Close(); return struct{}{} })
	err := within(t, time.Minute, "the start", func() error { return <-errc })
	if err == nil || !strings.Contains(err.Error(), "the kernel is shutting down") {
		t.Fatalf("err = %v", err)
	}
	waitGone(t, pid, 30*time.Second)
}

func TestAChildThatLeftTheGroupDoesNotHoldTheStart(t *testing.T) {
	// The script exits at once; its child, in a session of its own, keeps
	// the pipes open and cannot be killed with the plugin's group.
	script := "#!/bin/sh\nsetsid sleep 100000 &\necho $! > \"$FIFO\"\nexit 3\n"
	h, dir := scriptHost(t, Options{StartTimeout: time.Hour}, map[string]string{"escaped": script})
	pids := childPID(t, dir)
	err := within(t, time.Minute, "the start", func() error { return prepare(context.Background(), h, "escaped") })
	pid := receivePID(t, pids)
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	want := "plugin coyote-provider-escaped failed to start: it exited before the handshake (exit status 3)"
	if err == nil || err.Error() != want {
		t.Fatalf("err =\n  %v\nwant\n  %s", err, want)
	}
	within(t, time.Minute, "Close", func() struct{} { h.Close(); return struct{}{} })
}

func TestDeadSocketIsOneLineNamingThePlugin(t *testing.T) {
	h := testHost(t, Options{StartTimeout: time.Minute}, "deadsocket")
	err := within(t, time.Minute, "the start", func() error { return prepare(context.Background(), h, "deadsocket") })
	prefix := "plugin coyote-provider-deadsocket failed to start: it completed the handshake but does not answer on its socket: unix "
	suffix := "/nobody-listens-here: connect: no such file or directory"
	if err == nil || !strings.HasPrefix(err.Error(), prefix) || !strings.HasSuffix(err.Error(), suffix) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err = %v", err)
	}
}

func TestPluginThatStopsAnsweringIsStoppedAndRelaunched(t *testing.T) {
	h := testHost(t, Options{}, "hangup")
	p := configured(t, h, "hangup")
	if _, err := chat(t, p, "hi"); err != nil {
		t.Fatal(err)
	}
	old := p.Plugin().live()
	_, err := chat(t, p, "hangup")
	var crash *CrashError
	if !errors.As(err, &crash) || !crash.Unanswered || !strings.HasPrefix(err.Error(), "plugin coyote-provider-hangup stopped answering on its socket (") {
		t.Fatalf("err = %v (%T)", err, err)
	}
	select {
	case <-old.Exited():
	case <-time.After(time.Minute):
		t.Fatal("the plugin that stopped answering was not stopped")
	}
	if got, err := chat(t, p, "hi"); err != nil || got != "ok:hi" || p.Plugin().gen != 2 {
		t.Fatalf("after: %q, %v, generation %d", got, err, p.Plugin().gen)
	}
}

func TestSIGABRTIsQuotedAsTheSignalNotARegister(t *testing.T) {
	h := testHost(t, Options{}, "good")
	p := configured(t, h, "good")
	_, err := chat(t, p, "abort")
	var crash *CrashError
	if !errors.As(err, &crash) {
		t.Fatalf("err = %v, want *CrashError", err)
	}
	if crash.Reason != "SIGABRT: abort" || crash.Exit != "exit status 2" {
		t.Fatalf("crash = %+v", crash)
	}
}

func openFDs(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(fds)
}

func TestAPluginThatEndedLeavesNoDescriptorOpen(t *testing.T) {
	cycle := func() {
		h := testHost(t, Options{}, "good")
		if err := prepare(context.Background(), h, "good"); err != nil {
			t.Fatal(err)
		}
		h.Close()
	}
	cycle() // the runtime opens what it keeps for good (the poller) once
	before := openFDs(t)
	for i := 0; i < 3; i++ {
		cycle()
	}
	if after := openFDs(t); after != before {
		t.Fatalf("%d descriptors open after three plugins ran and ended, %d before", after, before)
	}
}
