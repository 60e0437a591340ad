package graph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"sync"
	"time"
)

// LLMCall is one llm node's turn: its rendered prompt and instructions, and
// the node for its model, sampling, tools, skills and max_iterations.
type LLMCall struct {
	Node                 *Node
	Prompt, Instructions string
}

// RAGResult is what a rag node found.
type RAGResult struct {
	Context string
	Sources []string
}

// Question is what an approval or input node asks.
type Question struct {
	Node *Node
	Text string
	// Options are an approval's choices (the user may also type an
	// answer of their own); none for an input node.
	Options []string
	// Default is an input node's answer to an empty line.
	Default *string
}

// Event is a node's progress, as Runtime.Progress shows it.
type Event struct {
	Step int
	Node string
	Kind Kind
	// Done is set when the node finished (Err: how it failed); else it
	// starts.
	Done    bool
	Err     error
	Elapsed time.Duration
	// Route says where it goes next ("" at the start).
	Route string
}

// Runtime is what the engine needs from the program around it. The kernel
// implements it with kernel/convo; tests with fakes. Its methods may be
// called from several goroutines at once (a parallel step).
type Runtime interface {
	// LLM runs an llm node's turn in a fresh conversation and returns the
	// reply's text.
	LLM(ctx context.Context, c LLMCall) (string, error)
	// Agent runs a turn of the config agent name with the prompt.
	Agent(ctx context.Context, n *Node, name, prompt string) (string, error)
	// RAG queries the node's knowledge base (built from its documents on
	// first use).
	RAG(ctx context.Context, n *Node, query string) (RAGResult, error)
	// Ask asks the user; without a way to ask, it returns an error that
	// says so.
	Ask(ctx context.Context, q Question) (string, error)
	// ScriptEnv is the environment of a script node (the agent's
	// variables, LLM_ROOT_DIR, …), GRAPH_STATE excluded.
	ScriptEnv(n *Node) []string
	// Progress shows an event; Snapshot records the state after a step
	// (with log_state_snapshots on).
	Progress(e Event)
	Snapshot(step int, state map[string]any)
}

// Run runs g from its start node with input as {{initial_prompt}} and
// returns the end node's output. A failed node goes to its fallback when
// it has one; otherwise the run stops with an error naming the node.
func Run(ctx context.Context, g *Graph, input string, rt Runtime) (string, error) {
	e := &engine{g: g, rt: rt, visits: map[string]int{}}
	if g.Settings.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, g.Settings.Timeout,
			fmt.Errorf("the graph ran past its timeout of %s (settings.timeout)", g.Settings.Timeout))
		defer cancel()
	}
	state := deepCopy(g.InitialState).(map[string]any)
	state["initial_prompt"] = input
	frontier := []string{g.Start}
	for step := 1; len(frontier) > 0; step++ {
		if err := ctx.Err(); err != nil {
			return "", runErr(ctx)
		}
		for _, id := range frontier {
			e.visits[id]++
			if e.visits[id] > g.Settings.MaxLoopIterations {
				return "", fmt.Errorf("node %q ran %d times, more than max_loop_iterations (%d): the graph loops", id, e.visits[id]-1, g.Settings.MaxLoopIterations)
			}
		}
		results, err := e.step(ctx, step, frontier, state)
		if err != nil {
			if ctx.Err() != nil {
				return "", runErr(ctx)
			}
			return "", err
		}
		var next []string
		for i, r := range results {
			for _, w := range r.writes {
				if err := e.write(state, w.key, w.value); err != nil {
					return "", fmt.Errorf("node %q: %w", frontier[i], err)
				}
			}
		}
		if g.Settings.LogStateSnapshots {
			rt.Snapshot(step, deepCopy(state).(map[string]any))
		}
		for _, r := range results {
			if r.end {
				return r.output, nil
			}
			for _, t := range r.next {
				if !containsStr(next, t) {
					next = append(next, t)
				}
			}
		}
		for _, t := range next {
			if _, ok := g.Nodes[t]; !ok {
				return "", fmt.Errorf("a route goes to node %q, which is not in the graph", t)
			}
		}
		frontier = next
	}
	return "", errors.New("the graph stopped without reaching an end node")
}

func runErr(ctx context.Context) error {
	if c := context.Cause(ctx); c != nil && !errors.Is(c, context.Canceled) && !errors.Is(c, context.DeadlineExceeded) {
		return c
	}
	return ctx.Err()
}

type engine struct {
	g      *Graph
	rt     Runtime
	visits map[string]int
}

// write is one state write.
type write struct {
	key   string
	value any
}

// result is what a node did: its writes (merged after the step), where
// it goes, and for an end node the graph's output.
type result struct {
	writes []write
	next   []string
	// out is the node's output (what a map collects).
	out    any
	end    bool
	output string
}

// write merges a value into the state through the key's reducer.
func (e *engine) write(state map[string]any, key string, v any) error {
	r, ok := e.g.Reducers[key]
	if !ok {
		state[key] = v
		return nil
	}
	old, had := state[key]
	nv, err := Reduce(r, old, had, v)
	if err != nil {
		return fmt.Errorf("state key %q: %w", key, err)
	}
	state[key] = nv
	return nil
}

// step runs the frontier's nodes: one against the state, several at once
// (at most max_concurrency) each against its own copy, their writes merged
// by the caller in frontier order.
func (e *engine) step(ctx context.Context, step int, frontier []string, state map[string]any) ([]result, error) {
	if len(frontier) == 1 {
		r, err := e.runRouted(ctx, step, e.g.Nodes[frontier[0]], state, nil)
		return []result{r}, err
	}
	results := make([]result, len(frontier))
	errs := make([]error, len(frontier))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, max(e.g.Settings.MaxConcurrency, 1))
	var wg sync.WaitGroup
	for i, id := range frontier {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				errs[i] = ctx.Err()
				return
			}
			defer func() { <-sem }()
			results[i], errs[i] = e.runRouted(ctx, step, e.g.Nodes[id], deepCopy(state).(map[string]any), nil)
			if errs[i] != nil {
				cancel() // one branch failed with no fallback: the step fails
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return nil, err
		}
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return results, nil
}

// runRouted runs a node, showing its progress; a failure goes to the
// node's fallback when it has one.
func (e *engine) runRouted(ctx context.Context, step int, n *Node, state, locals map[string]any) (result, error) {
	start := time.Now()
	e.rt.Progress(Event{Step: step, Node: n.ID, Kind: n.Kind})
	r, err := e.run(ctx, step, n, state, locals)
	ev := Event{Step: step, Node: n.ID, Kind: n.Kind, Done: true, Err: err, Elapsed: time.Since(start)}
	if err != nil {
		if n.Fallback == "" || ctx.Err() != nil {
			e.rt.Progress(ev)
			return result{}, fmt.Errorf("node %q (%s): %w", n.ID, n.Kind, err)
		}
		ev.Route = n.Fallback
		e.rt.Progress(ev)
		return result{next: []string{n.Fallback}}, nil
	}
	ev.Route = strings.Join(r.next, ", ")
	e.rt.Progress(ev)
	return r, nil
}

// run runs one node against state (which it reads, never writes).
func (e *engine) run(ctx context.Context, step int, n *Node, state, locals map[string]any) (result, error) {
	if d := n.timeout(); d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, d, fmt.Errorf("node %q ran past its timeout of %s", n.ID, d))
		defer cancel()
	}
	sc := scope{state: state, locals: map[string]any{}}
	maps.Copy(sc.locals, locals)
	var r result
	var err error
	switch n.Kind {
	case KindLLM:
		r, err = e.llm(ctx, n, sc)
	case KindAgent:
		r, err = e.agent(ctx, n, sc)
	case KindRAG:
		r, err = e.rag(ctx, n, sc)
	case KindScript:
		r, err = e.script(ctx, n, sc)
	case KindApproval:
		r, err = e.approval(ctx, n, sc)
	case KindInput:
		r, err = e.input(ctx, n, sc)
	case KindMap:
		r, err = e.fanOut(ctx, step, n, sc)
	case KindEnd:
		r = result{end: true}
	default:
		err = fmt.Errorf("this build does not run nodes of type %q", n.Kind)
	}
	if err != nil {
		if c := context.Cause(ctx); c != nil && ctx.Err() != nil && !errors.Is(c, context.Canceled) && !errors.Is(c, context.DeadlineExceeded) {
			err = c
		}
		return result{}, err
	}
	if _, ok := sc.locals["output"]; !ok && r.out != nil {
		sc.locals["output"] = r.out
	}
	// state_updates see the state with this node's own writes over it.
	after := scope{state: maps.Clone(state), locals: sc.locals}
	for _, w := range r.writes {
		after.state[w.key] = w.value
	}
	for _, u := range n.Updates {
		v := after.value(u.Value)
		r.writes = append(r.writes, write{u.Key, v})
		after.state[u.Key] = v
	}
	if n.Kind == KindEnd {
		r.output, _ = after.render(n.Output, false)
	}
	if r.next == nil {
		r.next = n.Next
	}
	if r.next == nil && n.Kind != KindEnd && locals == nil {
		return result{}, fmt.Errorf("node %q finished with nowhere to go: give it next (or a script's _next)", n.ID)
	}
	return r, nil
}

func (e *engine) llm(ctx context.Context, n *Node, sc scope) (result, error) {
	instr, err := sc.render(n.Instructions, true)
	if err != nil {
		return result{}, fmt.Errorf("instructions: %w", err)
	}
	prompt, err := sc.render(n.Prompt, true)
	if err != nil {
		return result{}, fmt.Errorf("prompt: %w", err)
	}
	if n.OutputSchema != nil {
		b, _ := json.MarshalIndent(n.OutputSchema, "", "  ")
		prompt += "\n\nReply with a single JSON object, and nothing else, that matches this JSON Schema:\n" + string(b)
	}
	attempts := max(n.MaxAttempts, 1)
	var last error
	for i := 0; i < attempts; i++ {
		reply, err := e.rt.LLM(ctx, LLMCall{Node: n, Prompt: prompt, Instructions: instr})
		if err == nil {
			r, perr := output(n, reply)
			if perr == nil {
				return r, nil
			}
			err = perr
		}
		last = err
		if ctx.Err() != nil {
			break
		}
	}
	if attempts > 1 {
		return result{}, fmt.Errorf("%d attempts failed; the last: %w", attempts, last)
	}
	return result{}, last
}

// output is an llm or agent node's reply as writes: with output_schema,
// the JSON object's keys; else the text as output.
func output(n *Node, reply string) (result, error) {
	if n.OutputSchema == nil {
		return result{writes: []write{{"output", reply}}, out: reply, next: nil}, nil
	}
	obj, err := jsonObject(reply)
	if err != nil {
		return result{}, fmt.Errorf("the reply is not the JSON object output_schema asks for: %w", err)
	}
	if req, ok := n.OutputSchema["required"].([]any); ok {
		for _, k := range req {
			if _, has := obj[text(k)]; !has {
				return result{}, fmt.Errorf("the reply's JSON lacks %q, which output_schema requires", text(k))
			}
		}
	}
	var ws []write
	for _, k := range sortedKeys(obj) {
		ws = append(ws, write{k, obj[k]})
	}
	return result{writes: ws, out: obj}, nil
}

// jsonObject reads a JSON object from a reply, also inside a ``` fence or
// with text around it.
func jsonObject(s string) (map[string]any, error) {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "```"); i >= 0 {
		body := s[i+3:]
		if nl := strings.IndexByte(body, '\n'); nl >= 0 {
			body = body[nl+1:]
		}
		if j := strings.Index(body, "```"); j >= 0 {
			s = strings.TrimSpace(body[:j])
		}
	}
	if i, j := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}'); i >= 0 && j > i {
		s = s[i : j+1]
	}
	var v any
	if err := decodeJSON([]byte(s), &v); err != nil {
		return nil, err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("not a JSON object")
	}
	return obj, nil
}

func (e *engine) agent(ctx context.Context, n *Node, sc scope) (result, error) {
	tmpl := n.Prompt
	if tmpl == "" {
		tmpl = "{{initial_prompt}}"
	}
	prompt, err := sc.render(tmpl, true)
	if err != nil {
		return result{}, fmt.Errorf("prompt: %w", err)
	}
	reply, err := e.rt.Agent(ctx, n, n.Agent, prompt)
	if err != nil {
		return result{}, fmt.Errorf("agent %s: %w", n.Agent, err)
	}
	return output(n, reply)
}

func (e *engine) rag(ctx context.Context, n *Node, sc scope) (result, error) {
	tmpl := n.Query
	if tmpl == "" {
		tmpl = "{{initial_prompt}}"
	}
	q, err := sc.render(tmpl, true)
	if err != nil {
		return result{}, fmt.Errorf("query: %w", err)
	}
	res, err := e.rt.RAG(ctx, n, q)
	if err != nil {
		return result{}, err
	}
	sources := make([]any, len(res.Sources))
	for i, s := range res.Sources {
		sources[i] = s
	}
	out := map[string]any{"context": res.Context, "sources": sources}
	sc.locals["output"] = out
	return result{out: out}, nil
}

func (e *engine) approval(ctx context.Context, n *Node, sc scope) (result, error) {
	q, err := sc.render(n.Question, true)
	if err != nil {
		return result{}, fmt.Errorf("question: %w", err)
	}
	choice, err := e.rt.Ask(ctx, Question{Node: n, Text: q, Options: n.Options})
	if err != nil {
		return result{}, err
	}
	choice = strings.TrimSpace(choice)
	sc.locals["choice"] = choice
	r := result{out: choice}
	for _, rt := range n.Routes {
		if rt.Option == choice {
			r.next = []string{rt.Target}
			return r, nil
		}
	}
	if n.OnOther != "" {
		r.next = []string{n.OnOther}
	}
	return r, nil
}

func (e *engine) input(ctx context.Context, n *Node, sc scope) (result, error) {
	q, err := sc.render(n.Question, true)
	if err != nil {
		return result{}, fmt.Errorf("question: %w", err)
	}
	const tries = 3
	for i := 0; ; i++ {
		ans, err := e.rt.Ask(ctx, Question{Node: n, Text: q, Default: n.Default})
		if err != nil {
			return result{}, err
		}
		if ans == "" && n.Default != nil {
			ans = *n.Default // not validated again, as the original
		} else if ok, why := validInput(n.Validation, ans); !ok {
			if i+1 >= tries {
				return result{}, fmt.Errorf("the answer does not satisfy %s (%s) after %d tries", n.Validation, why, tries)
			}
			q = fmt.Sprintf("The answer must satisfy %s. %s", n.Validation, q)
			continue
		}
		sc.locals["input"] = ans
		return result{out: ans}, nil
	}
}

// validInput checks an input node's validation, len(input) <op> N.
func validInput(rule, ans string) (bool, string) {
	m := validationRe().FindStringSubmatch(rule)
	if m == nil {
		return true, ""
	}
	n, _ := strconv.Atoi(m[2])
	l := len([]rune(ans))
	ok := map[string]bool{">": l > n, ">=": l >= n, "<": l < n, "<=": l <= n, "==": l == n, "!=": l != n}[m[1]]
	return ok, fmt.Sprintf("it is %d characters long", l)
}

// fanOut runs a map node: its branch once per item of `over`, at most
// max_concurrency at a time, the outputs collected in the items' order.
func (e *engine) fanOut(ctx context.Context, step int, n *Node, sc scope) (result, error) {
	items, ok := sc.value(n.Over).([]any)
	if !ok {
		v := sc.value(n.Over)
		if v != nil {
			return result{}, fmt.Errorf("over %s is %s, not a list", n.Over, text(v))
		}
		items = nil // a missing key fans out to nothing
	}
	branch := e.g.Nodes[n.Branch]
	if branch == nil {
		return result{}, fmt.Errorf("branch %q is not in the graph", n.Branch)
	}
	limit := n.MaxConcurrency
	if limit <= 0 {
		limit = e.g.Settings.MaxConcurrency
	}
	key := n.OutputKey
	if key == "" {
		key = "output"
	}
	outs := make([]any, len(items))
	errs := make([]error, len(items))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, max(limit, 1))
	var wg sync.WaitGroup
	for i, item := range items {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				errs[i] = ctx.Err()
				return
			}
			defer func() { <-sem }()
			st := deepCopy(sc.state).(map[string]any)
			st[n.As] = item
			r, err := e.runRouted(ctx, step, branch, st, map[string]any{n.As: item})
			if err != nil {
				errs[i] = fmt.Errorf("item %d: %w", i+1, err)
				cancel()
				return
			}
			outs[i] = r.out
			if key != "output" {
				for _, w := range r.writes {
					if w.key == key {
						outs[i] = w.value
					}
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return result{}, err
		}
	}
	for _, err := range errs {
		if err != nil {
			return result{}, err
		}
	}
	return result{writes: []write{{n.CollectInto, outs}}, out: outs}, nil
}

// deepCopy copies JSON-like values (maps, lists) so a branch cannot change
// another's state.
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = deepCopy(e)
		}
		return l
	}
	return v
}

func containsStr(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// decodeJSON decodes JSON with whole numbers as int64 (a script's counter
// stays an integer), others as float64.
func decodeJSON(b []byte, v *any) error {
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		return err
	}
	*v = numbers(*v)
	return nil
}

func numbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = numbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = numbers(e)
		}
	}
	return v
}
