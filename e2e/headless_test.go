package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coyote-cli/coyote/internal/fakellm"
	"github.com/coyote-cli/coyote/kernel/logging"
)

func TestHeadlessNeedsAPrompt(t *testing.T) {
	e := newEnv(t, acpConfig("http://127.0.0.1:1/v1"))
	r := e.run("", "--headless")
	if r.code != 1 || !strings.Contains(r.stderr, "--headless needs a prompt") || r.stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

func TestHeadlessRunsGuardedToolsAndAnswersAlone(t *testing.T) {
	url := fakellm.StartOpenAI(t, acpModel())
	e := newEnv(t, acpConfig(url))
	dir := t.TempDir()
	r := e.runIn(dir, "", "--headless", "write a note")
	e.mustSucceed(r)
	if data, err := os.ReadFile(filepath.Join(dir, "note.txt")); err != nil || string(data) != "hello" {
		t.Fatalf("the guarded tool did not run: %q %v", data, err)
	}
	if !strings.HasPrefix(r.stdout, "The tool said:") || strings.Contains(r.stdout, "Call ") {
		t.Fatalf("stdout %q: want the answer alone", r.stdout)
	}
	if n := strings.Count(r.stderr, "AUTO_CONFIRM=true"); n != 1 {
		t.Fatalf("stderr %q: want the auto-confirm note once", r.stderr)
	}
}

func TestHeadlessQuestionsGetTheNeedsHumanAnswer(t *testing.T) {
	fake := toolModel("user__select", `{"question":"Which one?","options":["a","b"]}`)
	url := fakellm.StartOpenAI(t, fake)
	e := newEnv(t, acpConfig(url))
	r := e.run("", "--headless", "pick")
	e.mustSucceed(r)
	var got map[string]any
	body := strings.TrimPrefix(strings.TrimSpace(r.stdout), "The tool said: ")
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatalf("stdout %q: %v", r.stdout, err)
	}
	if got["needs_human"] != true || got["action"] != "select" || got["question"] != "Which one?" || got["guidance"] == nil {
		t.Fatalf("answer %v", got)
	}
	if opts, _ := got["options"].([]any); len(opts) != 2 {
		t.Fatalf("options %v", got["options"])
	}
}

func TestHeadlessJSONSaysWhatHappened(t *testing.T) {
	url := fakellm.StartOpenAI(t, acpModel())
	e := newEnv(t, acpConfig(url))
	r := e.run("", "--headless", "--output-format", "json", "plan")
	e.mustSucceed(r)
	var out struct {
		Answer string
		Model  string
		Usage  struct {
			InputTokens  int64 `json:"input_tokens"`
			OutputTokens int64 `json:"output_tokens"`
			Requests     int
		}
		ToolCalls []struct {
			Name  string
			Error bool
		} `json:"tool_calls"`
		Todos struct {
			Goal  string
			Items []struct {
				Task string
				Done bool
			}
		}
		ExitReason string `json:"exit_reason"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("stdout %q: %v", r.stdout, err)
	}
	var names []string
	for _, c := range out.ToolCalls {
		names = append(names, c.Name)
	}
	if out.Answer != "planned and done" || out.Model != "fake:gpt-4o-mini" || out.ExitReason != "completed" ||
		strings.Join(names, ",") != "todo__init,todo__add,todo__add,todo__done,todo__done" ||
		out.Todos.Goal != "ship it" || len(out.Todos.Items) != 2 || !out.Todos.Items[1].Done ||
		out.Usage.Requests != 3 || out.Usage.InputTokens == 0 || out.Usage.OutputTokens == 0 {
		t.Fatalf("json %s", r.stdout)
	}
}

func TestHeadlessJSONReportsAnErrorAndExitsOne(t *testing.T) {
	fake := &fakellm.OpenAI{Respond: func(*fakellm.ChatRequest) fakellm.Reply { return fakellm.Reply{Status: 401} }}
	url := fakellm.StartOpenAI(t, fake)
	e := newEnv(t, acpConfig(url))
	r := e.run("", "--headless", "--output-format", "json", "hello")
	if r.code != 1 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out["exit_reason"] != "error" || out["error"] == "" {
		t.Fatalf("stdout %q (%v)", r.stdout, err)
	}
}

func TestTailLogsFollowsTheLogFilteredByPlugin(t *testing.T) {
	url := fakellm.StartOpenAI(t, answering("hi"))
	e := newEnv(t, acpConfig(url)) // COYOTE_LOG_LEVEL=debug
	e.mustSucceed(e.run("", "hello"))
	e.set("COYOTE_LOG_FILTER=openai")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := e.command(ctx, "", "--tail-logs", "--disable-log-colors")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The plugin's lines of the run so far come first, and only they.
	want := 0
	for _, l := range strings.Split(e.log(), "\n") {
		if _, module, _ := logging.Fields([]byte(l)); strings.Contains(module, "openai") {
			want++
		}
	}
	got := messageLines(out)
	for i := 0; i < want; i++ {
		l := <-got
		if !strings.Contains(l, "coyote.coyote-provider-openai") || strings.Contains(l, "\x1b[") {
			t.Fatalf("line %q: want a line of the openai plugin, uncoloured", l)
		}
	}
	if want == 0 || want > 50 {
		t.Fatalf("%d lines of the plugin in the log:\n%s", want, e.log())
	}
	// Followed: a later run's lines arrive while it runs.
	e.mustSucceed(e.run("", "again"))
	select {
	case l := <-got:
		if !strings.Contains(l, "coyote-provider-openai") {
			t.Fatalf("line %q", l)
		}
	case <-ctx.Done():
		t.Fatal("no new line")
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := exitCode(cmd.Wait()); code != 130 {
		t.Fatalf("exit %d after Ctrl-C", code)
	}
}
