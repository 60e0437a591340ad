package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/coyote-cli/coyote/internal/mcptest"
	"github.com/coyote-cli/coyote/kernel/plugins"
	"github.com/coyote-cli/coyote/sdk/mcpbridge"
)

// pluginDir holds the coyote-mcp binary built from this package.
var pluginDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "coyote-mcp-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "coyote-mcp"), ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build coyote-mcp:", err)
		os.Exit(1)
	}
	pluginDir = dir
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// everything is server-everything run through sh, which writes its
// process id (its group's id) to a file and then becomes the server.
func everything(t *testing.T) (mcpbridge.ServerConfig, func() int) {
	node, args := mcptest.Server(t, mcptest.Everything)
	pidFile := filepath.Join(t.TempDir(), "pid")
	cfg := mcpbridge.ServerConfig{
		Name: "every", Type: "stdio", Command: "/bin/sh",
		Args: append([]string{"-c", `echo $$ > "$PIDFILE"; exec "$@"`, "sh", node}, args...),
		Env:  map[string]string{"PIDFILE": pidFile},
	}
	return cfg, func() int {
		b, err := os.ReadFile(pidFile)
		if err != nil {
			t.Fatal(err)
		}
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		return pid
	}
}

func groupAlive(pid int) bool { return syscall.Kill(-pid, 0) == nil }

// waitGone waits for another process group to end.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for groupAlive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("the server's process group %d outlived the plugin", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestTheBinaryServesTheBridgeAndItsServersDieWithIt(t *testing.T) {
	for _, how := range []string{"host closed", "plugin killed"} {
		t.Run(how, func(t *testing.T) {
			h := plugins.New(plugins.Options{Dirs: []string{pluginDir}, Logger: hclog.New(&hclog.LoggerOptions{Output: testWriter{t}, Level: hclog.Debug})})
			t.Cleanup(h.Close)
			m, err := h.MCP()
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cfg, pid := everything(t)
			if err := m.Configure(ctx, &mcpbridge.ConfigureRequest{Servers: []mcpbridge.ServerConfig{cfg}}); err != nil {
				t.Fatal(err)
			}
			r, err := m.Call(ctx, &mcpbridge.CallRequest{Server: "every", Tool: "echo", Arguments: []byte(`{"message":"through the binary"}`)})
			if err != nil || !strings.Contains(r.Text, "through the binary") {
				t.Fatalf("echo = %+v, %v", r, err)
			}
			server := pid()
			if how == "host closed" {
				h.Close()
			} else {
				proc, err := m.Plugin().Acquire(ctx)
				if err != nil {
					t.Fatal(err)
				}
				_ = syscall.Kill(proc.PID(), syscall.SIGKILL)
			}
			waitGone(t, server)
		})
	}
}
