package skill

import (
	"fmt"
	"slices"
	"strings"
)

// Loaded is the skills a conversation has loaded, in load order. The
// zero value is empty and ready to use; it is not safe for concurrent
// use (a conversation runs one turn at a time, and the skill__ functions
// run serially).
type Loaded struct {
	list    []*Skill
	version int
}

// Add loads s; a skill of that name already loaded is an error.
func (l *Loaded) Add(s *Skill) error {
	if l.Has(s.Name) {
		return fmt.Errorf("skill %q is already loaded", s.Name)
	}
	l.list = append(l.list, s)
	l.version++
	return nil
}

// Remove unloads the skill of a name; one not loaded is an error.
func (l *Loaded) Remove(name string) error {
	i := slices.IndexFunc(l.list, func(s *Skill) bool { return s.Name == name })
	if i < 0 {
		return fmt.Errorf("skill %q is not loaded", name)
	}
	l.list = slices.Delete(l.list, i, i+1)
	l.version++
	return nil
}

// Has reports whether a skill of that name is loaded.
func (l *Loaded) Has(name string) bool {
	return l != nil && slices.ContainsFunc(l.list, func(s *Skill) bool { return s.Name == name })
}

// Skills are the loaded skills, in load order.
func (l *Loaded) Skills() []*Skill {
	if l == nil {
		return nil
	}
	return slices.Clone(l.list)
}

// Names are the loaded skills' names, in load order.
func (l *Loaded) Names() []string {
	var out []string
	for _, s := range l.Skills() {
		out = append(out, s.Name)
	}
	return out
}

// Version changes each time a skill is loaded or unloaded, so that a turn
// can tell that its tools and system prompt must be built again.
func (l *Loaded) Version() int {
	if l == nil {
		return 0
	}
	return l.version
}

// DropAutoUnload unloads the skills marked auto_unload and returns their
// names.
func (l *Loaded) DropAutoUnload() []string {
	if l == nil {
		return nil
	}
	var dropped []string
	l.list = slices.DeleteFunc(l.list, func(s *Skill) bool {
		if s.AutoUnload {
			dropped = append(dropped, s.Name)
		}
		return s.AutoUnload
	})
	if len(dropped) > 0 {
		l.version++
	}
	return dropped
}

// Clone returns a set that starts with l's skills and changes on its own
// (a forked conversation's).
func (l *Loaded) Clone() *Loaded {
	if l == nil {
		return new(Loaded)
	}
	return &Loaded{list: slices.Clone(l.list), version: l.version}
}

// Tools are the names the loaded skills add to enabled_tools, each once,
// in load order.
func (l *Loaded) Tools() []string { return l.union(func(s *Skill) []string { return s.EnabledTools }) }

// MCPServers are the names the loaded skills add to enabled_mcp_servers,
// each once, in load order.
func (l *Loaded) MCPServers() []string {
	return l.union(func(s *Skill) []string { return s.EnabledMCPServers })
}

func (l *Loaded) union(of func(*Skill) []string) []string {
	var out []string
	for _, s := range l.Skills() {
		for _, n := range of(s) {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

// Bodies are the loaded skills' bodies for the system prompt, in load
// order, each under a heading with its name; "" when none has one.
func (l *Loaded) Bodies() string {
	var parts []string
	for _, s := range l.Skills() {
		if strings.TrimSpace(s.Body) != "" {
			parts = append(parts, "## Skill: "+s.Name+"\n\n"+strings.TrimSpace(s.Body))
		}
	}
	return strings.Join(parts, "\n\n")
}
