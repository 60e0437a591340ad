package convo

import (
	"slices"
	"strings"

	"github.com/coyote-cli/coyote/kernel/instructions"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// What a request's system message gets beyond the role's, agent's or
// session's own prompt: the workspace instructions, then the memory
// (memory.go), then the todo instructions (todo.go), then the skill hint
// and the loaded skills' bodies (skill.go). They are added to each request as it is sent and
// never recorded in the session, so they follow the files and settings as
// they are now.

// systemText is the text added to the system message, in order; "" when
// there is none.
func (s *State) systemText() string {
	var parts []string
	for _, t := range []string{s.workspaceInstructions(), s.memoryText(), s.spawnInstructions(), s.todoInstructions(), s.skillText()} {
		if t = strings.TrimSpace(t); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "\n\n")
}

// addSystemText adds systemText to the request's system message (a
// system message is put first when there is none). A role whose prompt
// takes the input (__INPUT__: one user message and no system message)
// gets nothing. The request's messages are copied first: the messages a
// session records are not changed.
func (s *State) addSystemText(req *provider.ChatRequest) {
	extra := s.addedSystemText()
	s.systemAdded = extra
	if extra == "" {
		return
	}
	msgs := slices.Clone(req.Messages)
	if len(msgs) == 0 || msgs[0].Role != provider.RoleSystem {
		req.Messages = append([]provider.Message{provider.TextMessage(provider.RoleSystem, extra)}, msgs...)
		return
	}
	sys := msgs[0]
	sys.Parts = slices.Clone(sys.Parts)
	last := -1
	for i, p := range sys.Parts {
		if p.Text != "" && p.ImageURL == "" && p.ToolCall == nil && p.ToolResult == nil && p.Reasoning == nil {
			last = i
		}
	}
	if last < 0 {
		sys.Parts = append(sys.Parts, provider.Part{Text: extra})
	} else {
		sys.Parts[last].Text = strings.TrimRight(sys.Parts[last].Text, "\n") + "\n\n" + extra
	}
	msgs[0] = sys
	req.Messages = msgs
}

// addedSystemText is the text addSystemText adds: systemText, or ""
// for a role whose prompt takes the input.
func (s *State) addedSystemText() string {
	if s.Role != nil && s.Agent == nil && s.Role.Embedded() {
		return ""
	}
	return s.systemText()
}

// replaceSystemText takes old, the text addSystemText added to req's
// system message, out of it and adds the text of now (a skill was loaded
// or unloaded during a turn).
func (s *State) replaceSystemText(req *provider.ChatRequest, old string) {
	msgs := slices.Clone(req.Messages)
	if old != "" && len(msgs) > 0 && msgs[0].Role == provider.RoleSystem {
		sys := msgs[0]
		sys.Parts = slices.Clone(sys.Parts)
		for i := len(sys.Parts) - 1; i >= 0; i-- {
			p := &sys.Parts[i]
			if p.Text == "" || p.ImageURL != "" || p.ToolCall != nil || p.ToolResult != nil || p.Reasoning != nil {
				continue
			}
			if t, ok := strings.CutSuffix(p.Text, old); ok {
				p.Text = strings.TrimRight(t, "\n")
			}
			break
		}
		msgs[0] = sys
		if len(sys.Parts) == 1 && sys.Parts[0].Text == "" {
			msgs = msgs[1:] // addSystemText put this message first
		}
	}
	req.Messages = msgs
	s.addSystemText(req)
}

// InstructionFiles are the workspace instruction files in force: none
// when workspace_instructions is false or --no-workspace-instructions was
// given; else the chain of --workspace-instructions-file names, or of
// workspace_instructions_files. A file that cannot be used is warned
// about once.
func (s *State) InstructionFiles() []instructions.File {
	cfg := s.d.Config
	if cfg == nil || s.NoWorkspaceInstructions {
		return nil
	}
	if on, ok := cfg.Get("workspace_instructions").V.(bool); ok && !on {
		return nil
	}
	names := s.InstructionNames
	if len(names) == 0 {
		names, _ = cfg.List("workspace_instructions_files")
	}
	cwd, err := s.workDir()
	if err != nil {
		return nil
	}
	files, warnings := instructions.Find(cwd, s.d.Paths.ConfigDir, names)
	for _, w := range warnings {
		s.warnOnce(w)
	}
	return files
}

// workspaceInstructions is the text of the instruction files in force.
func (s *State) workspaceInstructions() string {
	return instructions.Text(s.InstructionFiles())
}

// warnOnce warns about msg the first time only (a REPL builds a request
// per turn).
func (s *State) warnOnce(msg string) {
	s.pool.mu.Lock()
	if s.pool.warned == nil {
		s.pool.warned = map[string]bool{}
	}
	seen := s.pool.warned[msg]
	s.pool.warned[msg] = true
	s.pool.mu.Unlock()
	if !seen {
		s.d.Warn(msg)
	}
}
