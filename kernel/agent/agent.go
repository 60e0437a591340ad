// Package agent owns agent definitions: agents/<name>/config.yaml read with
// file:line errors, the <AGENT>_* environment overrides, the agent's
// variables and instructions, its tools script, and the agent as a level of
// the settings precedence. Running turns is kernel/convo's; asking the user
// for a missing variable is the caller's (it passes a function).
package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/graph"
	"github.com/coyote-cli/coyote/kernel/role"
)

// Agent is an agent, loaded: its config with the environment's overrides
// applied, and its variables once Resolve has run.
type Agent struct {
	// Name is the agent's directory name (what -a takes).
	Name string
	// Dir is agents/<name>: the tools script, bin/ and config.yaml.
	Dir string
	// File is the config file read (agents/<name>/config.yaml, or
	// <AGENT>_CONFIG_FILE).
	File string
	// DataDir holds the agent's sessions and RAG (Dir, or
	// <AGENT>_DATA_DIR).
	DataDir string
	Config  Config
	// Warnings are things the user should know that do not stop the
	// agent (unknown keys).
	Warnings []string

	// Graph is the agent's graph when it is a graph agent (graph.yaml),
	// parsed and, with validate_before_run on, validated; nil for a chat
	// agent.
	Graph *graph.Graph

	// Vars are the variables' values, set by Resolve.
	Vars map[string]string
	// envVars are <AGENT>_VARIABLES, applied by Resolve.
	envVars map[string]string
	// envSource names the overrides taken from the environment, for
	// --info ("CODER_MODEL").
	envSource map[string]string
}

// ErrNotFound is the error of an agent that does not exist.
var ErrNotFound = errors.New("no such agent")

// EnvPrefix is the prefix of an agent's environment overrides: its name in
// capitals, other characters than letters and digits as _ ("my-agent" →
// "MY_AGENT_").
func EnvPrefix(name string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(name) {
		if r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String() + "_"
}

// Load reads the agent name of agentsDir, with its environment overrides
// (env: os.Getenv in the program). A missing agent is ErrNotFound; a
// directory with both config.yaml and graph.yaml is an error naming both.
func Load(agentsDir, name string, env config.Env) (*Agent, error) {
	if env == nil {
		env = func(string) string { return "" }
	}
	if name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return nil, fmt.Errorf("agent %q: %w (an agent is a directory of %s)", name, ErrNotFound, agentsDir)
	}
	a := &Agent{Name: name, Dir: filepath.Join(agentsDir, name)}
	a.DataDir = a.Dir
	pre := EnvPrefix(name)
	cfgFile := filepath.Join(a.Dir, "config.yaml")
	graphFile := filepath.Join(a.Dir, "graph.yaml")
	_, cfgErr := os.Stat(cfgFile)
	_, graphErr := os.Stat(graphFile)
	switch {
	case cfgErr == nil && graphErr == nil:
		return nil, fmt.Errorf("agent %q has both %s and %s: keep one (config.yaml for a chat agent, graph.yaml for a graph agent)", name, cfgFile, graphFile)
	case graphErr == nil:
		return loadGraph(a, agentsDir, graphFile, env)
	}
	if f := env(pre + "CONFIG_FILE"); f != "" {
		cfgFile = f
	} else if cfgErr != nil {
		if _, err := os.Stat(a.Dir); err != nil {
			return nil, fmt.Errorf("agent %q: %w in %s", name, ErrNotFound, agentsDir)
		}
		return nil, fmt.Errorf("agent %q: %s has no config.yaml (write one there, or remove the directory)", name, a.Dir)
	}
	if d := env(pre + "DATA_DIR"); d != "" {
		a.DataDir = d
	}
	a.File = cfgFile
	data, err := os.ReadFile(cfgFile)
	if err != nil {
		return nil, fmt.Errorf("agent %q: %w", name, err)
	}
	c, unknown, err := Parse(cfgFile, data)
	if err != nil {
		return nil, err
	}
	a.Config = *c
	for _, k := range unknown {
		a.Warnings = append(a.Warnings, fmt.Sprintf("%s: unknown agent setting %q is ignored", cfgFile, k))
	}
	if err := a.applyEnv(env); err != nil {
		return nil, err
	}
	return a, nil
}

// loadGraph reads a graph agent: graph.yaml's agent-level keys (model,
// tools, MCP servers, skills, variables, starters) as a config.yaml's, the
// graph itself, and, with validate_before_run on, every problem of the
// graph at once. What the graph names that is not installed here (an
// agent, a script) is a warning: the node that needs it fails when it
// runs.
func loadGraph(a *Agent, agentsDir, file string, env config.Env) (*Agent, error) {
	if d := env(EnvPrefix(a.Name) + "DATA_DIR"); d != "" {
		a.DataDir = d
	}
	a.File = file
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("agent %q: %w", a.Name, err)
	}
	c, unknown, err := Parse(file, data)
	if err != nil {
		return nil, err
	}
	a.Config = *c
	graphKey := map[string]bool{}
	for _, k := range graph.GraphKeys {
		graphKey[k] = true
	}
	for _, k := range unknown {
		if !graphKey[k] {
			a.Warnings = append(a.Warnings, fmt.Sprintf("%s: unknown graph agent setting %q is ignored", file, k))
		}
	}
	g, warns, err := graph.Parse(file, a.Dir, data)
	if err != nil {
		return nil, fmt.Errorf("agent %q: %w", a.Name, err)
	}
	for _, w := range warns {
		a.Warnings = append(a.Warnings, w.String())
	}
	if g.Settings.ValidateBeforeRun {
		errs, notes := graph.Validate(g, graph.Lookup{Agent: func(n string) bool {
			_, err := os.Stat(filepath.Join(agentsDir, n))
			return err == nil
		}})
		if len(errs) > 0 {
			return nil, fmt.Errorf("agent %q: %w", a.Name, &graph.Error{Problems: errs})
		}
		for _, n := range notes {
			if n.Missing {
				a.Warnings = append(a.Warnings, n.String())
			}
		}
	}
	a.Graph = g
	if err := a.applyEnv(env); err != nil {
		return nil, err
	}
	return a, nil
}

// applyEnv applies the <AGENT>_* overrides: they beat config.yaml.
func (a *Agent) applyEnv(env config.Env) error {
	pre := EnvPrefix(a.Name)
	a.envSource = map[string]string{}
	c := &a.Config
	for _, o := range []struct {
		suffix string
		set    func(string) error
	}{
		{"MODEL", func(v string) error { c.Settings.Model = v; return nil }},
		{"TEMPERATURE", func(v string) error { return c.Settings.Set("temperature", v) }},
		{"TOP_P", func(v string) error { return c.Settings.Set("top_p", v) }},
		{"REASONING_EFFORT", func(v string) error { c.Settings.ReasoningEffort = v; return nil }},
		{"GLOBAL_TOOLS", func(v string) error { return jsonList(v, &c.GlobalTools) }},
		{"MCP_SERVERS", func(v string) error { return jsonList(v, &c.MCPServers) }},
		{"SPAWNABLE_AGENTS", func(v string) error { return jsonList(v, &c.SpawnableAgents) }},
		{"AGENT_SESSION", func(v string) error { c.AgentSession = &v; return nil }},
		{"VARIABLES", a.parseEnvVariables},
	} {
		v := env(pre + o.suffix)
		if v == "" {
			continue
		}
		if err := o.set(v); err != nil {
			return fmt.Errorf("%s%s: %w", pre, o.suffix, err)
		}
		a.envSource[strings.ToLower(o.suffix)] = pre + o.suffix
	}
	return nil
}

// jsonList reads a JSON array of names; a comma-separated list is taken
// too.
func jsonList(v string, dst *role.StringList) error {
	v = strings.TrimSpace(v)
	if !strings.HasPrefix(v, "[") {
		*dst = role.ParseList(v)
		return nil
	}
	var items []string
	if err := json.Unmarshal([]byte(v), &items); err != nil {
		return fmt.Errorf(`want a JSON array of names like ["a","b"]: %v`, err)
	}
	*dst = role.ListOf(items...)
	return nil
}

// parseEnvVariables reads <AGENT>_VARIABLES: [{"name":"x","value":"y"}]
// (an object {"x":"y"} is taken too).
func (a *Agent) parseEnvVariables(v string) error {
	a.envVars = map[string]string{}
	var pairs []struct {
		Name  string `json:"name"`
		Value any    `json:"value"`
	}
	if err := json.Unmarshal([]byte(v), &pairs); err != nil {
		var obj map[string]any
		if json.Unmarshal([]byte(v), &obj) != nil {
			return fmt.Errorf(`want a JSON array like [{"name":"x","value":"y"}]: %v`, err)
		}
		for k, val := range obj {
			a.envVars[k] = jsonText(val)
		}
		return nil
	}
	for _, p := range pairs {
		a.envVars[p.Name] = jsonText(p.Value)
	}
	return nil
}

func jsonText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// Title is the name to show: the config's name key, else the directory's.
func (a *Agent) Title() string {
	if a.Config.DisplayName != "" {
		return a.Config.DisplayName
	}
	return a.Name
}

// SessionsDir is where the agent's sessions live.
func (a *Agent) SessionsDir() string { return filepath.Join(a.DataDir, "sessions") }

// RAGFile is the agent's own RAG, built from its documents.
func (a *Agent) RAGFile() string { return filepath.Join(a.DataDir, "rag.yaml") }

// Session is the session the agent starts in: agent_session of its
// config (or <AGENT>_AGENT_SESSION), else global, the config.yaml's
// agent_session ("" for none).
func (a *Agent) Session(global string) string {
	if a.Config.AgentSession != nil {
		return *a.Config.AgentSession
	}
	return global
}

// Starter returns conversation starter n, counted from 1.
func (a *Agent) Starter(n int) (string, error) {
	s := a.Config.ConversationStarters
	if len(s) == 0 {
		return "", fmt.Errorf("agent %q has no conversation starters", a.Name)
	}
	if n < 1 || n > len(s) {
		return "", fmt.Errorf("agent %q has starters 1 to %d, not %d", a.Name, len(s), n)
	}
	return s[n-1], nil
}

// Layer is the agent as a level of the settings precedence (§3.9): the
// role settings it sets, mcp_servers as enabled_mcp_servers, and its
// compression and tool-result settings.
func (a *Agent) Layer() config.Layer {
	src := func(key string) config.Source {
		if e, ok := a.envSource[key]; ok {
			return config.Source{Kind: "agent", Where: e}
		}
		return config.Source{Kind: "agent", Where: a.File}
	}
	l := config.MapLayer{}
	set := func(key, envKey string, v any) { l[key] = &config.Value{V: v, Src: src(envKey)} }
	rs := a.Config.Settings
	if rs.Model != "" {
		set("model", "model", rs.Model)
	}
	if rs.Temperature != nil {
		set("temperature", "temperature", *rs.Temperature)
	}
	if rs.TopP != nil {
		set("top_p", "top_p", *rs.TopP)
	}
	if rs.ReasoningEffort != "" {
		set("reasoning_effort", "reasoning_effort", rs.ReasoningEffort)
	}
	if a.Config.MCPServers.Set {
		set("enabled_mcp_servers", "mcp_servers", append([]string{}, a.Config.MCPServers.Items...))
	}
	for k, v := range map[string]role.StringList{"enabled_skills": rs.EnabledSkills, "enabled_macros": rs.EnabledMacros} {
		if v.Set {
			set(k, k, append([]string{}, v.Items...))
		}
	}
	for k, v := range map[string]*bool{"skills_enabled": rs.SkillsEnabled, "auto_continue": rs.AutoContinue,
		"inject_todo_instructions": rs.InjectTodoInstructions, "inject_skill_instructions": rs.InjectSkillInstructions, "memory": rs.Memory} {
		if v != nil {
			set(k, k, *v)
		}
	}
	if rs.MaxAutoContinues != nil {
		set("max_auto_continues", "max_auto_continues", int64(*rs.MaxAutoContinues))
	}
	if rs.ContinuationPrompt != nil {
		set("continuation_prompt", "continuation_prompt", *rs.ContinuationPrompt)
	}
	if rs.SkillInstructions != nil {
		set("skill_instructions", "skill_instructions", *rs.SkillInstructions)
	}
	for k, v := range map[string]*int64{"compression_threshold": a.Config.CompressionThreshold,
		"compression_keep_last": a.Config.CompressionKeepLast, "max_tool_result_chars": a.Config.MaxToolResultChars} {
		if v != nil {
			set(k, k, *v)
		}
	}
	return l
}
