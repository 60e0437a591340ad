package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/hashicorp/go-hclog"

	"github.com/coyote-cli/coyote/kernel/chat"
	"github.com/coyote-cli/coyote/kernel/convo"
	"github.com/coyote-cli/coyote/kernel/logging"
	"github.com/coyote-cli/coyote/kernel/tools"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// runHeadless runs a prompt with no one to ask (--headless): the same
// run as a one-shot's (runPrompt), with no terminal whatever the streams
// are, so nothing opens an editor, a pager or the REPL, and nothing reads
// the terminal; tools that ask before changing files or running commands
// go ahead (AUTO_CONFIRM, said once on stderr); the user__* questions are
// answered that a human is needed. With --output-format json the answer
// is not streamed: one JSON object says at the end what happened.
func runHeadless(ctx context.Context, f *Factory, opts *rootOptions, runF func(context.Context, *rootOptions) error) error {
	jsonOut := false
	switch opts.OutputFormat {
	case "", "text":
	case "json":
		jsonOut = true
	default:
		return &UsageError{Err: fmt.Errorf("--output-format %q: use text or json", opts.OutputFormat)}
	}
	stdinTTY := f.IO.IsStdinTTY()
	f.IO.SetTTY(false, false, false)
	f.headless = true
	text := strings.Join(opts.Text, " ")
	if !stdinTTY {
		var err error
		if text, err = withStdin(f, text); err != nil {
			return err
		}
	}
	f.IO.In = strings.NewReader("") // read once, here; a terminal is never read
	if strings.TrimSpace(text) == "" && len(opts.Files) == 0 && opts.Macro == "" && !opts.RebuildRAG {
		return errors.New("--headless needs a prompt: give it as arguments, on standard input or with -f")
	}
	opts.Text = []string{text}
	if text == "" {
		opts.Text = nil
	}
	if !opts.SkipPermissions {
		fmt.Fprintln(f.IO.ErrOut, "headless: tools that ask before changing files or running commands go ahead without asking (AUTO_CONFIRM=true)")
		opts.SkipPermissions = true
	}
	run := func() error {
		if runF != nil {
			return runF(ctx, opts)
		}
		return runPrompt(ctx, f, opts)
	}
	if !jsonOut {
		return run()
	}

	rep := &headlessReport{}
	out := f.IO.Out
	f.IO.Out = io.Discard // the answer is in the object
	f.observe = rep.follow
	err := run()
	rep.finish(err)
	b, merr := json.MarshalIndent(rep.out, "", "  ")
	if merr != nil {
		return errors.Join(err, merr)
	}
	if _, werr := fmt.Fprintf(out, "%s\n", b); werr != nil && err == nil {
		err = werr
	}
	return err
}

// headlessReport gathers what --output-format json prints.
type headlessReport struct {
	mu  sync.Mutex
	st  *convo.State
	out headlessJSON
}

// headlessJSON is the object --output-format json prints. Its fields are
// always there (null or empty when nothing happened), so a script can
// read them without checking.
type headlessJSON struct {
	Answer     string         `json:"answer"`
	Model      string         `json:"model"`
	Usage      headlessUsage  `json:"usage"`
	ToolCalls  []headlessCall `json:"tool_calls"`
	Todos      *headlessTodos `json:"todos"`
	ExitReason string         `json:"exit_reason"` // completed, error, cancelled
	Error      string         `json:"error,omitempty"`
}

type headlessUsage struct {
	InputTokens     int64 `json:"input_tokens"`
	OutputTokens    int64 `json:"output_tokens"`
	CachedTokens    int64 `json:"cached_tokens"`
	ReasoningTokens int64 `json:"reasoning_tokens"`
	Requests        int   `json:"requests"`
	// CostUSD is the run's price from the catalog; null when some call's
	// price is unknown (never a zero that is not one). Cost says the
	// same for people ("$0.0123", "$0.0123 + unknown", "unknown").
	CostUSD *float64 `json:"cost_usd"`
	Cost    string   `json:"cost"`
}

type headlessCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Error     bool            `json:"error"`
}

type headlessTodos struct {
	Goal  string         `json:"goal"`
	Items []headlessTodo `json:"items"`
}

type headlessTodo struct {
	ID   int    `json:"id"`
	Task string `json:"task"`
	Done bool   `json:"done"`
}

// follow hooks the report to the conversation the run starts.
func (r *headlessReport) follow(st *convo.State) {
	r.st = st
	r.out.ToolCalls = []headlessCall{}
	st.Watch = r
	st.OnReply = func(reply *chat.Reply) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.out.Usage.Requests++
		if reply.Usage != nil {
			r.out.Usage.InputTokens += reply.Usage.InputTokens
			r.out.Usage.OutputTokens += reply.Usage.OutputTokens
		}
		if reply.Text != "" || len(reply.ToolCalls) == 0 {
			r.out.Answer = reply.Text
		}
	}
}

// CallStarted implements tools.Watcher.
func (r *headlessReport) CallStarted(provider.ToolCall, *tools.Func, json.RawMessage) {}

// CallEnded implements tools.Watcher.
func (r *headlessReport) CallEnded(c provider.ToolCall, res provider.ToolResult) {
	args := json.RawMessage(c.Arguments)
	if !json.Valid(args) {
		args, _ = json.Marshal(c.Arguments)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.out.ToolCalls = append(r.out.ToolCalls, headlessCall{ID: c.ID, Name: c.Name, Arguments: args, Error: res.IsError})
}

// finish fills in the outcome.
func (r *headlessReport) finish(err error) {
	if r.out.ToolCalls == nil {
		r.out.ToolCalls = []headlessCall{}
	}
	switch {
	case err == nil:
		r.out.ExitReason = "completed"
	case errors.Is(err, context.Canceled):
		r.out.ExitReason, r.out.Error = "cancelled", err.Error()
	default:
		r.out.ExitReason, r.out.Error = "error", err.Error()
	}
	if r.st == nil {
		return
	}
	if t, terr := r.st.Target(); terr == nil && t.Client != nil {
		r.out.Model = t.ID()
	}
	spent := r.st.RunSpend()
	r.out.Usage.CachedTokens, r.out.Usage.ReasoningTokens = spent.CachedTokens, spent.ReasoningTokens
	r.out.Usage.Cost = spent.CostText()
	if spent.Calls > 0 && spent.Unpriced == 0 {
		cost := spent.Cost
		r.out.Usage.CostUSD = &cost
	}
	list := r.st.Todos()
	if list.Empty() {
		return
	}
	todos := &headlessTodos{Goal: list.Goal(), Items: []headlessTodo{}}
	for _, it := range list.Items() {
		todos.Items = append(todos.Items, headlessTodo{ID: it.ID, Task: it.Task, Done: it.Done})
	}
	r.out.Todos = todos
}

// runTailLogs follows coyote.log (--tail-logs) until Ctrl-C: coloured on
// a terminal unless --disable-log-colors or NO_COLOR, the modules of
// COYOTE_LOG_FILTER only, the entries at COYOTE_LOG_LEVEL and above.
func runTailLogs(ctx context.Context, f *Factory, opts *rootOptions) error {
	p, err := f.Paths()
	if err != nil {
		return err
	}
	level := hclog.NoLevel
	if s := f.Env("COYOTE_LOG_LEVEL"); s != "" {
		if level = hclog.LevelFromString(s); level == hclog.NoLevel {
			return fmt.Errorf("COYOTE_LOG_LEVEL: unknown log level %q (use trace, debug, info, warn, error or off)", s)
		}
	}
	color := f.IO.IsStdoutTTY() && !opts.DisableLogColors && f.Env("NO_COLOR") == ""
	if _, err := os.Stat(p.LogFile); err != nil {
		fmt.Fprintf(f.IO.ErrOut, "waiting for %s…\n", p.LogFile)
	}
	return logging.Tail(ctx, p.LogFile, f.IO.Out, logging.TailOptions{Lines: 50, Color: color,
		Filter: logging.ParseFilter(f.Env("COYOTE_LOG_FILTER")), Level: level})
}
