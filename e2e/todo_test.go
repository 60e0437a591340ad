package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
	"github.com/coyote-cli/coyote/kernel/session"
)

// The todo loop through the real binary (issue 17): a role with
// auto_continue: true whose model plans three steps in its first reply
// and works through them when told to continue.

const continuePrompt = "KEEP GOING"

// plannerRole is roles/planner.md: auto_continue with its own
// continuation prompt, and extra frontmatter keys.
func plannerRole(extra string) string {
	return "---\nauto_continue: true\ncontinuation_prompt: " + continuePrompt + "\n" + extra + "---\nYou plan your work.\n"
}

// lastUser is the text of a request's last message when it is the
// user's, else "".
func lastUser(req *fakellm.ChatRequest) string {
	m := req.Messages[len(req.Messages)-1]
	if m["role"] != "user" {
		return ""
	}
	s, _ := m["content"].(string)
	return s
}

var firstOpen = regexp.MustCompile(`(?m)^○ (\d+)\. `)

// todoModel answers "go" with a plan of three todos (other questions with
// text); told to
// continue, it marks the first open item of the list it was sent done,
// or (stuck) only looks at the list. After a tool round it says what it
// did, differently each time.
func todoModel(stuck bool) *fakellm.OpenAI {
	var mu sync.Mutex
	rounds := 0
	return &fakellm.OpenAI{Respond: func(req *fakellm.ChatRequest) fakellm.Reply {
		mu.Lock()
		defer mu.Unlock()
		user := lastUser(req)
		switch {
		case user == "":
			rounds++
			return fakellm.Reply{Text: fmt.Sprintf("Round %d done.", rounds)}
		case strings.HasPrefix(user, continuePrompt):
			m := firstOpen.FindStringSubmatch(user)
			if stuck || m == nil {
				return fakellm.Reply{ToolCalls: []fakellm.ToolCall{{ID: "l", Name: "todo__list", Arguments: `{}`}}}
			}
			return fakellm.Reply{ToolCalls: []fakellm.ToolCall{{ID: "d", Name: "todo__done", Arguments: `{"id": ` + m[1] + `}`}}}
		case user != "go":
			return fakellm.Reply{Text: "Nothing new to plan."}
		}
		return fakellm.Reply{ToolCalls: []fakellm.ToolCall{
			{ID: "i", Name: "todo__init", Arguments: `{"goal": "release"}`},
			{ID: "a1", Name: "todo__add", Arguments: `{"task": "build"}`},
			{ID: "a2", Name: "todo__add", Arguments: `{"task": "test"}`},
			{ID: "a3", Name: "todo__add", Arguments: `{"task": "ship"}`},
		}}
	}}
}

// continuations are the requests that carried a continuation prompt.
func continuations(f *fakellm.OpenAI) []string {
	var out []string
	for _, req := range f.Requests() {
		if u := lastUser(&req); strings.HasPrefix(u, continuePrompt) {
			out = append(out, u)
		}
	}
	return out
}

func TestTodoLoopRunsUntilEveryItemIsDone(t *testing.T) {
	fake := todoModel(false)
	e := newEnv(t, fakeConfig(fakellm.StartOpenAI(t, fake), ""))
	e.writeFiles(map[string]string{"roles/planner.md": plannerRole("")})
	r := e.run("", "-r", "planner", "go")
	e.mustSucceed(r)
	sent := continuations(fake)
	if len(sent) != 3 {
		t.Fatalf("%d continuations sent, want 3:\n%q", len(sent), sent)
	}
	if !strings.Contains(sent[0], "Goal: release\nProgress: 0/3 completed\n○ 1. build\n○ 2. test\n○ 3. ship") ||
		!strings.Contains(sent[2], "Progress: 2/3 completed\n✓ 1. build\n✓ 2. test\n○ 3. ship") {
		t.Fatalf("continuations:\n%s", strings.Join(sent, "\n---\n"))
	}
	for _, line := range []string{"auto-continuing (1/10): 3 open todos\n", "auto-continuing (2/10): 2 open todos\n", "auto-continuing (3/10): 1 open todo\n"} {
		if !strings.Contains(r.stderr, line) {
			t.Fatalf("stderr lacks %q:\n%s", line, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "max_auto_continues") || !strings.HasSuffix(strings.TrimSpace(r.stdout), "Round 4 done.") {
		t.Fatalf("stdout %q\nstderr %q", r.stdout, r.stderr)
	}
	// The model was told how to keep the list, in the role's system message.
	first := fake.Requests()[0]
	sys, _ := first.Messages[0]["content"].(string)
	if !strings.HasPrefix(sys, "You plan your work.") || !strings.Contains(sys, "todo__init") || !strings.Contains(strings.Join(offered(&first), ","), "todo__done") {
		t.Fatalf("system %q, offered %v", sys, offered(&first))
	}
}

func TestTodoLoopStopsAtMaxAutoContinues(t *testing.T) {
	fake := todoModel(true)
	e := newEnv(t, fakeConfig(fakellm.StartOpenAI(t, fake), ""))
	e.writeFiles(map[string]string{"roles/planner.md": plannerRole("max_auto_continues: 2\n")})
	r := e.run("", "-r", "planner", "go")
	e.mustSucceed(r)
	if n := len(continuations(fake)); n != 2 {
		t.Fatalf("%d continuations, want 2", n)
	}
	if !strings.Contains(r.stderr, "auto-continuing (2/2): 3 open todos\n") || strings.Contains(r.stderr, "(3/2)") ||
		strings.Count(r.stderr, "auto-continue stopped after max_auto_continues (2) continuations; 3 todos are still open") != 1 {
		t.Fatalf("stderr:\n%s", r.stderr)
	}
}

func TestOpenTodosAreSavedInTheSession(t *testing.T) {
	fake := todoModel(false)
	e := newEnv(t, fakeConfig(fakellm.StartOpenAI(t, fake), ""))
	e.writeFiles(map[string]string{"roles/planner.md": plannerRole("max_auto_continues: 1\n")})
	r := e.run("", "-r", "planner", "-s", "work", "go")
	e.mustSucceed(r)
	path := filepath.Join(e.configDir, "sessions", "work.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "todo_list:\n  goal: release\n  todos:\n  - id: 1\n    task: build\n    done: true\n  - id: 2\n    task: test\n    done: false\n"
	if !strings.Contains(string(data), want) {
		t.Fatalf("%s:\n%s", path, data)
	}
	s, err := (&session.Store{Dir: filepath.Join(e.configDir, "sessions")}).Load("work")
	if err != nil {
		t.Fatal(err)
	}
	if s.Todos().Open() != 2 {
		t.Fatalf("open todos in the saved session: %s", s.Todos().Render())
	}
	// The next run in the session goes on with the saved list.
	r = e.run("", "-r", "planner", "-s", "work", "--", "and now?")
	e.mustSucceed(r)
	if !strings.Contains(r.stderr, "auto-continuing (1/1): 2 open todos") {
		t.Fatalf("stderr:\n%s", r.stderr)
	}
}

func TestTodoLoopInTheREPL(t *testing.T) {
	fake := todoModel(false)
	e := newEnv(t, fakeConfig(fakellm.StartOpenAI(t, fake), ""))
	e.writeFiles(map[string]string{"roles/planner.md": plannerRole("")})
	p := e.startREPL()
	const rolePrompt = ")planner> "
	p.enter(".role planner", rolePrompt)
	p.enter("go", "auto-continuing (1/10): 3 open todos", "auto-continuing (3/10): 1 open todo", "Round 4 done.", rolePrompt)
	p.enter(".info todo", "Goal: release", "Progress: 3/3 completed", "✓ 3. ship", rolePrompt)
	p.enter(".clear todo", "Cleared the todo list.", rolePrompt)
	p.enter(".info todo", "no todos", rolePrompt)
	p.exit()
}
