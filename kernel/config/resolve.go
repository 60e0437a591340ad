package config

// Layer is one level a setting can be set at: the active session, agent or
// role. Get returns the level's value of a key and whether the level sets
// it; a value that is set may still be Null (an explicit null).
type Layer interface {
	Get(key string) (*Value, bool)
}

// Layers are the levels above the global config, any of them absent (nil).
type Layers struct {
	Session, Agent, Role Layer
}

// Resolve returns the effective value of a setting and, in its Src, where
// it came from. Settings resolve session → agent → role → global, the
// first level that sets a non-null value winning, with the original's
// exceptions:
//
//   - skills_enabled is false when any level says false;
//   - memory resolves agent → session → role → global;
//   - auto_continue, max_auto_continues, inject_todo_instructions,
//     continuation_prompt, inject_skill_instructions and
//     skill_instructions come from the agent alone when an agent is active;
//   - save_session resolves session → global, compression_threshold
//     session → agent → global (a role does not set it).
//
// Lists keep null and [] apart: a level's [] wins (nothing enabled), its
// null passes to the next level.
func (c *Config) Resolve(key string, l Layers) *Value {
	switch key {
	case "skills_enabled":
		for _, layer := range []Layer{l.Session, l.Agent, l.Role} {
			if v := setValue(layer, key); v != nil {
				if b, ok := v.V.(bool); ok && !b {
					return v
				}
			}
		}
		return c.Get(key)
	case "memory":
		return first(c, key, l.Agent, l.Session, l.Role)
	case "auto_continue", "max_auto_continues", "inject_todo_instructions", "continuation_prompt",
		"inject_skill_instructions", "skill_instructions":
		if l.Agent != nil {
			if v := setValue(l.Agent, key); v != nil {
				return v
			}
			return c.Get(key)
		}
		return first(c, key, l.Session, l.Role)
	case "save_session":
		return first(c, key, l.Session)
	case "compression_threshold":
		return first(c, key, l.Session, l.Agent)
	}
	return first(c, key, l.Session, l.Agent, l.Role)
}

// first returns the first non-null value among the layers, else the
// global one.
func first(c *Config, key string, layers ...Layer) *Value {
	for _, layer := range layers {
		if v := setValue(layer, key); v != nil {
			return v
		}
	}
	return c.Get(key)
}

// setValue is the layer's value of key when the layer sets it to a
// non-null value.
func setValue(layer Layer, key string) *Value {
	if layer == nil {
		return nil
	}
	if v, ok := layer.Get(key); ok && v != nil && !v.Null {
		return v
	}
	return nil
}

// MapLayer is a Layer backed by a map, for levels whose settings are read
// from a file (roles, sessions, agents) and for tests.
type MapLayer map[string]*Value

// Get implements Layer.
func (m MapLayer) Get(key string) (*Value, bool) {
	v, ok := m[key]
	return v, ok
}
