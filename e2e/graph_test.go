package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
)

// pipelineGraph exercises every node kind: a script routing with _next, a
// parallel step whose two branches write one key through a reducer (and a
// third queries a rag node's knowledge base), a map fan-out, a config agent, an input node answered by its
// default (no terminal), an approval skipped by the script's route, and
// an end template.
const pipelineGraph = `name: pipeline
description: A pipeline that uses every kind of node
version: "1.0"
settings:
  max_concurrency: 2
  log_state_snapshots: true
reducers:
  notes: append
initial_state:
  notes: []
start: decide
nodes:
  decide:
    type: script
    script: scripts/decide.sh
    next: never
  never:
    type: approval
    question: "not asked"
    options: ["ok"]
    routes: {"ok": done}
    on_other: done
  plan:
    type: llm
    instructions: "You plan for {{who}}."
    prompt: "plan: {{initial_prompt}}"
    output_schema:
      type: object
      properties: {topics: {type: array}}
      required: [topics]
    next: [left, right, lookup]
  lookup:
    type: rag
    documents: [./knowledge/]
    query: "{{topics}} zebra"
    embedding_model: fake:embed
    chunk_size: 500
    chunk_overlap: 0
    top_k: 1
    state_updates: {rag_sources: "{{output.sources}}", rag_context: "{{output.context}}"}
    next: fan
  left:
    type: llm
    prompt: "left side of {{topics}}"
    state_updates: {notes: "{{output}}"}
    next: fan
  right:
    type: script
    script: scripts/right.sh
    next: fan
  fan:
    type: map
    over: "{{topics}}"
    as: topic
    branch: about
    collect_into: facts
    next: ask
  about:
    type: llm
    prompt: "about {{topic}}"
  ask:
    type: input
    question: "Anything to add?"
    default: "nothing"
    validation: "len(input) > 3"
    state_updates: {extra: "{{input}}"}
    next: helper
  helper:
    type: agent
    agent: helper
    prompt: "helper: {{facts}}"
    state_updates: {helped: "{{output}}"}
    next: done
  done:
    type: end
    output: "who={{who}} notes={{notes}} facts={{facts}} extra={{extra}} helped={{helped}}\nrag={{rag_sources}} {{rag_context}}"
`

const decideScript = `#!/usr/bin/env bash
case "$GRAPH_STATE" in
  *'"initial_prompt":"go'*) echo '{"who": "'"$LLM_AGENT_VAR_WHO"'", "_next": "plan"}' ;;
  *) echo '{"_next": "done"}' ;;
esac
`

const rightScript = `#!/usr/bin/env bash
echo '{"notes": "right saw the state"}'
`

func graphResponder(t *testing.T) (func(r *fakellm.ChatRequest) fakellm.Reply, func() []string) {
	var mu sync.Mutex
	var prompts []string
	return func(r *fakellm.ChatRequest) fakellm.Reply {
			p := lastUser(r)
			mu.Lock()
			prompts = append(prompts, systemText(r)+" | "+p)
			mu.Unlock()
			switch {
			case strings.HasPrefix(p, "plan: "):
				return fakellm.Reply{Text: "```json\n{\"topics\": [\"x\", \"y\", \"z\"]}\n```"}
			case strings.HasPrefix(p, "left side of "):
				return fakellm.Reply{Text: "left done"}
			case strings.HasPrefix(p, "about "):
				return fakellm.Reply{Text: "fact " + strings.TrimPrefix(p, "about ")}
			case strings.HasPrefix(p, "helper: "):
				return fakellm.Reply{Text: "helped with " + strings.TrimPrefix(p, "helper: ")}
			}
			return fakellm.Reply{Text: "unexpected: " + p}
		}, func() []string {
			mu.Lock()
			defer mu.Unlock()
			return append([]string{}, prompts...)
		}
}

func writePipeline(t *testing.T, e *env) {
	t.Helper()
	e.writeFiles(map[string]string{
		"agents/pipeline/graph.yaml":         "variables:\n  - name: who\n    default: ann\n" + pipelineGraph,
		"agents/pipeline/scripts/decide.sh":  decideScript,
		"agents/pipeline/scripts/right.sh":   rightScript,
		"agents/helper/config.yaml":          "description: helps\ninstructions: You help.\n",
		"agents/pipeline/knowledge/zebra.md": "Zebras have black and white stripes and live in herds.",
	})
}

// A graph of our own with every node kind runs end to end against the
// fake server: the parallel branches' writes merge through the append
// reducer, the map collects in order, the script's _next routes, the
// agent node runs a config agent, and each node's progress is on stderr.
func TestGraphOneShotRunsEveryNodeKind(t *testing.T) {
	respond, prompts := graphResponder(t)
	url := fakellm.StartOpenAI(t, &fakellm.OpenAI{Respond: respond})
	// No skills: the test compares the nodes' whole instructions.
	e := newEnv(t, fakeConfig(url, "skills_enabled: false\n"))
	writePipeline(t, e)
	r := e.run("", "-a", "pipeline", "go", "now")
	e.mustSucceed(r)
	want := `who=ann notes=["left done","right saw the state"] facts=["fact x","fact y","fact z"] extra=nothing helped=helped with ["fact x","fact y","fact z"]`
	first, rest, _ := strings.Cut(strings.TrimSpace(r.stdout), "\n")
	if first != want {
		t.Fatalf("stdout %q\nwant   %q\nstderr %s", r.stdout, want, r.stderr)
	}
	if !strings.Contains(rest, "zebra.md") || !strings.Contains(rest, "Zebras have black and white stripes") {
		t.Errorf("the rag node's sources and context are not in the output: %q", rest)
	}
	if _, err := os.Stat(filepath.Join(e.configDir, "agents", "pipeline", "lookup.yaml")); err != nil {
		t.Errorf("the rag node's knowledge base was not built: %v", err)
	}
	for _, line := range []string{"▸ lookup (rag)", "▸ decide (script)", "→ plan", "▸ left (llm)", "▸ right (script)", "▸ fan (map)", "▸ helper (agent)", "▸ done (end)"} {
		if !strings.Contains(r.stderr, line) {
			t.Errorf("stderr lacks %q:\n%s", line, r.stderr)
		}
	}
	ps := prompts()
	if !containsPrefix(ps, "You plan for ann. | plan: go now") {
		t.Errorf("the plan node's instructions and prompt: %q", ps)
	}
	if !containsPrefix(ps, "You help. | helper: ") {
		t.Errorf("the agent node did not run the helper agent with its instructions: %q", ps)
	}
	// log_state_snapshots: the state after each step, in the cache.
	snaps, _ := filepath.Glob(filepath.Join(e.cacheDir, "agents", "pipeline", "snapshots", "*", "step-*.json"))
	if len(snaps) != 7 {
		t.Errorf("%d snapshots, want 7 (one per step): %v", len(snaps), snaps)
	}
	// Another input routes the script straight to the end.
	r = e.run("", "-a", "pipeline", "stop")
	e.mustSucceed(r)
	if !strings.HasPrefix(strings.TrimSpace(r.stdout), "who= notes=[]") {
		t.Errorf("stop: stdout %q", r.stdout)
	}
}

func containsPrefix(list []string, p string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// A graph agent has no sessions: -s is refused in one line. A graph that
// does not validate is left out of --list-agents with every problem.
func TestGraphAgentRefusesSessionsAndListsOnlyValidGraphs(t *testing.T) {
	e := newEnv(t, fakeConfig("http://127.0.0.1:1/v1", ""))
	writePipeline(t, e)
	e.writeFiles(map[string]string{"agents/broken/graph.yaml": "version: \"1.0\"\nstart: a\nnodes:\n  a: {type: llm, prompt: p, next: [b, zz]}\n  b: {type: end}\n"})
	r := e.run("", "-a", "pipeline", "-s", "mine", "go")
	if r.code == 0 || !strings.Contains(r.stderr, "graph agent, which has no sessions") {
		t.Errorf("-s: code %d stderr %q", r.code, r.stderr)
	}
	r = e.run("", "--list-agents")
	e.mustSucceed(r)
	if !strings.Contains(r.stdout, "pipeline\n") || strings.Contains(r.stdout, "broken") {
		t.Errorf("--list-agents: %q", r.stdout)
	}
	if !strings.Contains(r.stderr, `graph.yaml:4: node "a": next names node "zz"`) {
		t.Errorf("the broken graph's problem is not named: %q", r.stderr)
	}
}

const approvalGraph = `version: "1.0"
start: review
nodes:
  review:
    type: approval
    question: "Ship {{initial_prompt}}?"
    options: ["yes", "no"]
    routes: {"yes": shipped, "no": dropped}
    on_other: changed
    state_updates: {decision: "{{choice}}"}
  shipped: {type: end, output: "SHIPPED {{initial_prompt}}"}
  dropped: {type: end, output: "DROPPED"}
  changed: {type: end, output: "CHANGED: {{decision}}"}
`

// In the REPL, each line runs the graph agent; an approval node asks on
// the terminal, by number or with an answer of the user's own.
func TestGraphApprovalAnsweredInThePTY(t *testing.T) {
	e := newEnv(t, fakeConfig("http://127.0.0.1:1/v1", ""))
	e.writeFiles(map[string]string{"agents/approver/graph.yaml": approvalGraph})
	p := e.startREPL()
	defer p.close()
	p.enter(".agent approver")
	p.enter("the release", "Ship the release?", "1. yes", "2. no")
	p.enter("1", "SHIPPED the release")
	p.enter("the fix", "Ship the fix?")
	p.enter("after lunch", "CHANGED: after lunch")
	p.exit()
	if _, err := os.Stat(filepath.Join(e.configDir, "agents", "approver", "sessions")); err == nil {
		t.Error("a graph agent made a sessions folder")
	}
}

// An llm node's skills: the graph's enabled_skills, narrowed by the node's,
// are what the node's model may load.
func TestGraphLLMNodeOffersItsSkills(t *testing.T) {
	fake := toolModel("skill__list", `{}`)
	url := fakellm.StartOpenAI(t, fake)
	e := newEnv(t, fakeConfig(url, ""))
	e.writeFiles(map[string]string{
		"skills/tidy/SKILL.md": "---\ndescription: Tidy the text\n---\nRemove double spaces.\n",
		"skills/loud/SKILL.md": "---\ndescription: Shout\n---\nUse capitals.\n",
		"agents/sk/graph.yaml": "version: \"1.0\"\nenabled_skills: [tidy, loud]\nstart: a\nnodes:\n  a: {type: llm, prompt: \"{{initial_prompt}}\", enabled_skills: [tidy], state_updates: {said: \"{{output}}\"}, next: b}\n  b: {type: end, output: \"{{said}}\"}\n",
	})
	r := e.run("", "-a", "sk", "go")
	e.mustSucceed(r)
	if !strings.Contains(r.stdout, "tidy") || strings.Contains(r.stdout, "loud") {
		t.Fatalf("skill__list of the node: %q (stderr %q)", r.stdout, r.stderr)
	}
}
