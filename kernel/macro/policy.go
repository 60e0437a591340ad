package macro

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Level is one rung of enabled_macros precedence.
type Level struct {
	Kind  string   // "session", "agent", "role", "global"
	Where string   // the session/agent/role name ("" for global)
	Set   bool     // false: no opinion (absent or null)
	List  []string // when Set: exactly these names ([] = none)
}

// Label is how an error names the owning config, e.g. "role:coder enabled_macros", "global enabled_macros".
func (l Level) Label() string {
	if l.Kind == KindGlobal || l.Where == "" {
		return l.Kind + " enabled_macros"
	}
	return l.Kind + ":" + l.Where + " enabled_macros"
}

// Kinds of Level.
const (
	KindSession = "session"
	KindAgent   = "agent"
	KindRole    = "role"
	KindGlobal  = "global"
)

// Policy is the levels in precedence order: session, agent, role, global. The first Set one wins
// outright; no merging; none Set = everything enabled.
type Policy []Level

// Winner is the level that decides, or nil when no level is Set.
func (p Policy) Winner() *Level {
	for i := range p {
		if p[i].Set {
			return &p[i]
		}
	}
	return nil
}

// global is the global level, or an unset one when p has none.
func (p Policy) global() Level {
	for _, l := range p {
		if l.Kind == KindGlobal {
			return l
		}
	}
	return Level{Kind: KindGlobal}
}

// State is how a macro stands in the active context.
type State int

// States, in the order .list macros explains them.
const (
	Enabled         State = iota // may run
	DisabledRuntime              // left out of the global list: .macro enable brings it back
	Locked                       // left out of a session, agent or role list: edit that config
	Missing                      // named by the deciding list, but no file provides it
	Shadowed                     // its name is a built-in command: runs only as .macro NAME
	Invalid                      // the file cannot be used (Macro.Err); never runs
)

func (s State) String() string {
	switch s {
	case Enabled:
		return "enabled"
	case DisabledRuntime:
		return "disabled (runtime)"
	case Locked:
		return "locked"
	case Missing:
		return "missing"
	case Shadowed:
		return "shadowed (built-in)"
	case Invalid:
		return "invalid"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// Entry is one row of `.list macros`.
type Entry struct {
	Name     string
	Macro    *Macro // nil for Missing
	State    State
	LockedBy string // for Locked: the Label of the winning level
	// ListedBy is, for Missing, the Label of the list that names the
	// absent macro (for the warning a stale name deserves).
	ListedBy string
}

// ErrUnknown is the error (wrapped) for a name no macro file provides.
var ErrUnknown = errors.New("unknown macro")

// UnknownError names the macros that do not exist; errors.Is(err,
// ErrUnknown) holds for it.
type UnknownError struct{ Names []string }

func (e *UnknownError) Error() string {
	q := make([]string, len(e.Names))
	for i, n := range e.Names {
		q[i] = fmt.Sprintf("%q", n)
	}
	if len(q) == 1 {
		return "unknown macro " + q[0]
	}
	return "unknown macros " + strings.Join(q, ", ")
}

// Is makes errors.Is(err, ErrUnknown) true.
func (e *UnknownError) Is(target error) bool { return target == ErrUnknown }

// NotEnabledError is why an existing, valid macro may not run here: it
// is Locked (By names the restricting level) or DisabledRuntime.
type NotEnabledError struct {
	Name  string
	State State
	By    string // for Locked: the Label of the restricting level
}

func (e *NotEnabledError) Error() string {
	if e.State == Locked {
		return fmt.Sprintf("macro %q is not enabled here: restricted by %s; edit enabled_macros there", e.Name, e.By)
	}
	return fmt.Sprintf("macro %q is disabled: re-enable it with .macro enable %s", e.Name, e.Name)
}

// effective is the macro a name invokes in list (the workspace one, else
// the global one), or nil.
func effective(list []*Macro, name string) *Macro {
	for _, m := range list {
		if m.Name == name && m.ShadowedBy == "" {
			return m
		}
	}
	return nil
}

// allowState is the state the policy gives a valid macro name, and the
// label of the level that locks it.
func allowState(w *Level, allowed map[string]bool, name string) (State, string) {
	switch {
	case w == nil || allowed[name]:
		return Enabled, ""
	case w.Kind == KindGlobal:
		return DisabledRuntime, ""
	}
	return Locked, w.Label()
}

func setOf(names []string) map[string]bool {
	s := make(map[string]bool, len(names))
	for _, n := range names {
		s[n] = true
	}
	return s
}

// Resolve gives the state of every discovered macro (global ones shadowed by workspace ones included,
// shown with their own source) and a Missing row for each name of the winning allowlist that no file
// provides. builtin reports names of built-in REPL commands (".name" form without the dot).
// Shadowed wins over the allowlist states for display.
//
// Invalid wins over everything (the file never runs); a global macro
// shadowed by a workspace one gets the state of its name, Macro.ShadowedBy
// saying it is not the one that runs. Rows are sorted by name, workspace
// first. builtin may be nil.
func Resolve(list []*Macro, p Policy, builtin func(name string) bool) []Entry {
	w := p.Winner()
	var allowed map[string]bool
	if w != nil {
		allowed = setOf(w.List)
	}
	entries := make([]Entry, 0, len(list))
	have := make(map[string]bool, len(list))
	for _, m := range list {
		have[m.Name] = true
		e := Entry{Name: m.Name, Macro: m}
		switch {
		case m.Err != nil:
			e.State = Invalid
		case builtin != nil && builtin(m.Name):
			e.State = Shadowed
		default:
			e.State, e.LockedBy = allowState(w, allowed, m.Name)
		}
		entries = append(entries, e)
	}
	if w != nil {
		missing := false
		for _, n := range w.List {
			if !have[n] {
				have[n] = true // once per name
				entries = append(entries, Entry{Name: n, State: Missing, ListedBy: w.Label()})
				missing = true
			}
		}
		if missing {
			sort.SliceStable(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
		}
	}
	return entries
}

// Check says whether name may run (both `.name` and `.macro name` call it; shadowing by a built-in is
// not checked here, the caller decides): nil, or an error per the seed's §6 matrix: locked → names
// the restricting level ("macro %q is not enabled here: restricted by role:coder enabled_macros; edit
// enabled_macros there"), runtime-disabled → "re-enable it with .macro enable NAME", invalid → the
// file's error, unknown → an error wrapping ErrUnknown.
//
// Locked and runtime-disabled are a *NotEnabledError; invalid is the
// file's error prefixed with the macro's name (errors.As finds the
// *FileError); unknown is an *UnknownError.
func Check(list []*Macro, p Policy, name string) error {
	m := effective(list, name)
	if m == nil {
		return &UnknownError{Names: []string{name}}
	}
	if m.Err != nil {
		return fmt.Errorf("macro %q is invalid: %w", name, m.Err)
	}
	w := p.Winner()
	var allowed map[string]bool
	if w != nil {
		allowed = setOf(w.List)
	}
	if st, by := allowState(w, allowed, name); st != Enabled {
		return &NotEnabledError{Name: name, State: st, By: by}
	}
	return nil
}

// Toggle applies `.macro enable|disable NAME` to the global level's list and returns the new global
// list (nil stays nil when enabling while everything is enabled) and a notice for no-ops ("macro x is
// already enabled"). It errors when a session/agent/role level is Set (naming it: the toggle cannot
// override it), for unknown names (ErrUnknown) and for invalid macros. disable with the global level
// unset materialises every discovered valid macro name minus NAME.
//
// When the notice is set nothing changed and global is the current list
// (a copy, or nil when the level is unset). The returned list is always
// a new slice.
func Toggle(list []*Macro, p Policy, name string, enable bool) (global []string, notice string, err error) {
	m := effective(list, name)
	if m == nil {
		return nil, "", &UnknownError{Names: []string{name}}
	}
	if m.Err != nil {
		return nil, "", fmt.Errorf("macro %q is invalid: %w", name, m.Err)
	}
	if w := p.Winner(); w != nil && w.Kind != KindGlobal {
		verb := "disable"
		if enable {
			verb = "enable"
		}
		return nil, "", fmt.Errorf("cannot %s macro %q: restricted by %s, which .macro %s cannot override; edit enabled_macros there", verb, name, w.Label(), verb)
	}
	g := p.global()
	cur := slices.Clone(g.List)
	if g.Set && cur == nil {
		cur = []string{}
	}
	if enable {
		if !g.Set || slices.Contains(cur, name) {
			return cur, fmt.Sprintf("macro %s is already enabled", name), nil
		}
		return append(cur, name), "", nil
	}
	if !g.Set {
		out := []string{}
		seen := map[string]bool{name: true}
		for _, m := range list {
			if m.Err == nil && !seen[m.Name] {
				seen[m.Name] = true
				out = append(out, m.Name)
			}
		}
		return out, "", nil
	}
	if !slices.Contains(cur, name) {
		return cur, fmt.Sprintf("macro %s is already disabled", name), nil
	}
	return slices.DeleteFunc(cur, func(n string) bool { return n == name }), "", nil
}

// Validate checks names for `.set enabled_macros`: each must exist (workspace then global).
//
// A name exists when some macro file provides it, valid or not. The error
// is an *UnknownError naming every unknown name.
func Validate(list []*Macro, names []string) error {
	have := make(map[string]bool, len(list))
	for _, m := range list {
		have[m.Name] = true
	}
	var unknown []string
	for _, n := range names {
		if !have[n] && !slices.Contains(unknown, n) {
			unknown = append(unknown, n)
		}
	}
	if len(unknown) > 0 {
		return &UnknownError{Names: unknown}
	}
	return nil
}
