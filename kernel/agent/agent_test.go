package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/internal/compat"
)

func writeAgent(t *testing.T, dir, name, cfg string) {
	t.Helper()
	d := filepath.Join(dir, name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "config.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
}

func noEnv(string) string { return "" }

// Every agent config of the original loads, with the settings it gives.
func TestCompatAgentConfigsLoad(t *testing.T) {
	src := compat.Path(t, "agents")
	files, _ := filepath.Glob(filepath.Join(src, "*-config.yaml"))
	if len(files) < 10 {
		t.Fatalf("found %d agent configs in %s", len(files), src)
	}
	dir := t.TempDir()
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), "-config.yaml")
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		writeAgent(t, dir, name, string(data))
		a, err := Load(dir, name, noEnv)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if len(a.Warnings) > 0 {
			t.Errorf("%s: warnings %v", name, a.Warnings)
		}
		if a.Config.Instructions == "" || a.Config.Description == "" {
			t.Errorf("%s: instructions or description missing", name)
		}
	}
	sis, err := Load(dir, "sisyphus", noEnv)
	if err != nil {
		t.Fatal(err)
	}
	c := sis.Config
	if !c.CanSpawnAgents || c.MaxConcurrentAgents != 40 || c.SummarizationThreshold != 80000 ||
		c.Settings.MaxAutoContinues == nil || *c.Settings.MaxAutoContinues != 25 || !c.SpawnableAgents.Set ||
		c.AgentSession == nil || *c.AgentSession != "temp" {
		t.Errorf("sisyphus settings: %+v", c)
	}
	demo, err := Load(dir, "demo", noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if len(demo.Config.Variables) != 1 || demo.Config.Variables[0].Name != "username" || demo.Config.Variables[0].Default != nil ||
		len(demo.Config.ConversationStarters) != 5 || len(demo.Config.Documents) != 1 {
		t.Errorf("demo: %+v", demo.Config)
	}
	if got := len(List(dir, noEnv)); got != len(files) {
		t.Errorf("List found %d agents, want %d", got, len(files))
	}
}

func TestBadConfigsSayFileAndLine(t *testing.T) {
	cases := []struct{ name, cfg, want string }{
		{"wrong type", "name: x\ntemperature: hot\n", "config.yaml:2: temperature must be a number"},
		{"list wanted", "global_tools: {a: b}\n", "config.yaml:1: global_tools must be a list"},
		{"variables not a list", "variables: x\n", "config.yaml:1: variables must be a list"},
		{"variable without name", "variables:\n  - description: d\n", "has no name"},
		{"variable twice", "variables:\n  - name: a\n  - name: a\n", `variable "a" is declared twice`},
		{"repeated key", "model: a\nmodel: b\n", `config.yaml:2: "model" is set twice (first on line 1)`},
		{"syntax", "instructions: [\n", "config.yaml:"},
		{"not a mapping", "- a\n", "must be a mapping"},
		{"max agents zero", "max_concurrent_agents: 0\n", "max_concurrent_agents must be a whole number, 1 or more"},
		{"bool", "can_spawn_agents: maybe\n", "can_spawn_agents must be true or false"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeAgent(t, dir, "a", c.cfg)
			_, err := Load(dir, "a", noEnv)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
			if !strings.Contains(err.Error(), filepath.Join(dir, "a", "config.yaml")) && c.name != "variable without name" && c.name != "variable twice" {
				t.Errorf("error does not name the file: %v", err)
			}
		})
	}
}

func TestMissingAndGraphAndBoth(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(dir, "nope", noEnv); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing: %v", err)
	}
	writeAgent(t, dir, "both", "name: x\n")
	os.WriteFile(filepath.Join(dir, "both", "graph.yaml"), []byte("version: '1.0'\n"), 0o644)
	if _, err := Load(dir, "both", noEnv); err == nil || !strings.Contains(err.Error(), "keep one") {
		t.Errorf("both: %v", err)
	}
	os.MkdirAll(filepath.Join(dir, "g"), 0o755)
	os.WriteFile(filepath.Join(dir, "g", "graph.yaml"), []byte("version: '1.0'\n"), 0o644)
	if _, err := Load(dir, "g", noEnv); err == nil || !strings.Contains(err.Error(), "graph.yaml:1: start is missing") {
		t.Errorf("a graph without start: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "g", "graph.yaml"), []byte("version: '1.0'\nmodel: m:x\nstart: e\nnodes:\n  e: {type: end}\n"), 0o644)
	if a, err := Load(dir, "g", noEnv); err != nil || a.Graph == nil || a.Config.Settings.Model != "m:x" {
		t.Errorf("graph agent: %v", err)
	}
	if _, err := Load(dir, "../x", noEnv); !errors.Is(err, ErrNotFound) {
		t.Errorf("path name: %v", err)
	}
}

func TestEnvironmentOverrides(t *testing.T) {
	dir := t.TempDir()
	writeAgent(t, dir, "my-agent", "model: a:b\nglobal_tools: [x]\nvariables:\n  - name: who\n")
	other := filepath.Join(t.TempDir(), "other.yaml")
	os.WriteFile(other, []byte("model: c:d\ndescription: from the other file\nvariables:\n  - name: who\n"), 0o644)
	env := map[string]string{
		"MY_AGENT_TEMPERATURE":  "0.3",
		"MY_AGENT_GLOBAL_TOOLS": `["fs_ls.sh","fs_cat.sh"]`,
		"MY_AGENT_MCP_SERVERS":  `["github"]`,
		"MY_AGENT_VARIABLES":    `[{"name":"who","value":"ann"}]`,
		"MY_AGENT_DATA_DIR":     "/data",
		"MY_AGENT_CONFIG_FILE":  other,
	}
	a, err := Load(dir, "my-agent", func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if a.Config.Settings.Model != "c:d" || a.Config.Description != "from the other file" || *a.Config.Settings.Temperature != 0.3 ||
		strings.Join(a.Config.GlobalTools.Items, ",") != "fs_ls.sh,fs_cat.sh" || a.DataDir != "/data" ||
		a.SessionsDir() != "/data/sessions" {
		t.Errorf("overrides: %+v %s", a.Config, a.DataDir)
	}
	if err := a.Resolve(nil, nil, nil); err != nil || a.Vars["who"] != "ann" {
		t.Errorf("variables from the environment: %v %v", a.Vars, err)
	}
	l := a.Layer()
	if v, _ := l.Get("temperature"); v.Src.Where != "MY_AGENT_TEMPERATURE" {
		t.Errorf("source of temperature: %+v", v.Src)
	}
	if v, _ := l.Get("enabled_mcp_servers"); strings.Join(v.V.([]string), ",") != "github" {
		t.Errorf("mcp servers: %v", v.V)
	}
	env["MY_AGENT_TEMPERATURE"] = "warm"
	if _, err := Load(dir, "my-agent", func(k string) string { return env[k] }); err == nil || !strings.Contains(err.Error(), "MY_AGENT_TEMPERATURE") {
		t.Errorf("bad override: %v", err)
	}
}

func TestVariables(t *testing.T) {
	dir := t.TempDir()
	writeAgent(t, dir, "a", "variables:\n  - name: x\n    description: the x\n  - name: y\n    default: why\n")
	a, err := Load(dir, "a", noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Resolve(nil, nil, nil); err == nil || !strings.Contains(err.Error(), "--agent-variable x VALUE") {
		t.Errorf("missing without a terminal: %v", err)
	}
	if err := a.Resolve(map[string]string{"z": "1"}, nil, nil); err == nil || !strings.Contains(err.Error(), `no variable "z"`) || !strings.Contains(err.Error(), "declares: x, y") {
		t.Errorf("unknown: %v", err)
	}
	asked := ""
	if err := a.Resolve(nil, nil, func(v Variable) (string, error) { asked = v.Name; return "typed", nil }); err != nil || asked != "x" || a.Vars["x"] != "typed" || a.Vars["y"] != "why" {
		t.Errorf("asked %q: %v %v", asked, a.Vars, err)
	}
	if err := a.Resolve(map[string]string{"y": "given"}, map[string]string{"x": "saved", "y": "saved"}, nil); err != nil || a.Vars["x"] != "saved" || a.Vars["y"] != "given" {
		t.Errorf("given over saved: %v %v", a.Vars, err)
	}
	if got := strings.Join(a.VarEnv(), " "); got != "LLM_AGENT_VAR_X=saved LLM_AGENT_VAR_Y=given" {
		t.Errorf("env: %s", got)
	}
}

func TestInstructions(t *testing.T) {
	dir := t.TempDir()
	writeAgent(t, dir, "a", "instructions: |\n  Hi {{who}} on {{__os__}}.\n  {{__tools__}}\n  {{unknown}}\nvariables:\n  - name: who\n")
	a, _ := Load(dir, "a", noEnv)
	a.Resolve(map[string]string{"who": "ann"}, nil, nil)
	got, err := a.Instructions(context.Background(), []string{"t1: does one", "t2: does two"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "Hi ann on ") || strings.Contains(got, "{{__os__}}") || !strings.Contains(got, "- t1: does one\n- t2: does two") || !strings.Contains(got, "{{unknown}}") {
		t.Errorf("instructions:\n%s", got)
	}

	writeAgent(t, dir, "d", "dynamic_instructions: true\ninstructions: static\nvariables:\n  - name: who\n")
	os.WriteFile(filepath.Join(dir, "d", "tools.sh"), []byte("#!/usr/bin/env bash\n_instructions() { echo \"dynamic for $LLM_AGENT_VAR_WHO\"; }\n# @cmd Say hi.\nhi() { echo hi; }\n"), 0o755)
	d, _ := Load(dir, "d", noEnv)
	d.Resolve(map[string]string{"who": "bob"}, nil, nil)
	got, err = d.Instructions(context.Background(), nil, os.Environ())
	if err != nil || got != "dynamic for bob" {
		t.Errorf("dynamic: %q %v", got, err)
	}
	decls, err := d.Declarations()
	if err != nil || len(decls) != 1 || decls[0].Name != "hi" {
		t.Errorf("declarations: %+v %v", decls, err)
	}
	os.WriteFile(filepath.Join(dir, "d", "tools.sh"), []byte("_instructions() { exit 3; }\n"), 0o755)
	if _, err := d.Instructions(context.Background(), nil, os.Environ()); err == nil || !strings.Contains(err.Error(), "_instructions failed") {
		t.Errorf("failing dynamic: %v", err)
	}
}

func TestListSaysWhyAnAgentDoesNotLoad(t *testing.T) {
	dir := t.TempDir()
	writeAgent(t, dir, "good", "description: fine\n")
	writeAgent(t, dir, "bad", "temperature: [1]\n")
	os.MkdirAll(filepath.Join(dir, "empty"), 0o755)
	l := List(dir, noEnv)
	if len(l) != 2 || l[0].Name != "bad" || l[0].Err == nil || l[1].Description != "fine" || l[1].Err != nil {
		t.Errorf("list: %+v", l)
	}
}

// BenchmarkStart is what -a adds before the request: the config read with
// its overrides, the tools script parsed, the instructions built.
func BenchmarkStart(b *testing.B) {
	dir := b.TempDir()
	d := filepath.Join(dir, "a")
	os.MkdirAll(d, 0o755)
	os.WriteFile(filepath.Join(d, "config.yaml"), []byte("description: d\ninstructions: |\n  Help {{user}} in {{__cwd__}}.\n  {{__tools__}}\nvariables:\n  - name: user\n    default: x\n"), 0o644)
	os.WriteFile(filepath.Join(d, "tools.sh"), []byte("# @cmd Search.\n# @option --pattern! The pattern.\nsearch() { :; }\n# @cmd Show.\n# @option --path!\nshow() { :; }\n"), 0o755)
	for b.Loop() {
		a, err := Load(dir, "a", noEnv)
		if err != nil {
			b.Fatal(err)
		}
		a.Resolve(nil, nil, nil)
		decls, _ := a.Declarations()
		names := make([]string, len(decls))
		for i, d := range decls {
			names[i] = d.Name + ": " + d.Description
		}
		if _, err := a.Instructions(context.Background(), names, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkList100 is --list-agents' work with 100 agents of a realistic
// size.
func BenchmarkList100(b *testing.B) {
	dir := b.TempDir()
	cfg := "name: Bench\ndescription: An agent of the benchmark\nversion: 1.0.0\nglobal_tools: [fs_ls.sh, fs_cat.sh]\n" +
		"instructions: |\n  You help {{user}} in {{__cwd__}}.\n  {{__tools__}}\nvariables:\n  - name: user\n    description: Who\n    default: x\n" +
		"conversation_starters:\n  - What is here?\n  - Summarise the README\n"
	for i := range 100 {
		d := filepath.Join(dir, fmt.Sprintf("a%03d", i))
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, "config.yaml"), []byte(cfg), 0o644)
	}
	for b.Loop() {
		if n := len(List(dir, noEnv)); n != 100 {
			b.Fatal(n)
		}
	}
}

func TestABashToolsScriptWithoutCommandsDeclaresNoTool(t *testing.T) {
	dir := t.TempDir()
	writeAgent(t, dir, "d", "dynamic_instructions: true\n")
	os.WriteFile(filepath.Join(dir, "d", "tools.sh"), []byte("#!/usr/bin/env bash\n_instructions() { echo hi; }\n"), 0o755)
	a, err := Load(dir, "d", noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if decls, err := a.Declarations(); err != nil || len(decls) != 0 {
		t.Fatalf("declarations %v, error %v", decls, err)
	}
}
