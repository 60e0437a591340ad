package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/coyote-cli/coyote/kernel/convo"
	"github.com/coyote-cli/coyote/kernel/envlist"
	"github.com/coyote-cli/coyote/kernel/graph"
)

// runGraph runs a graph agent once with text as its input (-a NAME "…"):
// each node's progress on stderr, the questions of approval and input
// nodes asked on the terminal (without one, an input node takes its
// default and an approval node fails saying why), the end node's output
// on stdout.
func runGraph(ctx context.Context, f *Factory, st *convo.State, text string) error {
	ui := convo.GraphUI{Progress: func(e graph.Event) { fmt.Fprintln(f.IO.ErrOut, graph.ProgressLine(e)) }, Environ: envlist.Filter(f.Environ)}
	if f.IO.IsStdinTTY() && f.IO.IsStderrTTY() {
		ui.Ask = func(_ context.Context, q graph.Question) (string, error) {
			fmt.Fprintln(f.IO.ErrOut, graph.QuestionText(q))
			a, err := ask(f, "> ")
			return graph.Answer(q, a), err
		}
	}
	out, err := st.RunGraph(ctx, text, ui)
	if err != nil {
		return fmt.Errorf("graph agent %s: %w", st.Agent.Name, err)
	}
	if !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	_, err = io.WriteString(f.IO.Out, out)
	return err
}
