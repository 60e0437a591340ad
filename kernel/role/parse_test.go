package role

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func ptr[T any](v T) *T { return &v }

func TestParseReadsEveryFrontMatterKey(t *testing.T) {
	tests := []struct {
		name  string
		front string
		want  Settings
	}{
		{"model", "model: openai:gpt-4o", Settings{Model: "openai:gpt-4o"}},
		{"temperature", "temperature: 0.2", Settings{Temperature: ptr(0.2)}},
		{"temperature as an integer", "temperature: 1", Settings{Temperature: ptr(1.0)}},
		{"top_p zero is set", "top_p: 0", Settings{TopP: ptr(0.0)}},
		{"reasoning_effort", "reasoning_effort: high", Settings{ReasoningEffort: "high"}},
		{"enabled_tools as a YAML list", "enabled_tools:\n  - fs_ls\n  - fs_cat", Settings{EnabledTools: ListOf("fs_ls", "fs_cat")}},
		{"enabled_tools as a comma string", "enabled_tools: fs_ls, fs_cat", Settings{EnabledTools: ListOf("fs_ls", "fs_cat")}},
		{"enabled_tools all", "enabled_tools: all", Settings{EnabledTools: ListOf("all")}},
		{"enabled_tools empty list is set", "enabled_tools: []", Settings{EnabledTools: StringList{Set: true}}},
		{"enabled_tools empty string is set and empty", `enabled_tools: ""`, Settings{EnabledTools: StringList{Set: true}}},
		{"enabled_tools null is unset", "enabled_tools: null", Settings{}},
		{"enabled_tools with no value is unset", "enabled_tools:", Settings{}},
		{"enabled_mcp_servers as a flow list", "enabled_mcp_servers: [github, gitmcp]", Settings{EnabledMCPServers: ListOf("github", "gitmcp")}},
		{"enabled_mcp_servers as a comma string", "enabled_mcp_servers: github,gitmcp", Settings{EnabledMCPServers: ListOf("github", "gitmcp")}},
		{"skills_enabled false", "skills_enabled: false", Settings{SkillsEnabled: ptr(false)}},
		{"enabled_skills", "enabled_skills: [git-master]", Settings{EnabledSkills: ListOf("git-master")}},
		{"enabled_skills comma", "enabled_skills: git-master,ai-slop-remover", Settings{EnabledSkills: ListOf("git-master", "ai-slop-remover")}},
		{"enabled_macros empty disables all", "enabled_macros: []", Settings{EnabledMacros: StringList{Set: true}}},
		{"enabled_macros", "enabled_macros:\n- review", Settings{EnabledMacros: ListOf("review")}},
		{"auto_continue", "auto_continue: true", Settings{AutoContinue: ptr(true)}},
		{"max_auto_continues", "max_auto_continues: 7", Settings{MaxAutoContinues: ptr(7)}},
		{"max_auto_continues zero", "max_auto_continues: 0", Settings{MaxAutoContinues: ptr(0)}},
		{"inject_todo_instructions", "inject_todo_instructions: false", Settings{InjectTodoInstructions: ptr(false)}},
		{"continuation_prompt", "continuation_prompt: keep going", Settings{ContinuationPrompt: ptr("keep going")}},
		{"continuation_prompt multi-line", "continuation_prompt: |\n  line one\n  line two", Settings{ContinuationPrompt: ptr("line one\nline two\n")}},
		{"continuation_prompt empty is set", `continuation_prompt: ""`, Settings{ContinuationPrompt: ptr("")}},
		{"inject_skill_instructions", "inject_skill_instructions: true", Settings{InjectSkillInstructions: ptr(true)}},
		{"skill_instructions", "skill_instructions: use skills", Settings{SkillInstructions: ptr("use skills")}},
		{"skill_instructions null", "skill_instructions: null", Settings{}},
		{"memory false", "memory: false", Settings{Memory: ptr(false)}},
		{"memory null", "memory: ~", Settings{}},
		{"yes is a YAML 1.1 boolean", "memory: yes", Settings{Memory: ptr(true)}},
		{"name and prompt are not read", "name: other\nprompt: ignored", Settings{}},
		{"comments only", "# nothing here", Settings{}},
		{"empty", "", Settings{}},
		{"document null", "~", Settings{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, warnings, err := Parse("x", []byte("---\n"+tt.front+"\n---\nPrompt."), "x.md")
			if err != nil {
				t.Fatal(err)
			}
			if len(warnings) != 0 {
				t.Errorf("warnings: %v", warnings)
			}
			if !r.Settings.Equal(&tt.want) {
				t.Errorf("settings = %+v\nwant %+v", r.Settings, tt.want)
			}
			if r.Prompt != "Prompt." {
				t.Errorf("prompt = %q", r.Prompt)
			}
		})
	}
}

func TestParseKeepsNullDifferentFromEmptyList(t *testing.T) {
	null, _, err := Parse("x", []byte("---\nenabled_tools: null\n---\n"), "x.md")
	if err != nil {
		t.Fatal(err)
	}
	empty, _, err := Parse("x", []byte("---\nenabled_tools: []\n---\n"), "x.md")
	if err != nil {
		t.Fatal(err)
	}
	if null.Settings.EnabledTools.Set {
		t.Error("null made the list set")
	}
	if !empty.Settings.EnabledTools.Set || len(empty.Settings.EnabledTools.Items) != 0 {
		t.Errorf("[] = %+v, want set and empty", empty.Settings.EnabledTools)
	}
	if null.Settings.Equal(&empty.Settings) {
		t.Error("null and [] compare equal")
	}
}

func TestParseSplitsFrontMatterFromPrompt(t *testing.T) {
	tests := []struct {
		name, file, prompt string
		model              string
	}{
		{"no front matter", "Just a prompt.\n", "Just a prompt.", ""},
		{"prompt is trimmed", "\n\n  Hello  \n\n", "Hello", ""},
		{"front matter", "---\nmodel: a:b\n---\nHello\n", "Hello", "a:b"},
		{"blank lines before the front matter", "\n\n---\nmodel: a:b\n---\nHello", "Hello", "a:b"},
		{"longer dash lines and trailing blanks", "-----  \nmodel: a:b\n----\t\nHello", "Hello", "a:b"},
		{"CRLF line ends", "---\r\nmodel: a:b\r\n---\r\nHello\r\n", "Hello", "a:b"},
		{"byte order mark", "\ufeff---\nmodel: a:b\n---\nHello", "Hello", "a:b"},
		{"front matter only", "---\nmodel: a:b\n---\n", "", "a:b"},
		{"front matter only, no final newline", "---\nmodel: a:b\n---", "", "a:b"},
		{"a rule later in the prompt is prompt text", "Intro\n---\nmore\n---\nend", "Intro\n---\nmore\n---\nend", ""},
		{"dash lines after the front matter stay in the prompt", "---\n---\n---\ntext", "---\ntext", ""},
		{"empty file", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _, err := Parse("x", []byte(tt.file), "x.md")
			if err != nil {
				t.Fatal(err)
			}
			if r.Prompt != tt.prompt {
				t.Errorf("prompt = %q, want %q", r.Prompt, tt.prompt)
			}
			if r.Settings.Model != tt.model {
				t.Errorf("model = %q, want %q", r.Settings.Model, tt.model)
			}
		})
	}
}

func TestParseWarnsAboutUnknownKeysWithFileAndLine(t *testing.T) {
	file := "---\nmodel: a:b\ncolour: blue\nname: fine\n# comment\nprompt: fine\nsize: 3\n---\nHi"
	r, warnings, err := Parse("x", []byte(file), "/roles/x.md")
	if err != nil {
		t.Fatal(err)
	}
	if r.Settings.Model != "a:b" {
		t.Errorf("model = %q: a known key next to unknown ones was lost", r.Settings.Model)
	}
	// One warning for all of them, at the first one's line.
	if len(warnings) != 1 {
		t.Fatalf("warnings = %v, want one for colour and size", warnings)
	}
	if w := warnings[0]; w.File != "/roles/x.md" || w.Line != 3 || !strings.HasPrefix(w.String(), `/roles/x.md line 3: 2 unknown keys ("colour", "size") ignored`) {
		t.Errorf("warning = %s", w)
	}
	// Thousands of stray keys still make one short warning.
	var b strings.Builder
	b.WriteString("---\n")
	for i := range 100000 {
		fmt.Fprintf(&b, "k%d: v\n", i)
	}
	b.WriteString("---\nHi")
	_, warnings, err = Parse("x", []byte(b.String()), "/roles/x.md")
	if err != nil || len(warnings) != 1 || len(warnings[0].String()) > 400 || !strings.Contains(warnings[0].Message, `100000 unknown keys ("k0", "k1", "k2", …)`) {
		t.Fatalf("err %v, %d warnings: %.300v", err, len(warnings), warnings)
	}
}

func TestParseRejectsBrokenFrontMatterNamingFileAndLine(t *testing.T) {
	tests := []struct {
		name string
		file string
		line int
		says string
	}{
		{"unclosed flow list: the line it opens", "---\nmodel: a:b\nenabled_tools: [a, b\n---\nHi", 3, "not valid YAML"},
		{"mapping value in a plain scalar", "---\nmodel: a\ntop_p: a: b\n---\n", 3, "mapping values are not allowed"},
		{"list item in a mapping", "---\nmodel: a\n- b\n---\n", 3, "not valid YAML"},
		{"a line without a colon", "---\nmodel: a\nenabled_tools\n---\n", 3, "could not find expected ':'"},
		{"bad indentation of a nested key", "---\na:\n  b: 1\n c: 2\n---\n", 4, "not valid YAML"},
		{"unclosed quote", "---\nmodel: a\nskill_instructions: \"abc\n---\n", 3, "not valid YAML"},
		{"tab indentation", "---\nmodel:\n\tx: 1\n---\n", 3, "not valid YAML"},
		{"offset by blank lines", "\n\n---\nmodel: a\n  bad: [\n---\n", 5, "not valid YAML"},
		{"not closed", "---\nmodel: a:b\nHi there", 1, "not closed"},
		{"not closed, one line", "---", 1, "not closed"},
		{"not a mapping", "---\n- a\n- b\n---\n", 2, "key: value"},
		{"a scalar", "---\njust words\n---\n", 2, "key: value"},
		{"duplicate key", "---\nmodel: a\ntop_p: 1\nmodel: b\n---\n", 4, "set twice (first at line 2)"},
		{"temperature not a number", "---\ntemperature: hot\n---\n", 2, `temperature must be a number (like 0.7), not "hot"`},
		{"temperature out of range", "---\ntemperature: 5\n---\n", 2, `temperature must be a number between 0 and 2, not 5`},
		{"top_p not finite", "---\ntop_p: .inf\n---\n", 2, `top_p must be a number (like 0.7), not ".inf"`},
		{"top_p a list", "---\ntop_p:\n  - 1\n---\n", 3, "top_p must be a number"},
		{"bool not a bool", "---\nmemory: maybe\n---\n", 2, "memory must be true or false"},
		{"quoted bool", "---\nauto_continue: \"true\"\n---\n", 2, "auto_continue must be true or false"},
		{"negative count", "---\nmax_auto_continues: -1\n---\n", 2, "0 or more"},
		{"fractional count", "---\nmax_auto_continues: 1.5\n---\n", 2, "whole number"},
		{"list of mappings", "---\nenabled_tools:\n  - a: 1\n---\n", 3, "must be names"},
		{"list as a mapping", "---\nenabled_macros: {a: 1}\n---\n", 2, "enabled_macros must be a list of names or a comma-separated string"},
		{"model as a list", "---\nmodel: [a]\n---\n", 2, "model must be a single value"},
		{"model on two lines", "---\nmodel: \"a\\nb\"\n---\n", 2, "model must be on one line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Parse("x", []byte(tt.file), "/roles/x.md")
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want a *FileError", err)
			}
			if fe.File != "/roles/x.md" || fe.Line != tt.line {
				t.Errorf("at %s line %d, want line %d (%v)", fe.File, fe.Line, tt.line, err)
			}
			if !strings.Contains(err.Error(), tt.says) {
				t.Errorf("err = %q, want it to say %q", err, tt.says)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("err is several lines: %q", err)
			}
		})
	}
}

func TestParseNamesBuiltinRolesInErrors(t *testing.T) {
	_, _, err := Parse("shell", []byte("---\ntop_p: x\n---\n"), SourceBuiltin)
	if err == nil || !strings.HasPrefix(err.Error(), "built-in role shell line 2: ") {
		t.Fatalf("err = %v", err)
	}
}

func TestParseNamesRolesWithoutAFile(t *testing.T) {
	_, _, err := Parse("mine", []byte("---\nmemory: {a: 1}\n---\n"), "")
	if err == nil || err.Error() != "role mine line 2: memory must be true or false, not a mapping" {
		t.Fatalf("err = %v", err)
	}
}

func TestParseRecordsSource(t *testing.T) {
	r, _, err := Parse("x", []byte("hi"), "/r/x.md")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual([]string{r.Name, r.Source}, []string{"x", "/r/x.md"}) {
		t.Errorf("name, source = %q, %q", r.Name, r.Source)
	}
}
