package session

import (
	"reflect"
	"slices"
)

// Settings are the settings a session file holds: a role's keys (the
// session's own model, sampling, tools, skills, macros, auto-continue and
// memory settings) and the session's own keys. They win over the agent's,
// the role's and the global ones (save_session and compression_threshold
// over the global ones only).
//
// A nil pointer or a nil list is unset, and the key is left out of the
// file; a non-nil empty list is an explicit [] ("none"), which is not the
// same as unset.
type Settings struct {
	// Model is the model id (client:model). The original program requires
	// the key, so it is always written, even empty.
	Model                   string
	Temperature             *float64
	TopP                    *float64
	ReasoningEffort         *string
	EnabledTools            []string
	EnabledMCPServers       []string
	SkillsEnabled           *bool
	EnabledSkills           []string
	EnabledMacros           []string
	SaveSession             *bool
	CompressionThreshold    *int64
	AutoContinue            *bool
	MaxAutoContinues        *int64
	InjectTodoInstructions  *bool
	ContinuationPrompt      *string
	InjectSkillInstructions *bool
	SkillInstructions       *string
	Memory                  *bool
	// RoleName is the role the session was started with; the kernel takes
	// the role's prompt from it.
	RoleName *string
	// AgentVariables and AgentInstructions are an agent session's
	// variables (in order) and the instructions they produced.
	AgentVariables    []Variable
	AgentInstructions string
}

// Variable is one agent variable.
type Variable struct {
	Name, Value string
}

// Lookup returns the value of the setting named by its config key and
// whether the session sets it, for the kernel's precedence resolution.
// Values are string, float64, int64, bool or []string; agent_variables is
// []Variable. model and agent_instructions are set when not empty.
func (s *Settings) Lookup(key string) (any, bool) {
	ptr := func(p any) (any, bool) {
		v := reflect.ValueOf(p)
		if v.IsNil() {
			return nil, false
		}
		return v.Elem().Interface(), true
	}
	list := func(l []string) (any, bool) { return slices.Clone(l), l != nil }
	switch key {
	case "model":
		return s.Model, s.Model != ""
	case "temperature":
		return ptr(s.Temperature)
	case "top_p":
		return ptr(s.TopP)
	case "reasoning_effort":
		return ptr(s.ReasoningEffort)
	case "enabled_tools":
		return list(s.EnabledTools)
	case "enabled_mcp_servers":
		return list(s.EnabledMCPServers)
	case "skills_enabled":
		return ptr(s.SkillsEnabled)
	case "enabled_skills":
		return list(s.EnabledSkills)
	case "enabled_macros":
		return list(s.EnabledMacros)
	case "save_session":
		return ptr(s.SaveSession)
	case "compression_threshold":
		return ptr(s.CompressionThreshold)
	case "auto_continue":
		return ptr(s.AutoContinue)
	case "max_auto_continues":
		return ptr(s.MaxAutoContinues)
	case "inject_todo_instructions":
		return ptr(s.InjectTodoInstructions)
	case "continuation_prompt":
		return ptr(s.ContinuationPrompt)
	case "inject_skill_instructions":
		return ptr(s.InjectSkillInstructions)
	case "skill_instructions":
		return ptr(s.SkillInstructions)
	case "memory":
		return ptr(s.Memory)
	case "role_name":
		return ptr(s.RoleName)
	case "agent_variables":
		return slices.Clone(s.AgentVariables), len(s.AgentVariables) > 0
	case "agent_instructions":
		return s.AgentInstructions, s.AgentInstructions != ""
	}
	return nil, false
}

// clone returns a deep copy of s.
func (s Settings) clone() Settings {
	c := s
	c.Temperature = clonePtr(s.Temperature)
	c.TopP = clonePtr(s.TopP)
	c.ReasoningEffort = clonePtr(s.ReasoningEffort)
	c.EnabledTools = slices.Clone(s.EnabledTools)
	c.EnabledMCPServers = slices.Clone(s.EnabledMCPServers)
	c.SkillsEnabled = clonePtr(s.SkillsEnabled)
	c.EnabledSkills = slices.Clone(s.EnabledSkills)
	c.EnabledMacros = slices.Clone(s.EnabledMacros)
	c.SaveSession = clonePtr(s.SaveSession)
	c.CompressionThreshold = clonePtr(s.CompressionThreshold)
	c.AutoContinue = clonePtr(s.AutoContinue)
	c.MaxAutoContinues = clonePtr(s.MaxAutoContinues)
	c.InjectTodoInstructions = clonePtr(s.InjectTodoInstructions)
	c.ContinuationPrompt = clonePtr(s.ContinuationPrompt)
	c.InjectSkillInstructions = clonePtr(s.InjectSkillInstructions)
	c.SkillInstructions = clonePtr(s.SkillInstructions)
	c.Memory = clonePtr(s.Memory)
	c.RoleName = clonePtr(s.RoleName)
	c.AgentVariables = slices.Clone(s.AgentVariables)
	return c
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// Set changes the setting named by its config key to v (a value as
// config.ParseText returns it; nil unsets). It reports false for a key a
// session does not hold or a value of the wrong type.
func (s *Settings) Set(key string, v any) bool {
	list := func(dst *[]string) bool {
		l, ok := v.([]string)
		if v != nil && !ok {
			return false
		}
		*dst = slices.Clone(l)
		if ok && l != nil && *dst == nil {
			*dst = []string{}
		}
		return true
	}
	switch key {
	case "model":
		m, ok := v.(string)
		if v != nil && !ok {
			return false
		}
		s.Model = m
		return true
	case "temperature":
		return setPtr(&s.Temperature, v)
	case "top_p":
		return setPtr(&s.TopP, v)
	case "reasoning_effort":
		return setPtr(&s.ReasoningEffort, v)
	case "enabled_tools":
		return list(&s.EnabledTools)
	case "enabled_mcp_servers":
		return list(&s.EnabledMCPServers)
	case "skills_enabled":
		return setPtr(&s.SkillsEnabled, v)
	case "enabled_skills":
		return list(&s.EnabledSkills)
	case "enabled_macros":
		return list(&s.EnabledMacros)
	case "save_session":
		return setPtr(&s.SaveSession, v)
	case "compression_threshold":
		return setPtr(&s.CompressionThreshold, v)
	case "auto_continue":
		return setPtr(&s.AutoContinue, v)
	case "max_auto_continues":
		return setPtr(&s.MaxAutoContinues, v)
	case "inject_todo_instructions":
		return setPtr(&s.InjectTodoInstructions, v)
	case "continuation_prompt":
		return setPtr(&s.ContinuationPrompt, v)
	case "inject_skill_instructions":
		return setPtr(&s.InjectSkillInstructions, v)
	case "skill_instructions":
		return setPtr(&s.SkillInstructions, v)
	case "memory":
		return setPtr(&s.Memory, v)
	}
	return false
}

// setPtr sets *dst to a pointer to v, or to nil when v is nil; it reports
// false, and leaves *dst alone, when v is not a T.
func setPtr[T any](dst **T, v any) bool {
	if v == nil {
		*dst = nil
		return true
	}
	x, ok := v.(T)
	if ok {
		*dst = &x
	}
	return ok
}
