package agent

import (
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/coyote-cli/coyote/kernel/role"
	"github.com/coyote-cli/coyote/kernel/yamlerr"
)

// Config is an agent's config.yaml. Unset values are zero (nil pointers,
// unset lists): the caller falls back to the defaults below or to the
// other levels of the precedence.
type Config struct {
	// DisplayName is the name key ("" when absent); the agent's name is
	// its directory's.
	DisplayName string
	Description string
	Version     string

	// Settings are the keys agents share with roles (model, sampling,
	// skills, macros, memory, the todo loop).
	Settings role.Settings

	AgentSession *string

	CanSpawnAgents          bool
	SpawnableAgents         role.StringList
	MaxConcurrentAgents     int
	MaxAgentDepth           int
	InjectSpawnInstructions *bool
	SummarizationModel      string
	SummarizationThreshold  int
	EscalationTimeout       int

	MCPServers  role.StringList
	GlobalTools role.StringList

	CompressionThreshold *int64
	CompressionKeepLast  *int64
	MaxToolResultChars   *int64

	DynamicInstructions bool
	Instructions        string

	Variables            []Variable
	ConversationStarters []string
	Documents            []string
}

// The defaults of the agent-only keys.
const (
	DefaultMaxConcurrentAgents    = 4
	DefaultMaxAgentDepth          = 3
	DefaultSummarizationThreshold = 4000
	DefaultEscalationTimeout      = 300
)

// Variable is one of an agent's variables.
type Variable struct {
	Name        string
	Description string
	// Default is nil when the variable has none: it must then be given.
	Default *string
}

// agentKeys are the keys of config.yaml beyond the role settings.
var agentKeys = []string{"name", "description", "version", "agent_session", "can_spawn_agents", "spawnable_agents",
	"max_concurrent_agents", "max_agent_depth", "inject_spawn_instructions", "summarization_model",
	"summarization_threshold", "escalation_timeout", "mcp_servers", "global_tools", "compression_threshold",
	"compression_keep_last", "max_tool_result_chars", "dynamic_instructions", "instructions", "variables",
	"conversation_starters", "documents"}

// Parse reads config.yaml's content; file names it in errors, which carry
// the line ("agents/x/config.yaml:7: temperature must be a number…").
// Unknown keys are not an error (a newer original may add some): they are
// returned for a warning.
func Parse(file string, data []byte) (*Config, []string, error) {
	var doc yaml.Node
	if err := yamlerr.Unmarshal(data, &doc); err != nil {
		line, _, msg := yamlerr.Locate(data, err)
		return nil, nil, fmt.Errorf("%s:%d: %s", file, line, msg)
	}
	c := &Config{MaxConcurrentAgents: DefaultMaxConcurrentAgents, MaxAgentDepth: DefaultMaxAgentDepth,
		SummarizationThreshold: DefaultSummarizationThreshold, EscalationTimeout: DefaultEscalationTimeout}
	if len(doc.Content) == 0 {
		return c, nil, nil // an empty file: every default
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode {
		return nil, nil, fmt.Errorf("%s:%d: an agent's config must be a mapping of settings, not %s", file, m.Line, yamlerr.Describe(m))
	}
	if dup, first := yamlerr.RepeatedKey(m); dup != nil {
		return nil, nil, fmt.Errorf("%s:%d: %q is set twice (first on line %d)", file, dup.Line, dup.Value, first)
	}
	var unknown []string
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if v.Kind == yaml.AliasNode && v.Alias != nil {
			v = v.Alias
		}
		if known, msg := c.Settings.ParseSetting(k.Value, v); known {
			if msg != "" {
				return nil, nil, fmt.Errorf("%s:%d: %s", file, v.Line, msg)
			}
			continue
		}
		msg, known := c.parseKey(k.Value, v)
		if !known {
			unknown = append(unknown, k.Value)
			continue
		}
		if msg != "" {
			return nil, nil, fmt.Errorf("%s:%d: %s", file, v.Line, msg)
		}
	}
	return c, unknown, nil
}

// parseKey reads one agent-only key; known is false for a key that is none.
func (c *Config) parseKey(key string, v *yaml.Node) (msg string, known bool) {
	null := v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null"
	switch key {
	case "name":
		return scalar(key, v, &c.DisplayName), true
	case "description":
		return scalar(key, v, &c.Description), true
	case "version":
		return scalar(key, v, &c.Version), true
	case "agent_session":
		if null {
			return "", true
		}
		var s string
		if msg := scalar(key, v, &s); msg != "" {
			return msg, true
		}
		c.AgentSession = &s
		return "", true
	case "summarization_model":
		return scalar(key, v, &c.SummarizationModel), true
	case "instructions":
		return scalar(key, v, &c.Instructions), true
	case "can_spawn_agents":
		return boolean(key, v, &c.CanSpawnAgents), true
	case "dynamic_instructions":
		return boolean(key, v, &c.DynamicInstructions), true
	case "inject_spawn_instructions":
		if null {
			return "", true
		}
		var b bool
		msg := boolean(key, v, &b)
		c.InjectSpawnInstructions = &b
		return msg, true
	case "max_concurrent_agents":
		return count(key, v, &c.MaxConcurrentAgents, 1), true
	case "max_agent_depth":
		return count(key, v, &c.MaxAgentDepth, 1), true
	case "summarization_threshold":
		return count(key, v, &c.SummarizationThreshold, 0), true
	case "escalation_timeout":
		return count(key, v, &c.EscalationTimeout, 0), true
	case "compression_threshold":
		return optInt(key, v, &c.CompressionThreshold), true
	case "compression_keep_last":
		return optInt(key, v, &c.CompressionKeepLast), true
	case "max_tool_result_chars":
		return optInt(key, v, &c.MaxToolResultChars), true
	case "spawnable_agents":
		return list(key, v, &c.SpawnableAgents), true
	case "mcp_servers":
		return list(key, v, &c.MCPServers), true
	case "global_tools":
		return list(key, v, &c.GlobalTools), true
	case "conversation_starters":
		return strings_(key, v, &c.ConversationStarters), true
	case "documents":
		return strings_(key, v, &c.Documents), true
	case "variables":
		return c.parseVariables(v), true
	}
	return "", false
}

func (c *Config) parseVariables(v *yaml.Node) string {
	if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" {
		return ""
	}
	if v.Kind != yaml.SequenceNode {
		return "variables must be a list of {name, description, default}, not " + yamlerr.Describe(v)
	}
	seen := map[string]int{}
	for _, item := range v.Content {
		if item.Kind != yaml.MappingNode {
			return fmt.Sprintf("each variable must be a mapping with a name (line %d)", item.Line)
		}
		var vr Variable
		for i := 0; i+1 < len(item.Content); i += 2 {
			k, val := item.Content[i], item.Content[i+1]
			var msg string
			switch k.Value {
			case "name":
				msg = scalar("variable name", val, &vr.Name)
			case "description":
				msg = scalar("variable description", val, &vr.Description)
			case "default":
				if val.Kind == yaml.ScalarNode && val.ShortTag() == "!!null" {
					continue
				}
				var d string
				msg = scalar("variable default", val, &d)
				vr.Default = &d
			default:
				msg = fmt.Sprintf("a variable has name, description and default, not %q (line %d)", k.Value, k.Line)
			}
			if msg != "" {
				return msg
			}
		}
		vr.Name = strings.TrimSpace(vr.Name)
		if vr.Name == "" {
			return fmt.Sprintf("the variable on line %d has no name", item.Line)
		}
		if !validVarName(vr.Name) {
			return fmt.Sprintf("variable name %q must be letters, digits and _ (line %d)", vr.Name, item.Line)
		}
		if first, ok := seen[vr.Name]; ok {
			return fmt.Sprintf("variable %q is declared twice (lines %d and %d)", vr.Name, first, item.Line)
		}
		seen[vr.Name] = item.Line
		c.Variables = append(c.Variables, vr)
	}
	return ""
}

func validVarName(s string) bool {
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

// scalar reads a single value as text (a number such as version: 1 too).
func scalar(key string, v *yaml.Node, dst *string) string {
	if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" {
		*dst = ""
		return ""
	}
	if v.Kind != yaml.ScalarNode {
		return fmt.Sprintf("%s must be a single value, not %s", key, yamlerr.Describe(v))
	}
	*dst = v.Value
	return ""
}

func boolean(key string, v *yaml.Node, dst *bool) string {
	if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" {
		return ""
	}
	if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!bool" {
		return fmt.Sprintf("%s must be true or false, not %s", key, yamlerr.Describe(v))
	}
	b, _ := strconv.ParseBool(strings.ToLower(v.Value))
	*dst = b
	return ""
}

func count(key string, v *yaml.Node, dst *int, minimum int) string {
	if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" {
		return ""
	}
	var n int
	if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!int" || v.Decode(&n) != nil || n < minimum {
		return fmt.Sprintf("%s must be a whole number, %d or more, not %s", key, minimum, yamlerr.Describe(v))
	}
	*dst = n
	return ""
}

func optInt(key string, v *yaml.Node, dst **int64) string {
	if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" {
		return ""
	}
	var n int64
	if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!int" || v.Decode(&n) != nil || n < 0 {
		return fmt.Sprintf("%s must be a whole number, 0 or more, not %s", key, yamlerr.Describe(v))
	}
	*dst = &n
	return ""
}

func list(key string, v *yaml.Node, dst *role.StringList) string {
	var s role.Settings
	// The role settings' list reader: a YAML list or "a,b"; null unsets.
	if _, msg := s.ParseSetting("enabled_tools", v); msg != "" {
		return key + strings.TrimPrefix(msg, "enabled_tools")
	}
	*dst = s.EnabledTools
	return ""
}

func strings_(key string, v *yaml.Node, dst *[]string) string {
	if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" {
		return ""
	}
	if v.Kind != yaml.SequenceNode {
		return fmt.Sprintf("%s must be a list of text, not %s", key, yamlerr.Describe(v))
	}
	for _, item := range v.Content {
		if item.Kind != yaml.ScalarNode || item.ShortTag() == "!!null" {
			return fmt.Sprintf("each item of %s must be text (line %d)", key, item.Line)
		}
		*dst = append(*dst, item.Value)
	}
	return ""
}
