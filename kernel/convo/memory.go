package convo

import (
	"fmt"
	"strings"
	"time"

	"github.com/coyote-cli/coyote/kernel/memory"
	"github.com/coyote-cli/coyote/kernel/tools"
)

// Memory. When the memory setting resolves true (agent → session → role
// → global, true when unset; see config.Resolve) and --no-memory was not
// given, the memories that have a MEMORY.md (the global one in the
// config directory, the workspace one at the repository root) are added
// to the system prompt, and, with function calling on, the memory__*
// functions are offered. With the functions, the indexes are capped at
// memory_cap_with_tools characters; without them the drill files are
// inlined too, under memory_cap_without_tools, with a note that the
// memory is read-only. Graph agents never get memory: their llm nodes run
// on fresh conversations with NoMemory set (graph.go).

// MemoryStores are the memories in force: none when memory is off (the
// setting, --no-memory) or no MEMORY.md exists.
func (s *State) MemoryStores() []memory.Store {
	cfg := s.d.Config
	if cfg == nil || s.NoMemory {
		return nil
	}
	if on, ok := cfg.Resolve("memory", s.Layers()).V.(bool); ok && !on {
		return nil
	}
	cwd, err := s.workDir()
	if err != nil {
		return nil
	}
	return memory.InForce(s.d.Paths.ConfigDir, cwd)
}

// memoryFuncs are the memory functions to offer: none unless a memory is
// in force.
func (s *State) memoryFuncs() []*tools.Func {
	if len(s.MemoryStores()) == 0 {
		return nil
	}
	return memory.Funcs(s.MemoryStores, time.Now)
}

// memoryFuncsOffered reports whether the model of the next request gets
// the memory functions (Offered): function calling is on and the model,
// as the configuration describes it, can call functions.
func (s *State) memoryFuncsOffered() bool {
	if !s.d.Config.Bool("function_calling_support") {
		return false
	}
	t, err := s.Target()
	if err != nil || t.Client == nil || t.Model.Name == "" {
		return true // a model known only to its server: as Offered does once connected
	}
	return t.Model.SupportsFunctionCalling
}

// memoryText is what the memories in force add to the system prompt, ""
// when there are none. Unusable entries and a cut at the cap are warned
// about once.
func (s *State) memoryText() string {
	stores := s.MemoryStores()
	if len(stores) == 0 {
		return ""
	}
	var ms []*memory.Memory
	for _, st := range stores {
		m, err := memory.Read(st)
		if err != nil {
			s.warnOnce(err.Error())
			continue
		}
		for _, w := range m.Warnings() {
			s.warnOnce(w)
		}
		ms = append(ms, m)
	}
	if len(ms) == 0 {
		return ""
	}
	withTools := s.memoryFuncsOffered()
	o := memory.RenderOptions{CapKey: "memory_cap_with_tools", Now: time.Now(), Inline: !withTools}
	if !withTools {
		o.CapKey = "memory_cap_without_tools"
	}
	capChars, _ := s.d.Config.Resolve(o.CapKey, s.Layers()).V.(int64)
	o.Cap = int(capChars)
	r := memory.Render(ms, o)
	if r.Cut {
		s.warnOnce(fmt.Sprintf("memory has %d characters, more than %s (%d): the model sees it cut", r.Full, o.CapKey, o.Cap))
	}
	intro := memory.Instructions
	if !withTools {
		intro = memory.ReadOnlyNote
	}
	return intro + "\n\n" + r.Text
}

// memoryPaths lists the memory indexes in force, or says why there are
// none.
func (s *State) memoryPaths() string {
	cfg := s.d.Config
	switch {
	case s.NoMemory:
		return "none (--no-memory)"
	case cfg != nil:
		if on, ok := cfg.Resolve("memory", s.Layers()).V.(bool); ok && !on {
			return "none (memory is off)"
		}
	}
	stores := s.MemoryStores()
	if len(stores) == 0 {
		return "none (no MEMORY.md; coyote --init-memory global|workspace makes one)"
	}
	paths := make([]string, len(stores))
	for i, st := range stores {
		paths[i] = string(st.Scope) + ": " + st.Index()
	}
	return strings.Join(paths, ", ")
}
