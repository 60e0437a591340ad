package convo

import (
	"context"
	"errors"
	"fmt"

	"github.com/coyote-cli/coyote/kernel/chat"
	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/mcp"
	"github.com/coyote-cli/coyote/kernel/models"
	"github.com/coyote-cli/coyote/kernel/tools"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// maxRounds bounds the tool rounds of one turn, a last guard behind the
// loop detection.
const maxRounds = 50

// Offered returns the functions the model is given in this conversation:
// none when function calling is off or the model cannot call functions,
// else the built-ins and what enabled_tools selects (with mapping_tools
// aliases), resolved session → role → global. Names that match no
// function are returned too, for a warning.
//
// With auto_continue on, the todo functions are offered too (todo.go);
// with a memory in force, the memory functions (memory.go); when skills
// are available, the skill functions (skill.go).
//
// With mcp_server_support on, the MCP servers that enabled_mcp_servers
// names (with mapping_mcp_servers aliases; session → role → global) add
// their three functions each, and start in the background.
func (s *State) Offered(m models.Model) (offered []*tools.Func, unknown []string) {
	cfg := s.d.Config
	if cfg == nil || !cfg.Bool("function_calling_support") || !m.SupportsFunctionCalling {
		return nil, nil
	}
	if s.Tools != nil {
		offered, unknown = s.Tools.Select(s.Selection())
	}
	offered = append(offered, s.todoFuncs()...)   // todo.go: with auto_continue on
	offered = append(offered, s.memoryFuncs()...) // memory.go: with a memory in force
	offered = append(offered, s.skillFuncs()...)  // skill.go: when skills are available
	offered = append(offered, s.agentFuncs()...)  // subagents.go: with an agent
	servers, err := s.MCPServers()
	if err != nil {
		s.d.Warn(err.Error())
	}
	if len(servers) > 0 {
		offered = append(offered, s.d.MCP.Funcs(servers)...)
		s.d.MCP.Prewarm(servers)
	}
	return offered, unknown
}

// MCPServers are the MCP servers the conversation enables: none when
// mcp_server_support is off or there is no mcp.json. Names that match no
// server are warned about.
func (s *State) MCPServers() ([]string, error) {
	cfg := s.d.Config
	if s.d.MCP == nil || cfg == nil || !cfg.Bool("mcp_server_support") {
		return nil, nil
	}
	v := cfg.Resolve("enabled_mcp_servers", s.Layers())
	var enabled any
	if !v.Null {
		enabled = v.V
	}
	if enabled = s.withSkillMCP(enabled); enabled == nil { // skill.go: loaded skills add theirs
		return nil, nil
	}
	names, unknown, err := s.d.MCP.Enabled(enabled, cfg.StringMap("mapping_mcp_servers"))
	if err != nil {
		return nil, err
	}
	for _, n := range unknown {
		s.d.Warn("enabled_mcp_servers names " + quote(n) + ", which is no MCP server of mcp.json or mapping_mcp_servers alias")
	}
	return names, nil
}

// MCP is the process's MCP servers, or nil.
func (s *State) MCP() *mcp.Manager { return s.d.MCP }

// Selection is the resolved tool selection of the conversation.
//
// An agent always gets its own tools and its global_tools (its registry
// holds no other user tools): only a session's enabled_tools narrows them.
func (s *State) Selection() tools.Selection {
	cfg := s.d.Config
	if s.Agent != nil {
		if v := setIn(SessionLayer(s.Session), "enabled_tools"); v != nil {
			return tools.Selection{Enabled: s.withSkillTools(v.V), Mapping: cfg.StringMap("mapping_tools")}
		}
		return tools.Selection{Enabled: "all"}
	}
	v := cfg.Resolve("enabled_tools", s.Layers())
	var enabled any
	if !v.Null {
		enabled = v.V
	}
	return tools.Selection{Enabled: s.withSkillTools(enabled), Mapping: cfg.StringMap("mapping_tools")} // skill.go: loaded skills add theirs
}

// Turn sends req and shows the reply on a new display from show; while the
// model asks for tool calls it runs them, sends their results back and
// shows the next reply. It returns the last reply and added with the
// rounds' messages (the assistant's calls and the results) appended, so
// that Finish records the whole turn.
// p is the model's connection (an llm.Bound), m the model's facts.
func (s *State) Turn(ctx context.Context, p chat.Chatter, m models.Model, req *provider.ChatRequest, added []provider.Message,
	show func() chat.Display) (*chat.Reply, []provider.Message, error) {
	offered, unknown := s.Offered(m)
	for _, n := range unknown {
		s.d.Warn("enabled_tools names " + quote(n) + ", which is no tool or mapping_tools alias")
	}
	req.Tools = tools.Declarations(offered)
	runner := &tools.Runner{Offered: offered, Show: s.ShowCall, Watch: s.Watch}
	if n, ok := s.d.Config.Resolve("max_tool_result_chars", s.Layers()).V.(int64); ok {
		runner.MaxResultChars = int(n)
	}
	skills := s.skillsVersion()
	for round := 0; ; round++ {
		if v := s.skillsVersion(); v != skills { // skill.go: the last round loaded or unloaded a skill
			s.refreshForSkills(m, req, runner)
			skills = v
		}
		if err := s.checkBudget(p, &m, req); err != nil { // cost.go
			return &chat.Reply{}, added, err
		}
		reply, err := chat.StreamTo(ctx, p, req, show())
		s.counted(p, &m, reply)
		if s.OnReply != nil {
			s.OnReply(reply)
		}
		if err != nil || len(reply.ToolCalls) == 0 {
			return reply, added, err
		}
		if limit := s.MaxToolRounds; limit > 0 && round == limit {
			return reply, added, fmt.Errorf("the model kept calling tools for %d rounds; stopped", limit)
		}
		if round == maxRounds {
			return reply, added, errors.New("the model kept calling tools for 50 rounds; stopped")
		}
		results := runner.Round(ctx, reply.ToolCalls)
		if err := ctx.Err(); err != nil {
			return reply, added, err
		}
		msgs := []provider.Message{reply.Message(), toolMessage(results)}
		req.Messages = append(req.Messages, msgs...)
		added = append(added, msgs...)
	}
}

func toolMessage(results []provider.ToolResult) provider.Message {
	m := provider.Message{Role: provider.RoleTool, Parts: make([]provider.Part, len(results))}
	for i := range results {
		m.Parts[i] = provider.Part{ToolResult: &results[i]}
	}
	return m
}

func quote(s string) string { return `"` + s + `"` }

// setIn is layer's non-null value of key, or nil.
func setIn(layer config.Layer, key string) *config.Value {
	if layer == nil {
		return nil
	}
	if v, ok := layer.Get(key); ok && v != nil && !v.Null {
		return v
	}
	return nil
}
