package config

import (
	"testing"
)

func val(v any, kind, where string) *Value {
	return &Value{V: v, Src: Source{Kind: kind, Where: where}}
}

func null(kind string) *Value { return &Value{Null: true, Src: Source{Kind: kind}} }

func TestResolvePrecedenceAndProvenance(t *testing.T) {
	global := &Config{values: map[string]*Value{}}
	for _, k := range Keys {
		global.values[k.Name] = defaultValue(k)
	}
	global.values["temperature"] = val(0.5, "file", "config.yaml:3")
	global.values["enabled_tools"] = null("file")
	global.values["save_session"] = val(true, "file", "config.yaml:9")

	session := MapLayer{"temperature": val(0.1, "session", "work"), "enabled_macros": null("session")}
	agent := MapLayer{"temperature": val(0.2, "agent", "coder"), "enabled_tools": val([]string{"fs"}, "agent", "coder"),
		"memory": val(false, "agent", "coder"), "auto_continue": val(true, "agent", "coder")}
	role := MapLayer{"temperature": val(0.3, "role", "shell"), "enabled_tools": val([]string{}, "role", "shell"),
		"enabled_macros": val([]string{"m"}, "role", "shell"), "skills_enabled": val(false, "role", "shell"),
		"memory": val(true, "role", "shell"), "auto_continue": val(false, "role", "shell"),
		"save_session": val(false, "role", "shell"), "compression_threshold": val(int64(1), "role", "shell")}

	tests := []struct {
		name   string
		key    string
		layers Layers
		want   string // Format() of the value
		from   string // Src.String()
	}{
		{"session wins", "temperature", Layers{Session: session, Agent: agent, Role: role}, "0.1", "session work"},
		{"then agent", "temperature", Layers{Agent: agent, Role: role}, "0.2", "agent coder"},
		{"then role", "temperature", Layers{Role: role}, "0.3", "role shell"},
		{"then global", "temperature", Layers{}, "0.5", "file config.yaml:3"},
		{"an empty list at a level wins", "enabled_tools", Layers{Role: role}, "[]", "role shell"},
		{"agent list beats the role's", "enabled_tools", Layers{Agent: agent, Role: role}, "[fs]", "agent coder"},
		{"null passes to the next level", "enabled_macros", Layers{Session: session, Role: role}, "[m]", "role shell"},
		{"null everywhere stays null", "enabled_tools", Layers{Session: session}, "null", "file"},
		{"skills off at any level", "skills_enabled", Layers{Session: session, Agent: agent, Role: role}, "false", "role shell"},
		{"skills on by default", "skills_enabled", Layers{Agent: agent}, "true", "default"},
		{"memory: agent before session", "memory", Layers{Session: MapLayer{"memory": val(true, "session", "s")}, Agent: agent}, "false", "agent coder"},
		{"memory: role without agent", "memory", Layers{Role: role}, "true", "role shell"},
		{"auto-continue from the agent alone", "auto_continue", Layers{Agent: agent, Role: role}, "true", "agent coder"},
		{"agent without the key: global, not role", "inject_todo_instructions", Layers{Agent: agent, Role: MapLayer{"inject_todo_instructions": val(false, "role", "r")}}, "true", "default"},
		{"no agent: role", "auto_continue", Layers{Role: role}, "false", "role shell"},
		{"save_session skips the role", "save_session", Layers{Role: role}, "true", "file config.yaml:9"},
		{"save_session from the session", "save_session", Layers{Session: MapLayer{"save_session": val(false, "session", "s")}}, "false", "session s"},
		{"compression_threshold skips the role", "compression_threshold", Layers{Role: role}, "4000", "default"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := global.Resolve(tt.key, tt.layers)
			if v.Format() != tt.want || v.Src.String() != tt.from {
				t.Fatalf("%s = %s from %q, want %s from %q", tt.key, v.Format(), v.Src, tt.want, tt.from)
			}
		})
	}
}
