package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coyote-cli/coyote/internal/fakellm"
)

// needBwrap skips a test on a machine where bubblewrap cannot run (the
// project's install-test-deps.sh installs it; user namespaces may still
// be off).
func needBwrap(t *testing.T) {
	t.Helper()
	path, err := exec.LookPath("bwrap")
	if err != nil {
		t.Skip("bwrap is not installed (scripts/install-test-deps.sh installs it)")
	}
	if out, err := exec.Command(path, "--ro-bind", "/", "/", "--unshare-pid", "--unshare-net", "true").CombinedOutput(); err != nil {
		t.Skipf("bwrap cannot run here: %v %s", err, out)
	}
}

// sandboxEnv is an environment whose home holds the config, the cache
// and a workspace, as a user's does; the key is sandboxKey.
func sandboxEnv(t *testing.T, url string) (*env, string) {
	e := newEnv(t, fmt.Sprintf(`
model: fake:gpt-4o-mini
clients:
  - type: openai-compatible
    name: fake
    api_base: %s
    api_key: %s
    models:
      - name: gpt-4o-mini
        supports_function_calling: true
`, url, sandboxKey))
	ws := filepath.Join(filepath.Dir(e.configDir), "project")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	return e, ws
}

const sandboxKey = "sk-sandbox-e2e-4f1d9c"

// probe is a command whose output (the file input `…`) goes to the model:
// what a program inside sees of the environment, the files and the host.
// It searches the places a key could be: the private home, /tmp, the
// workspace, and the user's real home (where the configuration, the cache
// and the vault are, hidden inside), given as %s.
// The quotes keep the markers and the key out of the command's own text,
// which the model gets too.
var probe = "`env; echo ===FI''LES; grep -rls " + sandboxKey[:10] + "''" + sandboxKey[10:] + " ~ /tmp . %s 2>/dev/null; echo ===E''ND; " +
	"ls -A %s; touch /usr/coyote-probe 2>&1; echo hello > inside.txt && echo wrote-workspace`"

func TestSandboxRunsAPromptInsideBwrapThroughTheCredentialProxy(t *testing.T) {
	needBwrap(t)
	fake := &fakellm.OpenAI{APIKey: sandboxKey, Respond: func(*fakellm.ChatRequest) fakellm.Reply {
		return fakellm.Reply{Text: "answered from inside"}
	}}
	url := fakellm.StartOpenAI(t, fake)
	e, ws := sandboxEnv(t, url)
	home := filepath.Dir(e.configDir)
	r := e.runIn(ws, "", "--sandbox=box", "-f", fmt.Sprintf(probe, home, home), "what did the probe see?")
	e.mustSucceed(r)
	if !strings.Contains(r.stdout, "answered from inside") {
		t.Fatalf("stdout %q\nstderr %q", r.stdout, r.stderr)
	}
	reqs := fake.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	// The fake server got the real key (it refuses any other)…
	if reqs[0].Authorization != "Bearer "+sandboxKey {
		t.Fatalf("authorization %q", reqs[0].Authorization)
	}
	// …which the inside never had: not in its environment, not in a file.
	seen := fmt.Sprint(reqs[0].Messages)
	seen = seen[strings.Index(seen, "<=="):] // the output, after the command
	files := seen[strings.Index(seen, "===FILES"):strings.Index(seen, "===END")]
	envPart := seen[:strings.Index(seen, "===FILES")]
	if strings.Contains(envPart, sandboxKey) {
		t.Fatalf("the key is in the sandbox's environment:\n%s", envPart)
	}
	if strings.Contains(files, "/") {
		t.Fatalf("files inside hold the key: %s", files)
	}
	// The user's home shows only the workspace, which was mounted into it.
	after := seen[strings.Index(seen, "===END")+len("===END"):]
	if i := strings.Index(after, "touch:"); i >= 0 {
		after = after[:i]
	}
	if strings.Contains(after, "config") || strings.Contains(after, "cache") {
		t.Fatalf("the user's home is visible inside: %q", after)
	}
	for _, want := range []string{"IS_SANDBOX=1", "HOME=/home/agent", "Read-only file system", "wrote-workspace"} {
		if !strings.Contains(seen, want) {
			t.Errorf("the probe inside did not see %q:\n%s", want, seen)
		}
	}
	if b, err := os.ReadFile(filepath.Join(ws, "inside.txt")); err != nil || string(b) != "hello\n" {
		t.Fatalf("the workspace write did not land: %q %v", b, err)
	}
	if _, err := os.Stat("/usr/coyote-probe"); err == nil {
		t.Fatal("the sandbox wrote outside the workspace")
	}
}

func TestSandboxInsideASandboxIsRefused(t *testing.T) {
	e, ws := sandboxEnv(t, "http://127.0.0.1:1/v1")
	e.set("IS_SANDBOX=1")
	r := e.runIn(ws, "", "--sandbox", "-S", "hi")
	if r.code == 0 || !strings.Contains(r.stderr, "refusing to start a sandbox inside a sandbox") || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestSandboxRefusesTheFlagsThatExitOutsideIt(t *testing.T) {
	e, ws := sandboxEnv(t, "http://127.0.0.1:1/v1")
	r := e.runIn(ws, "", "--sandbox", "--list-secrets")
	if r.code != 2 || !strings.Contains(r.stderr, "--sandbox cannot go with --list-secrets") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	r = e.runIn(ws, "", "--fresh", "hi")
	if r.code != 2 || !strings.Contains(r.stderr, "--fresh goes with --sandbox") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestSandboxFreshDropsTheState(t *testing.T) {
	needBwrap(t)
	url := fakellm.StartOpenAI(t, answering("ok"))
	e, ws := sandboxEnv(t, url)
	keep := "`echo kept > ~/state.txt; echo stored`"
	e.mustSucceed(e.runIn(ws, "", "--sandbox=keep", "-f", keep, "store"))
	look := "`cat ~/state.txt 2>&1 || true`"
	fake := &fakellm.OpenAI{}
	url2 := fakellm.StartOpenAI(t, fake)
	e2, _ := sandboxEnv(t, url2)
	e2.configDir, e2.cacheDir = e.configDir, e.cacheDir
	// Point the same config at the second server (the sandbox's home is
	// kept under the cache directory).
	if err := os.WriteFile(filepath.Join(e.configDir, "config.yaml"), []byte(strings.ReplaceAll(string(mustRead(t, filepath.Join(e.configDir, "config.yaml"))), url, url2)), 0o600); err != nil {
		t.Fatal(err)
	}
	e.mustSucceed(e.runIn(ws, "", "--sandbox=keep", "-f", look, "look"))
	e.mustSucceed(e.runIn(ws, "", "--sandbox=keep", "--fresh", "-f", look, "look"))
	reqs := fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if !strings.Contains(fmt.Sprint(reqs[0].Messages), "kept") {
		t.Fatalf("the named sandbox lost its state: %v", reqs[0].Messages)
	}
	if strings.Contains(fmt.Sprint(reqs[1].Messages), "kept") {
		t.Fatalf("--fresh kept the state: %v", reqs[1].Messages)
	}
	r := e.runIn(ws, "", "--sandbox-list")
	e.mustSucceed(r)
	if !strings.Contains(r.stdout, "keep") || !strings.Contains(r.stdout, "bwrap") {
		t.Fatalf("--sandbox-list: %q", r.stdout)
	}
	e.mustSucceed(e.runIn(ws, "", "--sandbox-remove", "keep"))
	r = e.runIn(ws, "", "--sandbox-remove", "keep")
	if r.code == 0 || !strings.Contains(r.stderr, `there is no sandbox named "keep"`) {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestKillingTheKernelLeavesNoSandboxBehind(t *testing.T) {
	needBwrap(t)
	// The reply never ends, so the sandbox is mid-request when killed.
	fake := &fakellm.OpenAI{Respond: func(*fakellm.ChatRequest) fakellm.Reply {
		return fakellm.Reply{Text: strings.Repeat("slow ", 400), Chunks: 400, Delay: 50 * time.Millisecond}
	}}
	url := fakellm.StartOpenAI(t, fake)
	e, ws := sandboxEnv(t, url)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// The marker is on the inner coyote's command line, which names no
	// path of the test's (bwrap's does).
	marker := "marker-" + strconv.Itoa(os.Getpid()) + "-kill"
	cmd := e.command(ctx, "", "--sandbox=killme", "-f", "`echo "+marker+"`", "talk")
	cmd.Dir = ws
	out := &watchBuffer{want: "slow", seen: make(chan struct{})}
	cmd.Stdout = out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the answer streams: the sandbox, the proxy and the
	// plugins are all up.
	select {
	case <-out.seen:
	case <-ctx.Done():
		t.Fatalf("no answer streamed; log:\n%s", e.log())
	}
	if left := processesNaming(t, marker); len(left) == 0 {
		t.Fatal("the marker finds no process: the check below would prove nothing")
	}
	runDir := filepath.Join(e.cacheDir, "sandbox", "run", strconv.Itoa(cmd.Process.Pid))
	if _, err := os.Stat(filepath.Join(runDir, "proxy", "proxy.sock")); err != nil {
		ents, _ := os.ReadDir(filepath.Dir(runDir))
		t.Fatalf("the proxy socket was not where expected: %v (run dirs: %v; stdout %q)", err, ents, out.String())
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for {
		left := processesNaming(t, filepath.Dir(e.configDir), marker)
		_, sockErr := os.Stat(runDir)
		if len(left) == 0 && os.IsNotExist(sockErr) {
			return
		}
		if time.Now().After(deadline) {
			ents, _ := os.ReadDir(runDir)
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			t.Fatalf("left behind after SIGKILL: processes %v, run dir err %v (holding %v; sandbox plugins running: %v)",
				left, sockErr, names, processesNaming(t, "coyote-sandbox"))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// processesNaming lists the processes whose command line or environment
// holds one of words (the test's private directory, a marker): everything
// this test's coyote started, inside the sandbox or out.
func processesNaming(t *testing.T, words ...string) []string {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc")
	}
	var out []string
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		environ, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		for _, w := range words {
			if bytes.Contains(cmdline, []byte(w)) || bytes.Contains(environ, []byte(w)) {
				out = append(out, e.Name()+":"+strings.ReplaceAll(string(cmdline), "\x00", " "))
				break
			}
		}
	}
	return out
}

// writesOutside is a tool that writes where it is told.
const writesOutside = `#!/usr/bin/env bash
set -e
# @describe Write a file.
# @option --path! Where.
main() {
    echo written > "$argc_path"
    echo "wrote $argc_path" >> "$LLM_OUTPUT"
}
eval "$(argc --argc-eval "$0" "$@")"
`

func TestSandboxedToolCallsWriteOnlyInTheWorkspace(t *testing.T) {
	needBwrap(t)
	// Outside /tmp, which is where the tests' own directories are: a
	// directory of the host that the test may write to.
	dir, err := os.MkdirTemp(".", "sandbox-outside-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	outside, _ := filepath.Abs(filepath.Join(dir, "outside.txt"))
	for _, tc := range []struct {
		name, path string
		ok         bool
	}{
		{"inside the workspace", "inside.txt", true},
		{"outside the workspace", outside, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := toolModel("write_file", fmt.Sprintf(`{"path": %q}`, tc.path))
			url := fakellm.StartOpenAI(t, fake)
			e := newEnv(t, toolConfig(url, "write_file"))
			writeTool(t, e, "write_file.sh", writesOutside)
			ws := t.TempDir()
			r := e.runIn(ws, "", "--tool-sandbox", "write a file")
			e.mustSucceed(r)
			res := toolResultOf(&fake.Requests()[1])
			_, err := os.Stat(filepath.Join(ws, "inside.txt"))
			_, errOut := os.Stat(outside)
			if tc.ok {
				if err != nil || !strings.Contains(res, "wrote inside.txt") {
					t.Fatalf("the write in the workspace failed: %v; the model saw %s", err, res)
				}
				return
			}
			if errOut == nil {
				t.Fatal("a sandboxed tool wrote outside the workspace")
			}
			for _, want := range []string{"Read-only file system", "it ran in the bwrap sandbox: only " + ws + " is writable"} {
				if !strings.Contains(res, want) {
					t.Errorf("the model saw %s; want %q in it", res, want)
				}
			}
		})
	}
}

func TestSandboxWithNoBackendSaysWhyInOneLine(t *testing.T) {
	e, ws := sandboxEnv(t, "http://127.0.0.1:1/v1")
	e.set("PATH=" + t.TempDir()) // no bwrap, docker, podman or sbx
	r := e.runIn(ws, "", "--sandbox", "-S", "hi")
	msg := oneLineError(t, r)
	for _, want := range []string{"no sandbox backend is available here", "sbx: sbx is not installed", "docker: docker is not installed",
		"podman: podman is not installed", "bwrap: bwrap is not installed"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
}

func TestASandboxThatFailsToStartLeavesNothing(t *testing.T) {
	url := fakellm.StartOpenAI(t, answering("never"))
	e, ws := sandboxEnv(t, url)
	// A bwrap that passes the launcher's probe and fails the real start,
	// as one that cannot mount something would.
	bin := t.TempDir()
	script := "#!/bin/sh\nfor a; do last=$a; done\n[ \"$last\" = true ] && exit 0\necho 'bwrap: Creating new namespace failed: Operation not permitted' >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(bin, "bwrap"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	e.set("PATH=" + bin + ":/usr/bin:/bin")
	r := e.runIn(ws, "", "--sandbox=broken", "-S", "hi")
	if r.code != 1 || strings.TrimSpace(r.stderr) != "bwrap: Creating new namespace failed: Operation not permitted" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	ents, _ := os.ReadDir(filepath.Join(e.cacheDir, "sandbox", "run"))
	if len(ents) != 0 {
		t.Fatalf("run directories left: %v", ents)
	}
	if left := processesNaming(t, filepath.Dir(e.configDir)); len(left) != 0 {
		t.Fatalf("processes left: %v", left)
	}
}

func TestACommandKilledInsideEndsTheLaunchCleanly(t *testing.T) {
	needBwrap(t)
	fake := &fakellm.OpenAI{Respond: func(*fakellm.ChatRequest) fakellm.Reply {
		return fakellm.Reply{Text: strings.Repeat("slow ", 400), Chunks: 400, Delay: 50 * time.Millisecond}
	}}
	url := fakellm.StartOpenAI(t, fake)
	e, ws := sandboxEnv(t, url)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	marker := "marker-" + strconv.Itoa(os.Getpid()) + "-inside"
	cmd := e.command(ctx, "", "--sandbox=inner", "-f", "`echo "+marker+"`", "talk")
	cmd.Dir = ws
	out := &watchBuffer{want: "slow", seen: make(chan struct{})}
	cmd.Stdout = out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-out.seen:
	case <-ctx.Done():
		t.Fatalf("no answer streamed; log:\n%s", e.log())
	}
	// The coyote inside: its command line holds the marker and starts
	// with the coyote binary (bwrap's starts with bwrap).
	var inner int
	for _, p := range processesNaming(t, marker) {
		pid, line, _ := strings.Cut(p, ":")
		if strings.HasPrefix(line, e.coyote()+" ") && strconv.Itoa(cmd.Process.Pid) != pid {
			inner, _ = strconv.Atoi(pid)
		}
	}
	if inner == 0 {
		t.Fatalf("no coyote inside among %v", processesNaming(t, marker))
	}
	_ = syscall.Kill(inner, syscall.SIGKILL)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 137 {
		t.Fatalf("the launch ended with %v, want exit 137 (the inside's SIGKILL)", err)
	}
	if left := processesNaming(t, filepath.Dir(e.configDir), marker); len(left) != 0 {
		t.Fatalf("processes left: %v", left)
	}
	if ents, _ := os.ReadDir(filepath.Join(e.cacheDir, "sandbox", "run")); len(ents) != 0 {
		t.Fatalf("run directories left: %v", ents)
	}
}

// watchBuffer is a command's output, safe to read while the command
// writes it; seen is closed once the output holds want.
type watchBuffer struct {
	mu   sync.Mutex
	b    bytes.Buffer
	want string
	seen chan struct{}
	once sync.Once
}

func (w *watchBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.b.Write(p)
	if strings.Contains(w.b.String(), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return n, err
}

func (w *watchBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}
