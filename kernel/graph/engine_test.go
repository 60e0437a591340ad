package graph

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// fakeRuntime answers llm nodes with llm(node, prompt), questions from
// answers in order, and records what happened.
type fakeRuntime struct {
	mu        sync.Mutex
	llm       func(c LLMCall) (string, error)
	answers   []string
	asked     []Question
	events    []Event
	snapshots []map[string]any
	calls     []string
}

func (f *fakeRuntime) LLM(_ context.Context, c LLMCall) (string, error) {
	f.mu.Lock()
	f.calls = append(f.calls, c.Node.ID+": "+c.Prompt)
	f.mu.Unlock()
	return f.llm(c)
}

func (f *fakeRuntime) Agent(_ context.Context, n *Node, name, prompt string) (string, error) {
	return "agent " + name + " says: " + prompt, nil
}

func (f *fakeRuntime) RAG(_ context.Context, n *Node, q string) (RAGResult, error) {
	return RAGResult{Context: "ctx for " + q, Sources: []string{"a.md", "b.md"}}, nil
}

func (f *fakeRuntime) Ask(_ context.Context, q Question) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, q)
	if len(f.answers) == 0 {
		return "", fmt.Errorf("no answer left for %q", q.Text)
	}
	a := f.answers[0]
	f.answers = f.answers[1:]
	return a, nil
}

func (f *fakeRuntime) ScriptEnv(*Node) []string { return os.Environ() }

func (f *fakeRuntime) Progress(e Event) {
	f.mu.Lock()
	f.events = append(f.events, e)
	f.mu.Unlock()
}

func (f *fakeRuntime) Snapshot(_ int, st map[string]any) {
	f.snapshots = append(f.snapshots, st)
}

// load parses and validates a graph written in a temporary agent
// directory with the given scripts.
func load(t *testing.T, src string, scripts map[string]string) *Graph {
	t.Helper()
	dir := t.TempDir()
	for name, body := range scripts {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(dir, "graph.yaml")
	g, _, err := Parse(file, dir, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if errs, _ := Validate(g, Lookup{}); len(errs) > 0 {
		t.Fatal((&Error{Problems: errs}).Error())
	}
	return g
}

const diamond = `
version: "1.0"
reducers:
  sources: extend
  context: concat
initial_state: {sources: []}
start: triage
nodes:
  triage:
    type: llm
    prompt: "triage {{initial_prompt}}"
    output_schema:
      type: object
      properties: {topic: {type: string}}
      required: [topic]
    next: [retrieve, search]
  retrieve:
    type: rag
    documents: [./docs]
    query: "{{topic}}"
    state_updates:
      context: "{{output.context}}"
      sources: "{{output.sources}}"
    next: join
  search:
    type: llm
    prompt: "search {{topic}}"
    output_schema:
      type: object
      properties: {context: {type: string}, sources: {type: array}}
    next: join
  join:
    type: end
    output: "{{topic}}|{{context}}|{{sources}}"
`

func TestParallelStepMergesBranchWritesThroughReducers(t *testing.T) {
	g := load(t, diamond, nil)
	rt := &fakeRuntime{llm: func(c LLMCall) (string, error) {
		if c.Node.ID == "triage" {
			return "```json\n{\"topic\": \"wasm\"}\n```", nil
		}
		return `{"context": "web says hi", "sources": ["w.html"]}`, nil
	}}
	out, err := Run(context.Background(), g, "tell me", rt)
	if err != nil {
		t.Fatal(err)
	}
	// The branches merge in frontier order: retrieve's then search's.
	want := `wasm|ctx for wasm` + "\n" + `web says hi|["a.md","b.md","w.html"]`
	if out != want {
		t.Errorf("output = %q, want %q", out, want)
	}
	// join runs once, after both branches.
	starts := 0
	for _, e := range rt.events {
		if e.Node == "join" && !e.Done {
			starts++
		}
	}
	if starts != 1 {
		t.Errorf("join started %d times, want once", starts)
	}
	if len(rt.snapshots) != 3 {
		t.Errorf("%d snapshots, want one per step (3)", len(rt.snapshots))
	}
}

func TestParallelBranchesSeeTheStateBeforeTheStep(t *testing.T) {
	g := load(t, `
version: "1.0"
reducers: {n: sum}
initial_state: {n: 1}
start: s
nodes:
  s: {type: llm, prompt: go, output_schema: {type: object}, next: [a, b]}
  a: {type: script, script: add.sh, next: e}
  b: {type: script, script: add.sh, next: e}
  e: {type: end, output: "{{n}}"}
`, map[string]string{"add.sh": `n=$(printf '%s' "$GRAPH_STATE" | sed 's/.*"n":\([0-9]*\).*/\1/'); echo "{\"n\": $((n+10))}"`})
	out, err := Run(context.Background(), g, "", &fakeRuntime{llm: func(LLMCall) (string, error) { return "{}", nil }})
	if err != nil {
		t.Fatal(err)
	}
	// Each branch read n=1 and wrote 11; sum merges 1 + 11 + 11.
	if out != "23" {
		t.Errorf("output = %q, want 23", out)
	}
}

func TestScriptRoutesWithNextAndStateIsMerged(t *testing.T) {
	src := `
version: "1.0"
initial_state: {count: 0}
start: gate
nodes:
  gate:
    type: script
    script: scripts/gate.py
    next: never
  never: {type: end, output: "wrong way"}
  done: {type: end, output: "count={{count}} seen={{seen}}"}
`
	g := load(t, src, map[string]string{"scripts/gate.py": `
import json, os
st = json.loads(os.environ["GRAPH_STATE"])
print(json.dumps({"count": st["count"] + 1, "seen": st["initial_prompt"], "_next": "done"}))
`})
	out, err := Run(context.Background(), g, "hello", &fakeRuntime{})
	if err != nil {
		t.Fatal(err)
	}
	if out != "count=1 seen=hello" {
		t.Errorf("output = %q", out)
	}
}

func TestLargeStateGoesToTheScriptInAFile(t *testing.T) {
	g := load(t, `
version: "1.0"
start: s
nodes:
  s: {type: script, script: s.sh, next: e}
  e: {type: end, output: "{{how}} {{size}}"}
`, map[string]string{"s.sh": `if [ -n "$GRAPH_STATE_FILE" ]; then echo "{\"how\":\"file\",\"size\":$(wc -c < "$GRAPH_STATE_FILE")}"; else echo '{"how":"env","size":0}'; fi`})
	for _, tc := range []struct {
		input string
		want  string
	}{
		{"small", "env 0"},
		{strings.Repeat("x", StateInlineLimit+1), "file"},
	} {
		out, err := Run(context.Background(), g, tc.input, &fakeRuntime{})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(out, tc.want) {
			t.Errorf("input of %d bytes: output %q, want %q…", len(tc.input), out, tc.want)
		}
	}
}

func TestScriptFailureTakesTheFallback(t *testing.T) {
	g := load(t, `
version: "1.0"
start: s
nodes:
  s: {type: script, script: s.sh, next: ok, fallback: bad}
  ok: {type: end, output: ok}
  bad: {type: end, output: "fell back"}
`, map[string]string{"s.sh": `echo 'not json'`})
	out, err := Run(context.Background(), g, "", &fakeRuntime{})
	if err != nil || out != "fell back" {
		t.Errorf("Run = %q, %v; want the fallback", out, err)
	}
}

func TestApprovalRoutesAndOnOther(t *testing.T) {
	src := `
version: "1.0"
start: review
nodes:
  review:
    type: approval
    question: "Ship {{initial_prompt}}?"
    options: ["yes", "no"]
    routes: {"yes": shipped, "no": dropped}
    on_other: other
    state_updates: {decision: "{{choice}}"}
  shipped: {type: end, output: "shipped ({{decision}})"}
  dropped: {type: end, output: "dropped"}
  other: {type: end, output: "other: {{decision}}"}
`
	g := load(t, src, nil)
	for answer, want := range map[string]string{"yes": "shipped (yes)", "no": "dropped", "make it blue": "other: make it blue"} {
		rt := &fakeRuntime{answers: []string{answer}}
		out, err := Run(context.Background(), g, "it", rt)
		if err != nil {
			t.Fatal(err)
		}
		if out != want {
			t.Errorf("answer %q: output %q, want %q", answer, out, want)
		}
		if q := rt.asked[0]; q.Text != "Ship it?" || !reflect.DeepEqual(q.Options, []string{"yes", "no"}) {
			t.Errorf("asked %+v", q)
		}
	}
}

func TestInputDefaultAndValidation(t *testing.T) {
	src := `
version: "1.0"
start: ask
nodes:
  ask:
    type: input
    question: "Name?"
    default: "anon"
    validation: "len(input) > 3"
    state_updates: {name: "{{input}}"}
    next: e
  e: {type: end, output: "hi {{name}}"}
`
	g := load(t, src, nil)
	for _, tc := range []struct {
		answers []string
		want    string
		asks    int
	}{
		{[]string{""}, "hi anon", 1},
		{[]string{"bob", "bobby"}, "hi bobby", 2},
	} {
		rt := &fakeRuntime{answers: tc.answers}
		out, err := Run(context.Background(), g, "", rt)
		if err != nil {
			t.Fatal(err)
		}
		if out != tc.want || len(rt.asked) != tc.asks {
			t.Errorf("answers %q: %q after %d questions, want %q after %d", tc.answers, out, len(rt.asked), tc.want, tc.asks)
		}
	}
	if _, err := Run(context.Background(), g, "", &fakeRuntime{answers: []string{"a", "b", "c"}}); err == nil || !strings.Contains(err.Error(), "len(input) > 3") {
		t.Errorf("three short answers: %v, want an error naming the rule", err)
	}
}

func TestMapFansOutAndCollectsInOrder(t *testing.T) {
	src := `
version: "1.0"
settings: {max_concurrency: 2}
initial_state: {subjects: [c, a, b]}
start: each
nodes:
  each:
    type: map
    over: "{{subjects}}"
    as: subject
    branch: one
    collect_into: findings
    next: e
  one: {type: llm, prompt: "about {{subject}}"}
  e: {type: end, output: "{{findings}}"}
`
	g := load(t, src, nil)
	rt := &fakeRuntime{llm: func(c LLMCall) (string, error) { return strings.ToUpper(c.Prompt), nil }}
	out, err := Run(context.Background(), g, "", rt)
	if err != nil {
		t.Fatal(err)
	}
	if out != `["ABOUT C","ABOUT A","ABOUT B"]` {
		t.Errorf("output = %s", out)
	}
	if len(rt.calls) != 3 {
		t.Errorf("%d branch calls, want 3", len(rt.calls))
	}
}

func TestMapOverAnEmptyListCollectsAnEmptyList(t *testing.T) {
	g := load(t, `
version: "1.0"
initial_state: {xs: []}
start: m
nodes:
  m: {type: map, over: "{{xs}}", as: x, branch: b, collect_into: out, next: e}
  b: {type: llm, prompt: "{{x}}"}
  e: {type: end, output: "{{out}}"}
`, nil)
	out, err := Run(context.Background(), g, "", &fakeRuntime{})
	if err != nil || out != "[]" {
		t.Errorf("Run = %q, %v; want []", out, err)
	}
}

func TestLoopStopsAtMaxLoopIterations(t *testing.T) {
	g := load(t, `
version: "1.0"
settings: {max_loop_iterations: 3}
start: a
nodes:
  a: {type: script, script: loop.sh, next: e}
  e: {type: end}
`, map[string]string{"loop.sh": `echo '{"_next": "a"}'`})
	_, err := Run(context.Background(), g, "", &fakeRuntime{})
	if err == nil || !strings.Contains(err.Error(), "max_loop_iterations (3)") {
		t.Errorf("Run: %v, want the loop stopped at max_loop_iterations", err)
	}
}

func TestLLMRetriesUpToMaxAttemptsThenFallsBack(t *testing.T) {
	g := load(t, `
version: "1.0"
start: a
nodes:
  a: {type: llm, prompt: x, max_attempts: 3, output_schema: {type: object, required: [k]}, next: ok, fallback: bad}
  ok: {type: end, output: "{{k}}"}
  bad: {type: end, output: fallback}
`, nil)
	n := 0
	rt := &fakeRuntime{llm: func(LLMCall) (string, error) {
		n++
		if n < 3 {
			return "not json", nil
		}
		return `{"k": "third"}`, nil
	}}
	if out, err := Run(context.Background(), g, "", rt); err != nil || out != "third" {
		t.Errorf("Run = %q, %v; want the third attempt's", out, err)
	}
	rt = &fakeRuntime{llm: func(LLMCall) (string, error) { return "", fmt.Errorf("boom") }}
	if out, err := Run(context.Background(), g, "", rt); err != nil || out != "fallback" {
		t.Errorf("Run = %q, %v; want the fallback", out, err)
	}
}

func TestStrictPromptNamesTheMissingKey(t *testing.T) {
	g := load(t, `
version: "1.0"
start: a
nodes:
  a: {type: llm, prompt: "about {{topic}}", next: e}
  e: {type: end}
`, nil)
	_, err := Run(context.Background(), g, "", &fakeRuntime{llm: func(LLMCall) (string, error) { return "", nil }})
	if err == nil || !strings.Contains(err.Error(), "{{topic}}") {
		t.Errorf("Run: %v, want an error naming {{topic}}", err)
	}
}

func TestAgentNodeWritesOutput(t *testing.T) {
	g := load(t, `
version: "1.0"
start: a
nodes:
  a: {type: agent, agent: helper, prompt: "do {{initial_prompt}}", state_updates: {r: "{{output}}"}, next: e}
  e: {type: end, output: "{{r}}"}
`, nil)
	out, err := Run(context.Background(), g, "x", &fakeRuntime{})
	if err != nil || out != "agent helper says: do x" {
		t.Errorf("Run = %q, %v", out, err)
	}
}
