package supervisor

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"
)

func wait(ctx context.Context, _ string) (string, error) { <-ctx.Done(); return "", ctx.Err() }

func TestSpawnRunsConcurrentlyAndCollects(t *testing.T) {
	s := New(context.Background())
	defer s.Close(time.Second)
	release := make(chan struct{})
	both := make(chan string, 2)
	run := func(msg string) func(context.Context, string) (string, error) {
		return func(ctx context.Context, id string) (string, error) {
			both <- id
			<-release
			return msg, nil
		}
	}
	lim := Limits{MaxConcurrent: 4, MaxDepth: 3}
	a, err := s.Spawn("", 0, lim, "explore", "look", run("found a"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Spawn("", 0, lim, "explore", "look more", run("found b"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^agent_explore_[0-9a-f]{8}$`).MatchString(a) || a == b {
		t.Fatalf("ids %q %q", a, b)
	}
	<-both
	<-both // both started before either ended: they run at once
	if st, _ := s.Get(a); st.Status().State != Running {
		t.Fatalf("state %v", st.Status().State)
	}
	close(release)
	for id, want := range map[string]string{a: "found a", b: "found b"} {
		st, err := s.Collect(context.Background(), id)
		if err != nil || st.State != Done || st.Result != want {
			t.Fatalf("collect %s: %+v %v", id, st, err)
		}
	}
}

func TestLimitsAreRefusedReadably(t *testing.T) {
	s := New(context.Background())
	defer s.Close(time.Second)
	cases := []struct {
		name  string
		lim   Limits
		depth int
		agent string
		want  string
	}{
		{"not spawnable", Limits{Spawnable: []string{"coder"}}, 0, "explore", `"explore" is not one of the agents`},
		{"none spawnable", Limits{Spawnable: []string{}}, 0, "coder", "may not spawn any agent"},
		{"too deep", Limits{MaxDepth: 2}, 2, "coder", "3 levels deep and max_agent_depth is 2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := s.Spawn("p", c.depth, c.lim, c.agent, "x", wait)
			if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v, want %q", err, c.want)
			}
		})
	}
	lim := Limits{MaxConcurrent: 2}
	for range 2 {
		if _, err := s.Spawn("p", 0, lim, "coder", "x", wait); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Spawn("p", 0, lim, "coder", "x", wait); err == nil || !strings.Contains(err.Error(), "max_concurrent_agents") {
		t.Fatalf("third: %v", err)
	}
	// Another parent's children do not count.
	if _, err := s.Spawn("q", 0, lim, "coder", "x", wait); err != nil {
		t.Fatalf("another parent: %v", err)
	}
}

func TestFailuresPanicsAndCancel(t *testing.T) {
	s := New(context.Background())
	failing, _ := s.Spawn("", 0, Limits{}, "a", "x", func(context.Context, string) (string, error) { return "", errors.New("plugin crashed") })
	panicking, _ := s.Spawn("", 0, Limits{}, "a", "x", func(context.Context, string) (string, error) { panic("boom") })
	long, _ := s.Spawn("", 0, Limits{}, "a", "x", wait)
	if st, _ := s.Collect(context.Background(), failing); st.State != Failed || st.Err != "plugin crashed" {
		t.Errorf("failing: %+v", st)
	}
	if st, _ := s.Collect(context.Background(), panicking); st.State != Failed || !strings.Contains(st.Err, "boom") {
		t.Errorf("panicking: %+v", st)
	}
	if was, err := s.Cancel(long); !was || err != nil {
		t.Fatalf("cancel: %v %v", was, err)
	}
	if st, _ := s.Collect(context.Background(), long); st.State != Cancelled {
		t.Errorf("cancelled: %+v", st)
	}
	if _, err := s.Get("agent_x_00000000"); err == nil {
		t.Error("an unknown id")
	}
	// Close cancels what still runs and waits for it.
	rest, _ := s.Spawn("", 0, Limits{}, "a", "x", wait)
	s.Close(time.Second)
	if st, _ := s.Get(rest); st.Status().State != Cancelled {
		t.Errorf("after Close: %+v", st.Status())
	}
	if _, err := s.Spawn("", 0, Limits{}, "a", "x", wait); err == nil {
		t.Error("a spawn after Close")
	}
}

func TestTaskQueueHonoursBlockedBy(t *testing.T) {
	s := New(context.Background())
	a, _ := s.CreateTask("root", "design", "", nil)
	b, err := s.CreateTask("root", "build", "", []string{a.ID})
	if err != nil || b.State != "blocked" {
		t.Fatalf("b: %+v %v", b, err)
	}
	if _, err := s.CreateTask("root", "x", "", []string{"task_99"}); err == nil {
		t.Error("a blocker that does not exist")
	}
	if _, err := s.EndTask(b.ID, true, ""); err == nil || !strings.Contains(err.Error(), "waits on task_1") {
		t.Fatalf("completing a blocked task: %v", err)
	}
	if _, err := s.EndTask(a.ID, true, "ok"); err != nil {
		t.Fatal(err)
	}
	tasks := s.Tasks()
	if tasks[1].State != "ready" {
		t.Fatalf("after its blocker: %+v", tasks[1])
	}
	if _, err := s.EndTask(b.ID, false, "no disk"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.EndTask(b.ID, true, ""); err == nil {
		t.Error("ending a task twice")
	}
}

func TestMessagesAndEscalations(t *testing.T) {
	s := New(context.Background())
	defer s.Close(time.Second)
	started := make(chan string, 1)
	child, _ := s.Spawn("", 0, Limits{}, "a", "x", func(ctx context.Context, id string) (string, error) { started <- id; return wait(ctx, id) })
	<-started
	if to, err := s.Send(child, "parent", "half done"); err != nil || to != Root {
		t.Fatalf("send: %q %v", to, err)
	}
	if msgs := s.Inbox(""); len(msgs) != 1 || msgs[0].From != child || msgs[0].Text != "half done" {
		t.Fatalf("inbox %+v", msgs)
	}
	if msgs := s.Inbox(""); len(msgs) != 0 {
		t.Fatal("a message read twice")
	}
	if _, err := s.Send(Root, "agent_nope_00000000", "x"); err == nil {
		t.Error("a message to nobody")
	}

	answered := make(chan string, 1)
	go func() {
		a, _ := s.Escalate(context.Background(), child, "which branch?", []string{"main", "dev"}, time.Minute)
		answered <- a
	}()
	var esc string
	for esc == "" {
		for _, m := range s.Inbox("") {
			if i := strings.Index(m.Text, "esc_"); i >= 0 {
				esc = strings.Fields(m.Text[i:])[0]
				esc = strings.TrimSuffix(esc, ":")
			}
		}
	}
	if err := s.Reply(esc, "dev"); err != nil {
		t.Fatal(err)
	}
	if a := <-answered; a != "dev" {
		t.Fatalf("answer %q", a)
	}
	if err := s.Reply(esc, "again"); err == nil {
		t.Error("a second reply")
	}
	if _, err := s.Escalate(context.Background(), child, "quick?", nil, time.Millisecond); !errors.Is(err, ErrNoAnswer) {
		t.Fatalf("timeout: %v", err)
	}
}
