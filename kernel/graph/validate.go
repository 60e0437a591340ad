package graph

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Lookup tells the validator what this installation has, so that a graph
// naming an agent, a tool or an MCP server that is not here is reported as
// Missing (the graph is sound; that node fails when it runs) rather than as
// a broken graph. A nil function checks nothing.
type Lookup struct {
	Agent     func(name string) bool
	Tool      func(name string) bool
	MCPServer func(name string) bool
}

// Validate checks that g holds together and reports every problem at once:
// errors (the graph cannot run: a missing start, an unknown node, a bad
// reducer, a loop with no way to an end), warnings, and Missing notices
// (what this installation lacks). Each carries its file:line.
func Validate(g *Graph, lk Lookup) (errs, notes []Problem) {
	v := &validator{g: g, lk: lk}
	v.check()
	for _, p := range v.problems {
		if p.Warning || p.Missing {
			notes = append(notes, p)
		} else {
			errs = append(errs, p)
		}
	}
	sortProblems(errs)
	sortProblems(notes)
	return errs, notes
}

type validator struct {
	g        *Graph
	lk       Lookup
	problems []Problem
	branches map[string]string // map branch node → the map using it
}

func (v *validator) errf(line int, format string, a ...any) {
	v.problems = append(v.problems, Problem{File: v.g.File, Line: line, Msg: fmt.Sprintf(format, a...)})
}

func (v *validator) warnf(line int, format string, a ...any) {
	v.problems = append(v.problems, Problem{File: v.g.File, Line: line, Msg: fmt.Sprintf(format, a...), Warning: true})
}

func (v *validator) missingf(line int, format string, a ...any) {
	v.problems = append(v.problems, Problem{File: v.g.File, Line: line, Msg: fmt.Sprintf(format, a...), Missing: true})
}

var validationRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*len\(\s*input\s*\)\s*(>=|<=|==|!=|>|<)\s*([0-9]+)\s*$`)
})

func (v *validator) check() {
	g := v.g
	if g.Version != Version {
		if g.Version == "" {
			v.errf(1, `version is missing: a graph says version: "1.0"`)
		} else {
			v.errf(g.lineOf("version"), `version %q is not supported: this build reads version "1.0"`, g.Version)
		}
	}
	if len(g.Nodes) == 0 {
		v.errf(g.lineOf("nodes"), "the graph has no nodes")
	}
	switch _, ok := g.Nodes[g.Start]; {
	case g.Start == "":
		v.errf(1, "start is missing: name the node the graph begins with")
	case !ok && len(g.Nodes) > 0:
		v.errf(g.lineOf("start"), "start names node %q, which is not in nodes", g.Start)
	}
	for _, k := range sortedKeys(g.Reducers) {
		if !slices.Contains(Reducers, g.Reducers[k]) {
			v.errf(g.lineOf("reducers."+k), "reducer %q of state key %q is not one of %s", g.Reducers[k], k, strings.Join(Reducers, ", "))
		}
	}
	v.branches = map[string]string{}
	for _, id := range g.Order {
		if n := g.Nodes[id]; n.Kind == KindMap && n.Branch != "" {
			v.branches[n.Branch] = id
		}
	}
	ends := 0
	for _, id := range g.Order {
		n := g.Nodes[id]
		if n.Kind == KindEnd {
			ends++
		}
		v.node(n)
	}
	if ends == 0 && len(g.Nodes) > 0 {
		v.errf(g.lineOf("nodes"), "the graph has no end node: add a node of type end for it to finish")
	}
	v.parallelWrites()
	v.flow()
}

// ref checks that a field names a node.
func (v *validator) ref(n *Node, field, target string) {
	if target == "" {
		return
	}
	if _, ok := v.g.Nodes[target]; !ok {
		v.errf(n.LineOf(field), "node %q: %s names node %q, which is not in nodes", n.ID, field, target)
	}
}

func (v *validator) node(n *Node) {
	g := v.g
	_, isBranch := v.branches[n.ID]
	need := func(field string, ok bool) {
		if !ok {
			v.errf(n.Line, "node %q (%s) needs %s", n.ID, n.Kind, field)
		}
	}
	needNext := func() {
		if len(n.Next) == 0 && !isBranch {
			v.errf(n.Line, "node %q (%s) needs next: the node it goes to on success", n.ID, n.Kind)
		}
	}
	for _, t := range n.Next {
		v.ref(n, "next", t)
	}
	if n.Parallel && len(n.Next) == 0 {
		v.errf(n.LineOf("next"), "node %q: next is an empty list", n.ID)
	}
	if dup := firstDuplicate(n.Next); dup != "" {
		v.errf(n.LineOf("next"), "node %q: next lists %q twice", n.ID, dup)
	}
	v.ref(n, "fallback", n.Fallback)
	switch n.Kind {
	case "":
		v.errf(n.Line, "node %q has no type (one of %s)", n.ID, kindList())
		return
	case KindLLM:
		need("a prompt", n.Prompt != "")
		needNext()
		v.tools(n)
		v.skills(n)
	case KindAgent:
		need("agent: the name of the agent to run", n.Agent != "")
		needNext()
		if n.Agent != "" && v.lk.Agent != nil && !v.lk.Agent(n.Agent) {
			v.missingf(n.LineOf("agent"), "node %q runs agent %q, which is not installed here: the node fails when it runs", n.ID, n.Agent)
		}
		if len(n.Tools) > 0 {
			v.warnf(n.LineOf("tools"), "node %q: an agent node uses its agent's own tools; tools is ignored", n.ID)
		}
	case KindRAG:
		need("documents: the files, directories or URLs of its knowledge base", len(n.Documents) > 0)
		needNext()
	case KindScript:
		need("script: the path of the script, relative to the agent directory", n.Script != "")
		if n.Script != "" && g.Dir != "" {
			p := n.Script
			if !filepath.IsAbs(p) {
				p = filepath.Join(g.Dir, p)
			}
			if _, err := os.Stat(p); err != nil {
				v.missingf(n.LineOf("script"), "node %q: script %s is not here: the node fails when it runs", n.ID, p)
			}
		}
	case KindApproval:
		need("a question", n.Question != "")
		need("options: the choices offered", len(n.Options) > 0)
		need("on_other: the node for an answer that is not one of the routes", n.OnOther != "")
		v.ref(n, "on_other", n.OnOther)
		for _, r := range n.Routes {
			if r.Target == "" {
				v.errf(r.Line, "node %q: route %q names no node", n.ID, r.Option)
				continue
			}
			v.ref(n, "routes", r.Target)
			if !slices.Contains(n.Options, r.Option) {
				v.errf(r.Line, "node %q: route %q is not one of its options (%s)", n.ID, r.Option, strings.Join(n.Options, ", "))
			}
		}
		if len(n.Routes) == 0 && len(n.Next) == 0 {
			v.errf(n.Line, "node %q (approval) needs routes: the node each option goes to", n.ID)
		}
	case KindInput:
		need("a question", n.Question != "")
		needNext()
		if n.Validation != "" && !validationRe().MatchString(n.Validation) {
			v.errf(n.LineOf("validation"), "node %q: validation %q is not len(input) <op> N (op one of > >= < <= == !=)", n.ID, n.Validation)
		}
	case KindMap:
		need("over: the list to fan out over", n.Over != "")
		need("as: the state key of each item", n.As != "")
		need("branch: the node run for each item", n.Branch != "")
		need("collect_into: the state key of the outputs", n.CollectInto != "")
		needNext()
		v.ref(n, "branch", n.Branch)
		if b, ok := g.Nodes[n.Branch]; ok {
			switch {
			case b.Kind != KindLLM && b.Kind != KindAgent && b.Kind != KindRAG && b.Kind != KindScript:
				v.errf(n.LineOf("branch"), "node %q: branch %q is of type %s; a map's branch is an llm, agent, rag or script node", n.ID, b.ID, b.Kind)
			case len(b.Next) > 0:
				v.errf(b.LineOf("next"), "node %q is the branch of map %q, so it cannot have next (the map joins its branches)", b.ID, n.ID)
			case len(b.Updates) > 0:
				v.errf(b.LineOf("state_updates"), "node %q is the branch of map %q, so it cannot have state_updates (its output goes to %s)", b.ID, n.ID, n.CollectInto)
			case b.OutputSchema != nil:
				v.errf(b.LineOf("output_schema"), "node %q is the branch of map %q, so it cannot have output_schema (its output goes to %s)", b.ID, n.ID, n.CollectInto)
			}
			if b.ID == n.ID {
				v.errf(n.LineOf("branch"), "map %q cannot be its own branch", n.ID)
			}
		}
	case KindEnd:
		if len(n.Next) > 0 {
			v.warnf(n.LineOf("next"), "node %q is an end node: its next is ignored", n.ID)
		}
	default:
		v.errf(n.LineOf("type"), "node %q has type %q, which this build does not run (types are %s)", n.ID, n.Kind, kindList())
	}
}

func kindList() string {
	s := make([]string, len(Kinds))
	for i, k := range Kinds {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

// tools checks an llm node's whitelist: mcp:<server> must be one of the
// graph's mcp_servers; a tool or server this installation lacks is Missing.
func (v *validator) tools(n *Node) {
	for _, t := range n.Tools {
		if srv, ok := strings.CutPrefix(t, "mcp:"); ok {
			if v.g.MCPServers != nil && !slices.Contains(v.g.MCPServers, srv) {
				v.errf(n.LineOf("tools"), "node %q: tools names %s, but %s is not in the graph's mcp_servers", n.ID, t, srv)
				continue
			}
			if v.lk.MCPServer != nil && !v.lk.MCPServer(srv) {
				v.missingf(n.LineOf("tools"), "node %q: MCP server %s is not configured here (mcp.json): the node runs without it", n.ID, srv)
			}
			continue
		}
		if v.lk.Tool != nil && !v.lk.Tool(t) {
			v.missingf(n.LineOf("tools"), "node %q: tool %s is not installed here (not in global_tools' files nor the agent's tools script): the node runs without it", n.ID, t)
		}
	}
}

func (v *validator) skills(n *Node) {
	if v.g.EnabledSkills == nil {
		return
	}
	for _, s := range n.EnabledSkills {
		if !slices.Contains(v.g.EnabledSkills, s) {
			v.errf(n.LineOf("enabled_skills"), "node %q: skill %q is not in the graph's enabled_skills (%s)", n.ID, s, strings.Join(v.g.EnabledSkills, ", "))
		}
	}
}

// writes are the state keys a node writes, as far as the file says: its
// state_updates, its output_schema's properties (or output for an llm or
// agent node without one), a map's collect_into. A script's stdout is not
// known before it runs.
func writes(n *Node) []string {
	var out []string
	switch n.Kind {
	case KindLLM, KindAgent:
		if props, ok := n.OutputSchema["properties"].(map[string]any); ok {
			out = append(out, sortedKeys(props)...)
		} else if n.OutputSchema == nil {
			out = append(out, "output")
		}
	case KindMap:
		out = append(out, n.CollectInto)
	}
	for _, u := range n.Updates {
		out = append(out, u.Key)
	}
	return out
}

// parallelWrites finds the keys two branches of one parallel step both
// write with no reducer to merge them.
func (v *validator) parallelWrites() {
	for _, id := range v.g.Order {
		n := v.g.Nodes[id]
		if len(n.Next) < 2 {
			continue
		}
		writer := map[string]string{}
		for _, b := range n.Next {
			bn, ok := v.g.Nodes[b]
			if !ok {
				continue
			}
			for _, k := range uniq(writes(bn)) {
				if w, ok := writer[k]; ok {
					if _, has := v.g.Reducers[k]; !has {
						v.errf(n.LineOf("next"), "node %q runs %s and %s in parallel, and both write %q: declare a reducer for it (reducers: {%s: overwrite}, or append, concat, …)", n.ID, w, b, k, k)
					}
					continue
				}
				writer[k] = b
			}
		}
	}
}

// edges are a node's static routes.
func (v *validator) edges(n *Node) []string {
	out := append([]string{}, n.Next...)
	if n.Fallback != "" {
		out = append(out, n.Fallback)
	}
	for _, r := range n.Routes {
		out = append(out, r.Target)
	}
	if n.OnOther != "" {
		out = append(out, n.OnOther)
	}
	if n.Branch != "" {
		out = append(out, n.Branch)
	}
	return out
}

// flow checks reachability from start and that every reachable node can
// still get to an end node. A script may route anywhere with _next, so a
// node reached only that way is a warning, and a script counts as a way
// out.
func (v *validator) flow() {
	g := v.g
	if _, ok := g.Nodes[g.Start]; !ok {
		return
	}
	hasScript := false
	for _, n := range g.Nodes {
		if n.Kind == KindScript {
			hasScript = true
		}
	}
	seen := map[string]bool{g.Start: true}
	queue := []string{g.Start}
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		for _, t := range v.edges(g.Nodes[id]) {
			if _, ok := g.Nodes[t]; ok && !seen[t] {
				seen[t] = true
				queue = append(queue, t)
			}
		}
	}
	for _, id := range g.Order {
		if seen[id] {
			continue
		}
		if hasScript {
			v.warnf(g.Nodes[id].Line, "node %q is not reached by any next, route or fallback from %q: only a script's _next can reach it", id, g.Start)
		} else {
			v.errf(g.Nodes[id].Line, "node %q can never run: no next, route or fallback leads to it from %q", id, g.Start)
		}
	}
	// Which nodes can get to an end: back from the end nodes; a script
	// (any node, through _next) and a map's branch (its map goes on) do.
	exits := map[string]bool{}
	for _, id := range g.Order {
		n := g.Nodes[id]
		_, isBranch := v.branches[id]
		if n.Kind == KindEnd || n.Kind == KindScript || isBranch {
			exits[id] = true
		}
	}
	for changed := true; changed; {
		changed = false
		for _, id := range g.Order {
			if exits[id] {
				continue
			}
			for _, t := range v.edges(g.Nodes[id]) {
				if exits[t] && t != g.Nodes[id].Branch {
					exits[id], changed = true, true
					break
				}
			}
		}
	}
	reported := map[string]bool{}
	for _, id := range g.Order {
		if !seen[id] || exits[id] || reported[id] {
			continue
		}
		if loop := v.loopThrough(id, exits); loop != nil {
			for _, l := range loop {
				reported[l] = true
			}
			v.errf(g.Nodes[id].Line, "the loop %s has no way out to an end node: give one of its nodes a route or fallback that leaves it", strings.Join(append(loop, loop[0]), " → "))
			continue
		}
		if len(v.edges(g.Nodes[id])) > 0 {
			reported[id] = true
			v.errf(g.Nodes[id].Line, "node %q can never reach an end node", id)
		}
	}
}

// loopThrough finds a cycle from id back to id among nodes that cannot
// reach an end (nil when there is none).
func (v *validator) loopThrough(id string, exits map[string]bool) []string {
	var path []string
	on := map[string]bool{}
	var walk func(cur string) bool
	visited := map[string]bool{}
	walk = func(cur string) bool {
		path = append(path, cur)
		on[cur] = true
		visited[cur] = true
		for _, t := range v.edges(v.g.Nodes[cur]) {
			if _, ok := v.g.Nodes[t]; !ok || exits[t] {
				continue
			}
			if t == id {
				return true
			}
			if !visited[t] && walk(t) {
				return true
			}
		}
		path = path[:len(path)-1]
		on[cur] = false
		return false
	}
	if walk(id) {
		return path
	}
	return nil
}

func firstDuplicate(ids []string) string {
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			return id
		}
		seen[id] = true
	}
	return ""
}

func uniq(s []string) []string {
	seen := map[string]bool{}
	out := s[:0:0]
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
