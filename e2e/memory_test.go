package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
)

// Memory through the real binary (issue 18): the fake model saves an
// entry with memory__write, and the next run's system prompt has its
// line; --no-memory and memory: false leave the memory out; a big index
// is cut with a note; a bad date is one warning line.

// memoryRepo is a repository with a nested working directory.
func memoryRepo(t *testing.T) (repo, cwd string) {
	t.Helper()
	repo = t.TempDir()
	cwd = filepath.Join(repo, "src", "app")
	for _, d := range []string{filepath.Join(repo, ".git"), cwd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return repo, cwd
}

// rememberingModel saves an entry when told "remember", and answers
// everything else with text.
func rememberingModel() *fakellm.OpenAI {
	return &fakellm.OpenAI{Respond: func(req *fakellm.ChatRequest) fakellm.Reply {
		switch lastUser(req) {
		case "remember":
			return fakellm.Reply{ToolCalls: []fakellm.ToolCall{{ID: "w", Name: "memory__write",
				Arguments: `{"file": "deploy.md", "name": "Deploying", "description": "deploy with make ship (rule M-2001)", "type": "project", "content": "Run make ship from the root."}`}}}
		case "":
			return fakellm.Reply{Text: "Saved."}
		}
		return fakellm.Reply{Text: "ok"}
	}}
}

const deployLine = "- [Deploying](deploy.md): deploy with make ship (rule M-2001)"

func TestMemoryWrittenByTheModelReachesTheNextRun(t *testing.T) {
	fake := rememberingModel()
	url := fakellm.StartOpenAI(t, fake)
	e := newEnv(t, fakeConfig(url, ""))
	repo, cwd := memoryRepo(t)
	last := func() *fakellm.ChatRequest { reqs := fake.Requests(); return &reqs[len(reqs)-1] }

	// No MEMORY.md: no memory and no memory functions.
	e.mustSucceed(e.runIn(cwd, "", "hello"))
	if sys, names := systemText(last()), strings.Join(offered(last()), ","); strings.Contains(sys, "# Memory") || strings.Contains(names, "memory__") {
		t.Fatalf("memory without a MEMORY.md: %q %s", sys, names)
	}

	r := e.runIn(cwd, "", "--init-memory", "workspace")
	e.mustSucceed(r)
	dir := filepath.Join(repo, ".coyote", "memory")
	if !strings.Contains(r.stdout, filepath.Join(dir, "MEMORY.md")) {
		t.Fatalf("--init-memory said %q", r.stdout)
	}
	if ig, err := os.ReadFile(filepath.Join(dir, ".gitignore")); err != nil || !strings.Contains(string(ig), "\n*\n") {
		t.Fatalf(".gitignore: %q %v", ig, err)
	}

	r = e.runIn(cwd, "", "remember")
	e.mustSucceed(r)
	if !strings.Contains(r.stdout, "Saved.") {
		t.Fatalf("stdout %q stderr %q", r.stdout, r.stderr)
	}
	reqs := fake.Requests()
	if res := toolResultOf(&reqs[len(reqs)-1]); !strings.Contains(res, "Saved deploy.md in the workspace memory") {
		t.Fatalf("tool result %q", res)
	}
	drill, err := os.ReadFile(filepath.Join(dir, "deploy.md"))
	if err != nil || !strings.Contains(string(drill), "name: Deploying\n") || !strings.Contains(string(drill), "Run make ship from the root.") {
		t.Fatalf("deploy.md: %q %v", drill, err)
	}

	e.mustSucceed(e.runIn(cwd, "", "hello"))
	sys := systemText(last())
	if !strings.Contains(sys, deployLine) || !strings.Contains(sys, filepath.Join(dir, "MEMORY.md")) || !strings.Contains(sys, "memory__read") {
		t.Fatalf("the next run's system prompt:\n%s", sys)
	}
	if names := strings.Join(offered(last()), ","); !strings.Contains(names, "memory__write") || !strings.Contains(names, "memory__lint") {
		t.Fatalf("offered %s", names)
	}

	e.mustSucceed(e.runIn(cwd, "", "--no-memory", "hello"))
	if sys, names := systemText(last()), strings.Join(offered(last()), ","); strings.Contains(sys, deployLine) || strings.Contains(names, "memory__") {
		t.Fatalf("--no-memory: %q %s", sys, names)
	}
	off := newEnv(t, fakeConfig(url, "memory: false\n"))
	off.mustSucceed(off.runIn(cwd, "", "hello"))
	if sys := systemText(last()); strings.Contains(sys, deployLine) {
		t.Fatalf("memory: false: %q", sys)
	}
	// A role that turns memory off wins over the default.
	e.writeFiles(map[string]string{"roles/forgetful.md": "---\nmemory: false\n---\nForget."})
	e.mustSucceed(e.runIn(cwd, "", "-r", "forgetful", "hello"))
	if sys := systemText(last()); strings.Contains(sys, deployLine) || !strings.HasPrefix(sys, "Forget.") {
		t.Fatalf("a role with memory: false: %q", sys)
	}

	r = e.runIn(cwd, "", "--info")
	e.mustSucceed(r)
	if !strings.Contains(r.stdout, "memory_in_force") || !strings.Contains(r.stdout, "workspace: "+filepath.Join(dir, "MEMORY.md")) {
		t.Errorf("--info:\n%s", r.stdout)
	}
}

func TestMemoryCapAndBadDate(t *testing.T) {
	fake := answering("ok")
	url := fakellm.StartOpenAI(t, fake)
	// No skills: their hint would follow the memory in the system message.
	e := newEnv(t, fakeConfig(url, "skills_enabled: false\n"))
	e.mustSucceed(e.run("", "--init-memory", "global"))
	dir := filepath.Join(e.configDir, "memory")
	var index strings.Builder
	index.WriteString("- [Soon](soon.md): a date nobody can read\n- [Keep](keep.md): the one good entry (K-9)\n")
	for i := range 400 {
		index.WriteString("- a note of the index that makes it long, line ")
		index.WriteString(strings.Repeat("x", i%7))
		index.WriteString("\n")
	}
	e.writeFiles(map[string]string{
		"memory/MEMORY.md": index.String(),
		"memory/soon.md":   "---\nname: Soon\nexpires: next tuesday\n---\nSOON-BODY\n",
		"memory/keep.md":   "---\nname: Keep\ndescription: kept\n---\nKEEP-BODY\n",
	})
	last := func() string { reqs := fake.Requests(); return systemText(&reqs[len(reqs)-1]) }

	r := e.run("", "hello")
	e.mustSucceed(r)
	sys := last()
	if !strings.Contains(sys, "- [Keep](keep.md): the one good entry (K-9)") || strings.Contains(sys, "soon.md") ||
		!strings.Contains(sys, "more than the 6000 of memory_cap_with_tools; memory__list and memory__read show the rest.]") {
		t.Fatalf("system prompt:\n%s", sys)
	}
	if _, memText, _ := strings.Cut(sys, "## Global memory"); len([]rune(memText)) > 6000+200 {
		t.Fatalf("the memory is %d characters, past the cap", len([]rune(memText)))
	}
	bad := filepath.Join(dir, "soon.md") + `: expires: "next tuesday" is not a date`
	if strings.Count(r.stderr, bad) != 1 || strings.Count(r.stderr, "\n") != 2 || !strings.Contains(r.stderr, "more than memory_cap_with_tools (6000)") {
		t.Fatalf("stderr:\n%s", r.stderr)
	}

	// Without function calling the drill files are inlined under the
	// larger cap, read-only.
	nofc := newEnv(t, fakeConfig(url, "function_calling_support: false\nmemory_cap_without_tools: 100000\n"))
	nofc.writeFiles(map[string]string{"memory/MEMORY.md": "- [Keep](keep.md): kept\n", "memory/keep.md": "---\nname: Keep\n---\nKEEP-BODY\n"})
	nofc.mustSucceed(nofc.run("", "hello"))
	if sys := last(); !strings.Contains(sys, "KEEP-BODY") || !strings.Contains(sys, "read-only") || strings.Contains(sys, "[Memory cut here") {
		t.Fatalf("without functions:\n%s", sys)
	}
}
