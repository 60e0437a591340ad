package e2e

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coyote-cli/coyote/internal/fakellm"
)

var childID = regexp.MustCompile(`agent_helper_[0-9a-f]{8}`)

// bossModel plays a parent agent ("You lead") that spawns two helpers in
// one reply, then collects both, then answers with their results; the
// helpers ("You help") answer their task.
func bossModel() *fakellm.OpenAI {
	var mu sync.Mutex
	return &fakellm.OpenAI{Respond: func(req *fakellm.ChatRequest) fakellm.Reply {
		mu.Lock()
		defer mu.Unlock()
		sys := systemText(req)
		if strings.Contains(sys, "You help") {
			return fakellm.Reply{Text: "helper result for " + lastUser(req)}
		}
		results := toolResults(req)
		switch {
		case len(results) == 0:
			return fakellm.Reply{ToolCalls: []fakellm.ToolCall{
				{ID: "s1", Name: "agent__spawn", Arguments: `{"agent":"helper","prompt":"task A"}`},
				{ID: "s2", Name: "agent__spawn", Arguments: `{"agent":"helper","prompt":"task B"}`},
			}}
		case len(results) == 2:
			var calls []fakellm.ToolCall
			for i, r := range results {
				if id := childID.FindString(r); id != "" {
					calls = append(calls, fakellm.ToolCall{ID: "c" + string(rune('1'+i)), Name: "agent__collect", Arguments: `{"id":"` + id + `"}`})
				}
			}
			if len(calls) == 0 {
				return fakellm.Reply{Text: "spawn refused: " + strings.Join(results, " | ")}
			}
			return fakellm.Reply{ToolCalls: calls}
		}
		var got []string
		for _, r := range results[2:] {
			var v struct{ Result, State string }
			_ = json.Unmarshal([]byte(r), &v)
			got = append(got, v.State+": "+v.Result)
		}
		return fakellm.Reply{Text: "collected " + strings.Join(got, "; ")}
	}}
}

func writeBossAgents(e *env, bossExtra string) {
	e.writeFiles(map[string]string{
		"agents/boss/config.yaml":   "description: Leads\ncan_spawn_agents: true\nspawnable_agents: [helper]\n" + bossExtra + "instructions: You lead.\n",
		"agents/helper/config.yaml": "description: Helps\ninstructions: You help.\n",
	})
}

// A parent agent spawns two children that run at once; it collects both
// and answers with their results.
func TestParentSpawnsTwoChildrenAndCollectsThem(t *testing.T) {
	fake := bossModel()
	url := fakellm.StartOpenAI(t, fake)
	e := newEnv(t, fakeConfig(url, ""))
	writeBossAgents(e, "")
	r := e.run("", "-a", "boss", "split", "the", "work")
	e.mustSucceed(r)
	if !strings.Contains(r.stdout, "collected done: helper result for task A; done: helper result for task B") {
		t.Fatalf("stdout %q\nstderr %q", r.stdout, r.stderr)
	}
	first := fake.Requests()[0]
	names := strings.Join(offered(&first), ",")
	for _, want := range []string{"agent__spawn", "agent__collect", "agent__task_create", "agent__reply_escalation", "agent__send_message", "agent__check_inbox"} {
		if !strings.Contains(names, want) {
			t.Errorf("the parent is not offered %s: %s", want, names)
		}
	}
	if sys := systemText(&first); !strings.Contains(sys, "agent__spawn starts one") {
		t.Errorf("no spawn instructions: %q", sys)
	}
	for _, req := range fake.Requests() {
		if strings.Contains(systemText(&req), "You help") {
			n := strings.Join(offered(&req), ",")
			if strings.Contains(n, "agent__spawn") || !strings.Contains(n, "agent__send_message") {
				t.Errorf("a child that may not spawn is offered %s", n)
			}
		}
	}
}

// The limits are refusals the model reads: one at a time, and no agent
// outside spawnable_agents.
func TestSpawnLimitsAreRefused(t *testing.T) {
	fake := bossModel()
	url := fakellm.StartOpenAI(t, fake)
	e := newEnv(t, fakeConfig(url, ""))
	writeBossAgents(e, "max_concurrent_agents: 1\n")
	r := e.run("", "-a", "boss", "go")
	e.mustSucceed(r)
	var refusals, helpers int
	for _, req := range fake.Requests() {
		if strings.Contains(systemText(&req), "You help") {
			helpers++
		}
		for _, res := range toolResults(&req) {
			if strings.Contains(res, "max_concurrent_agents allows") {
				refusals++
			}
		}
	}
	if helpers != 1 || refusals == 0 {
		t.Fatalf("%d helpers ran, %d refusals reached the model; stdout %q", helpers, refusals, r.stdout)
	}
	e.writeFiles(map[string]string{"agents/boss/config.yaml": "can_spawn_agents: true\nspawnable_agents: [coder]\ninstructions: You lead.\n"})
	r = e.run("", "-a", "boss", "go")
	e.mustSucceed(r)
	if !strings.Contains(r.stdout, "spawn refused") || !strings.Contains(r.stdout, `\"helper\" is not one of the agents`) {
		t.Fatalf("spawnable_agents: %q", r.stdout)
	}
}

// waiterModel plays a parent that spawns one helper, then (once) waits
// for it with agent__collect, or, with collect false, answers at once;
// the helper streams slowly until cancelled, or asks the user when asks
// is set.
func waiterModel(collect, asks bool) func(int, *fakellm.ChatRequest) fakellm.Reply {
	var mu sync.Mutex
	return func(_ int, req *fakellm.ChatRequest) fakellm.Reply {
		mu.Lock()
		defer mu.Unlock()
		results := toolResults(req)
		if strings.Contains(systemText(req), "You help") {
			switch {
			case asks && len(results) == 0:
				return fakellm.Reply{ToolCalls: []fakellm.ToolCall{{ID: "q", Name: "user__input", Arguments: `{"question":"Which colour should the logo be?"}`}}}
			case asks:
				return fakellm.Reply{Text: "the user chose " + results[0]}
			}
			// The child's answer never ends: only a cancellation ends it
			// (a slow reply could end before a loaded machine sends Ctrl+C).
			return fakellm.Reply{Text: "still drawing", Delay: time.Minute}
		}
		switch {
		case len(results) == 0 && strings.HasPrefix(lastUser(req), "[SUB-AGENTS STILL RUNNING]"):
			return fakellm.Reply{Text: "I will not collect."}
		case len(results) == 0:
			return fakellm.Reply{ToolCalls: []fakellm.ToolCall{{ID: "s", Name: "agent__spawn", Arguments: `{"agent":"helper","prompt":"draw"}`}}}
		case len(results) == 1 && collect:
			id := childID.FindString(results[0])
			return fakellm.Reply{ToolCalls: []fakellm.ToolCall{{ID: "c", Name: "agent__collect", Arguments: `{"id":"` + id + `"}`}}}
		case len(results) == 1:
			return fakellm.Reply{Text: "Spawned; done for now."}
		}
		return fakellm.Reply{Text: "final: " + results[len(results)-1]}
	}
}

// A turn that ends with a child still running is sent back to collect it
// three times; then the child is cancelled, and its request with it.
func TestUncollectedChildrenAreRemindedThenCancelled(t *testing.T) {
	fake := startREPLFake(t, func(n int, r *fakellm.ChatRequest) fakellm.Reply { return waiterModel(false, false)(n, r) })
	e := newEnv(t, fakeConfig(fake.url, ""))
	writeBossAgents(e, "")
	r := e.run("", "-a", "boss", "go")
	e.mustSucceed(r)
	reminders := 0
	for _, req := range fake.Requests() {
		if strings.HasPrefix(lastUser(&req), "[SUB-AGENTS STILL RUNNING]") {
			reminders++
		}
	}
	if reminders != 3 || !strings.Contains(r.stderr, "cancelled 1 sub-agent(s) still running at the end of the turn") {
		t.Fatalf("%d reminders; stderr %q", reminders, r.stderr)
	}
	// The child's request, if it was sent before the child was cancelled,
	// was cut off.
	asked := false
	for _, req := range fake.Requests() {
		asked = asked || strings.Contains(systemText(&req), "You help")
	}
	if asked {
		select {
		case <-fake.cancelled:
		case <-time.After(replTimeout):
			t.Fatal("the child's request was not cancelled")
		}
	}
}

// In the REPL, a child's question reaches the user at the terminal, and
// the answer reaches the child.
func TestChildQuestionEscalatesToTheUser(t *testing.T) {
	fake := startREPLFake(t, func(n int, r *fakellm.ChatRequest) fakellm.Reply { return waiterModel(true, true)(n, r) })
	e := newEnv(t, fakeConfig(fake.url, ""))
	writeBossAgents(e, "")
	p := e.startPTY("-a", "boss")
	p.expect("boss>> ", replTimeout)
	p.enter("make a logo", "asks]", "Which colour should the logo be?")
	p.enter("teal", "final:")
	p.expect("the user chose", replTimeout)
	p.expect("teal", replTimeout)
	p.exit()
}

// Ctrl+C while a parent waits on its child cancels the whole tree: the
// child's request ends, and the REPL stays.
func TestCtrlCCancelsTheTree(t *testing.T) {
	model := waiterModel(true, false)
	childAsked := make(chan struct{})
	var once sync.Once
	fake := startREPLFake(t, func(n int, r *fakellm.ChatRequest) fakellm.Reply {
		if strings.Contains(systemText(r), "You help") {
			once.Do(func() { close(childAsked) })
		}
		return model(n, r)
	})
	e := newEnv(t, fakeConfig(fake.url, ""))
	writeBossAgents(e, "")
	p := e.startPTY("-a", "boss")
	p.expect("boss>> ", replTimeout)
	p.send("draw\r")
	p.expect("Call agent__collect", replTimeout)
	// Ctrl+C once the child's request is in flight, so that its
	// cancellation can be seen.
	select {
	case <-childAsked:
	case <-time.After(replTimeout):
		t.Fatal("the child never asked the model")
	}
	p.send("\x03")
	select {
	case <-fake.cancelled:
	case <-time.After(replTimeout):
		t.Fatal("the child's request was not cancelled by Ctrl+C")
	}
	p.expect("boss>> ", replTimeout)
	p.enter(".info agent", "sub-agent agent_helper_", "cancelled")
	p.exit()
}

// Without a terminal a child's question goes to its parent; nobody
// answering within the child's escalation_timeout, the child is told to
// go on with its best choice, and finishes.
func TestChildQuestionWithoutATerminalTimesOut(t *testing.T) {
	fake := startREPLFake(t, func(n int, r *fakellm.ChatRequest) fakellm.Reply { return waiterModel(true, true)(n, r) })
	e := newEnv(t, fakeConfig(fake.url, ""))
	writeBossAgents(e, "")
	e.writeFiles(map[string]string{"agents/helper/config.yaml": "description: Helps\nescalation_timeout: 1\ninstructions: You help.\n"})
	r := e.run("", "-a", "boss", "make a logo")
	e.mustSucceed(r)
	if !strings.Contains(r.stdout, "the user chose") || !strings.Contains(r.stdout, `\"answered\":false`) || !strings.Contains(r.stdout, "Nobody answered within 1s") {
		t.Fatalf("stdout %q\nstderr %q", r.stdout, r.stderr)
	}
	// The parent collected the child's result and answered.
	if !strings.Contains(r.stdout, "final:") {
		t.Fatalf("the parent did not finish: %q", r.stdout)
	}
}
