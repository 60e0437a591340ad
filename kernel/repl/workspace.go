package repl

import (
	"errors"
	"fmt"
	"strings"

	"github.com/coyote-cli/coyote/kernel/macro"
	"github.com/coyote-cli/coyote/kernel/mcpconf"
	"github.com/coyote-cli/coyote/kernel/termtext"
	"github.com/coyote-cli/coyote/kernel/trust"
)

// trust is the gate for workspace files; without one, every file that
// needs approval is refused.
func (r *REPL) trust() *trust.Gate {
	if r.o.Trust == nil {
		r.o.Trust = trust.NewGate(trust.Options{})
	}
	return r.o.Trust
}

// askTrust asks about a workspace file on the input line. Ctrl-C or
// Ctrl-D leaves the question unanswered (asked again next run).
func (r *REPL) askTrust(s trust.Subject) trust.Answer {
	r.printf("%s", s.Describe())
	line, err := r.line(trust.Prompt)
	if err != nil {
		return trust.Later
	}
	return trust.ParseAnswer(line)
}

// workspaceSubjects are the files of the workspace that the trust rule
// covers, as they are now: its mcp.json (unless --no-workspace-mcp) and
// its valid macros (unless --no-workspace-macros).
func (r *REPL) workspaceSubjects() ([]trust.Subject, error) {
	var out []trust.Subject
	if m := r.conv.MCP(); m != nil {
		set, err := m.Servers()
		if err != nil {
			return nil, err
		}
		if set.Workspace != "" {
			out = append(out, set.Subject())
		}
	}
	for _, m := range r.macroList() {
		if m.Source == macro.SourceWorkspace && m.Err == nil {
			out = append(out, m.Subject())
		}
	}
	return out, nil
}

// cmdWorkspace is `.workspace [trust|untrust]`.
func (r *REPL) cmdWorkspace(c *call) error {
	if len(c.args) > 1 {
		return errors.New("usage: .workspace [trust|untrust]")
	}
	action := ""
	if len(c.args) == 1 {
		action = c.args[0]
	}
	if action != "" && r.inMacro {
		// Approval is the user's own word: a macro (perhaps the
		// workspace's own) may not give it, nor take it back.
		return fmt.Errorf(".workspace %s cannot run inside a macro: type it yourself at the prompt", action)
	}
	switch action {
	case "":
		return r.showWorkspace()
	case "trust":
		return r.trustWorkspace()
	case "untrust":
		return r.untrustWorkspace()
	}
	return fmt.Errorf("unknown .workspace action %q: use .workspace, .workspace trust or .workspace untrust", action)
}

// showWorkspace lists the workspace's files with where each stands, and
// what those that need approval would run.
func (r *REPL) showWorkspace() error {
	subs, err := r.workspaceSubjects()
	if err != nil {
		return err
	}
	dir := r.conv.Paths().WorkspaceDir
	if len(subs) == 0 {
		r.printf("This workspace (%s) has no MCP servers and no macros.\n", termtext.Quote(dir))
		return nil
	}
	states := r.trust().States(subs...)
	pending := 0
	for i, s := range subs {
		state := states[i]
		r.printf("%s (%s): %s\n", termtext.Quote(s.Path), s.Kind, state)
		if state == trust.NotNeeded {
			continue
		}
		if state != trust.Trusted {
			pending++
		}
		for _, l := range s.Lines {
			r.printf("    %s\n", termtext.Quote(l))
		}
		if len(s.Secrets) > 0 {
			r.printf("    vault secrets it names: %s\n", termtext.Quote(strings.Join(s.Secrets, ", ")))
		}
	}
	if pending > 0 {
		r.println(".workspace trust approves these files as they are now; a file that changes is asked about again.")
	} else {
		r.println(".workspace untrust forgets the answers, so that each file is asked about again.")
	}
	return nil
}

// trustWorkspace approves every file of the workspace that needs it, as
// it is now, showing what each would run.
func (r *REPL) trustWorkspace() error {
	subs, err := r.workspaceSubjects()
	if err != nil {
		return err
	}
	g := r.trust()
	var pending []trust.Subject
	for i, st := range g.States(subs...) {
		if st != trust.NotNeeded && st != trust.Trusted {
			pending = append(pending, subs[i])
		}
	}
	if len(pending) == 0 {
		r.println("Nothing to approve: every file of this workspace that can run commands or use secrets is trusted already.")
		return nil
	}
	// One change of the store for all of them: all are remembered, or
	// none.
	if err := g.Approve(pending...); err != nil {
		return fmt.Errorf("trust the workspace files: %w", err)
	}
	for _, s := range pending {
		r.printf("%s", s.Describe())
		r.printf("Trusted %s.\n", termtext.Quote(s.Path))
	}
	return r.reloadMCP()
}

// untrustWorkspace forgets every answer about the workspace's files.
func (r *REPL) untrustWorkspace() error {
	gone, err := r.trust().Forget(mcpconf.WorkspaceTrustMatch(r.conv.Paths()))
	if err != nil {
		return err
	}
	files := map[string]bool{}
	for _, g := range gone {
		files[g.Path] = true
	}
	if len(files) == 0 {
		r.println("No answers about this workspace's files were remembered.")
	} else {
		what := "1 file"
		if len(files) > 1 {
			what = fmt.Sprintf("%d files", len(files))
		}
		r.printf("Forgot the answers about %s of this workspace: each is asked about again when next used.\n", what)
	}
	return r.reloadMCP()
}

// reloadMCP reads mcp.json again, so that a new decision about the
// workspace's file applies (servers whose settings are unchanged keep
// running).
func (r *REPL) reloadMCP() error {
	if m := r.conv.MCP(); m != nil {
		return m.Reload()
	}
	return nil
}

// trustMacro decides whether a workspace macro may run (asking when it
// must); a global macro is the user's own.
func (r *REPL) trustMacro(m *macro.Macro) error {
	if m.Source != macro.SourceWorkspace {
		return nil
	}
	if err := r.trust().Check(m.Subject()); err != nil {
		return fmt.Errorf("macro %s was not run: %w", m.Name, err)
	}
	return nil
}

// macroTrustNotes are what .list macros adds to the workspace macros of
// ms that cannot run until approved, by macro; the trust store is read
// once for all of them.
func (r *REPL) macroTrustNotes(ms []*macro.Macro) map[*macro.Macro]string {
	var (
		subs  []trust.Subject
		which []*macro.Macro
	)
	for _, m := range ms {
		if m.Source == macro.SourceWorkspace && m.Err == nil {
			subs = append(subs, m.Subject())
			which = append(which, m)
		}
	}
	if len(subs) == 0 {
		return nil
	}
	notes := map[*macro.Macro]string{}
	for i, st := range r.trust().States(subs...) {
		switch st {
		case trust.Undecided:
			notes[which[i]] = " (asks first: runs commands)"
		case trust.Declined:
			notes[which[i]] = " (declined: .workspace trust)"
		}
	}
	return notes
}

func completeWorkspace(_ *REPL, done []string) []Candidate {
	if len(done) == 0 {
		return []Candidate{{"trust", "approve the workspace's files as they are now"}, {"untrust", "forget the answers about them"}}
	}
	return nil
}
