package bundled

import (
	"bytes"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/coyote-cli/coyote/assets"
)

// agentKeys are the keys of an agent's config.yaml (the behaviour spec,
// §3.3). Until kernel/agent loads configs, the test checks names here.
var agentKeys = strings.Fields(`name description version model temperature top_p reasoning_effort
	agent_session auto_continue max_auto_continues inject_todo_instructions continuation_prompt
	can_spawn_agents spawnable_agents max_concurrent_agents max_agent_depth inject_spawn_instructions
	summarization_model summarization_threshold escalation_timeout mcp_servers global_tools
	skills_enabled enabled_skills inject_skill_instructions skill_instructions enabled_macros memory
	compression_threshold compression_keep_last max_tool_result_chars dynamic_instructions
	instructions variables conversation_starters documents`)

// systemVariables are the {{__x__}} an agent's instructions may use.
var systemVariables = strings.Fields(`__tools__ __os__ __os_distro__ __os_family__ __arch__ __shell__ __locale__ __now__ __cwd__`)

type agentConfig struct {
	Name                 string   `yaml:"name"`
	Description          string   `yaml:"description"`
	Version              string   `yaml:"version"`
	Instructions         string   `yaml:"instructions"`
	AutoContinue         *bool    `yaml:"auto_continue"`
	MaxAutoContinues     *int     `yaml:"max_auto_continues"`
	GlobalTools          []string `yaml:"global_tools"`
	ConversationStarters []string `yaml:"conversation_starters"`
	Variables            []struct {
		Name        string  `yaml:"name"`
		Description string  `yaml:"description"`
		Default     *string `yaml:"default"`
	} `yaml:"variables"`
}

func TestEveryConfigHasTheSpecKeysOnly(t *testing.T) {
	placeholder := regexp.MustCompile(`\{\{\s*([^}]*?)\s*\}\}`)
	for _, agent := range Names() {
		t.Run(agent, func(t *testing.T) {
			data, err := fs.ReadFile(assets.Agents(), agent+"/config.yaml")
			if err != nil {
				t.Fatal(err)
			}
			var raw map[string]yaml.Node
			if err := yaml.Unmarshal(data, &raw); err != nil {
				t.Fatalf("config.yaml is not valid YAML: %v", err)
			}
			for key, node := range raw {
				if !slices.Contains(agentKeys, key) {
					t.Errorf("line %d: %s is not a key of an agent config (§3.3)", node.Line, key)
				}
			}
			var cfg agentConfig
			dec := yaml.NewDecoder(bytes.NewReader(data))
			if err := dec.Decode(&cfg); err != nil {
				t.Fatalf("config.yaml: %v", err)
			}
			if cfg.Name != agent {
				t.Errorf("name is %q, want the directory's name %q", cfg.Name, agent)
			}
			if len(cfg.Description) < 40 || cfg.Version == "" {
				t.Errorf("description %q or version %q missing", cfg.Description, cfg.Version)
			}
			if len(cfg.ConversationStarters) == 0 {
				t.Error("no conversation_starters")
			}
			if !strings.Contains(cfg.Instructions, "{{__tools__}}") {
				t.Error("the instructions do not list the tools ({{__tools__}})")
			}
			declared := map[string]bool{}
			for _, v := range cfg.Variables {
				if v.Name == "" || v.Description == "" {
					t.Errorf("variable %+v lacks a name or description", v)
				}
				declared[v.Name] = true
				if !strings.Contains(cfg.Instructions, "{{"+v.Name+"}}") {
					t.Errorf("variable %s is not used in the instructions", v.Name)
				}
			}
			for _, m := range placeholder.FindAllStringSubmatch(cfg.Instructions, -1) {
				if !declared[m[1]] && !slices.Contains(systemVariables, m[1]) {
					t.Errorf("the instructions use {{%s}}, which is neither a variable nor a system variable", m[1])
				}
			}
			for _, tool := range cfg.GlobalTools {
				if _, err := fs.Stat(assets.Functions(), "tools/"+tool); err != nil {
					t.Errorf("global tool %s is not a bundled tool", tool)
				}
			}
		})
	}
}

func TestCoderAutoContinues(t *testing.T) {
	data, err := fs.ReadFile(assets.Agents(), "coder/config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg agentConfig
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.AutoContinue == nil || !*cfg.AutoContinue {
		t.Fatal("coder does not set auto_continue: true")
	}
}

func TestSQLNeedsADatabase(t *testing.T) {
	data, err := fs.ReadFile(assets.Agents(), "sql/config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg agentConfig
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	for _, v := range cfg.Variables {
		if v.Name == "database" {
			if v.Default != nil {
				t.Fatalf("database has the default %q; it must be asked for", *v.Default)
			}
			return
		}
	}
	t.Fatal("sql has no database variable")
}
