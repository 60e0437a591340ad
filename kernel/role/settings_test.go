package role

import (
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func TestSettingsSetFromText(t *testing.T) {
	tests := []struct {
		key, value string
		want       Settings
	}{
		{"model", "openai:gpt-4o", Settings{Model: "openai:gpt-4o"}},
		{"temperature", "0.7", Settings{Temperature: ptr(0.7)}},
		{"top_p", "0", Settings{TopP: ptr(0.0)}},
		{"reasoning_effort", "low", Settings{ReasoningEffort: "low"}},
		{"enabled_tools", "fs_ls, fs_cat", Settings{EnabledTools: ListOf("fs_ls", "fs_cat")}},
		{"enabled_tools", "all", Settings{EnabledTools: ListOf("all")}},
		{"enabled_mcp_servers", "", Settings{EnabledMCPServers: StringList{Set: true}}},
		{"enabled_skills", "a", Settings{EnabledSkills: ListOf("a")}},
		{"enabled_macros", "a,b", Settings{EnabledMacros: ListOf("a", "b")}},
		{"skills_enabled", "false", Settings{SkillsEnabled: ptr(false)}},
		{"auto_continue", "true", Settings{AutoContinue: ptr(true)}},
		{"max_auto_continues", "3", Settings{MaxAutoContinues: ptr(3)}},
		{"inject_todo_instructions", "false", Settings{InjectTodoInstructions: ptr(false)}},
		{"continuation_prompt", "Go on, and finish.", Settings{ContinuationPrompt: ptr("Go on, and finish.")}},
		{"inject_skill_instructions", "true", Settings{InjectSkillInstructions: ptr(true)}},
		{"skill_instructions", "Look at skills first", Settings{SkillInstructions: ptr("Look at skills first")}},
		{"memory", "false", Settings{Memory: ptr(false)}},
	}
	for _, tt := range tests {
		t.Run(tt.key+"="+tt.value, func(t *testing.T) {
			var s Settings
			if err := s.Set(tt.key, tt.value); err != nil {
				t.Fatal(err)
			}
			if !s.Equal(&tt.want) {
				t.Errorf("settings = %+v\nwant %+v", s, tt.want)
			}
		})
	}
}

func TestSettingsSetUnsetsWithNull(t *testing.T) {
	s := allKeys()
	for i, k := range Keys() {
		if err := s.Set(k, "null"); err != nil {
			t.Fatal(err)
		}
		if f, _ := lookupField(k); f.get(&s) != nil {
			t.Errorf("%s is still set after null", k)
		}
		if i+1 < len(fields) && fields[i+1].get(&s) == nil {
			t.Errorf("null for %s also unset %s", k, fields[i+1].key)
		}
	}
	if !s.Equal(&Settings{}) {
		t.Errorf("after null everywhere: %+v", s)
	}
}

func TestSettingsSetRejectsBadValues(t *testing.T) {
	tests := []struct{ key, value, says string }{
		{"temperature", "hot", "temperature must be a number"},
		{"top_p", "NaN", "top_p must be a number"},
		{"memory", "maybe", "memory must be true, false or null"},
		{"max_auto_continues", "-2", "0 or more"},
		{"max_auto_continues", "1.5", "whole number"},
		{"colour", "blue", `unknown role setting "colour"`},
	}
	for _, tt := range tests {
		var s Settings
		err := s.Set(tt.key, tt.value)
		if err == nil || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("Set(%s, %s) = %v, want %q", tt.key, tt.value, err, tt.says)
		}
		if !s.Equal(&Settings{}) {
			t.Errorf("a rejected value changed the settings: %+v", s)
		}
	}
}

func TestKeysNameEverySetting(t *testing.T) {
	want := []string{"model", "temperature", "top_p", "reasoning_effort", "enabled_tools", "enabled_mcp_servers",
		"skills_enabled", "enabled_skills", "enabled_macros", "auto_continue", "max_auto_continues",
		"inject_todo_instructions", "continuation_prompt", "inject_skill_instructions", "skill_instructions", "memory"}
	got := Keys()
	if len(got) != len(want) {
		t.Fatalf("Keys = %v", got)
	}
	for _, k := range want {
		if !strings.Contains(","+strings.Join(got, ",")+",", ","+k+",") {
			t.Errorf("%s is not a key", k)
		}
	}
	// Every key reaches its own field: setting one changes nothing else.
	for _, k := range got {
		var s Settings
		f, _ := lookupField(k)
		f.set(&s, f.get(&Settings{}))
		if !s.Equal(&Settings{}) {
			t.Errorf("unset %s is not zero", k)
		}
		full := allKeys()
		f.set(&s, f.get(&full))
		for _, other := range fields {
			if other.key != k && other.get(&s) != nil {
				t.Errorf("setting %s set %s", k, other.key)
			}
		}
		if f.get(&s) == nil {
			t.Errorf("setting %s left it unset", k)
		}
	}
}

func TestStringListInAYAMLStruct(t *testing.T) {
	type doc struct {
		A StringList `yaml:"a,omitempty"`
		B StringList `yaml:"b,omitempty"`
		C StringList `yaml:"c,omitempty"`
		D StringList `yaml:"d,omitempty"`
		E StringList `yaml:"e,omitempty"`
	}
	var d doc
	if err := yaml.Unmarshal([]byte("a: null\nb: []\nc: x, y\nd: [p, q]\n"), &d); err != nil {
		t.Fatal(err)
	}
	want := doc{B: StringList{Set: true}, C: ListOf("x", "y"), D: ListOf("p", "q")}
	if !d.A.Equal(want.A) || !d.B.Equal(want.B) || !d.C.Equal(want.C) || !d.D.Equal(want.D) || !d.E.Equal(want.E) {
		t.Errorf("decoded %+v, want %+v", d, want)
	}
	out, err := yaml.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(out); got != "b: []\nc:\n    - x\n    - \"y\"\nd:\n    - p\n    - q\n" {
		t.Errorf("encoded:\n%s", got)
	}
	if err := yaml.Unmarshal([]byte("a: {k: v}\n"), &d); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("a mapping as a list: %v", err)
	}
}

func TestStringListHelpers(t *testing.T) {
	if got := ParseList(" a, ,b ,"); !reflect.DeepEqual(got, ListOf("a", "b")) {
		t.Errorf("ParseList = %+v", got)
	}
	if got := ParseList(""); !got.Set || len(got.Items) != 0 {
		t.Errorf("ParseList(\"\") = %+v, want set and empty", got)
	}
	if (StringList{}).String() != "null" || ListOf("a", "b").String() != "a,b" || (StringList{Set: true}).String() != "" {
		t.Error("String does not tell unset from empty")
	}
	if (StringList{}).Equal(StringList{Set: true}) || !ListOf().Equal(StringList{Set: true}) {
		t.Error("Equal confuses unset and empty")
	}
}

func TestCloneSharesNothing(t *testing.T) {
	s := allKeys()
	c := s.Clone()
	if !c.Equal(&s) {
		t.Fatalf("clone differs: %+v", c)
	}
	*s.Temperature = 2
	*s.Memory = true
	s.EnabledTools.Items[0] = "changed"
	if *c.Temperature != 0.3 || *c.Memory || c.EnabledTools.Items[0] != "fs_ls" {
		t.Errorf("the clone changed with the original: %+v", c)
	}
}
