package e2e

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"testing"

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
