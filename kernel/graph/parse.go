package graph

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/coyote-cli/coyote/kernel/yamlerr"
)

// Problem is one thing wrong with a graph, at its line.
type Problem struct {
	File string
	Line int
	Msg  string
	// Warning: the graph still runs (a node reached only through a
	// script's _next, an unknown key); Missing: the graph is sound but
	// names something this installation does not have (an agent, a tool
	// file, a script, an MCP server): the node that needs it fails when it
	// runs.
	Warning, Missing bool
}

func (p Problem) String() string { return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Msg) }

// Error is a graph that does not load: every problem found, in line order.
type Error struct {
	Problems []Problem
}

func (e *Error) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	if len(lines) == 1 {
		return lines[0]
	}
	return fmt.Sprintf("%d problems in the graph:\n  %s", len(lines), strings.Join(lines, "\n  "))
}

// AgentKeys are the top-level keys of graph.yaml that configure the agent
// around the graph (read by kernel/agent), which Parse leaves alone.
var AgentKeys = []string{"model", "temperature", "top_p", "reasoning_effort", "global_tools", "mcp_servers",
	"skills_enabled", "enabled_skills", "inject_skill_instructions", "skill_instructions", "conversation_starters",
	"variables", "enabled_macros", "instructions", "documents"}

// GraphKeys are the top-level keys Parse reads.
var GraphKeys = []string{"name", "description", "version", "settings", "reducers", "initial_state", "start", "nodes"}

// parser collects the problems of one file.
type parser struct {
	file     string
	problems []Problem
}

func (p *parser) errf(line int, format string, a ...any) {
	p.problems = append(p.problems, Problem{File: p.file, Line: line, Msg: fmt.Sprintf(format, a...)})
}

func (p *parser) warnf(line int, format string, a ...any) {
	p.problems = append(p.problems, Problem{File: p.file, Line: line, Msg: fmt.Sprintf(format, a...), Warning: true})
}

// Parse reads graph.yaml's content (file names it in messages; dir is the
// agent directory). It returns the graph and the warnings, or an *Error
// with every problem of the file's shape (a wrong type, a missing id).
// Whether the graph holds together (routes, reachability) is Validate's.
func Parse(file, dir string, data []byte) (*Graph, []Problem, error) {
	p := &parser{file: file}
	var doc yaml.Node
	if err := yamlerr.Unmarshal(data, &doc); err != nil {
		line, _, msg := yamlerr.Locate(data, err)
		return nil, nil, &Error{Problems: []Problem{{File: file, Line: line, Msg: msg}}}
	}
	g := &Graph{File: file, Dir: dir, Reducers: map[string]string{}, InitialState: map[string]any{},
		Nodes: map[string]*Node{}, lines: map[string]int{},
		Settings: Settings{MaxLoopIterations: DefaultMaxLoopIterations, MaxConcurrency: DefaultMaxConcurrency,
			LogStateSnapshots: true, ValidateBeforeRun: true}}
	if len(doc.Content) == 0 {
		p.errf(1, "the graph is empty: it needs version, start and nodes")
		return nil, nil, &Error{Problems: p.problems}
	}
	m := deref(doc.Content[0])
	if m.Kind != yaml.MappingNode {
		p.errf(m.Line, "a graph must be a mapping (version, start, nodes, …), not %s", yamlerr.Describe(m))
		return nil, nil, &Error{Problems: p.problems}
	}
	if dup, first := yamlerr.RepeatedKey(m); dup != nil {
		p.errf(dup.Line, "%q is set twice (first on line %d)", dup.Value, first)
	}
	known := map[string]bool{}
	for _, k := range append(append([]string{}, AgentKeys...), GraphKeys...) {
		known[k] = true
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], deref(m.Content[i+1])
		g.lines[k.Value] = k.Line
		switch k.Value {
		case "name":
			g.Name = p.str(k.Value, v)
		case "description":
			g.Description = p.str(k.Value, v)
		case "version":
			g.Version = p.str(k.Value, v)
		case "start":
			g.Start = p.str(k.Value, v)
		case "settings":
			p.settings(g, v)
		case "reducers":
			p.reducers(g, v)
		case "initial_state":
			if isNull(v) {
				continue
			}
			if v.Kind != yaml.MappingNode {
				p.errf(v.Line, "initial_state must be a mapping of state keys to values, not %s", yamlerr.Describe(v))
				continue
			}
			var st map[string]any
			if err := v.Decode(&st); err != nil {
				p.errf(v.Line, "initial_state: %v", err)
				continue
			}
			g.InitialState = normalize(st).(map[string]any)
		case "nodes":
			p.nodes(g, v)
		case "global_tools":
			g.GlobalTools = p.strs(k.Value, v)
		case "mcp_servers":
			g.MCPServers = p.strs(k.Value, v)
		case "enabled_skills":
			if !isNull(v) {
				g.EnabledSkills = p.strs(k.Value, v)
				if g.EnabledSkills == nil {
					g.EnabledSkills = []string{}
				}
			}
		case "skills_enabled":
			g.SkillsEnabled = p.optBool(k.Value, v)
		default:
			if !known[k.Value] {
				p.warnf(k.Line, "unknown graph key %q is ignored", k.Value)
			}
		}
	}
	var errs, warns []Problem
	for _, pr := range p.problems {
		if pr.Warning {
			warns = append(warns, pr)
		} else {
			errs = append(errs, pr)
		}
	}
	if len(errs) > 0 {
		sortProblems(errs)
		return nil, warns, &Error{Problems: errs}
	}
	return g, warns, nil
}

func sortProblems(ps []Problem) {
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].Line < ps[j].Line })
}

func (p *parser) settings(g *Graph, v *yaml.Node) {
	if isNull(v) {
		return
	}
	if v.Kind != yaml.MappingNode {
		p.errf(v.Line, "settings must be a mapping, not %s", yamlerr.Describe(v))
		return
	}
	s := &g.Settings
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], deref(v.Content[i+1])
		name := "settings." + k.Value
		switch k.Value {
		case "max_loop_iterations":
			p.count(name, val, &s.MaxLoopIterations, 1)
		case "max_concurrency":
			p.count(name, val, &s.MaxConcurrency, 1)
		case "timeout":
			s.Timeout = p.seconds(name, val)
		case "log_state_snapshots":
			if b := p.optBool(name, val); b != nil {
				s.LogStateSnapshots = *b
			}
		case "validate_before_run":
			if b := p.optBool(name, val); b != nil {
				s.ValidateBeforeRun = *b
			}
		default:
			p.warnf(k.Line, "unknown setting %q is ignored (settings are max_loop_iterations, timeout, log_state_snapshots, validate_before_run, max_concurrency)", k.Value)
		}
	}
}

// Reducers are the reducer names, as the validator lists them.
var Reducers = []string{"append", "extend", "concat", "sum", "max", "min", "merge", "overwrite"}

func (p *parser) reducers(g *Graph, v *yaml.Node) {
	if isNull(v) {
		return
	}
	if v.Kind != yaml.MappingNode {
		p.errf(v.Line, "reducers must be a mapping of state keys to reducer names, not %s", yamlerr.Describe(v))
		return
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], deref(v.Content[i+1])
		g.lines["reducers."+k.Value] = val.Line
		g.Reducers[k.Value] = p.str("reducers."+k.Value, val)
	}
}

func (p *parser) nodes(g *Graph, v *yaml.Node) {
	if isNull(v) {
		return
	}
	if v.Kind != yaml.MappingNode {
		p.errf(v.Line, "nodes must be a mapping of node ids to nodes, not %s", yamlerr.Describe(v))
		return
	}
	if dup, first := yamlerr.RepeatedKey(v); dup != nil {
		p.errf(dup.Line, "node %q is defined twice (first on line %d)", dup.Value, first)
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], deref(v.Content[i+1])
		if _, seen := g.Nodes[k.Value]; seen {
			continue
		}
		n := p.node(k, val)
		if n == nil {
			continue
		}
		g.Nodes[n.ID] = n
		g.Order = append(g.Order, n.ID)
	}
}

func (p *parser) node(k, v *yaml.Node) *Node {
	id := k.Value
	if v.Kind != yaml.MappingNode {
		p.errf(v.Line, "node %q must be a mapping (type, next, …), not %s", id, yamlerr.Describe(v))
		return nil
	}
	n := &Node{ID: id, Line: k.Line, lines: map[string]int{}}
	f := func(key string) string { return "node " + id + ": " + key }
	for i := 0; i+1 < len(v.Content); i += 2 {
		fk, fv := v.Content[i], deref(v.Content[i+1])
		key := fk.Value
		n.lines[key] = fk.Line
		switch key {
		case "id":
			if s := p.str(f(key), fv); s != "" && s != id {
				p.errf(fv.Line, "node %q has id %q: the id must match the node's key (or be left out)", id, s)
			}
		case "type":
			n.Kind = Kind(p.str(f(key), fv))
		case "description":
			n.Description = p.str(f(key), fv)
		case "next":
			n.Next, n.Parallel = p.next(f(key), fv)
		case "fallback":
			n.Fallback = p.str(f(key), fv)
		case "state_updates":
			n.Updates = p.updates(f(key), fv)
		case "timeout":
			n.Timeout = p.seconds(f(key), fv)
		case "prompt":
			n.Prompt = p.str(f(key), fv)
		case "instructions":
			n.Instructions = p.str(f(key), fv)
		case "tools":
			n.Tools = p.strs(f(key), fv)
		case "model":
			n.Model = p.str(f(key), fv)
		case "temperature":
			n.Temperature = p.optFloat(f(key), fv)
		case "top_p":
			n.TopP = p.optFloat(f(key), fv)
		case "reasoning_effort":
			n.ReasoningEffort = p.str(f(key), fv)
		case "output_schema":
			if isNull(fv) {
				continue
			}
			if fv.Kind != yaml.MappingNode {
				p.errf(fv.Line, "node %q: output_schema must be a JSON Schema mapping, not %s", id, yamlerr.Describe(fv))
				continue
			}
			var sch map[string]any
			if err := fv.Decode(&sch); err != nil {
				p.errf(fv.Line, "node %q: output_schema: %v", id, err)
				continue
			}
			n.OutputSchema = normalize(sch).(map[string]any)
		case "max_attempts":
			p.count(f(key), fv, &n.MaxAttempts, 1)
		case "max_iterations":
			p.count(f(key), fv, &n.MaxIterations, 1)
		case "skills_enabled":
			n.SkillsEnabled = p.optBool(f(key), fv)
		case "enabled_skills":
			n.EnabledSkills = p.strs(f(key), fv)
		case "inject_skill_instructions":
			n.InjectSkillInstructions = p.optBool(f(key), fv)
		case "skill_instructions":
			if !isNull(fv) {
				s := p.str(f(key), fv)
				n.SkillInstructions = &s
			}
		case "documents":
			n.Documents = p.strs(f(key), fv)
		case "query":
			n.Query = p.str(f(key), fv)
		case "top_k":
			p.count(f(key), fv, &n.TopK, 1)
		case "embedding_model":
			n.EmbeddingModel = p.str(f(key), fv)
		case "chunk_size":
			p.count(f(key), fv, &n.ChunkSize, 1)
		case "chunk_overlap":
			p.count(f(key), fv, &n.ChunkOverlap, 0)
		case "reranker_model":
			n.RerankerModel = p.str(f(key), fv)
		case "extractor_model":
			n.ExtractorModel = p.str(f(key), fv)
		case "extractor_prompt":
			n.ExtractorPrompt = p.str(f(key), fv)
		case "graph_hops":
			if !isNull(fv) {
				h := 0
				p.count(f(key), fv, &h, 0)
				n.GraphHops = &h
			}
		case "batch_size":
			p.count(f(key), fv, &n.BatchSize, 1)
		case "script":
			n.Script = p.str(f(key), fv)
		case "agent":
			n.Agent = p.str(f(key), fv)
		case "question":
			n.Question = p.str(f(key), fv)
		case "options":
			n.Options = p.strs(f(key), fv)
		case "routes":
			n.Routes = p.routes(f(key), fv)
		case "on_other":
			n.OnOther = p.str(f(key), fv)
		case "default":
			if !isNull(fv) {
				s := p.str(f(key), fv)
				n.Default = &s
			}
		case "validation":
			n.Validation = p.str(f(key), fv)
		case "over":
			n.Over = p.str(f(key), fv)
		case "as":
			n.As = p.str(f(key), fv)
		case "branch":
			n.Branch = p.str(f(key), fv)
		case "collect_into":
			n.CollectInto = p.str(f(key), fv)
		case "output_key":
			n.OutputKey = p.str(f(key), fv)
		case "max_concurrency":
			p.count(f(key), fv, &n.MaxConcurrency, 1)
		case "output":
			n.Output = p.str(f(key), fv)
		default:
			p.warnf(fk.Line, "node %q: unknown field %q is ignored", id, key)
		}
	}
	return n
}

func (p *parser) next(what string, v *yaml.Node) ([]string, bool) {
	switch {
	case isNull(v):
		return nil, false
	case v.Kind == yaml.SequenceNode:
		ids := p.strs(what, v)
		return ids, true
	}
	if s := p.str(what, v); s != "" {
		return []string{s}, false
	}
	return nil, false
}

func (p *parser) updates(what string, v *yaml.Node) []Update {
	if isNull(v) {
		return nil
	}
	if v.Kind != yaml.MappingNode {
		p.errf(v.Line, "%s must be a mapping of state keys to values, not %s", what, yamlerr.Describe(v))
		return nil
	}
	var out []Update
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], deref(v.Content[i+1])
		var x any
		if err := val.Decode(&x); err != nil {
			p.errf(val.Line, "%s.%s: %v", what, k.Value, err)
			continue
		}
		out = append(out, Update{Key: k.Value, Value: normalize(x), Line: k.Line})
	}
	return out
}

func (p *parser) routes(what string, v *yaml.Node) []Route {
	if isNull(v) {
		return nil
	}
	if v.Kind != yaml.MappingNode {
		p.errf(v.Line, "%s must be a mapping of options to node ids, not %s", what, yamlerr.Describe(v))
		return nil
	}
	var out []Route
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], deref(v.Content[i+1])
		out = append(out, Route{Option: k.Value, Target: p.str(what+"."+k.Value, val), Line: k.Line})
	}
	return out
}

func (p *parser) str(what string, v *yaml.Node) string {
	if isNull(v) {
		return ""
	}
	if v.Kind != yaml.ScalarNode {
		p.errf(v.Line, "%s must be text, not %s", what, yamlerr.Describe(v))
		return ""
	}
	return v.Value
}

func (p *parser) strs(what string, v *yaml.Node) []string {
	if isNull(v) {
		return nil
	}
	if v.Kind == yaml.ScalarNode { // "a,b" as the original's list fields take
		var out []string
		for _, s := range strings.Split(v.Value, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	if v.Kind != yaml.SequenceNode {
		p.errf(v.Line, "%s must be a list, not %s", what, yamlerr.Describe(v))
		return nil
	}
	out := make([]string, 0, len(v.Content))
	for _, it := range v.Content {
		it = deref(it)
		if it.Kind != yaml.ScalarNode || isNull(it) {
			p.errf(it.Line, "%s: each item must be text, not %s", what, yamlerr.Describe(it))
			continue
		}
		out = append(out, it.Value)
	}
	return out
}

func (p *parser) count(what string, v *yaml.Node, dst *int, min int) {
	if isNull(v) {
		return
	}
	n, err := strconv.Atoi(v.Value)
	if v.Kind != yaml.ScalarNode || err != nil || n < min {
		p.errf(v.Line, "%s must be a whole number of at least %d, not %s", what, min, yamlerr.Describe(v))
		return
	}
	*dst = n
}

func (p *parser) seconds(what string, v *yaml.Node) time.Duration {
	if isNull(v) {
		return 0
	}
	f, err := strconv.ParseFloat(v.Value, 64)
	if v.Kind != yaml.ScalarNode || err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) || f > 1e9 {
		p.errf(v.Line, "%s must be a number of seconds, not %s", what, yamlerr.Describe(v))
		return 0
	}
	return time.Duration(f * float64(time.Second))
}

func (p *parser) optFloat(what string, v *yaml.Node) *float64 {
	if isNull(v) {
		return nil
	}
	f, err := strconv.ParseFloat(v.Value, 64)
	if v.Kind != yaml.ScalarNode || err != nil {
		p.errf(v.Line, "%s must be a number, not %s", what, yamlerr.Describe(v))
		return nil
	}
	return &f
}

func (p *parser) optBool(what string, v *yaml.Node) *bool {
	if isNull(v) {
		return nil
	}
	var b bool
	if v.Kind != yaml.ScalarNode || v.Decode(&b) != nil {
		p.errf(v.Line, "%s must be true or false, not %s", what, yamlerr.Describe(v))
		return nil
	}
	return &b
}

func deref(v *yaml.Node) *yaml.Node {
	for v.Kind == yaml.AliasNode && v.Alias != nil {
		v = v.Alias
	}
	return v
}

func isNull(v *yaml.Node) bool { return v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" }

// normalize turns what yaml.v3 decodes into what JSON decodes: maps with
// string keys, numbers as int64 or float64.
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalize(e)
		}
		return x
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[fmt.Sprint(k)] = normalize(e)
		}
		return m
	case []any:
		for i, e := range x {
			x[i] = normalize(e)
		}
		return x
	case int:
		return int64(x)
	case uint64:
		if x <= math.MaxInt64 {
			return int64(x)
		}
		return float64(x)
	}
	return v
}
