package repl

import (
	"io"
	"os/exec"
	"strings"

	"github.com/coyote-cli/coyote/assets"
	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/llm"
	"github.com/coyote-cli/coyote/kernel/role"
	"github.com/coyote-cli/coyote/kernel/session"
)

// The completion sources read the files each time, so that a role added
// to roles/ while the REPL runs is offered at once.

func completeModels(r *REPL, done []string) []Candidate {
	i := len(done)
	if i != 0 {
		return nil
	}
	return values(llm.ChatModelIDs(r.conv.Config()), "model")
}

func completeRoles(r *REPL, done []string) []Candidate {
	i := len(done)
	if i != 0 {
		return nil
	}
	return values(role.List(r.conv.Paths().RolesDir, assets.Roles()), "role")
}

func completeSessions(r *REPL, done []string) []Candidate {
	i := len(done)
	if i != 0 {
		return nil
	}
	names, _ := session.List(r.conv.Paths().SessionsDir)
	return values(names, "session")
}

func completeSet(r *REPL, done []string) []Candidate {
	i := len(done)
	switch i {
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

func completeReasoning(r *REPL, done []string) []Candidate {
	i := len(done)
	if t, err := r.conv.Target(); err == nil && i == 0 {
		return values(t.Model.ReasoningLevels, "reasoning level")
	}
	return nil
}

func completeList(_ *REPL, done []string) []Candidate {
	i := len(done)
	if i != 0 {
		return nil
	}
	return values([]string{"roles", "sessions", "models", "macros", "tools", "agents", "rags", "mcp-servers"}, "")
}

func completeDelete(_ *REPL, done []string) []Candidate {
	i := len(done)
	if i != 0 {
		return nil
	}
	return values([]string{"role", "session", "rag"}, "")
}

func completeVault(_ *REPL, done []string) []Candidate {
	i := len(done)
	if i != 0 {
		return nil
	}
	return values([]string{"add", "get", "update", "delete", "list"}, "")
}

// copyToClipboard puts text on the clipboard: through wl-copy, xclip,
// xsel or pbcopy when one is installed, else with the OSC 52 terminal
// sequence, which most terminals (and tmux, and ssh sessions) honour.
func copyToClipboard(out io.Writer, env config.Env, text string) error {
	tools := [][]string{{"pbcopy"}, {"xclip", "-selection", "clipboard"}, {"xsel", "--clipboard", "--input"}}
	if env("WAYLAND_DISPLAY") != "" {
		tools = append([][]string{{"wl-copy"}}, tools...)
	}
	for _, t := range tools {
		if t[0] != "pbcopy" && t[0] != "wl-copy" && env("DISPLAY") == "" {
			continue
		}
		if path, err := exec.LookPath(t[0]); err == nil {
			cmd := exec.Command(path, t[1:]...)
			cmd.Stdin = strings.NewReader(text)
			if cmd.Run() == nil {
				return nil
			}
		}
	}
	_, err := io.WriteString(out, osc52(text))
	return err
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

func completeRAGs(r *REPL, done []string) []Candidate {
	if len(done) != 0 {
		return nil
	}
	return values(config.Names(".yaml", r.conv.Paths().RagsDir), "RAG")
}
