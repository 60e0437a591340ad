package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"unicode/utf8"

	"github.com/coyote-cli/coyote/sdk/provider"
)

// Loop detection: a call identical to earlier ones of the same turn is
// not run the repeatLimit-th time, and a call is not run when it would be
// the chainLength-th call in a row that repeats an earlier one (a cycle
// through a few calls).
const (
	repeatLimit = 4
	chainLength = 10
)

// Runner runs the tool calls of a turn, round after round. It is not safe
// for concurrent use; one turn owns one Runner.
type Runner struct {
	// Offered are the functions the model was given; a call to any other
	// name is answered with an error.
	Offered []*Func
	// MaxResultChars truncates longer results (0: no limit).
	MaxResultChars int
	// Show, when set, is told about each call before it runs.
	Show func(name string, args string)
	// Watch, when set, is told when each call starts and ends (the ACP
	// server reports them to its client; --output-format json lists them).
	// Calls of a round may run at once: it must be safe for that.
	Watch Watcher

	history []string // signatures of the turn's calls, in order
	chain   int      // how many calls in a row repeated an earlier one
}

// Watcher follows the calls of a turn as they run.
type Watcher interface {
	// CallStarted is told about a call before it runs: the function
	// called and the arguments as parsed (a call refused before it runs
	// has neither).
	CallStarted(c provider.ToolCall, f *Func, args json.RawMessage)
	// CallEnded is told about its result.
	CallEnded(c provider.ToolCall, r provider.ToolResult)
}

// callIDKey carries the id of the call a function runs for.
type callIDKey struct{}

// CallID is the id of the tool call ctx runs for ("" outside a round): a
// function that asks before it runs names the call it asks about.
func CallID(ctx context.Context) string {
	id, _ := ctx.Value(callIDKey{}).(string)
	return id
}

// Round runs one reply's calls and returns their results in call order.
// Calls to serial functions run one after another; the others run at the
// same time.
func (r *Runner) Round(ctx context.Context, calls []provider.ToolCall) []provider.ToolResult {
	results := make([]provider.ToolResult, len(calls))
	var wg sync.WaitGroup
	for i, c := range calls {
		results[i] = provider.ToolResult{CallID: c.ID, Name: c.Name}
		f, args, blocked := r.prepare(c)
		if blocked != "" {
			results[i].Content, results[i].IsError = blocked, true
			if r.Watch != nil {
				r.Watch.CallStarted(c, nil, nil)
				r.Watch.CallEnded(c, results[i])
			}
			continue
		}
		if r.Show != nil {
			r.Show(c.Name, compact(args))
		}
		if r.Watch != nil {
			r.Watch.CallStarted(c, f, args)
		}
		run := func() {
			if r.Watch != nil {
				defer func() { r.Watch.CallEnded(c, results[i]) }()
			}
			out, err := f.Call(context.WithValue(ctx, callIDKey{}, c.ID), args)
			var detailed interface{ JSON() string }
			switch {
			case errors.As(err, &detailed):
				results[i].Content, results[i].IsError = detailed.JSON(), true
				return
			case err != nil:
				results[i].Content, results[i].IsError = ErrorResult(err.Error(), nil), true
				return
			}
			results[i].Content = r.truncate(out)
		}
		if f.Serial {
			wg.Wait() // a serial call waits for the calls before it
			run()
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			run()
		}()
	}
	wg.Wait()
	return results
}

// prepare checks a call before it runs: the function exists and was
// offered, its arguments are a JSON object, and it is not a loop. It
// returns the function and its arguments, or the error result to send.
func (r *Runner) prepare(c provider.ToolCall) (*Func, json.RawMessage, string) {
	args, err := parseArgs(c.Arguments)
	if err != nil {
		return nil, nil, ErrorResult(fmt.Sprintf("The call %q has invalid arguments: %s", c.Name, c.Arguments), nil)
	}
	var f *Func
	for _, o := range r.Offered {
		if o.Name == c.Name {
			f = o
			break
		}
	}
	if f == nil {
		return nil, nil, ErrorResult(fmt.Sprintf("There is no tool named %q. Use only the tools you were given.", c.Name), nil)
	}
	sig := c.Name + "\x00" + string(args)
	same := 0
	for _, h := range r.history {
		if h == sig {
			same++
		}
	}
	r.history = append(r.history, sig)
	if same+1 >= repeatLimit {
		return nil, nil, ErrorResult(fmt.Sprintf("Loop detected: %s was called %d times with the same arguments. It was not run again; "+
			"change your approach, or answer with what you have.", c.Name, same+1), nil)
	}
	if same > 0 {
		r.chain++
	} else {
		r.chain = 0
	}
	if r.chain >= chainLength {
		return nil, nil, ErrorResult(fmt.Sprintf("Loop detected: the last %d tool calls all repeated earlier ones. This call was not run; "+
			"change your approach, or answer with what you have.", chainLength), nil)
	}
	return f, args, ""
}

// parseArgs reads a call's arguments as a JSON object, in a canonical
// form (keys sorted) so that identical calls compare equal. Empty
// arguments are an empty object.
func parseArgs(s string) (json.RawMessage, error) {
	if len(bytes.TrimSpace([]byte(s))) == 0 {
		return json.RawMessage("{}"), nil
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, err
	}
	if m == nil {
		return json.RawMessage("{}"), nil
	}
	b, err := json.Marshal(m)
	return b, err
}

// truncate cuts a result to MaxResultChars characters with a marker
// saying how much was left out.
func (r *Runner) truncate(s string) string {
	if r.MaxResultChars <= 0 || utf8.RuneCountInString(s) <= r.MaxResultChars {
		return s
	}
	n := 0
	for i := range s {
		if n == r.MaxResultChars {
			rest := utf8.RuneCountInString(s[i:])
			return s[:i] + fmt.Sprintf("\n[... truncated: %d more characters]", rest)
		}
		n++
	}
	return s
}

// compact shows arguments on one line for the call display, shortened.
func compact(args json.RawMessage) string {
	const max = 120
	s := string(args)
	if s == "{}" {
		return ""
	}
	if utf8.RuneCountInString(s) > max {
		rs := []rune(s)
		s = string(rs[:max]) + "…"
	}
	return s
}
