package skill

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/coyote-cli/coyote/kernel/tools"
)

// Prefix starts the names of the skill functions.
const Prefix = "skill__"

// Listed is one skill as skill__list shows it to the model.
type Listed struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Tools       []string `json:"grants_tools,omitempty"`
	MCPServers  []string `json:"grants_mcp_servers,omitempty"`
	Loaded      bool     `json:"loaded"`
}

// Host is the conversation the skill functions act on (kernel/convo's
// State).
type Host interface {
	// ListSkills are the skills available here.
	ListSkills() ([]Listed, error)
	// LoadSkill loads an available skill.
	LoadSkill(name string) (*Skill, error)
	// UnloadSkill unloads a loaded skill.
	UnloadSkill(name string) error
}

// Funcs are skill__list, skill__load and skill__unload working on h, as
// built-ins. They run one at a time in call order (a model may list and
// load in one round) and answer bad arguments with an error the model
// reads.
func Funcs(h Host) []*tools.Func {
	nameParam := json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","description":"The skill's name, as skill__list gives it."}},"required":["name"]}`)
	mk := func(name, desc string, params json.RawMessage, call func(json.RawMessage) (string, error)) *tools.Func {
		return &tools.Func{
			Name: name, Description: desc, Parameters: params, Source: "builtin", Builtin: true, Serial: true,
			Call: func(_ context.Context, raw json.RawMessage) (string, error) { return call(raw) },
		}
	}
	return []*tools.Func{
		mk(Prefix+"list", "List the skills you can load here: each one's name, what it is for, the tools and MCP servers it adds, "+
			"and whether it is loaded. Look here at the start of a task of several steps.", nil,
			func(json.RawMessage) (string, error) {
				list, err := h.ListSkills()
				if err != nil {
					return "", err
				}
				if list == nil {
					list = []Listed{}
				}
				b, err := json.Marshal(map[string]any{"skills": list})
				return string(b), err
			}),
		mk(Prefix+"load", "Load a skill that skill__list showed and that fits the task: its instructions join the system message "+
			"from the next request on, with the tools it adds.", nameParam,
			func(raw json.RawMessage) (string, error) {
				name, err := nameArg(raw, "load")
				if err != nil {
					return "", err
				}
				s, err := h.LoadSkill(name)
				if err != nil {
					return "", err
				}
				msg := fmt.Sprintf("Loaded skill %s: its instructions are in the system message from your next request on.", s.Name)
				if len(s.EnabledTools)+len(s.EnabledMCPServers) > 0 {
					msg += " It adds: " + strings.Join(append(append([]string{}, s.EnabledTools...), s.EnabledMCPServers...), ", ") + "."
				}
				if s.AutoUnload {
					msg += " It unloads itself at the end of this turn."
				}
				return msg, nil
			}),
		mk(Prefix+"unload", "Unload a loaded skill once its work is done: its instructions and the tools it added go away.", nameParam,
			func(raw json.RawMessage) (string, error) {
				name, err := nameArg(raw, "unload")
				if err != nil {
					return "", err
				}
				if err := h.UnloadSkill(name); err != nil {
					return "", err
				}
				return "Unloaded skill " + name + ".", nil
			}),
	}
}

// nameArg reads the name argument of skill__load and skill__unload.
func nameArg(raw json.RawMessage, verb string) (string, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("{}")
	}
	var a struct{ Name *string }
	if err := json.Unmarshal(raw, &a); err != nil {
		return "", fmt.Errorf("invalid arguments: %v", err)
	}
	if a.Name == nil || strings.TrimSpace(*a.Name) == "" {
		return "", errors.New("skill__" + verb + " needs the name of a skill (skill__list shows them)")
	}
	return strings.TrimSpace(*a.Name), nil
}
