package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
)

func TestRolesShapeTheRequest(t *testing.T) {
	fake := answering("ok")
	e := newEnv(t, openAIConfig(fakellm.StartOpenAI(t, fake), "k"))
	roles := filepath.Join(e.configDir, "roles")
	_ = os.MkdirAll(roles, 0o755)
	files := map[string]string{
		"pirate.md":  "---\ntemperature: 0.9\ntop_p: 0.5\n---\nAnswer like a pirate.",
		"haiku.md":   "Write a haiku about __INPUT__.",
		"shell.md":   "My own shell role wins over the built-in one.",
		"fewshot.md": "Translate.\n### INPUT:\nhello\n### OUTPUT:\nbonjour\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(roles, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		args     []string
		messages []string // role: content
		temp     float64
	}{
		{[]string{"-r", "pirate", "hi"}, []string{"system: Answer like a pirate.", "user: hi"}, 0.9},
		{[]string{"-r", "haiku", "rain"}, []string{"user: Write a haiku about rain."}, 0},
		{[]string{"--prompt", "Be terse.", "hi"}, []string{"system: Be terse.", "user: hi"}, 0},
		{[]string{"-r", "fewshot", "cat"}, []string{"system: Translate.", "user: hello", "assistant: bonjour", "user: cat"}, 0},
		{[]string{"-e", "list files"}, []string{"system: My own shell role wins over the built-in one.", "user: list files"}, 0},
	}
	for i, tt := range tests {
		e.mustSucceed(e.run("", tt.args...))
		req := fake.Requests()[i]
		var got []string
		for _, m := range req.Messages {
			got = append(got, m["role"].(string)+": "+m["content"].(string))
		}
		if strings.Join(got, "|") != strings.Join(tt.messages, "|") {
			t.Errorf("%v sent %q, want %q", tt.args, got, tt.messages)
		}
		if tt.temp != 0 && (req.Temperature == nil || *req.Temperature != tt.temp) {
			t.Errorf("%v: temperature %v, want %v", tt.args, req.Temperature, tt.temp)
		}
	}
	line := oneLineError(t, e.run("", "-r", "nope", "hi"))
	if !strings.Contains(line, `role "nope" not found`) || !strings.Contains(line, "--list-roles") {
		t.Fatalf("stderr %q", line)
	}
	r := e.run("", "--list-roles")
	for _, name := range []string{"code", "fewshot", "haiku", "pirate", "shell"} {
		if !strings.Contains(r.stdout, name+"\n") {
			t.Errorf("--list-roles lacks %s:\n%s", name, r.stdout)
		}
	}
}

func TestCodeAndExecuteWhenPiped(t *testing.T) {
	var reply atomic.Value
	reply.Store("Here you go:\n```go\nfmt.Println(1)\n```\nEnjoy.")
	fake := &fakellm.OpenAI{Respond: func(*fakellm.ChatRequest) fakellm.Reply { return fakellm.Reply{Text: reply.Load().(string)} }}
	e := newEnv(t, openAIConfig(fakellm.StartOpenAI(t, fake), "k"))
	r := e.run("", "-c", "print one in go")
	e.mustSucceed(r)
	if r.stdout != "fmt.Println(1)\n" {
		t.Fatalf("-c piped printed %q", r.stdout)
	}
	if sys := fake.Requests()[0].Messages[0]; sys["role"] != "system" || !strings.Contains(sys["content"].(string), "code") {
		t.Fatalf("-c did not use the code role: %v", sys)
	}
	reply.Store("ls -S")
	r = e.run("", "-e", "list files by size")
	e.mustSucceed(r)
	if r.stdout != "ls -S\n" {
		t.Fatalf("-e piped printed %q", r.stdout)
	}
}

// A role with thousands of unknown keys warns once, with their count, and
// still applies what it knows (issue 14: 100,000 keys once printed 37.7 MB
// of warnings).
func TestARoleWithManyUnknownKeysWarnsOnce(t *testing.T) {
	fake := answering("ok")
	e := newEnv(t, openAIConfig(fakellm.StartOpenAI(t, fake), "k"))
	var role strings.Builder
	role.WriteString("---\n")
	for i := range 5000 {
		fmt.Fprintf(&role, "key_%d: %d\n", i, i)
	}
	role.WriteString("temperature: 0.3\n---\nYou are noisy.\n")
	e.writeFiles(map[string]string{"roles/noisy.md": role.String()})
	r := e.run("", "-r", "noisy", "hi")
	e.mustSucceed(r)
	want := "warning: " + filepath.Join(e.configDir, "roles", "noisy.md") + ` line 2: 5000 unknown keys ("key_0", "key_1", "key_2", …) ignored (a role reads `
	if !strings.HasPrefix(r.stderr, want) || strings.Count(r.stderr, "\n") != 1 {
		t.Fatalf("stderr (%d bytes) is not the one warning %q…:\n%.2000s", len(r.stderr), want, r.stderr)
	}
	req := fake.Requests()[0]
	if r.stdout != "ok\n" || req.Temperature == nil || *req.Temperature != 0.3 || req.Messages[0]["content"] != "You are noisy." {
		t.Fatalf("stdout %q, temperature %v, messages %v", r.stdout, req.Temperature, req.Messages)
	}
}
