//go:build unix

package script

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// tool writes a tool script into a fresh functions directory and returns
// its declarations and a Runner for it.
func tool(t *testing.T, file, src string) (*Runner, []Decl) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("tool wrappers need a POSIX shell")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "tools", file)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	decls, err := Parse(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := BuildAll(dir, decls); err != nil {
		t.Fatal(err)
	}
	r := &Runner{
		FunctionsDir: dir,
		Timeout:      30 * time.Second,
		Env:          []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir},
	}
	return r, decls
}

// echoTool prints its argc variables, one per line, to $LLM_OUTPUT. It ends
// with the original's argc line, and no argc program is installed.
const echoTool = `#!/usr/bin/env bash
set -euo pipefail
# @describe Echo the arguments.
# @option --path! The file.
# @option --offset=1 The first line.
# @option --tag* Tags.
# @option --unit[c|f] The unit.
# @option -n A short-only option.
# @option --max-count A dashed name.
# @flag --numbered Number the lines.
# @flag --quiet Say less.
# @env LLM_OUTPUT=/dev/stdout The output.
main() {
    {
        printf 'path=[%s]\n' "$argc_path"
        printf 'offset=[%s]\n' "$argc_offset"
        printf 'numbered=[%s]\n' "${argc_numbered:-}"
        printf 'quiet=[%s]\n' "${argc_quiet:-}"
        printf 'unit=[%s]\n' "${argc_unit:-}"
        printf 'n=[%s]\n' "${argc_n:-}"
        printf 'max_count=[%s]\n' "${argc_max_count:-}"
        if [ -n "${argc_tag+x}" ]; then
            printf 'tags=%s\n' "${#argc_tag[@]}"
            for t in "${argc_tag[@]}"; do printf 'tag=[%s]\n' "$t"; done
        fi
        printf 'fn=[%s] zero=[%s]\n' "$argc__fn" "$(basename "$0")"
    } >> "$LLM_OUTPUT"
}
eval "$(argc --argc-eval "$0" "$@")"
`

func TestRunBashToolGetsItsArgcVariables(t *testing.T) {
	if _, err := exec.LookPath("argc"); err == nil {
		t.Log("an argc program is installed; the wrapper's argc function still shadows it")
	}
	r, decls := tool(t, "echo_args.sh", echoTool)
	marker := filepath.Join(r.FunctionsDir, "injected")
	tests := []struct {
		name, args, want string
	}{
		{
			name: "strings, arrays, flags, numbers",
			args: `{"path":"a b/c's \"d\"","offset":5,"tag":["x","y z",3,true],"numbered":true,"quiet":false,"unit":"f","n":"short","unknown":"ignored"}`,
			want: "path=[a b/c's \"d\"]\noffset=[5]\nnumbered=[1]\nquiet=[]\nunit=[f]\nn=[short]\nmax_count=[]\ntags=4\ntag=[x]\ntag=[y z]\ntag=[3]\ntag=[true]\nfn=[main] zero=[echo_args.sh]\n",
		},
		{
			name: "defaults, nulls, a lone value for an array",
			args: `{"path":"p","offset":null,"tag":"only","numbered":"true"}`,
			want: "path=[p]\noffset=[1]\nnumbered=[1]\nquiet=[]\nunit=[]\nn=[]\nmax_count=[]\ntags=1\ntag=[only]\nfn=[main] zero=[echo_args.sh]\n",
		},
		{
			name: "values are data, never code",
			args: `{"path":"$(touch ` + marker + `)` + "`touch " + marker + "`" + `;\n--quiet","offset":12345678901234567890.5,"tag":["--numbered","-n"]}`,
			want: "path=[$(touch " + marker + ")`touch " + marker + "`;\n--quiet]\noffset=[12345678901234567890.5]\nnumbered=[]\nquiet=[]\nunit=[]\nn=[]\nmax_count=[]\ntags=2\ntag=[--numbered]\ntag=[-n]\nfn=[main] zero=[echo_args.sh]\n",
		},
		{
			name: "dashed key spelling",
			args: `{"path":"p","offset":"0","max-count":7}`,
			want: "path=[p]\noffset=[0]\nnumbered=[]\nquiet=[]\nunit=[]\nn=[]\nmax_count=[7]\nfn=[main] zero=[echo_args.sh]\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := r.Run(context.Background(), decls[0], []byte(tt.args), nil)
			if res.Err != nil {
				t.Fatalf("error %s", res.Err.JSON())
			}
			if res.Output != tt.want {
				t.Errorf("output\n got %q\nwant %q", res.Output, tt.want)
			}
		})
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("an argument was run as a command")
	}
}

func TestRunBashToolRefusesBadArguments(t *testing.T) {
	r, decls := tool(t, "echo_args.sh", echoTool)
	tests := []struct{ name, args, want string }{
		{"missing required", `{"offset":2}`, "echo_args: missing required option --path"},
		{"not a choice", `{"path":"p","unit":"kelvin"}`, "echo_args: invalid value for --unit: kelvin (expected one of: c, f)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := r.Run(context.Background(), decls[0], []byte(tt.args), nil)
			if res.Err == nil {
				t.Fatalf("no error; output %q", res.Output)
			}
			if res.Err.ToolCallError != "echo_args failed: exit status 1" || strings.TrimSpace(res.Err.Stderr) != tt.want {
				t.Errorf("error %s", res.Err.JSON())
			}
		})
	}
}

func TestRunRefusesInvalidJSONWithoutRunning(t *testing.T) {
	r, decls := tool(t, "echo_args.sh", echoTool)
	for _, args := range []string{`{`, `[1,2]`, `"path"`, `{"path":"p"} {}`, `{"path":}`, "\x00"} {
		res := r.Run(context.Background(), decls[0], []byte(args), nil)
		if res.Err == nil || !strings.HasPrefix(res.Err.ToolCallError, "invalid arguments for echo_args: ") {
			t.Errorf("%q: result %+v", args, res)
		}
	}
	// No arguments at all is an empty object.
	res := r.Run(context.Background(), decls[0], nil, nil)
	if res.Err == nil || !strings.Contains(res.Err.Stderr, "missing required option --path") {
		t.Errorf("empty arguments: %+v", res)
	}
}

func TestRunOutputFallsBackToStdoutThenDone(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"LLM_OUTPUT wins over stdout", `echo "to stdout"; printf 'to file' >> "$LLM_OUTPUT"`, "to file"},
		{"stdout when LLM_OUTPUT stays empty", `echo "to stdout"; echo "more"`, "to stdout\nmore\n"},
		{"DONE when both are empty", `echo "only noise" >&2`, "DONE"},
		{"DONE for whitespace", `echo "   "; printf '\n' >> "$LLM_OUTPUT"`, "DONE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, decls := tool(t, "out.sh", "# @describe Output.\nmain() {\n"+tt.body+"\n}\n")
			res := r.Run(context.Background(), decls[0], []byte(`{}`), nil)
			if res.Err != nil {
				t.Fatal(res.Err.JSON())
			}
			if res.Output != tt.want || res.Text() != tt.want {
				t.Errorf("output %q, want %q", res.Output, tt.want)
			}
		})
	}
}

func TestRunFailingToolGivesToolCallError(t *testing.T) {
	r, decls := tool(t, "broken.sh", `# @describe Fails.
set -e
main() {
    echo "partial" >> "$LLM_OUTPUT"
    echo "some stdout"
    echo "cannot open \"x\"" >&2
    false
    echo "not reached"
}
`)
	res := r.Run(context.Background(), decls[0], []byte(`{}`), nil)
	if res.Err == nil {
		t.Fatalf("no error: %q", res.Output)
	}
	var got map[string]string
	if err := json.Unmarshal([]byte(res.Text()), &got); err != nil {
		t.Fatalf("%v: %s", err, res.Text())
	}
	want := map[string]string{
		"tool_call_error": "broken failed: exit status 1",
		"stderr":          "cannot open \"x\"\n",
		"stdout":          "some stdout\n",
		"output":          "partial\n",
	}
	if len(got) != len(want) {
		t.Errorf("got %v", got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if !strings.HasPrefix(res.Text(), `{"tool_call_error":`) {
		t.Errorf("tool_call_error is not first: %s", res.Text())
	}
	var e error = res.Err
	if e.Error() != "broken failed: exit status 1" {
		t.Errorf("Error() %q", e.Error())
	}
}

func TestRunMissingWrapperIsBuilt(t *testing.T) {
	r, decls := tool(t, "hello.sh", "# @describe Hi.\nmain() { echo hi; }\n")
	if err := os.Remove(WrapperPath(r.FunctionsDir, decls[0])); err != nil {
		t.Fatal(err)
	}
	if res := r.Run(context.Background(), decls[0], nil, nil); res.Text() != "hi\n" {
		t.Fatalf("result %q", res.Text())
	}
}

func TestRunNonexistentToolFileFails(t *testing.T) {
	r, decls := tool(t, "gone.sh", "# @describe Gone.\nmain() { echo hi; }\n")
	if err := os.Remove(decls[0].File); err != nil {
		t.Fatal(err)
	}
	res := r.Run(context.Background(), decls[0], nil, nil)
	if res.Err == nil || !strings.Contains(res.Err.Stderr, "gone.sh") {
		t.Fatalf("result %+v", res)
	}
}

func TestRunCommandCallsItsFunction(t *testing.T) {
	r, decls := tool(t, "tools.sh", `#!/usr/bin/env bash
set -e
# @env LLM_OUTPUT=/dev/stdout The output.

# @cmd Add.
# @option --a! First.
# @option --b! Second.
add() {
    echo "$((argc_a + argc_b)) via $argc__fn" >> "$LLM_OUTPUT"
}

# @cmd Greet.
# @option --name=world Who.
greet() {
    echo "hello $argc_name" >> "$LLM_OUTPUT"
}
eval "$(argc --argc-eval "$0" "$@")"
`)
	if len(decls) != 2 {
		t.Fatalf("%d declarations", len(decls))
	}
	if res := r.Run(context.Background(), decls[0], []byte(`{"a":2,"b":40}`), nil); res.Text() != "42 via add\n" {
		t.Errorf("add: %q", res.Text())
	}
	if res := r.Run(context.Background(), decls[1], []byte(`{}`), nil); res.Text() != "hello world\n" {
		t.Errorf("greet: %q", res.Text())
	}
}

func TestRunChecksEnvAndRequiredTools(t *testing.T) {
	r, decls := tool(t, "needs.sh", `# @describe Needs things.
# @env NEEDS_ENDPOINT! Where.
# @env NEEDS_MODE=fast How.
# @meta require-tools sh
main() { echo "$NEEDS_ENDPOINT $NEEDS_MODE"; }
`)
	res := r.Run(context.Background(), decls[0], nil, nil)
	if res.Err == nil || strings.TrimSpace(res.Err.Stderr) != "needs: missing environment variable NEEDS_ENDPOINT" {
		t.Errorf("without the variable: %+v", res)
	}
	// A declared variable comes from the kernel's environment.
	r.Env = append(r.Env, "NEEDS_ENDPOINT=https://x")
	if res := r.Run(context.Background(), decls[0], nil, nil); res.Text() != "https://x fast\n" {
		t.Errorf("with it: %q", res.Text())
	}

	r2, decls2 := tool(t, "needs_tool.sh", "# @describe Needs a program.\n# @meta require-tools no-such-program-coyote\nmain() { echo ran; }\n")
	res = r2.Run(context.Background(), decls2[0], nil, nil)
	if res.Err == nil || !strings.Contains(res.Err.Stderr, "no-such-program-coyote is not installed") {
		t.Errorf("missing program: %+v", res)
	}
	if err := decls2[0].Available(); err == nil || !strings.Contains(err.Error(), "needs no-such-program-coyote") {
		t.Errorf("Available: %v", err)
	}
}

func TestRunDefaultFromFunction(t *testing.T) {
	r, decls := tool(t, "deffn.sh", "# @describe Default from a function.\n# @option --when=`_now` When.\n"+
		"_now() { echo today; }\nmain() { echo \"when=$argc_when\"; }\n")
	if res := r.Run(context.Background(), decls[0], nil, nil); res.Text() != "when=today\n" {
		t.Errorf("default: %q", res.Text())
	}
	if res := r.Run(context.Background(), decls[0], []byte(`{"when":"now"}`), nil); res.Text() != "when=now\n" {
		t.Errorf("given: %q", res.Text())
	}
}

func TestRunToolWithoutMainRunsItsBody(t *testing.T) {
	r, decls := tool(t, "plain.sh", "# @describe No main.\n# @option --x The x.\necho \"body x=$argc_x\"\n")
	if res := r.Run(context.Background(), decls[0], []byte(`{"x":"1"}`), nil); res.Text() != "body x=1\n" {
		t.Errorf("result %q", res.Text())
	}
}

func TestRunLongArgumentsGoThroughAFile(t *testing.T) {
	r, decls := tool(t, "big.sh", `# @describe Big.
# @option --content! The content.
# @option --line* Lines.
main() { echo "${#argc_content} ${#argc_line[@]} ${argc_line[1]}"; }
`)
	big := strings.Repeat("a\n'\"$x ", 40000) // 280 KB: over Linux's 128 KiB per argument
	args, _ := json.Marshal(map[string]any{"content": big, "line": []string{"a", "b c"}})
	res := r.Run(context.Background(), decls[0], args, nil)
	want := strconv.Itoa(len(big)) + " 2 b c\n"
	if res.Err != nil || res.Output != want {
		t.Fatalf("result %q %v, want %q", res.Output, res.Err, want)
	}
}

func TestRunCapsOutput(t *testing.T) {
	r, decls := tool(t, "loud.sh", "# @describe Loud.\nmain() { head -c 3000000 /dev/zero | tr '\\0' a; head -c 5000 /dev/zero | tr '\\0' b >&2; exit 3; }\n")
	r.MaxOutput = 1000
	res := r.Run(context.Background(), decls[0], nil, nil)
	if res.Err == nil {
		t.Fatal("no error")
	}
	if res.Err.Stdout != strings.Repeat("a", 1000)+"\n[… 2999000 more bytes not kept]" {
		t.Errorf("stdout %d bytes: %q…", len(res.Err.Stdout), res.Err.Stdout[:20])
	}
	if res.Err.Stderr != strings.Repeat("b", 1000)+"\n[… 4000 more bytes not kept]" {
		t.Errorf("stderr %q…", res.Err.Stderr[:20])
	}
	if res.Err.ToolCallError != "loud failed: exit status 3" {
		t.Errorf("error %q", res.Err.ToolCallError)
	}
}

// gone reports whether the process pid has ended (a zombie has).
func gone(pid int) bool {
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		s := string(b)
		if i := strings.LastIndexByte(s, ')'); i > 0 && len(s) > i+2 {
			return s[i+2] == 'Z' || s[i+2] == 'X'
		}
	}
	return syscall.Kill(pid, 0) != nil
}

func TestRunTimeoutKillsTheToolAndItsChildren(t *testing.T) {
	for _, terminal := range []bool{false, true} {
		t.Run("terminal="+strconv.FormatBool(terminal), func(t *testing.T) {
			r, decls := tool(t, "slow.sh", `# @describe Slow.
main() {
    sleep 30 &
    echo $! > "$LLM_ROOT_DIR/child.pid"
    echo "started"
    bash -c 'sleep 31' &
    echo $! > "$LLM_ROOT_DIR/grandchild.pid"
    wait
}
`)
			r.Timeout, r.Terminal = time.Second, terminal
			start := time.Now()
			res := r.Run(context.Background(), decls[0], nil, nil)
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %s", d)
			}
			if res.Err == nil || res.Err.ToolCallError != "slow timed out after 1s and was stopped" || res.Err.Stdout != "started\n" {
				t.Fatalf("result %+v", res)
			}
			for _, f := range []string{"child.pid", "grandchild.pid"} {
				b, err := os.ReadFile(filepath.Join(r.FunctionsDir, f))
				if err != nil {
					t.Fatal(err)
				}
				pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
				// The output pipe closed, so the processes holding it have
				// exited; allow the kernel a moment to record it.
				deadline := time.Now().Add(5 * time.Second)
				for !gone(pid) && time.Now().Before(deadline) {
					runtime.Gosched()
				}
				if !gone(pid) {
					_ = syscall.Kill(pid, syscall.SIGKILL)
					t.Errorf("%s: process %d outlived the call", f, pid)
				}
			}
		})
	}
}

func TestRunCancelledContextStopsTheTool(t *testing.T) {
	r, decls := tool(t, "wait.sh", "# @describe Waits.\nmain() { echo waiting; sleep 30; }\n")
	r.Timeout = 0 // no timeout of its own: the caller's context ends it
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	res := r.Run(ctx, decls[0], nil, nil)
	if res.Err == nil || res.Err.ToolCallError != "wait was cancelled" {
		t.Fatalf("result %+v", res)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %s", d)
	}
}

func TestRunDoesNotWaitForeverForBackgroundChildren(t *testing.T) {
	r, decls := tool(t, "daemon.sh", "# @describe Starts something.\nmain() { sleep 30 & echo $! > \"$LLM_ROOT_DIR/bg.pid\"; echo started; }\n")
	start := time.Now()
	res := r.Run(context.Background(), decls[0], nil, nil)
	if b, err := os.ReadFile(filepath.Join(r.FunctionsDir, "bg.pid")); err == nil {
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	if res.Err != nil || res.Output != "started\n" {
		t.Fatalf("result %+v", res)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %s", d)
	}
}

func TestRunEnvironmentIsAnAllowList(t *testing.T) {
	r, decls := tool(t, "show_env.sh", "# @describe Env.\n# @env TAVILY_API_KEY The key it needs.\n# @env HTTPS_PROXY A proxy.\nmain() { env | sort; }\n")
	r.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=/home/u",
		"LANG=C.UTF-8",
		"LC_TIME=en_GB.UTF-8",
		"FOO_API_KEY=sk-foo-123456",
		"GITHUB_TOKEN=ghp_abcdef",
		"AWS_SECRET_ACCESS_KEY=aws-secret",
		"AWS_REGION=eu-west-1",
		"KUBECONFIG=/home/u/.kube/config",
		"COYOTE_SECRET_DB=db-secret",
		"EDITOR=hunter2-secret-value", // an allowed name, but a secret value
		"LLM_API_KEY=llm-key",
		"LLM_AUTH=llm-auth-value",
		"LLM_PAT=llm-pat-value",
		"MY_PAT=my-pat-value",
		"LC_SESSION_ID=lc-smuggled-value",
		"LLM_FUNCTIONS_DIR=/x",
		"LLM_AGENT_VAR_MODE=from-the-user",
		"TAVILY_API_KEY=tvly-123",
		"HTTPS_PROXY=http://alice:proxy-pass@proxy.corp:3128",
		"http_proxy=bob:proxy-pass2@proxy.corp:3128",
		"ALL_PROXY=socks5://carol:p@ss/word@socks.corp:1080",
		"NO_PROXY=localhost,.corp",
		"NODE_EXTRA_CA_CERTS=/etc/corp-ca.pem",
		"LLM_OUTPUT=/should/be/replaced",
		"AUTO_CONFIRM=1",
	}
	r.Secrets = []string{"hunter2-secret-value", ""}
	r.PassEnv = []string{"KUBECONFIG", "AUTO_CONFIRM", "AWS_*"}
	res := r.Run(context.Background(), decls[0], nil, []string{"LLM_AGENT_VAR_MODE=strict"})
	if res.Err != nil {
		t.Fatal(res.Err.JSON())
	}
	got := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(res.Output), "\n") {
		k, v, _ := strings.Cut(l, "=")
		got[k] = v
	}
	for _, k := range []string{"FOO_API_KEY", "GITHUB_TOKEN", "COYOTE_SECRET_DB", "EDITOR", "LLM_API_KEY", "LLM_AUTH",
		"LLM_PAT", "MY_PAT", "LC_SESSION_ID", "LLM_FUNCTIONS_DIR", "AUTO_CONFIRM", "COYOTE_TOOL_ARGS_FILE", "LLM_TOOL_DATA_FILE"} {
		if v, ok := got[k]; ok {
			t.Errorf("%s=%s reached the tool", k, v)
		}
	}
	for _, secret := range []string{"sk-foo", "ghp_", "db-secret", "hunter2", "llm-key", "llm-auth", "llm-pat", "my-pat",
		"lc-smuggled", "from-the-user", "proxy-pass", "alice", "bob:", "carol", "p@ss"} {
		if strings.Contains(res.Output, secret) {
			t.Errorf("%q reached the tool", secret)
		}
	}
	want := map[string]string{
		"LLM_TOOL_NAME":         "show_env",
		"LLM_ROOT_DIR":          r.FunctionsDir,
		"LLM_AGENT_VAR_MODE":    "strict",
		"TAVILY_API_KEY":        "tvly-123",
		"HTTPS_PROXY":           "http://proxy.corp:3128",
		"http_proxy":            "proxy.corp:3128",
		"ALL_PROXY":             "socks5://socks.corp:1080",
		"NO_PROXY":              "localhost,.corp",
		"NODE_EXTRA_CA_CERTS":   "/etc/corp-ca.pem",
		"KUBECONFIG":            "/home/u/.kube/config",
		"AWS_REGION":            "eu-west-1",
		"AWS_SECRET_ACCESS_KEY": "aws-secret", // the user passed AWS_*
		"HOME":                  "/home/u",
		"LANG":                  "C.UTF-8",
		"LC_TIME":               "en_GB.UTF-8",
		"PATH":                  os.Getenv("PATH"),
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s=%q, want %q", k, got[k], v)
		}
	}
	if out := got["LLM_OUTPUT"]; out == "" || out == "/should/be/replaced" {
		t.Errorf("LLM_OUTPUT=%q", out)
	}
}

func TestAutoConfirmComesOnlyFromTheRunner(t *testing.T) {
	r, decls := tool(t, "confirm.sh", "# @describe Env.\nmain() { echo \"AUTO_CONFIRM=${AUTO_CONFIRM-unset}\"; }\n")
	for _, tc := range []struct {
		env  []string
		auto bool
		want string
	}{
		{[]string{"AUTO_CONFIRM=1"}, false, "AUTO_CONFIRM=unset"},
		{nil, true, "AUTO_CONFIRM=true"},
		{[]string{"AUTO_CONFIRM="}, true, "AUTO_CONFIRM=true"},
	} {
		r.Env = append([]string{"PATH=" + os.Getenv("PATH")}, tc.env...)
		r.AutoConfirm = tc.auto
		r.PassEnv = []string{"AUTO_*"}
		res := r.Run(context.Background(), decls[0], nil, nil)
		if res.Err != nil || strings.TrimSpace(res.Output) != tc.want {
			t.Errorf("env %q, AutoConfirm %v: %+v, want %s", tc.env, tc.auto, res, tc.want)
		}
	}
}

func TestScrubEnv(t *testing.T) {
	in := []string{
		"PATH=/bin", "HOME=/h", "USER=u", "LC_ALL=C", "LC_SECRET_KEY=x", "TERM=xterm", "TZ=UTC",
		"OPENAI_API_KEY=sk", "ANTHROPIC_API_KEY=sk2", "AWS_ACCESS_KEY_ID=a", "COYOTE_SECRET_X=s",
		"COYOTE_TOOL_TIMEOUT=5", "COYOTE_CONFIG_DIR=/c", "LLM_TOOL_NAME=n", "LLM_ACCESS_TOKEN=t",
		"HTTPS_PROXY=http://u:p@proxy", "SHELL=/same-as-secret", "NO_COLOR=1", "AUTO_CONFIRM=1",
		"EXTRA=e", "PASSED_PROXY=http://u:p@h", "malformed", "=x",
	}
	got := ScrubEnv(in, EnvPolicy{Secrets: []string{"/same-as-secret"}, Pass: []string{" EXTRA ", "PASSED_*", "*", "AUTO_CONFIRM"}})
	want := []string{"PATH=/bin", "HOME=/h", "USER=u", "LC_ALL=C", "TERM=xterm", "TZ=UTC",
		"HTTPS_PROXY=http://proxy", "NO_COLOR=1", "EXTRA=e", "PASSED_PROXY=http://u:p@h"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("got  %v\nwant %v", got, want)
	}
}

func TestWithoutUserinfo(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://proxy:3128", "http://proxy:3128"},
		{"http://user:pass@proxy:3128", "http://proxy:3128"},
		{"https://user@proxy", "https://proxy"},
		{"user:pass@proxy:3128", "proxy:3128"},
		{"socks5h://u:p@ss:w/rd@socks:1080", "socks5h://socks:1080"},
		{"http://proxy:3128/", "http://proxy:3128/"},
		{"", ""},
	}
	for _, tc := range tests {
		if got := WithoutUserinfo(tc.in); got != tc.want {
			t.Errorf("WithoutUserinfo(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParseTimeout(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		err  bool
	}{
		{"", 1800 * time.Second, false},
		{"0", 0, false},
		{" 90 ", 90 * time.Second, false},
		{"-1", 0, true},
		{"1m", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseTimeout(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("ParseTimeout(%q) = %v, %v", tt.in, got, err)
		}
	}
}

func TestRunPythonTool(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	r, decls := tool(t, "py_tool.py", `import os
from typing import List, Optional

def run(path: str, count: int, tags: Optional[List[str]] = None, loud: bool = False, note: str = "none"):
    """Return what it got.

    Args:
        path: A path.
        count: A number.
        tags: Labels.
    """
    if path == "print":
        print("printed", count)
        return None
    if path == "fail":
        raise ValueError("bad path")
    if path == "big":
        return len(tags[0])
    return {"path": path, "count": count + 1, "tags": tags, "loud": loud, "note": note, "tool": os.environ["LLM_TOOL_NAME"]}
`)
	if err := decls[0].Available(); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, args, want, wantErr string }{
		{"a returned value as JSON", `{"path":"p","count":41,"tags":["a"],"loud":true,"ignored":1}`,
			"{\n  \"path\": \"p\",\n  \"count\": 42,\n  \"tags\": [\n    \"a\"\n  ],\n  \"loud\": true,\n  \"note\": \"none\",\n  \"tool\": \"py_tool\"\n}", ""},
		{"None and stdout", `{"path":"print","count":3}`, "printed 3\n", ""},
		{"an exception", `{"path":"fail","count":3}`, "", "ValueError: bad path"},
		{"a missing argument", `{"path":"p"}`, "", "missing 1 required positional argument: 'count'"},
		{"long arguments through a file", `{"path":"big","count":0,"tags":["` + strings.Repeat("x", 100000) + `"]}`, "100000", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := r.Run(context.Background(), decls[0], []byte(tt.args), nil)
			if tt.wantErr != "" {
				if res.Err == nil || !strings.Contains(res.Err.Stderr, tt.wantErr) {
					t.Fatalf("result %+v", res)
				}
				return
			}
			if res.Err != nil || res.Output != tt.want {
				t.Fatalf("result %q %v, want %q", res.Output, res.Err, tt.want)
			}
		})
	}
}

func TestRunJavaScriptTools(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("no node")
	}
	tests := []struct{ file, src, args, want string }{
		{"cjs_tool.js", `/**
 * Add.
 * @typedef {Object} Args
 * @property {number} a - A.
 * @property {number} b - B.
 * @param {Args} args
 */
exports.run = function (args) {
  return { sum: args.a + args.b, tool: process.env.LLM_TOOL_NAME, extra: args.extra };
};
`, `{"a":1,"b":2,"extra":"dropped"}`, "{\n  \"sum\": 3,\n  \"tool\": \"cjs_tool\"\n}"},
		{"esm_tool.mjs", `/**
 * Greet.
 * @param {string} name - Who.
 */
export async function run({ name }) {
  return "hello " + name;
}
`, `{"name":"you"}`, "hello you"},
		{"log_tool.js", "/**\n * Logs.\n */\nexports.run = () => { console.log(\"logged\"); };\n", `{}`, "logged\n"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			r, decls := tool(t, tt.file, tt.src)
			res := r.Run(context.Background(), decls[0], []byte(tt.args), nil)
			if res.Err != nil || res.Output != tt.want {
				t.Fatalf("result %q %v, want %q", res.Output, res.Err, tt.want)
			}
		})
	}
	r, decls := tool(t, "throws.js", "/**\n * Throws.\n */\nexports.run = async () => { throw new Error(\"nope\"); };\n")
	res := r.Run(context.Background(), decls[0], nil, nil)
	if res.Err == nil || !strings.Contains(res.Err.Stderr, "Error: nope") || res.Err.ToolCallError != "throws failed: exit status 1" {
		t.Fatalf("result %+v", res)
	}
}

func TestAvailableChecksTheInterpreter(t *testing.T) {
	bin := t.TempDir()
	t.Setenv("PATH", bin)
	d := Decl{Name: "x", Lang: LangTypeScript, Interpreter: "tsx"}
	if err := d.Available(); err == nil || !strings.Contains(err.Error(), "needs tsx") {
		t.Errorf("no tsx: %v", err)
	}
	if err := os.WriteFile(filepath.Join(bin, "tsx"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := d.Available(); err != nil {
		t.Errorf("with tsx: %v", err)
	}
	for _, d := range []Decl{
		{Name: "py", Lang: LangPython, Interpreter: "python3"},
		{Name: "sh", Lang: LangBash, Interpreter: "/usr/bin/env bash"},
		{Name: "sh2", Lang: LangBash, Interpreter: "/no/such/bash -e"},
	} {
		if err := d.Available(); err == nil || !strings.Contains(err.Error(), "tool "+d.Name+" needs") {
			t.Errorf("%s: %v", d.Name, err)
		}
	}
}
