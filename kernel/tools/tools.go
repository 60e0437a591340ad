// Package tools owns the functions a model may call: one registry fed by
// several sources (tool scripts, built-in functions; the MCP bridge and RAG
// add theirs), which of them a conversation offers (visible_tools,
// enabled_tools, mapping_tools), and running a round of calls with the
// guardrails: loop detection, unknown names, result truncation, errors
// returned to the model instead of raised.
package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/coyote-cli/coyote/sdk/provider"
)

// Func is one callable function.
type Func struct {
	Name        string
	Description string
	// Parameters is the JSON Schema of the arguments (an object schema).
	Parameters json.RawMessage
	// Source says where the function comes from: "script", "builtin",
	// "mcp:<server>", "rag".
	Source string
	// Builtin functions are always offered when tools are on; the others
	// only when enabled_tools selects them.
	Builtin bool
	// Serial functions run alone, in call order (they ask the user);
	// the others of a round may run at once.
	Serial bool
	// Guarded functions ask before they change files or run commands
	// (tool scripts that call guard_operation or guard_path); see
	// WithConfirm.
	Guarded bool
	// Call runs the function with the model's JSON arguments and returns
	// the text to send back. An error is sent back as a tool_call_error.
	Call func(ctx context.Context, args json.RawMessage) (string, error)
}

// Tool is the declaration sent to the model.
func (f *Func) Tool() provider.Tool {
	params := f.Parameters
	if len(params) == 0 {
		params = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return provider.Tool{Name: f.Name, Description: f.Description, Parameters: params}
}

// Registry holds the functions of a run by name, in the order added.
type Registry struct {
	funcs  []*Func
	byName map[string]*Func
	// lazy are sources not read yet (tool scripts): read on first use,
	// so a prompt that offers no tools never parses them.
	lazy []func(*Registry)
}

// AddLazy registers a source that adds its functions when the registry is
// first read.
func (r *Registry) AddLazy(load func(*Registry)) { r.lazy = append(r.lazy, load) }

// load runs the pending sources.
func (r *Registry) load() {
	for len(r.lazy) > 0 {
		pending := r.lazy
		r.lazy = nil
		for _, l := range pending {
			l(r)
		}
	}
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{byName: map[string]*Func{}} }

// Add registers f; a function of the same name is replaced (a later
// source wins, so a user's tool can shadow a built-in of the same name).
func (r *Registry) Add(f *Func) {
	if old, ok := r.byName[f.Name]; ok {
		for i := range r.funcs {
			if r.funcs[i] == old {
				r.funcs[i] = f
			}
		}
	} else {
		r.funcs = append(r.funcs, f)
	}
	r.byName[f.Name] = f
}

// Clone returns a registry with the same functions that can change
// without changing r (a forked conversation's).
func (r *Registry) Clone() *Registry {
	if r == nil {
		return nil
	}
	r.load()
	c := &Registry{funcs: append([]*Func(nil), r.funcs...), byName: make(map[string]*Func, len(r.byName))}
	for k, v := range r.byName {
		c.byName[k] = v
	}
	return c
}

// Remove drops the functions whose names start with prefix (an MCP
// server's, when it is switched off).
func (r *Registry) Remove(prefix string) {
	r.load()
	kept := r.funcs[:0]
	for _, f := range r.funcs {
		if strings.HasPrefix(f.Name, prefix) {
			delete(r.byName, f.Name)
			continue
		}
		kept = append(kept, f)
	}
	r.funcs = kept
}

// Get finds a function by name.
func (r *Registry) Get(name string) (*Func, bool) {
	if r == nil {
		return nil, false
	}
	r.load()
	f, ok := r.byName[name]
	return f, ok
}

// All lists every function, in the order added. A nil registry has none.
func (r *Registry) All() []*Func {
	if r == nil {
		return nil
	}
	r.load()
	return append([]*Func(nil), r.funcs...)
}

// Selection is which functions a conversation offers, from the resolved
// settings.
type Selection struct {
	// Enabled is enabled_tools resolved: nil (null: no user tools),
	// "all", or a list of names and aliases.
	Enabled any
	// Mapping is mapping_tools: alias → comma list of names.
	Mapping map[string]string
}

// Select returns the functions to offer, in registry order: the
// built-ins, and the user's functions that Enabled names (directly or
// through an alias of Mapping). It also returns the names that match
// nothing, so the caller can warn.
func (r *Registry) Select(sel Selection) (out []*Func, unknown []string) {
	if r == nil {
		return nil, nil
	}
	want := map[string]bool{}
	all := false
	switch v := sel.Enabled.(type) {
	case string:
		if strings.TrimSpace(v) == "all" {
			all = true
		} else {
			for _, n := range SplitNames(v) {
				want[n] = true
			}
		}
	case []string:
		for _, n := range v {
			if n == "all" {
				all = true
			}
			want[strings.TrimSpace(n)] = true
		}
	}
	for alias, names := range sel.Mapping {
		if want[alias] {
			delete(want, alias)
			for _, n := range SplitNames(names) {
				want[n] = true
			}
		}
	}
	delete(want, "all")
	delete(want, "")
	if all || len(want) > 0 {
		r.load() // only a selection of user functions needs the lazy sources
	}
	found := map[string]bool{}
	for _, f := range r.funcs {
		switch {
		case f.Builtin, all, want[f.Name]:
			out = append(out, f)
			found[f.Name] = true
		}
	}
	for n := range want {
		if !found[n] {
			unknown = append(unknown, n)
		}
	}
	sort.Strings(unknown)
	return out, unknown
}

// SplitNames splits a comma-separated list of names (enabled_tools,
// mapping_tools values), dropping blanks.
func SplitNames(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Declarations are what a request offers the model.
func Declarations(fs []*Func) []provider.Tool {
	out := make([]provider.Tool, len(fs))
	for i, f := range fs {
		out[i] = f.Tool()
	}
	return out
}

// ErrorResult is the JSON a failed call sends back to the model, in the
// original's shape.
func ErrorResult(msg string, extra map[string]string) string {
	m := map[string]string{"tool_call_error": msg}
	for k, v := range extra {
		if v != "" {
			m[k] = v
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Sprintf(`{"tool_call_error":%q}`, msg)
	}
	return string(b)
}
