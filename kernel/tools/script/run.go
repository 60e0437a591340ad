package script

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

const (
	// DefaultTimeout is how long a call may run when COYOTE_TOOL_TIMEOUT
	// is not set.
	DefaultTimeout = 1800 * time.Second
	// DefaultMaxOutput caps what is kept of a call's stdout, stderr and
	// $LLM_OUTPUT each.
	DefaultMaxOutput = 1 << 20
	// argvLimit is the size of arguments above which they go to the
	// wrapper through a file instead of the command line (Linux refuses
	// a single argument over 128 KiB).
	argvLimit = 64 << 10
	// waitDelay is how long a call waits, once the tool has exited, for
	// processes it left behind to close its stdout and stderr.
	waitDelay = 2 * time.Second
)

// ParseTimeout reads COYOTE_TOOL_TIMEOUT: whole seconds, 0 for no
// timeout, DefaultTimeout when empty.
func ParseTimeout(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return DefaultTimeout, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("COYOTE_TOOL_TIMEOUT=%q: want a number of seconds (0 for none)", s)
	}
	return time.Duration(n) * time.Second, nil
}

// Runner runs tool calls. Its fields are read-only once it is in use; Run
// may be called from several goroutines at once.
type Runner struct {
	// FunctionsDir is the functions directory, given to tools as
	// LLM_ROOT_DIR.
	FunctionsDir string
	// WrapperDir holds the wrappers, in bin/ (BuildWrapper's first
	// argument); empty means FunctionsDir. An agent's tools have their
	// own, so that two agents may declare functions of the same name.
	WrapperDir string
	// Timeout ends a call that runs longer (0: no timeout); see
	// ParseTimeout.
	Timeout time.Duration
	// Env is the kernel's environment, scrubbed before a tool sees it
	// (see ScrubEnv); nil means os.Environ().
	Env []string
	// PassEnv lists more variables of Env to pass as they are
	// (tool_env_passthrough; see EnvPolicy.Pass).
	PassEnv []string
	// Secrets are values no variable given to a tool may have.
	Secrets []string
	// AutoConfirm sets AUTO_CONFIRM=true for every call, so that tools do
	// not ask before they change files or run commands
	// (--dangerously-skip-permissions). AUTO_CONFIRM in Env is never
	// passed: this field alone turns confirmations off.
	AutoConfirm bool
	// Terminal keeps calls in the kernel's process group, so that a tool
	// can ask on /dev/tty (guard_operation). Set it only when the kernel
	// runs in the foreground of a terminal; a Ctrl-C there then reaches
	// the tool too, and calls that run at the same time may ask at the
	// same time. Without it a call has no controlling terminal:
	// guard_operation refuses unless AutoConfirm is set. Standard input
	// stays /dev/null either way.
	Terminal bool
	// Dir is the working directory of calls; empty means the kernel's.
	Dir string
	// MaxOutput caps stdout, stderr and $LLM_OUTPUT each, in bytes (0:
	// DefaultMaxOutput).
	MaxOutput int
	// Sandbox, when set, runs every call inside a sandbox (tool_sandbox):
	// the workspace writable, everything else read-only, no network
	// unless the tool declares it (# @meta network).
	Sandbox Sandboxer
}

// Sandboxer wraps one call's command so that it runs inside a sandbox.
type Sandboxer interface {
	// Wrap returns the process (argv and whole environment) that runs w
	// inside the sandbox.
	Wrap(ctx context.Context, w Wrap) (argv, env []string, err error)
	// Describe names the sandbox in messages: "bwrap".
	Describe() string
	// Workspace is the one directory calls may write to.
	Workspace() string
}

// Wrap is one call to run inside a sandbox.
type Wrap struct {
	// Argv and Env are the call's command and environment.
	Argv, Env []string
	// Dir is its working directory ("" is the workspace).
	Dir string
	// Network is true for a tool that declares it needs the network.
	Network bool
	// Writable are the paths, besides the workspace, the call writes to
	// (its output file's directory).
	Writable []string
	// Terminal is the Runner's: the call may ask on the user's terminal.
	Terminal bool
}

// NeedsNetwork reports whether a tool declares it needs the network
// (# @meta network), which a sandboxed call otherwise does not have.
func (d Decl) NeedsNetwork() bool {
	_, ok := d.Meta["network"]
	return ok
}

// Result is the outcome of a call.
type Result struct {
	// Output is the text for the model when the call succeeded: what the
	// tool wrote to $LLM_OUTPUT, else its stdout, else "DONE".
	Output string
	// Err is set when the call failed.
	Err *ErrorResult
}

// Text is what goes back to the model: Output, or Err as JSON.
func (r Result) Text() string {
	if r.Err != nil {
		return r.Err.JSON()
	}
	return r.Output
}

// ErrorResult is a failed call, in the shape the original sends the model.
type ErrorResult struct {
	ToolCallError string `json:"tool_call_error"`
	Stderr        string `json:"stderr,omitempty"`
	Stdout        string `json:"stdout,omitempty"`
	// Output is what the tool wrote to $LLM_OUTPUT before it failed.
	Output string `json:"output,omitempty"`
}

// Error makes an ErrorResult an error: its message.
func (e *ErrorResult) Error() string { return e.ToolCallError }

// JSON is the object sent to the model, e.g.
// {"tool_call_error":"fs_cat failed: exit status 1","stderr":"…"}.
func (e *ErrorResult) JSON() string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e); err != nil { // strings only: cannot fail
		return `{"tool_call_error":` + strconv.Quote(e.ToolCallError) + `}`
	}
	return strings.TrimRight(b.String(), "\n")
}

func failed(format string, args ...any) Result {
	return Result{Err: &ErrorResult{ToolCallError: fmt.Sprintf(format, args...)}}
}

// Run calls d with the model's JSON arguments. extraEnv (KEY=value) is
// added to the tool's environment as is: what Coyote itself sets, such
// as agent variables (LLM_AGENT_VAR_<NAME>), never the user's
// environment. A missing wrapper is built first. Run never panics on bad
// arguments; they are an error result.
func (r *Runner) Run(ctx context.Context, d Decl, argsJSON []byte, extraEnv []string) Result {
	args, err := decodeArgs(argsJSON)
	if err != nil {
		return failed("invalid arguments for %s: %v", d.Name, err)
	}
	wdir := r.WrapperDir
	if wdir == "" {
		wdir = r.FunctionsDir
	}
	wrapper := WrapperPath(wdir, d)
	if _, err := os.Stat(wrapper); errors.Is(err, fs.ErrNotExist) {
		if _, err := BuildWrapper(wdir, d); err != nil {
			return failed("%s cannot run: %v", d.Name, err)
		}
	}
	max := r.MaxOutput
	if max <= 0 {
		max = DefaultMaxOutput
	}

	// A sandboxed call writes its files into a directory of its own,
	// which alone (besides the workspace) it may write to.
	tmpDir := ""
	if r.Sandbox != nil {
		if tmpDir, err = os.MkdirTemp("", "coyote-tool-"); err != nil {
			return failed("%s cannot run: %v", d.Name, err)
		}
		defer os.RemoveAll(tmpDir)
	}
	outFile, err := os.CreateTemp(tmpDir, "coyote-tool-*.out")
	if err != nil {
		return failed("%s cannot run: %v", d.Name, err)
	}
	outPath := outFile.Name()
	_ = outFile.Close()
	defer os.Remove(outPath)

	var argv, fileEnv []string
	if d.Lang == LangBash {
		argv = bashArgv(d, args)
		if size(argv) > argvLimit {
			path, err := tempFile(tmpDir, "coyote-tool-*.args", []byte(strings.Join(argv, "\x00")+"\x00"))
			if err != nil {
				return failed("%s cannot run: %v", d.Name, err)
			}
			defer os.Remove(path)
			argv, fileEnv = nil, []string{"COYOTE_TOOL_ARGS_FILE=" + path}
		}
	} else {
		data := declaredArgs(d, args)
		if len(data) > argvLimit {
			path, err := tempFile(tmpDir, "coyote-tool-*.json", data)
			if err != nil {
				return failed("%s cannot run: %v", d.Name, err)
			}
			defer os.Remove(path)
			fileEnv = []string{"LLM_TOOL_DATA_FILE=" + path}
		} else {
			argv = []string{string(data)}
		}
	}

	base := r.Env
	if base == nil {
		base = os.Environ()
	}
	declared := map[string]bool{}
	for _, e := range d.Env {
		declared[e.Name] = true
	}
	env := ScrubEnv(base, EnvPolicy{Pass: r.PassEnv, Declared: declared, Secrets: r.Secrets})
	env = append(env, "LLM_ROOT_DIR="+r.FunctionsDir, "LLM_TOOL_NAME="+d.Name, "LLM_OUTPUT="+outPath)
	if r.AutoConfirm {
		env = append(env, "AUTO_CONFIRM=true")
	}
	env = append(env, fileEnv...)
	if tmpDir != "" {
		// In the sandbox only this directory is writable for scratch.
		env = append(env, "TMPDIR="+tmpDir)
	}
	env = dedupEnv(append(env, extraEnv...))

	runCtx, cancel := ctx, context.CancelFunc(func() {})
	if r.Timeout > 0 {
		runCtx, cancel = context.WithTimeout(ctx, r.Timeout)
	}
	defer cancel()
	stdout, stderr := &capBuffer{max: max}, &capBuffer{max: max}
	prog, progArgs := wrapper, argv
	sandboxNote := ""
	if r.Sandbox != nil {
		wargv, wenv, err := r.Sandbox.Wrap(ctx, Wrap{Argv: append([]string{wrapper}, argv...), Env: env, Dir: r.Dir, Network: d.NeedsNetwork(), Writable: []string{tmpDir}, Terminal: r.Terminal})
		if err != nil {
			return failed("%s cannot run in the %s sandbox: %v", d.Name, r.Sandbox.Describe(), err)
		}
		if len(wargv) == 0 {
			return failed("%s cannot run: the %s sandbox gave no command", d.Name, r.Sandbox.Describe())
		}
		prog, progArgs, env = wargv[0], wargv[1:], wenv
		sandboxNote = fmt.Sprintf(" (it ran in the %s sandbox: only %s is writable", r.Sandbox.Describe(), r.Sandbox.Workspace())
		if d.NeedsNetwork() {
			sandboxNote += ")"
		} else {
			sandboxNote += ", and there is no network unless the tool declares # @meta network)"
		}
	}
	cmd := exec.CommandContext(runCtx, prog, progArgs...)
	cmd.Env, cmd.Dir = env, r.Dir
	cmd.Stdin = nil // /dev/null
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = sysProcAttr(r.Terminal)
	cmd.Cancel = func() error { return killCall(cmd.Process, r.Terminal) }
	cmd.WaitDelay = waitDelay
	runErr := cmd.Run()

	output := readCapped(outPath, max)
	fail := func(msg string) Result {
		return Result{Err: &ErrorResult{ToolCallError: msg, Stderr: stderr.String(), Stdout: stdout.String(), Output: output}}
	}
	switch {
	case runErr == nil, errors.Is(runErr, exec.ErrWaitDelay):
		// ErrWaitDelay: the tool succeeded, but something it started kept
		// its output open.
	case ctx.Err() != nil:
		return fail(fmt.Sprintf("%s was cancelled", d.Name))
	case runCtx.Err() != nil:
		return fail(fmt.Sprintf("%s timed out after %s and was stopped", d.Name, r.Timeout))
	default:
		var ee *exec.ExitError
		if errors.As(runErr, &ee) {
			return fail(fmt.Sprintf("%s failed: %s%s", d.Name, exitDescription(ee), sandboxNote))
		}
		return fail(fmt.Sprintf("%s cannot run: %v", d.Name, runErr))
	}
	switch {
	case strings.TrimSpace(output) != "":
		return Result{Output: output}
	case strings.TrimSpace(stdout.String()) != "":
		return Result{Output: stdout.String()}
	}
	return Result{Output: "DONE"}
}

// exitDescription says how a tool ended: "exit status 2" or "killed by
// signal 9 (killed)".
func exitDescription(ee *exec.ExitError) string {
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return fmt.Sprintf("killed by signal %d (%s)", int(ws.Signal()), ws.Signal())
	}
	return "exit status " + strconv.Itoa(ee.ExitCode())
}

// decodeArgs reads the model's arguments: a JSON object, or nothing.
// Numbers keep their text.
func decodeArgs(b []byte) (map[string]any, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || string(b) == "null" {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the JSON object")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("not a JSON object")
	}
	return m, nil
}

// lookup finds p's value: by its property name, or the option's spelling
// with dashes.
func lookup(args map[string]any, p Param) (any, bool) {
	if v, ok := args[p.Name]; ok {
		return v, true
	}
	if p.Long != "" {
		v, ok := args[p.Long]
		return v, ok
	}
	return nil, false
}

// bashArgv turns the arguments into the wrapper's command line, in
// declaration order: --name=value (repeated for arrays), --flag for
// true; null, false and unknown keys give nothing.
func bashArgv(d Decl, args map[string]any) []string {
	var argv []string
	for _, p := range d.Params {
		v, ok := lookup(args, p)
		if !ok || v == nil {
			continue
		}
		if p.Kind == KindFlag {
			if truthy(v) {
				argv = append(argv, p.flag())
			}
			continue
		}
		vals := []any{v}
		if arr, ok := v.([]any); ok && p.Type == "array" {
			vals = arr
		}
		for _, x := range vals {
			if x == nil {
				continue
			}
			s := strings.ReplaceAll(scalarString(x), "\x00", "") // no NUL in an argument
			if p.Long != "" {
				argv = append(argv, "--"+p.Long+"="+s)
			} else {
				argv = append(argv, "-"+p.Short, s)
			}
		}
	}
	return argv
}

// truthy is a flag's value: true, or a string "true" or a non-zero number
// a model sent instead.
func truthy(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case string:
		return strings.EqualFold(strings.TrimSpace(x), "true")
	case json.Number:
		f, err := x.Float64()
		return err == nil && f != 0
	}
	return false
}

// scalarString formats one value for the command line: strings as they
// are, numbers as written, booleans as true/false, anything else as JSON.
func scalarString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // decoded from JSON: encodes
	return strings.TrimRight(b.String(), "\n")
}

// declaredArgs is the JSON object for a Python or JavaScript tool: the
// declared parameters only.
func declaredArgs(d Decl, args map[string]any) []byte {
	kept := map[string]any{}
	for _, p := range d.Params {
		if v, ok := lookup(args, p); ok {
			kept[p.Name] = v
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(kept) // decoded from JSON: encodes
	return bytes.TrimRight(b.Bytes(), "\n")
}

func size(argv []string) int {
	n := 0
	for _, a := range argv {
		n += len(a) + 1
	}
	return n
}

func tempFile(dir, pattern string, data []byte) (string, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return "", err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// dedupEnv keeps the last value of each variable, in first-seen order.
func dedupEnv(env []string) []string {
	idx := map[string]int{}
	out := make([]string, 0, len(env))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if i, ok := idx[k]; ok {
			out[i] = kv
			continue
		}
		idx[k] = len(out)
		out = append(out, kv)
	}
	return out
}

// readCapped reads at most max bytes of the file at path, with a note
// when there was more.
func readCapped(path string, max int) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := &capBuffer{max: max}
	_, _ = io.Copy(buf, f)
	return buf.String()
}

// capBuffer keeps the first max bytes written to it and counts the rest.
type capBuffer struct {
	mu      sync.Mutex
	max     int
	buf     []byte
	dropped int64
}

func (c *capBuffer) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - len(c.buf); room > 0 {
		n := min(room, len(p))
		c.buf = append(c.buf, p[:n]...)
		c.dropped += int64(len(p) - n)
	} else {
		c.dropped += int64(len(p))
	}
	return len(p), nil
}

// String is the kept text, valid UTF-8, with a note of what was dropped.
func (c *capBuffer) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := strings.ToValidUTF8(string(c.buf), "\uFFFD")
	if c.dropped > 0 {
		s += fmt.Sprintf("\n[… %d more bytes not kept]", c.dropped)
	}
	return s
}
