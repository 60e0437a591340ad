package repl

import (
	"strconv"

	"github.com/coyote-cli/coyote/assets"
	"github.com/coyote-cli/coyote/kernel/agent"
	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/llm"
	"github.com/coyote-cli/coyote/kernel/role"
	"github.com/coyote-cli/coyote/kernel/session"
)

// The completion sources read the files each time, so that a role added
// to roles/ while the REPL runs is offered at once.

// firstArg completes a command's first argument with what list returns,
// each described as desc, and offers nothing after it.
func firstArg(desc string, list func(r *REPL) []string) func(*REPL, []string) []Candidate {
	return func(r *REPL, done []string) []Candidate {
		if len(done) != 0 {
			return nil
		}
		return values(list(r), desc)
	}
}

// words is a fixed list of arguments.
func words(w ...string) func(*REPL) []string { return func(*REPL) []string { return w } }

var (
	completeModels = firstArg("model", func(r *REPL) []string { return llm.ChatModelIDs(r.conv.Config()) })
	completeRoles  = firstArg("role", func(r *REPL) []string {
		return role.List(r.conv.Paths().RolesDir, assets.Roles())
	})
	completeSessions = firstArg("session", func(r *REPL) []string {
		names, _ := session.List(r.conv.SessionStore().Dir)
		return names
	})
	completeRAGs      = firstArg("RAG", func(r *REPL) []string { return config.Names(".yaml", r.conv.Paths().RagsDir) })
	completeReasoning = firstArg("reasoning level", func(r *REPL) []string {
		if t, err := r.conv.Target(); err == nil {
			return t.Model.ReasoningLevels
		}
		return nil
	})
	completeList   = firstArg("", words("roles", "sessions", "models", "macros", "skills", "tools", "agents", "rags", "mcp-servers"))
	completeDelete = firstArg("", words("role", "session", "rag", "macro", "skill", "agent-data"))
	completeVault  = firstArg("", words("add", "get", "update", "delete", "list"))
)

func completeSet(r *REPL, done []string) []Candidate {
	switch len(done) {
	case 0:
		return values(setKeys, "setting")
	case 1:
		return values(setValues(r, done[0]), "")
	}
	return nil
}

// setValues are the finite values of .set keys, offered after the key.
func setValues(r *REPL, key string) []string {
	k, ok := config.LookupKey(key)
	if !ok {
		return nil
	}
	switch {
	case key == "reasoning_effort":
		if t, err := r.conv.Target(); err == nil {
			return append([]string{"null"}, t.Model.ReasoningLevels...)
		}
	case k.Kind == config.KindBool:
		return []string{"true", "false", "null"}
	case key == "rag_reranker_model":
		return append([]string{"null"}, llm.ChatModelIDs(r.conv.Config())...)
	case k.Kind == config.KindList:
		return []string{"all", "null"}
	}
	return []string{"null"}
}

func completeTool(r *REPL, done []string) []Candidate {
	switch len(done) {
	case 0:
		return values([]string{"enable", "disable"}, "")
	case 1:
		var names []string
		for _, f := range r.conv.Tools.All() {
			if !f.Builtin {
				names = append(names, f.Name)
			}
		}
		for alias := range r.conv.Selection().Mapping {
			names = append(names, alias)
		}
		return values(names, "tool")
	}
	return nil
}

// completeAgent offers the agents' names, then the chosen agent's
// sessions and its variables (as name=).
func completeAgent(r *REPL, done []string) []Candidate {
	p := r.conv.Paths()
	if len(done) == 0 {
		var names []string
		for _, e := range agent.List(p.AgentsDir, r.o.Env) {
			if e.Err == nil {
				names = append(names, e.Name)
			}
		}
		return values(names, "agent")
	}
	a, err := agent.Load(p.AgentsDir, done[0], r.o.Env)
	if err != nil {
		return nil
	}
	var out []Candidate
	if len(done) == 1 {
		sessions, _ := session.List(a.SessionsDir())
		out = values(sessions, "session")
	}
	for _, v := range a.Config.Variables {
		out = append(out, Candidate{Value: v.Name + "=", Desc: v.Description})
	}
	return out
}

// completeStarter offers the active agent's starters by number.
func completeStarter(r *REPL, done []string) []Candidate {
	if len(done) != 0 || r.conv.Agent == nil {
		return nil
	}
	var out []Candidate
	for i, s := range r.conv.Agent.Config.ConversationStarters {
		out = append(out, Candidate{Value: strconv.Itoa(i + 1), Desc: s})
	}
	return out
}
