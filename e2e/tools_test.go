package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
)

// toolConfig is openAIConfig with function calling and the given
// enabled_tools.
func toolConfig(url, enabled string) string {
	return fmt.Sprintf(`
model: fake:gpt-4o-mini
enabled_tools: %s
clients:
  - type: openai-compatible
    name: fake
    api_base: %s
    api_key: sk-e2e-client-key
    models:
      - name: gpt-4o-mini
        supports_function_calling: true
`, enabled, url)
}

// countWords is a user's tool script in the original's form.
const countWords = `#!/usr/bin/env bash
set -e
# @describe Count the words of a text.
# @option --text! The text.
# @flag --show-env Also say whether secrets are visible.
main() {
    n=$(printf '%s' "$argc_text" | wc -w | tr -d ' ')
    echo "words=$n" >> "$LLM_OUTPUT"
    if [ -n "${argc_show_env:-}" ]; then
        env | grep -c -e sk-e2e -e VAULTED >> "$LLM_OUTPUT" || true
        echo "tool=$LLM_TOOL_NAME" >> "$LLM_OUTPUT"
    fi
}
eval "$(argc --argc-eval "$0" "$@")"
`

// toolResults are the tool messages of a request, in order.
func toolResults(req *fakellm.ChatRequest) []string {
	var out []string
	for _, m := range req.Messages {
		if m["role"] == "tool" {
			s, _ := m["content"].(string)
			out = append(out, s)
		}
	}
	return out
}

// offered are the names of the functions a request offers the model.
func offered(req *fakellm.ChatRequest) []string {
	var names []string
	for _, tool := range req.Tools {
		if fn, _ := tool["function"].(map[string]any); fn != nil {
			names = append(names, fmt.Sprint(fn["name"]))
		}
	}
	return names
}

// toolResultOf returns the content of the first tool message in a
// request, or "".
func toolResultOf(req *fakellm.ChatRequest) string {
	if res := toolResults(req); len(res) > 0 {
		return res[0]
	}
	return ""
}

// toolModel asks for one call of name with args, then answers with the
// tool's result.
func toolModel(name, args string) *fakellm.OpenAI {
	return &fakellm.OpenAI{Respond: func(req *fakellm.ChatRequest) fakellm.Reply {
		if res := toolResultOf(req); res != "" {
			return fakellm.Reply{Text: "The tool said: " + strings.TrimSpace(res)}
		}
		return fakellm.Reply{ToolCalls: []fakellm.ToolCall{{ID: "call_1", Name: name, Arguments: args}}}
	}}
}

func writeTool(t *testing.T, e *env, name, text string) {
	t.Helper()
	dir := filepath.Join(e.configDir, "functions", "tools")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestToolCallRunsTheScriptAndTheAnswerUsesIt(t *testing.T) {
	fake := toolModel("count_words", `{"text": "one two three", "show_env": true}`)
	url := fakellm.StartOpenAI(t, fake)
	e := newEnv(t, toolConfig(url, "count_words"))
	e.set("OPENAI_API_KEY=sk-e2e-openai", "MY_TOKEN=VAULTED-VALUE")
	writeTool(t, e, "count_words.sh", countWords)
	r := e.run("", "how", "many", "words")
	e.mustSucceed(r)
	if !strings.Contains(r.stdout, "The tool said: words=3\n0\ntool=count_words") {
		t.Fatalf("stdout %q", r.stdout)
	}
	reqs := fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	names := offered(&reqs[0])
	joined := strings.Join(names, ",")
	if !strings.Contains(joined, "count_words") || strings.Contains(joined, "fs_read") {
		t.Fatalf("offered tools %v: want count_words and the built-ins, not the bundled tools that are not enabled", names)
	}
	// The bundled tools were installed for the user.
	if _, err := os.Stat(filepath.Join(e.configDir, "functions", "tools", "fs_read.sh")); err != nil {
		t.Fatal(err)
	}
}

func TestFailingAndInventedToolsAreReportedToTheModel(t *testing.T) {
	var calls atomic.Int32
	fake := &fakellm.OpenAI{Respond: func(req *fakellm.ChatRequest) fakellm.Reply {
		if res := toolResultOf(req); res != "" {
			return fakellm.Reply{Text: "result: " + res}
		}
		calls.Add(1)
		return fakellm.Reply{ToolCalls: []fakellm.ToolCall{{ID: "c1", Name: "count_words", Arguments: `{}`}}}
	}}
	url := fakellm.StartOpenAI(t, fake)
	e := newEnv(t, toolConfig(url, "all"))
	writeTool(t, e, "count_words.sh", countWords)
	r := e.run("", "go")
	e.mustSucceed(r)
	var res map[string]string
	body := strings.TrimPrefix(strings.TrimSpace(r.stdout), "result: ")
	if err := json.Unmarshal([]byte(body), &res); err != nil || !strings.Contains(res["tool_call_error"], "count_words") {
		t.Fatalf("stdout %q: want a tool_call_error for the missing required option", r.stdout)
	}
	if !strings.Contains(res["stderr"], "--text") {
		t.Fatalf("stderr of the tool: %q", res["stderr"])
	}
}

func TestGuardedToolRefusesWithoutATerminalUnlessPermitted(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flags []string
		want  string
	}{
		{"refused", nil, "tool_call_error"},
		{"permitted", []string{"--dangerously-skip-permissions"}, "Replaced"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, target := runGuardedWrite(t, nil, tc.flags)
			if !strings.Contains(r.stdout, tc.want) {
				t.Fatalf("stdout %q, want %q", r.stdout, tc.want)
			}
			data, _ := os.ReadFile(target)
			if written := string(data) == "hello"; written != (tc.flags != nil) {
				t.Fatalf("file holds %q", data)
			}
		})
	}
}

func TestToolCallInTheREPL(t *testing.T) {
	fake := toolModel("count_words", `{"text": "a b c d"}`)
	url := fakellm.StartOpenAI(t, fake)
	e := newEnv(t, toolConfig(url, "count_words"))
	writeTool(t, e, "count_words.sh", countWords)
	p := e.startREPL()
	p.enter("count these", `Call count_words {"text":"a b c d"}`, "The tool said: words=4", replPrompt)
	p.enter(".info tools", "count_words", replPrompt)
}

func TestBuildToolsWritesWrappersThatRunByHand(t *testing.T) {
	e := newEnv(t, toolConfig("http://127.0.0.1:1/v1", "all"))
	writeTool(t, e, "count_words.sh", countWords)
	r := e.run("", "--build-tools")
	e.mustSucceed(r)
	if !strings.Contains(r.stdout, "count_words") || !strings.Contains(r.stdout, "fs_read") {
		t.Fatalf("stdout %q", r.stdout)
	}
	wrapper := filepath.Join(e.configDir, "functions", "bin", "count_words")
	out, err := exec.Command(wrapper, "--text=one two").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "words=2" {
		t.Fatalf("%s: %q %v", wrapper, out, err)
	}
	out, err = exec.Command(wrapper).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "--text") {
		t.Fatalf("a missing required option: %q %v", out, err)
	}
}

// runGuardedWrite has the model call fs_write, a guarded tool, on a file
// holding "old" (to write "hello"), with coyote run without a terminal
// with flags and the extra environment vars; it returns the run and the
// file.
func runGuardedWrite(t *testing.T, vars, flags []string) (result, string) {
	t.Helper()
	e := newEnv(t, "").set(vars...)
	target := filepath.Join(e.configDir, "note.txt")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(map[string]string{"path": target, "contents": "hello"})
	url := fakellm.StartOpenAI(t, toolModel("fs_write", string(args)))
	if err := os.WriteFile(filepath.Join(e.configDir, "config.yaml"), []byte(toolConfig(url, "fs_write")), 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.run("", append(flags, "write", "a", "note")...)
	e.mustSucceed(r)
	return r, target
}
