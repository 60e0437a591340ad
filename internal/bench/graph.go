package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/coyote-cli/coyote/kernel/graph"
)

// graphNodes is the number of script nodes in the benchmark graph.
const graphNodes = 20

// quietRuntime is a graph.Runtime with nothing around it: the benchmark
// graph only runs scripts.
type quietRuntime struct{}

func (quietRuntime) LLM(context.Context, graph.LLMCall) (string, error) { return "", nil }
func (quietRuntime) Agent(context.Context, *graph.Node, string, string) (string, error) {
	return "", nil
}
func (quietRuntime) RAG(context.Context, *graph.Node, string) (graph.RAGResult, error) {
	return graph.RAGResult{}, nil
}
func (quietRuntime) Ask(context.Context, graph.Question) (string, error) { return "go", nil }
func (quietRuntime) ScriptEnv(*graph.Node) []string                      { return os.Environ() }
func (quietRuntime) Progress(graph.Event)                                {}
func (quietRuntime) Snapshot(int, map[string]any)                        {}

// graphEngine measures the engine alone per node, no process started: a
// chain of approval nodes the runtime answers at once (template, route,
// state_updates, the step's merge and copy of the state).
func graphEngine(runs int) (time.Duration, error) {
	var b strings.Builder
	b.WriteString("version: \"1.0\"\nsettings: {log_state_snapshots: false}\ninitial_state: {topic: benchmark, items: [a, b, c]}\nstart: n0\nnodes:\n")
	for i := range graphNodes {
		fmt.Fprintf(&b, "  n%d: {type: approval, question: \"{{topic}}?\", options: [go], routes: {go: n%d}, on_other: n%d, state_updates: {last: \"{{choice}}\"}}\n", i, i+1, i+1)
	}
	fmt.Fprintf(&b, "  n%d: {type: end, output: done}\n", graphNodes)
	g, _, err := graph.Parse("graph.yaml", "", []byte(b.String()))
	if err != nil {
		return 0, err
	}
	var runErr error
	d := median(runs*10, func() time.Duration {
		start := time.Now()
		if _, err := graph.Run(context.Background(), g, "measure", quietRuntime{}); err != nil {
			runErr = err
		}
		return time.Since(start)
	})
	return d / graphNodes, runErr
}

// graphOverhead measures the engine's cost per node: a chain of 20 script
// nodes whose script prints {} (state through GRAPH_STATE, stdout parsed,
// routing, the step's merge), less 20 runs of the same script started
// directly. It returns the per-node overhead and the script's own start.
func graphOverhead(work string, runs int) (over, script time.Duration, err error) {
	dir := filepath.Join(work, "graph-bench")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, 0, err
	}
	sh := filepath.Join(dir, "noop.sh")
	if err := os.WriteFile(sh, []byte("echo '{}'\n"), 0o755); err != nil {
		return 0, 0, err
	}
	var b strings.Builder
	b.WriteString("version: \"1.0\"\nsettings: {log_state_snapshots: false}\ninitial_state: {topic: benchmark, items: [a, b, c]}\nstart: n0\nnodes:\n")
	for i := range graphNodes {
		fmt.Fprintf(&b, "  n%d: {type: script, script: noop.sh, next: n%d}\n", i, i+1)
	}
	fmt.Fprintf(&b, "  n%d: {type: end, output: done}\n", graphNodes)
	g, _, err := graph.Parse(filepath.Join(dir, "graph.yaml"), dir, []byte(b.String()))
	if err != nil {
		return 0, 0, err
	}
	if errs, _ := graph.Validate(g, graph.Lookup{}); len(errs) > 0 {
		return 0, 0, &graph.Error{Problems: errs}
	}
	var runErr error
	whole := median(runs, func() time.Duration {
		start := time.Now()
		if _, err := graph.Run(context.Background(), g, "measure", quietRuntime{}); err != nil {
			runErr = err
		}
		return time.Since(start)
	})
	if runErr != nil {
		return 0, 0, runErr
	}
	alone := median(runs, func() time.Duration {
		start := time.Now()
		for range graphNodes {
			if err := exec.Command("bash", sh).Run(); err != nil {
				runErr = err
			}
		}
		return time.Since(start)
	})
	if runErr != nil {
		return 0, 0, runErr
	}
	return (whole - alone) / graphNodes, alone / graphNodes, nil
}
