package graph

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/coyote-cli/coyote/kernel/termtext"
)

// ProgressLine is an event as one line for the terminal: "▸ node (kind)"
// as it starts, "✓ node (1.2s) → next" as it ends, "✗ …" when it fails.
func ProgressLine(e Event) string {
	el := e.Elapsed.Round(time.Millisecond)
	switch {
	case !e.Done:
		return fmt.Sprintf("▸ %s (%s)", e.Node, e.Kind)
	case e.Err != nil && e.Route != "":
		return fmt.Sprintf("✗ %s failed (%s): %s; fallback → %s", e.Node, el, termtext.Strip(e.Err.Error()), e.Route)
	case e.Err != nil:
		return fmt.Sprintf("✗ %s failed (%s)", e.Node, el)
	case e.Route != "":
		return fmt.Sprintf("✓ %s (%s) → %s", e.Node, el, e.Route)
	}
	return fmt.Sprintf("✓ %s (%s)", e.Node, el)
}

// QuestionText is an approval or input node's question as shown: the
// text, then the options numbered (a number or the option picks it; other
// text is an answer of its own), or the default.
func QuestionText(q Question) string {
	var b strings.Builder
	b.WriteString(termtext.Strip(strings.TrimRight(q.Text, "\n")))
	for i, o := range q.Options {
		fmt.Fprintf(&b, "\n  %d. %s", i+1, termtext.Strip(o))
	}
	if len(q.Options) > 0 {
		b.WriteString("\n(a number, an option, or your own answer)")
	}
	if q.Default != nil {
		fmt.Fprintf(&b, "\n(empty: %s)", termtext.Strip(*q.Default))
	}
	return b.String()
}

// Answer maps a typed answer to an approval's option: its number
// picks it; anything else is the answer as typed.
func Answer(q Question, answer string) string {
	answer = strings.TrimSpace(answer)
	if n, err := strconv.Atoi(answer); err == nil && n >= 1 && n <= len(q.Options) {
		return q.Options[n-1]
	}
	return answer
}
