package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// scriptPlugin installs one of internal/testplugins/scripts as
// coyote-provider-<name> in a directory of the test's own, with the FIFO
// through which the script reports its child's pid, and returns the
// directory and a channel that receives that pid.
func scriptPlugin(t *testing.T, name string) (dir string, child <-chan int) {
	t.Helper()
	dir = t.TempDir()
	b, err := os.ReadFile(filepath.Join("..", "internal", "testplugins", "scripts", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "coyote-provider-"+name), b, 0o755); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "child.fifo")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	ch := make(chan int, 1)
	go func() {
		b, err := os.ReadFile(fifo)
		if err != nil {
			return
		}
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			ch <- pid
		}
	}()
	return dir, ch
}

func scriptConfig(name string, timeout int) string {
	return "model: s:m\nplugin_start_timeout: " + strconv.Itoa(timeout) +
		"\nclients:\n  - {type: " + name + ", name: s, models: [{name: m}]}\n"
}

func receiveChild(t *testing.T, ch <-chan int) int {
	t.Helper()
	select {
	case pid := <-ch:
		return pid
	case <-time.After(time.Minute):
		t.Fatal("the plugin script never started its child")
		return 0
	}
}

func TestPluginScriptThatNeverHandshakesTimesOutAndLeavesNothing(t *testing.T) {
	for _, name := range []string{"hang", "noisy"} {
		t.Run(name, func(t *testing.T) {
			dir, child := scriptPlugin(t, name)
			e := newEnv(t, scriptConfig(name, 1)).set("COYOTE_PLUGINS_DIR=" + dir)
			line := oneLineError(t, e.run("", "hi")) // run fails the test after a minute
			want := "Error: plugin coyote-provider-" + name + " failed to start: it never completed the handshake within 1s (plugin_start_timeout; raise it if the plugin is only slow)"
			if line != want {
				t.Fatalf("stderr =\n  %s\nwant\n  %s", line, want)
			}
			// The plugin's whole process group went with it.
			waitGone(t, receiveChild(t, child), 30*time.Second)
		})
	}
}

func TestSignalEndsAHangingPluginStartAtOnce(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir, child := scriptPlugin(t, "hang")
			// An hour's start timeout: only the signal can end the wait.
			e := newEnv(t, scriptConfig("hang", 3600)).set("COYOTE_PLUGINS_DIR=" + dir)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			c := e.command(ctx, "", "hi")
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			pid := receiveChild(t, child) // the plugin runs and waits for its child
			if err := c.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err := c.Wait()
			if ctx.Err() != nil {
				t.Fatalf("coyote still waited for the plugin a minute after %s", sig)
			}
			if exitCode(err) == 0 {
				t.Fatalf("coyote exited 0 after %s", sig)
			}
			waitGone(t, pid, 30*time.Second)
		})
	}
}

func TestPluginWithADeadSocketIsOneLine(t *testing.T) {
	e := newEnv(t, "model: d:m\nclients:\n  - {type: deadsocket, name: d, models: [{name: m}]}\n").
		set("COYOTE_PLUGINS_DIR=" + testPluginDir)
	line := oneLineError(t, e.run("", "hi"))
	prefix := "Error: plugin coyote-provider-deadsocket failed to start: it completed the handshake but does not answer on its socket: unix "
	if !strings.HasPrefix(line, prefix) || !strings.HasSuffix(line, ": connect: no such file or directory") {
		t.Fatalf("stderr = %q", line)
	}
}
