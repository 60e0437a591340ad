package graph

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidateReportsEveryProblemWithItsLine(t *testing.T) {
	src := `version: "1.0"
reducers:
  notes: glue
start: a
nodes:
  a:
    type: llm
    prompt: hi
    next: [b, c]
  b:
    type: llm
    prompt: b
    next: nowhere
  c:
    type: llm
    prompt: c
    next: d
  d:
    type: input
    question: q
    validation: "input matches foo"
    next: c
  orphan:
    type: end
  m:
    type: map
    over: "{{xs}}"
    as: x
    branch: e2
    collect_into: ys
    next: orphan
  e2:
    type: approval
    question: q
    options: [ok]
  w:
    type: wizard
`
	g, _, err := Parse("g.yaml", "", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	errs, _ := Validate(g, Lookup{})
	got := (&Error{Problems: errs}).Error()
	for _, want := range []string{
		`g.yaml:3: reducer "glue" of state key "notes"`,
		`g.yaml:9: node "a" runs b and c in parallel, and both write "output"`,
		`g.yaml:13: node "b": next names node "nowhere"`,
		`g.yaml:14: the loop c → d → c has no way out`,
		`g.yaml:21: node "d": validation "input matches foo"`,
		`g.yaml:23: node "orphan" can never run`,
		`g.yaml:29: node "m": branch "e2" is of type approval`,
		`g.yaml:32: node "e2" (approval) needs on_other`,
		`g.yaml:37: node "w" has type "wizard", which this build does not run`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
}

func TestValidateMissingStartVersionAndEnd(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"version: \"1.0\"\nnodes:\n  a: {type: end}\n", "g.yaml:1: start is missing"},
		{"version: \"1.0\"\nstart: zz\nnodes:\n  a: {type: end}\n", `g.yaml:2: start names node "zz"`},
		{"version: \"2.0\"\nstart: a\nnodes:\n  a: {type: end}\n", `g.yaml:1: version "2.0" is not supported`},
		{"version: \"1.0\"\nstart: a\nnodes:\n  a: {type: script, script: x.sh}\n", "has no end node"},
		{"version: \"1.0\"\nstart: a\nnodes:\n  a: {type: llm, next: e}\n  e: {type: end}\n", `node "a" (llm) needs a prompt`},
	} {
		g, _, err := Parse("g.yaml", "", []byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		errs, _ := Validate(g, Lookup{})
		if got := (&Error{Problems: errs}).Error(); len(errs) == 0 || !strings.Contains(got, tc.want) {
			t.Errorf("%q: got %q, want %q", tc.src, got, tc.want)
		}
	}
}

func TestParseReportsWrongTypesWithLines(t *testing.T) {
	_, _, err := Parse("g.yaml", "", []byte("version: \"1.0\"\nstart: a\nsettings:\n  max_concurrency: lots\nnodes:\n  a:\n    type: end\n    id: b\n"))
	if err == nil {
		t.Fatal("parsed")
	}
	for _, want := range []string{`g.yaml:4: settings.max_concurrency must be a whole number`, `g.yaml:8: node "a" has id "b"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in %v", want, err)
		}
	}
}

func TestScriptRoutedNodesAreOnlyWarnedUnreachable(t *testing.T) {
	g, _, err := Parse("g.yaml", "", []byte("version: \"1.0\"\nstart: s\nnodes:\n  s: {type: script, script: s.sh}\n  e: {type: end}\n"))
	if err != nil {
		t.Fatal(err)
	}
	errs, notes := Validate(g, Lookup{})
	if len(errs) != 0 || len(notes) != 1 || !strings.Contains(notes[0].Msg, "only a script's _next") {
		t.Errorf("errs %v notes %v", errs, notes)
	}
}

// The original's graphs (read from the shared compatibility folder, not
// copied into this repository) validate: what they name that this
// installation lacks (agents, tools, scripts, MCP servers) is reported as
// Missing, never as a graph error.
func TestOriginalGraphsValidate(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "shared", "compat", "coyote-0.8.3")
	files, _ := filepath.Glob(filepath.Join(dir, "agents", "*-graph.yaml"))
	files = append(files, filepath.Join(dir, "graph.example.yaml"))
	if len(files) < 5 {
		t.Skipf("the original's graphs are not at %s", dir)
	}
	nothing := Lookup{Agent: func(string) bool { return false }, Tool: func(string) bool { return false }, MCPServer: func(string) bool { return false }}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			g, warns, err := Parse(f, t.TempDir(), data)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range warns {
				t.Errorf("parse warning: %s", w)
			}
			errs, notes := Validate(g, nothing)
			for _, e := range errs {
				t.Errorf("graph error: %s", e)
			}
			for _, n := range notes {
				if n.Missing && !strings.Contains(n.Msg, "not installed here") && !strings.Contains(n.Msg, "is not here") && !strings.Contains(n.Msg, "not configured here") {
					t.Errorf("a missing notice that does not say what is missing: %s", n)
				}
				t.Log(n)
			}
		})
	}
}
