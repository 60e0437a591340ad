package convo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/coyote-cli/coyote/kernel/chat"
	"github.com/coyote-cli/coyote/kernel/models"
	"github.com/coyote-cli/coyote/kernel/role"
	"github.com/coyote-cli/coyote/kernel/todo"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// planner is a fake model that works through a todo list: asked first, it
// makes a list of three items; asked to continue, it marks the next open
// item done (unless stuck) and says which. It records every request.
type planner struct {
	mu    sync.Mutex
	reqs  []*provider.ChatRequest
	next  int  // the item the next continuation finishes
	stuck bool // never marks anything done
	same  bool // answers every continuation with the same text, doing nothing
}

func (p *planner) Chat(ctx context.Context, req *provider.ChatRequest, send func(*provider.ChatEvent) error) error {
	if err := ctx.Err(); err != nil {
		return err // a real provider's request ends too
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	cp := *req
	cp.Messages = append([]provider.Message(nil), req.Messages...)
	p.reqs = append(p.reqs, &cp)
	last := req.Messages[len(req.Messages)-1]
	call := func(id, name, args string) error {
		return send(&provider.ChatEvent{ToolCall: &provider.ToolCall{ID: id, Name: name, Arguments: args}})
	}
	switch {
	case last.Role == provider.RoleTool:
		return send(&provider.ChatEvent{Text: fmt.Sprintf("worked (%d requests so far)", len(p.reqs))})
	case strings.HasPrefix(last.Text(), "go"):
		for i, c := range [][2]string{
			{"todo__init", `{"goal":"three steps"}`},
			{"todo__add", `{"task":"one"}`}, {"todo__add", `{"task":"two"}`}, {"todo__add", `{"task":"three"}`},
		} {
			if err := call(fmt.Sprint("c", i), c[0], c[1]); err != nil {
				return err
			}
		}
		return nil
	case p.same:
		return send(&provider.ChatEvent{Text: "I am on it."})
	case p.stuck:
		return call("s", "todo__list", `{}`)
	}
	p.next++
	return call("d", "todo__done", fmt.Sprintf(`{"id":%d}`, p.next))
}

// loopRun runs a turn as Run does with p as the model (Run itself
// connects to a plugin): the request, the tool rounds, the record, then
// the todo loop.
func loopRun(t *testing.T, st *State, p chat.Chatter, a Ask) (*chat.Reply, error) {
	t.Helper()
	m := models.Model{Name: "one", SupportsFunctionCalling: true}
	if a.Display == nil {
		a.Display = func() chat.Display { return chat.Plain(io.Discard) }
	}
	req, added, parts, err := st.Prepare(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	reply, added, err := st.Turn(ctx, p, m, req, added, a.Display)
	err = st.Finish(ctx, p, parts, added, reply, err)
	return st.continueTodos(ctx, a, p, m, req, reply, err)
}

func warnings(st *State) *[]string {
	var w []string
	st.d.Warn = func(msg string) { w = append(w, msg) }
	return &w
}

type continued struct{ n, limit, open int }

func TestTodoLoopContinuesUntilEveryItemIsDone(t *testing.T) {
	for _, withSession := range []bool{false, true} {
		t.Run(fmt.Sprintf("session=%v", withSession), func(t *testing.T) {
			st := newState(t, twoClients+"auto_continue: true\n")
			if withSession {
				if _, err := st.OpenSession("work"); err != nil {
					t.Fatal(err)
				}
			}
			p := &planner{}
			var seen []continued
			reply, err := loopRun(t, st, p, Ask{Parts: []provider.Part{{Text: "go"}}, Text: "go",
				Continuing: func(n, limit, open int) { seen = append(seen, continued{n, limit, open}) }})
			if err != nil {
				t.Fatal(err)
			}
			want := []continued{{1, 10, 3}, {2, 10, 2}, {3, 10, 1}}
			if fmt.Sprint(seen) != fmt.Sprint(want) {
				t.Fatalf("continuations %v, want %v", seen, want)
			}
			if st.Todos().Open() != 0 || len(st.Todos().Items()) != 3 {
				t.Fatalf("list:\n%s", st.Todos().Render())
			}
			// 2 requests for the first turn (the calls, the answer), 2 for each continuation.
			if len(p.reqs) != 8 || reply.Text != "worked (8 requests so far)" {
				t.Fatalf("%d requests, last reply %q", len(p.reqs), reply.Text)
			}
			first := p.reqs[0]
			if names := toolNames(first); !strings.Contains(names, "todo__init,todo__add,todo__done,todo__list,todo__clear") {
				t.Fatalf("offered %s", names)
			}
			if first.Messages[0].Role != provider.RoleSystem || first.Messages[0].Text() != todo.Instructions {
				t.Fatalf("no todo instructions: %+v", first.Messages[0])
			}
			cont := p.reqs[2]
			user := cont.Messages[len(cont.Messages)-1].Text()
			if !strings.HasPrefix(user, todo.ContinuationPrompt+"\n\nGoal: three steps\nProgress: 0/3 completed\n○ 1. one") {
				t.Fatalf("continuation input %q", user)
			}
			// The continuation is sent after the conversation so far, with or without a session.
			if cont.Messages[1].Text() != "go" || strings.Count(dumpTexts(cont), todo.Instructions) != 1 {
				t.Fatalf("continuation request:\n%s", dumpTexts(cont))
			}
			if withSession {
				// Every turn was recorded; the instructions were not.
				var users int
				for _, m := range st.Session.Messages() {
					if m.Role == provider.RoleUser {
						users++
					}
					if strings.Contains(m.Text(), "## Todo list") {
						t.Fatal("the instructions were recorded in the session")
					}
				}
				if users != 4 || !st.Session.Dirty() {
					t.Fatalf("%d user messages in the session", users)
				}
			}
		})
	}
}

func TestTodoLoopStopsAtMaxAutoContinues(t *testing.T) {
	st := newState(t, twoClients+"auto_continue: true\nmax_auto_continues: 2\n")
	w := warnings(st)
	p := &planner{stuck: true}
	var seen []continued
	_, err := loopRun(t, st, p, Ask{Parts: []provider.Part{{Text: "go"}},
		Continuing: func(n, limit, open int) { seen = append(seen, continued{n, limit, open}) }})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(seen) != fmt.Sprint([]continued{{1, 2, 3}, {2, 2, 3}}) {
		t.Fatalf("continuations %v", seen)
	}
	if len(*w) != 1 || (*w)[0] != "auto-continue stopped after max_auto_continues (2) continuations; 3 todos are still open" {
		t.Fatalf("warnings %q", *w)
	}
}

func TestTodoLoopStopsWhenAReplyRepeatsWithoutProgress(t *testing.T) {
	st := newState(t, twoClients+"auto_continue: true\n")
	w := warnings(st)
	p := &planner{same: true}
	var n int
	reply, err := loopRun(t, st, p, Ask{Parts: []provider.Part{{Text: "go"}}, Continuing: func(int, int, int) { n++ }})
	if err != nil || reply.Text != "I am on it." {
		t.Fatalf("reply %+v, %v", reply, err)
	}
	// The first continuation's reply differs from the turn's; the second repeats it.
	if n != 2 || len(*w) != 1 || !strings.Contains((*w)[0], "repeated") {
		t.Fatalf("%d continuations, warnings %q", n, *w)
	}
}

func TestTodoLoopStopsWhenCancelledAndKeepsTheTurns(t *testing.T) {
	st := newState(t, twoClients+"auto_continue: true\n")
	if _, err := st.OpenSession("work"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := &planner{}
	m := models.Model{Name: "one", SupportsFunctionCalling: true}
	a := Ask{Parts: []provider.Part{{Text: "go"}}, Display: func() chat.Display { return chat.Plain(io.Discard) },
		Continuing: func(n, _, _ int) {
			if n == 2 {
				cancel() // Ctrl-C while the first continuation's answer is shown
			}
		}}
	req, added, parts, _ := st.Prepare(ctx, a)
	reply, added, err := st.Turn(ctx, p, m, req, added, a.Display)
	err = st.Finish(ctx, p, parts, added, reply, err)
	_, err = st.continueTodos(ctx, a, p, m, req, reply, err)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if len(p.reqs) != 4 || st.Todos().Open() != 2 {
		t.Fatalf("%d requests, %d open", len(p.reqs), st.Todos().Open())
	}
	var users int
	for _, msg := range st.Session.Messages() {
		if msg.Role == provider.RoleUser {
			users++
		}
	}
	// The two turns done stay; the one cancelled is checkpointed for .recover.
	if users != 3 || !st.Session.Interrupted() {
		t.Fatalf("the session holds %d turns (interrupted: %v), want the 2 done before Ctrl-C and the cancelled one", users, st.Session.Interrupted())
	}
}

// TestTodoFunctionsFollowAutoContinue: the todo functions and
// instructions come with auto_continue (from the config, a role or a
// session), and inject_todo_instructions: false leaves the instructions
// out.
func TestTodoFunctionsFollowAutoContinue(t *testing.T) {
	on, off := true, false
	tests := []struct {
		name                string
		config              string
		role                *bool
		funcs, instructions bool
	}{
		{"off", "", nil, false, false},
		{"config", "auto_continue: true\n", nil, true, true},
		{"role", "", &on, true, true},
		{"role says off", "auto_continue: true\n", &off, false, false},
		{"no instructions", "auto_continue: true\ninject_todo_instructions: false\n", nil, true, false},
		{"function calling off", "auto_continue: true\nfunction_calling_support: false\n", nil, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := newState(t, twoClients+tt.config)
			st.Role = role.Temp("Be brief.")
			st.Role.Settings.AutoContinue = tt.role
			offered, _ := st.Offered(models.Model{Name: "one", SupportsFunctionCalling: true})
			var names []string
			for _, f := range offered {
				names = append(names, f.Name)
			}
			if got := strings.Contains(strings.Join(names, ","), "todo__done"); got != tt.funcs {
				t.Fatalf("offered %v", names)
			}
			req, added := st.Request([]provider.Part{{Text: "hi"}}, false)
			sys := req.Messages[0].Text()
			if got := strings.Contains(sys, todo.Instructions); got != tt.instructions {
				t.Fatalf("system message %q", sys)
			}
			if !strings.HasPrefix(sys, "Be brief.") || added[0].Text() != "Be brief." {
				t.Fatalf("the role's prompt changed: %q, recorded %q", sys, added[0].Text())
			}
		})
	}
}

// TestForkStartsWithTheTodos: an isolated macro's conversation starts
// with the list and changes its own.
func TestForkStartsWithTheTodos(t *testing.T) {
	st := newState(t, twoClients)
	st.Todos().Add("shared")
	f := st.Fork()
	f.Todos().Add("the fork's")
	if len(f.Todos().Items()) != 2 || len(st.Todos().Items()) != 1 {
		t.Fatalf("fork %d items, parent %d", len(f.Todos().Items()), len(st.Todos().Items()))
	}
}

func toolNames(req *provider.ChatRequest) string {
	var names []string
	for _, tl := range req.Tools {
		names = append(names, tl.Name)
	}
	return strings.Join(names, ",")
}

func dumpTexts(req *provider.ChatRequest) string {
	var b strings.Builder
	for _, m := range req.Messages {
		fmt.Fprintf(&b, "%s: %s\n", m.Role, m.Text())
	}
	return b.String()
}
