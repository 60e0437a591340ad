package launcher

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/plugintest"
	"github.com/coyote-cli/coyote/sdk/sandbox"
)

// standIn writes a recorded stand-in for a CLI: a script that appends
// its arguments (one per line, then a blank line) and its stdin to a log,
// prints out, and exits with code. It returns the directory holding it
// and the log.
func standIn(t *testing.T, name, out string, code int) (dir, log string) {
	t.Helper()
	dir = t.TempDir()
	log = filepath.Join(dir, name+".log")
	script := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\" >> " + log + "; done\n" +
		"if [ ! -t 0 ]; then in=$(cat); [ -n \"$in\" ] && printf 'stdin=%s\\n' \"$in\" >> " + log + "; fi\n" +
		"echo >> " + log + "\nprintf '%s' '" + out + "'\nexit " + strconv.Itoa(code) + "\n"
	if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, log
}

// calls reads a stand-in's log: one argument list per call.
func calls(t *testing.T, log string) [][]string {
	t.Helper()
	b, err := os.ReadFile(log)
	if err != nil {
		return nil
	}
	var out [][]string
	for _, block := range strings.Split(strings.TrimRight(string(b), "\n"), "\n\n") {
		out = append(out, strings.Split(block, "\n"))
	}
	return out
}

// lookIn finds programs in dir only.
func lookIn(dir string) func(string) (string, error) {
	return func(name string) (string, error) {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err != nil {
			return "", exec.ErrNotFound
		}
		return p, nil
	}
}

func TestBackendsSayWhyEachIsUnavailable(t *testing.T) {
	dockerDir, _ := standIn(t, "docker", "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?", 1)
	l := New(Options{LookPath: lookIn(dockerDir)})
	resp, err := l.Backends(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	var order []string
	for _, b := range resp.Backends {
		got[b.Name] = b.Reason
		order = append(order, b.Name)
		if b.Available {
			t.Errorf("%s available", b.Name)
		}
	}
	if !reflect.DeepEqual(order, []string{"sbx", "docker", "podman", "bwrap"}) {
		t.Fatalf("order %v", order)
	}
	for name, want := range map[string]string{
		"sbx":    "sbx is not installed",
		"docker": "the docker daemon is not running (Cannot connect to the Docker daemon",
		"podman": "podman is not installed",
		"bwrap":  "bwrap is not installed",
	} {
		if !strings.HasPrefix(got[name], want) {
			t.Errorf("%s: reason %q, want %q…", name, got[name], want)
		}
	}
	_, err = l.Prepare(context.Background(), &sandbox.PrepareRequest{Name: "x", StateDir: t.TempDir()})
	if !errors.Is(err, sdk.ErrUnavailable) || !strings.Contains(err.Error(), "no sandbox backend is available here: sbx: sbx is not installed (Docker Sandboxes); docker: the docker daemon") {
		t.Fatalf("err %v", err)
	}
}

func TestContainerBackendsRunTheRecordedCommandLines(t *testing.T) {
	for _, cli := range []string{"docker", "podman"} {
		t.Run(cli, func(t *testing.T) {
			dir, log := standIn(t, cli, "27.0.1", 0)
			l := New(Options{LookPath: lookIn(dir)})
			state, ws, seed := t.TempDir(), t.TempDir(), t.TempDir()
			if err := os.WriteFile(filepath.Join(seed, "config.yaml"), []byte("model: x\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			prep, err := l.Prepare(ctx, &sandbox.PrepareRequest{Backend: cli, Name: "proj", Workspace: ws, StateDir: state, ConfigSeed: seed})
			if err != nil {
				t.Fatal(err)
			}
			if !prep.Created || prep.Backend != cli {
				t.Fatalf("prepare %+v", prep)
			}
			if b, err := os.ReadFile(filepath.Join(prep.Home, ".config", "coyote", "config.yaml")); err != nil || string(b) != "model: x\n" {
				t.Fatalf("config not copied: %q %v", b, err)
			}
			resp, err := l.Command(ctx, &sandbox.CommandRequest{
				Backend: cli, Name: "proj", Workspace: ws, StateDir: state, Argv: []string{"/opt/coyote/coyote", "-S", "hi"},
				Env: []string{"HOME=/home/agent", "IS_SANDBOX=1"}, TTY: true, Options: map[string]string{"image": "img:1"},
				Mounts: []sandbox.Mount{{Source: "/opt/coyote", Target: "/opt/coyote", Mode: sandbox.ModeRO}, {Target: "/root", Mode: sandbox.ModeHide}, {Source: "/run/p", Target: "/tmp/.coyote-proxy", Mode: sandbox.ModeRW}},
			})
			if err != nil {
				t.Fatal(err)
			}
			user := "--user"
			if cli == "podman" {
				user = "--userns=keep-id"
			}
			want := []string{filepath.Join(dir, cli), "run", "--rm", "-i", "-t", "--init", "--label", "coyote.sandbox=proj"}
			if cli == "podman" {
				want = append(want, user)
			} else {
				want = append(want, user, strconv.Itoa(os.Getuid())+":"+strconv.Itoa(os.Getgid()))
			}
			want = append(want, "--network", "none",
				"-v", "/opt/coyote:/opt/coyote:ro", "-v", "/run/p:/tmp/.coyote-proxy",
				"-v", prep.Home+":/home/agent", "-v", ws+":"+ws, "-w", ws,
				"-e", "HOME=/home/agent", "-e", "IS_SANDBOX=1", "img:1", "/opt/coyote/coyote", "-S", "hi")
			if !reflect.DeepEqual(resp.Argv, want) {
				t.Fatalf("argv\n got %q\nwant %q", resp.Argv, want)
			}
			// The CLI itself ran only to probe the daemon.
			if got := calls(t, log); !reflect.DeepEqual(got, [][]string{{"info", "--format", "{{.ServerVersion}}"}}) {
				t.Fatalf("%s ran %q", cli, got)
			}
			// Reused, then fresh.
			prep, err = l.Prepare(ctx, &sandbox.PrepareRequest{Backend: cli, Name: "proj", Workspace: ws, StateDir: state})
			if err != nil || prep.Created {
				t.Fatalf("reuse: %+v %v", prep, err)
			}
			if err := os.WriteFile(filepath.Join(prep.Home, "state"), nil, 0o600); err != nil {
				t.Fatal(err)
			}
			prep, err = l.Prepare(ctx, &sandbox.PrepareRequest{Backend: cli, Name: "proj", Workspace: ws, StateDir: state, Fresh: true})
			if err != nil || !prep.Created {
				t.Fatalf("fresh: %+v %v", prep, err)
			}
			if _, err := os.Stat(filepath.Join(prep.Home, "state")); err == nil {
				t.Fatal("--fresh kept the home")
			}
		})
	}
}

func TestSbxBackendRunsTheOriginalsFlow(t *testing.T) {
	dir, log := standIn(t, "sbx", "NAME  STATUS\nother  running\n", 0)
	l := New(Options{LookPath: lookIn(dir)})
	state, ws, seed, mixdir := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(seed, "config.yaml"), []byte("model: x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mixin := filepath.Join(mixdir, "sbx-mixin.yaml")
	if err := os.WriteFile(mixin, []byte("kind: mixin\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	prep, err := l.Prepare(ctx, &sandbox.PrepareRequest{
		Backend: "sbx", Name: "proj", Workspace: ws, StateDir: state, ConfigSeed: seed,
		Options: map[string]string{"kit": "/kits/coyote"}, Mixins: []string{mixin},
		Secrets: []sandbox.Secret{{Name: "FAKE_API_KEY", Value: "sk-secret", Hosts: []string{"api.example.com"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !prep.Created {
		t.Fatalf("prepare %+v", prep)
	}
	mixKit, err := mixinKit(state, mixin)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"ls"}, // the probe
		{"secret", "set-custom", "--env", "FAKE_API_KEY", "--host", "api.example.com", "stdin=sk-secret"},
		{"ls"},
		{"create", "--name", "proj", "--kit", "/kits/coyote", "--kit", mixKit, "coyote", "."},
		{"exec", "proj", "mkdir", "-p", "/home/agent/.config/coyote"},
		{"cp", filepath.Join(seed, "config.yaml"), "proj:/home/agent/.config/coyote/"},
	}
	if got := calls(t, log); !reflect.DeepEqual(got, want) {
		t.Fatalf("sbx ran\n%q\nwant\n%q", got, want)
	}
	// The secret went on stdin, never on the command line.
	for _, c := range calls(t, log) {
		for _, a := range c {
			if a == "sk-secret" {
				t.Fatal("the secret was an argument")
			}
		}
	}
	resp, err := l.Command(ctx, &sandbox.CommandRequest{Backend: "sbx", Name: "proj", Workspace: ws, StateDir: state,
		Argv: []string{"/usr/bin/coyote", "-S", "hi"}, Options: map[string]string{"kit": "/kits/coyote"}})
	if err != nil {
		t.Fatal(err)
	}
	if w := []string{filepath.Join(dir, "sbx"), "run", "--name", "proj", "--kit", "/kits/coyote", "--", "-S", "hi"}; !reflect.DeepEqual(resp.Argv, w) {
		t.Fatalf("argv %q, want %q", resp.Argv, w)
	}
}

func TestSbxReattachesToAnExistingSandbox(t *testing.T) {
	dir, log := standIn(t, "sbx", "NAME  STATUS\nproj  stopped\n", 0)
	l := New(Options{LookPath: lookIn(dir)})
	prep, err := l.Prepare(context.Background(), &sandbox.PrepareRequest{Backend: "sbx", Name: "proj", Workspace: t.TempDir(), StateDir: t.TempDir(),
		Options: map[string]string{"image": "example/coyote:1"}})
	if err != nil {
		t.Fatal(err)
	}
	if prep.Created || len(prep.Notes) != 1 {
		t.Fatalf("prepare %+v", prep)
	}
	if got := calls(t, log); !reflect.DeepEqual(got, [][]string{{"ls"}, {"ls"}}) {
		t.Fatalf("sbx ran %q", got)
	}
}

func TestSbxWithoutAnImageOrKitSaysWhatToSet(t *testing.T) {
	dir, _ := standIn(t, "sbx", "NAME\n", 0)
	l := New(Options{LookPath: lookIn(dir)})
	_, err := l.Prepare(context.Background(), &sandbox.PrepareRequest{Backend: "sbx", Name: "proj", Workspace: t.TempDir(), StateDir: t.TempDir()})
	if !errors.Is(err, sdk.ErrFailedPrecondition) || !strings.Contains(err.Error(), "sandbox_image") {
		t.Fatalf("err %v", err)
	}
}

func TestBwrapCommandLine(t *testing.T) {
	dir, _ := standIn(t, "bwrap", "", 0)
	l := New(Options{LookPath: lookIn(dir)})
	state, ws := t.TempDir(), t.TempDir()
	ctx := context.Background()
	prep, err := l.Prepare(ctx, &sandbox.PrepareRequest{Backend: "bwrap", Name: "proj", Workspace: ws, StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	hidden := t.TempDir()
	resp, err := l.Command(ctx, &sandbox.CommandRequest{Backend: "bwrap", Name: "proj", Workspace: ws, StateDir: state,
		Argv: []string{"/bin/true"}, Mounts: []sandbox.Mount{{Target: hidden, Mode: sandbox.ModeHide}, {Target: "/does/not/exist", Mode: sandbox.ModeHide}}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "bwrap"), "--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net",
		"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/var/tmp", "--tmpfs", "/home",
		"--tmpfs", hidden, "--bind", prep.Home, "/home/agent", "--bind", ws, ws, "--chdir", ws, "--", "/bin/true"}
	if !reflect.DeepEqual(resp.Argv, want) {
		t.Fatalf("argv\n got %q\nwant %q", resp.Argv, want)
	}
	// A tool call: no private home or /tmp, the network when asked, a
	// session of its own without a terminal.
	resp, err = l.Command(ctx, &sandbox.CommandRequest{Backend: "bwrap", Ephemeral: true, Workspace: ws, Network: true,
		Argv: []string{"/bin/true"}, Mounts: []sandbox.Mount{{Source: "/x", Target: "/x", Mode: sandbox.ModeRW}}})
	if err != nil {
		t.Fatal(err)
	}
	want = []string{filepath.Join(dir, "bwrap"), "--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--new-session",
		"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--bind", "/x", "/x", "--bind", ws, ws, "--chdir", ws, "--", "/bin/true"}
	if !reflect.DeepEqual(resp.Argv, want) {
		t.Fatalf("argv\n got %q\nwant %q", resp.Argv, want)
	}
	// The container backends cannot run a tool call.
	l2 := New(Options{LookPath: lookIn(dir)})
	_, err = l2.Command(ctx, &sandbox.CommandRequest{Backend: "docker", Ephemeral: true, Workspace: ws, Argv: []string{"x"}})
	if !errors.Is(err, sdk.ErrUnsupported) {
		t.Fatalf("err %v", err)
	}
}

func TestListAndRemove(t *testing.T) {
	dir, _ := standIn(t, "bwrap", "", 0)
	l := New(Options{LookPath: lookIn(dir)})
	state, ws := t.TempDir(), t.TempDir()
	ctx := context.Background()
	for _, n := range []string{"b", "a"} {
		if _, err := l.Prepare(ctx, &sandbox.PrepareRequest{Backend: "bwrap", Name: n, Workspace: ws, StateDir: state}); err != nil {
			t.Fatal(err)
		}
	}
	resp, err := l.List(ctx, &sandbox.ListRequest{Backend: "bwrap", StateDir: state})
	if err != nil || len(resp.Environments) != 2 || resp.Environments[0].Name != "a" || resp.Environments[0].Workspace != ws {
		t.Fatalf("list %+v %v", resp, err)
	}
	if _, err := l.Remove(ctx, &sandbox.RemoveRequest{Backend: "bwrap", Name: "a", StateDir: state}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Remove(ctx, &sandbox.RemoveRequest{Backend: "bwrap", Name: "a", StateDir: state}); !errors.Is(err, sdk.ErrNotFound) {
		t.Fatalf("err %v", err)
	}
	if _, err := l.Prepare(ctx, &sandbox.PrepareRequest{Backend: "bwrap", Name: "../x", StateDir: state}); !errors.Is(err, sdk.ErrInvalidArgument) {
		t.Fatalf("err %v", err)
	}
}

func TestTheContractCrossesTheWire(t *testing.T) {
	dir, _ := standIn(t, "bwrap", "", 0)
	conn := plugintest.Serve(t, sdk.Info{Name: "sandbox", Version: "0.1.0"}, sandbox.Plugin(New(Options{LookPath: lookIn(dir)})))
	c := conn.Dispense(t, sdk.KindSandbox).(sandbox.Launcher)
	ctx := context.Background()
	resp, err := c.Backends(ctx, &sandbox.BackendsRequest{})
	if err != nil || len(resp.Backends) != 4 || !resp.Backends[3].Available || !resp.Backends[3].Has(sandbox.CapWrap) {
		t.Fatalf("backends %+v %v", resp, err)
	}
	state, ws := t.TempDir(), t.TempDir()
	if _, err := c.Prepare(ctx, &sandbox.PrepareRequest{Name: "p", Workspace: ws, StateDir: state}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Remove(ctx, &sandbox.RemoveRequest{Name: "nope", StateDir: state}); !errors.Is(err, sdk.ErrNotFound) {
		t.Fatalf("not found did not cross the wire: %v", err)
	}
	cmd, err := c.Command(ctx, &sandbox.CommandRequest{Name: "p", Workspace: ws, StateDir: state, Argv: []string{"x"}, Env: []string{"A=1"},
		Mounts: []sandbox.Mount{{Target: "/nonexistent", Mode: sandbox.ModeHide}}})
	if err != nil || cmd.Argv[len(cmd.Argv)-1] != "x" || !reflect.DeepEqual(cmd.Env, []string{"A=1"}) {
		t.Fatalf("command %+v %v", cmd, err)
	}
}

func TestAReusedHomeKeepsWhatWasWrittenInside(t *testing.T) {
	dir, _ := standIn(t, "bwrap", "", 0)
	l := New(Options{LookPath: lookIn(dir)})
	state, ws, seed := t.TempDir(), t.TempDir(), t.TempDir()
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(seed, "config.yaml"), "model: a\n")
	write(filepath.Join(seed, "sessions", "s.yaml"), "host\n")
	ctx := context.Background()
	req := &sandbox.PrepareRequest{Backend: "bwrap", Name: "p", Workspace: ws, StateDir: state, ConfigSeed: seed}
	prep, err := l.Prepare(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	cfgDir := filepath.Join(prep.Home, ".config", "coyote")
	write(filepath.Join(cfgDir, "sessions", "s.yaml"), "inside\n")
	write(filepath.Join(seed, "config.yaml"), "model: b\n")
	if _, err := l.Prepare(ctx, req); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(cfgDir, "sessions", "s.yaml")); string(b) != "inside\n" {
		t.Fatalf("the session written inside became %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(cfgDir, "config.yaml")); string(b) != "model: b\n" {
		t.Fatalf("config.yaml did not follow the host's: %q", b)
	}
}
