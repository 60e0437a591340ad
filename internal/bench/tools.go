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

// noopTool is the trivial tool of the tool-round measurement.
const noopTool = `#!/usr/bin/env bash
# @describe Answer ok.
main() {
    echo ok >> "$LLM_OUTPUT"
}
`

// toolRound measures one tool round in a one-shot prompt: the run with a
// tool call (two model calls and the script) against the same prompt
// answered at once (one model call) and the script run alone through its
// wrapper. The difference counts the second model call as overhead, so it
// is an upper bound of what the kernel adds.
func toolRound(coyote, work string, runs int) (withTool, plain, script time.Duration, err error) {
	fake := &fakellm.OpenAI{Respond: func(req *fakellm.ChatRequest) fakellm.Reply {
		last := req.Messages[len(req.Messages)-1]
		if last["role"] == "user" && last["content"] == "tool" {
			return fakellm.Reply{ToolCalls: []fakellm.ToolCall{{ID: "c1", Name: "noop", Arguments: "{}"}}}
		}
		return fakellm.Reply{Text: "done", Chunks: 1}
	}}
	srv := httptest.NewServer(fake.Handler())
	defer srv.Close()
	dir := filepath.Join(work, "tools-bench")
	configDir := filepath.Join(dir, "config")
	toolsDir := filepath.Join(configDir, "functions", "tools")
	if err := os.MkdirAll(toolsDir, 0o755); err != nil {
		return 0, 0, 0, err
	}
	cfg := fmt.Sprintf("model: fake:m\nenabled_tools: noop\nvisible_tools: [noop.sh]\nclients:\n  - type: openai-compatible\n    name: fake\n    api_base: %s/v1\n    api_key: k\n    models: [{name: m, supports_function_calling: true}]\n", srv.URL)
	if err := os.WriteFile(filepath.Join(configDir, "config.yaml"), []byte(cfg), 0o600); err != nil {
		return 0, 0, 0, err
	}
	if err := os.WriteFile(filepath.Join(toolsDir, "noop.sh"), []byte(noopTool), 0o755); err != nil {
		return 0, 0, 0, err
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "COYOTE_CONFIG_DIR=" + configDir, "COYOTE_CACHE_DIR=" + filepath.Join(dir, "cache")}
	prompt := func(text string) *exec.Cmd {
		c := exec.Command(coyote, text)
		c.Env = env
		return c
	}
	if out, err := prompt("tool").CombinedOutput(); err != nil || string(out) != "done\n" {
		return 0, 0, 0, fmt.Errorf("tool round: %v: %q", err, out)
	}
	withTool = median(runs, func() time.Duration { return mustTime(prompt("tool")) })
	plain = median(runs, func() time.Duration { return mustTime(prompt("plain")) })
	wrapper := filepath.Join(configDir, "functions", "bin", "noop")
	script = median(runs, func() time.Duration {
		c := exec.Command(wrapper)
		c.Env = append(env, "LLM_OUTPUT=/dev/null")
		return mustTime(c)
	})
	return withTool, plain, script, nil
}
