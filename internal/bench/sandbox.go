package main

import (
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/coyote-cli/coyote/internal/fakellm"
)

// sandboxBench measures the sandbox launcher with bwrap: the cost of one
// sandboxed tool call over the same call unsandboxed (a one-shot run with
// a trivial tool, tool_sandbox: bwrap against none; the difference holds
// the launcher plugin's start, its one Command call and bwrap's own
// start), and the time from `coyote --sandbox` to the REPL's prompt
// inside bwrap. Without a working bwrap it reports why and measures
// nothing.
func sandboxBench(coyote, work string, runs int) ([]row, error) {
	if out, err := exec.Command("bwrap", "--ro-bind", "/", "/", "--unshare-pid", "--unshare-net", "true").CombinedOutput(); err != nil {
		return []row{{"sandbox (bwrap)", "-", "", fmt.Sprintf("bwrap cannot run here: %v %s", err, out), "skipped"}}, nil
	}
	// The prompt "tool N" asks for N calls of the tool, one per round.
	fake := &fakellm.OpenAI{Respond: func(req *fakellm.ChatRequest) fakellm.Reply {
		want, done := 0, 0
		for _, m := range req.Messages {
			if m["role"] == "user" {
				fmt.Sscanf(fmt.Sprint(m["content"]), "tool %d", &want)
			}
			if m["role"] == "tool" {
				done++
			}
		}
		if done < want {
			return fakellm.Reply{ToolCalls: []fakellm.ToolCall{{ID: fmt.Sprintf("c%d", done), Name: "noop", Arguments: "{}"}}}
		}
		return fakellm.Reply{Text: "done", Chunks: 1}
	}}
	srv := httptest.NewServer(fake.Handler())
	defer srv.Close()
	dir := filepath.Join(work, "sandbox-bench")
	configDir := filepath.Join(dir, "config")
	toolsDir := filepath.Join(configDir, "functions", "tools")
	ws := filepath.Join(dir, "project")
	for _, d := range []string{toolsDir, ws} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	cfg := fmt.Sprintf("model: fake:m\nenabled_tools: noop\nvisible_tools: [noop.sh]\nclients:\n  - type: openai-compatible\n    name: fake\n    api_base: %s/v1\n    api_key: k\n    models: [{name: m, supports_function_calling: true}]\n", srv.URL)
	if err := os.WriteFile(filepath.Join(configDir, "config.yaml"), []byte(cfg), 0o600); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(toolsDir, "noop.sh"), []byte(noopTool), 0o755); err != nil {
		return nil, err
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "COYOTE_CONFIG_DIR=" + configDir, "COYOTE_CACHE_DIR=" + filepath.Join(dir, "cache")}
	prompt := func(args ...string) *exec.Cmd {
		c := exec.Command(coyote, args...)
		c.Env, c.Dir = env, ws
		return c
	}
	for _, args := range [][]string{{"tool 1"}, {"--tool-sandbox", "tool 1"}} {
		if out, err := prompt(args...).CombinedOutput(); err != nil || string(out) != "done\n" {
			return nil, fmt.Errorf("sandbox tool round %v: %v: %q", args, err, out)
		}
	}
	// The first call of a process starts the launcher plugin; the next
	// ones find it running: 1 call and 11 calls, each with and without.
	const more = 10
	plain1 := median(runs, func() time.Duration { return mustTime(prompt("tool 1")) })
	boxed1 := median(runs, func() time.Duration { return mustTime(prompt("--tool-sandbox", "tool 1")) })
	plainN := median(runs, func() time.Duration { return mustTime(prompt(fmt.Sprintf("tool %d", 1+more))) })
	boxedN := median(runs, func() time.Duration { return mustTime(prompt("--tool-sandbox", fmt.Sprintf("tool %d", 1+more))) })
	first := boxed1 - plain1
	each := ((boxedN - boxed1) - (plainN - plain1)) / more

	// One bwrap start alone, for the reader: most of the overhead is it.
	bw := median(runs, func() time.Duration {
		return mustTime(exec.Command("bwrap", "--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net", "--new-session",
			"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "true"))
	})

	start := func() (time.Duration, error) {
		t0 := time.Now()
		t, err := startREPLIn(coyote, env, ws, "--sandbox=bench")
		if err != nil {
			return 0, err
		}
		d := time.Since(t0)
		t.stop()
		return d, nil
	}
	if _, err := start(); err != nil {
		return nil, fmt.Errorf("REPL in the sandbox: %w", err)
	}
	repl := median(runs, func() time.Duration { return mustDuration(start()) })
	plainREPL := median(runs, func() time.Duration {
		t0 := time.Now()
		t, err := startREPLIn(coyote, env, ws)
		d := mustDuration(time.Since(t0), err)
		t.stop()
		return d
	})
	return []row{
		{"sandboxed tool call overhead (bwrap), per call", ms(each), "≤ 15 ms",
			fmt.Sprintf("%d more calls: sandboxed +%s, unsandboxed +%s; bwrap alone starts in %s", more, ms(boxedN-boxed1), ms(plainN-plain1), ms(bw)),
			withinTarget(each, 15*time.Millisecond)},
		{"first sandboxed tool call of a process (bwrap)", ms(first), "",
			"one-shot with one call: " + ms(boxed1) + " − unsandboxed " + ms(plain1) + " (adds the launcher plugin's start, begun with the turn)", "-"},
		{"coyote --sandbox to the REPL prompt (bwrap)", ms(repl), "≤ 150 ms",
			"the REPL unsandboxed: " + ms(plainREPL) + " (the difference: the launcher plugin, the seed copy, the proxy, bwrap, a second coyote)",
			withinTarget(repl, 150*time.Millisecond)},
	}, nil
}
