package repl

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/macro"
	"github.com/coyote-cli/coyote/sdk/fsx"
)

// maxMacroDepth bounds isolated macros that call macros.
const maxMacroDepth = 16

// macroList discovers the macros of both directories, printing nothing:
// warnings are shown by .list macros.
func (r *REPL) macroList() []*macro.Macro {
	list, _ := r.macros.Discover(r.o.MacroDirs)
	return list
}

// macroPolicy is enabled_macros at each level, session first.
func (r *REPL) macroPolicy() macro.Policy {
	var p macro.Policy
	if s := r.conv.Session; s != nil {
		l := s.Settings().EnabledMacros
		p = append(p, macro.Level{Kind: "session", Where: s.Name(), Set: l != nil, List: l})
	}
	if a := r.conv.Agent; a != nil {
		l := a.Config.Settings.EnabledMacros
		p = append(p, macro.Level{Kind: "agent", Where: a.Name, Set: l.Set, List: l.Items})
	}
	if ro := r.conv.Role; ro != nil {
		l := ro.Settings.EnabledMacros
		p = append(p, macro.Level{Kind: "role", Where: ro.Name, Set: l.Set, List: l.Items})
	}
	v := r.conv.Config().Get("enabled_macros")
	l, ok := v.V.([]string)
	return append(p, macro.Level{Kind: "global", Set: ok && !v.Null, List: l})
}

// isBuiltin reports whether name (without the dot) is a built-in command
// word: such a macro is shadowed and runs only through .macro.
func (r *REPL) isBuiltin(name string) bool {
	for _, c := range r.reg.cmds {
		first, _, _ := strings.Cut(c.Name, " ")
		if first == "."+name {
			return true
		}
	}
	return false
}

// runMacro runs a macro with the arguments as typed after its name:
// isolated ones on a fork of the conversation, the others on the live one
// as if each step were typed.
func (r *REPL) runMacro(ctx context.Context, m *macro.Macro, rawArgs string) error {
	if r.inMacro && !r.macroIsolated {
		return fmt.Errorf("macro %s: nested macros are not allowed in a non-isolated macro", m.Name)
	}
	if err := macro.Check(r.macroList(), r.macroPolicy(), m.Name); err != nil {
		return err
	}
	args, err := splitArgs(rawArgs)
	if err != nil {
		return fmt.Errorf("macro %s: %w", m.Name, err)
	}
	steps, err := m.Expand(args)
	if err != nil {
		return err
	}
	if err := r.trustMacro(m); err != nil {
		return err
	}
	if r.macroDepth >= maxMacroDepth {
		return fmt.Errorf("macro %s: macros call each other more than %d deep", m.Name, maxMacroDepth)
	}
	target := r
	if m.Isolated {
		target = r.fork()
	}
	return target.runSteps(ctx, m, steps)
}

// fork is a REPL on a fork of the conversation, for an isolated macro.
func (r *REPL) fork() *REPL {
	f := *r
	f.conv = r.conv.Fork()
	f.prefill, f.editNext, f.exit = "", false, false
	return &f
}

// runSteps runs a macro's steps in order, echoing each; the first error
// stops the macro (what the earlier steps did stays). The macro mode is
// restored on every way out.
func (r *REPL) runSteps(ctx context.Context, m *macro.Macro, steps []string) error {
	prevIn, prevIso := r.inMacro, r.macroIsolated
	r.inMacro, r.macroIsolated = true, m.Isolated
	r.macroDepth++
	defer func() {
		r.inMacro, r.macroIsolated = prevIn, prevIso
		r.macroDepth--
	}()
	for i, step := range steps {
		if err := ctx.Err(); err != nil {
			return err
		}
		r.printf(">> %s\n", step)
		if err := r.Handle(ctx, step); err != nil {
			return fmt.Errorf("macro %s stopped at step %d (%s): %w", m.Name, i+1, step, err)
		}
	}
	return nil
}

// macroFallback runs the macro a top-level ".name" names, or returns the
// unknown-command error unchanged.
func (r *REPL) macroFallback(ctx context.Context, line string) error {
	word, rest := splitCommand(line)
	name := strings.TrimPrefix(word, ".")
	if name == "" || r.isBuiltin(name) {
		return errors.New(unknownCommand)
	}
	m, ok := r.macros.Find(r.o.MacroDirs, name)
	if !ok {
		return errors.New(unknownCommand)
	}
	return r.runMacro(ctx, m, rest)
}

func (r *REPL) cmdMacro(c *call) error {
	if len(c.args) == 0 {
		return errors.New("usage: .macro <name> [args], .macro enable <name>, .macro disable <name>")
	}
	switch c.args[0] {
	case "enable", "disable":
		if len(c.args) != 2 {
			return fmt.Errorf("usage: .macro %s <name>", c.args[0])
		}
		return r.toggleMacro(c.args[1], c.args[0] == "enable")
	}
	name, rest := splitCommand(c.raw)
	m, ok := r.macros.Find(r.o.MacroDirs, name)
	if !ok {
		if rest != "" {
			return fmt.Errorf("%w %q", macro.ErrUnknown, name)
		}
		return r.createMacro(name)
	}
	return r.runMacro(c.ctx, m, rest)
}

// toggleMacro is .macro enable|disable: it changes the global level's
// enabled_macros in memory.
func (r *REPL) toggleMacro(name string, enable bool) error {
	global, notice, err := macro.Toggle(r.macroList(), r.macroPolicy(), name, enable)
	if err != nil {
		return err
	}
	if notice != "" {
		r.println(notice)
		return nil
	}
	v := &config.Value{V: global, Src: config.Source{Kind: "repl", Where: ".macro"}}
	if global == nil {
		v = &config.Value{Null: true, Src: v.Src}
	}
	r.conv.Config().Set("enabled_macros", v)
	state := "disabled"
	if enable {
		state = "enabled"
	}
	r.printf("Macro %s is %s for this run.\n", name, state)
	return nil
}

// macroTemplate is what the creator opens.
const macroTemplate = `# A macro is a custom command: .%[1]s [args] runs these steps as if typed.
description: What .%[1]s does, in one line
# isolated: true runs the steps aside (nothing reaches the session);
# false runs them in the conversation, and .role/.model steps stay.
isolated: true
variables:
  - name: text
    rest: true
    default: ""
steps:
  - "{{text}}"
`

// createMacro writes a new macro in the editor (.macro NEW-NAME) into the
// global macros directory.
func (r *REPL) createMacro(name string) error {
	if r.inMacro {
		return errors.New("a macro cannot create macros")
	}
	if macro.Reserved(name) {
		return fmt.Errorf("%q is reserved (.macro enable and .macro disable); choose another name", name)
	}
	if strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") {
		return fmt.Errorf("%q is not a valid macro name", name)
	}
	dir := r.o.MacroDirs.Global
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(dir, name+".yaml")
	tmpl := fmt.Sprintf(macroTemplate, name)
	edited, err := r.editText(tmpl, ".yaml")
	if err != nil {
		return err
	}
	if strings.TrimSpace(edited) == "" || edited == tmpl {
		return fmt.Errorf("macro %s was not created: nothing was changed", name)
	}
	if _, err := macro.Parse(name, []byte(edited)); err != nil {
		return fmt.Errorf("macro %s was not created: %w", name, err)
	}
	if err := fsx.WriteFileAtomic(path, []byte(edited), 0o644); err != nil {
		return err
	}
	r.printf("Created macro %s in %s; run it with .%s\n", name, path, name)
	return nil
}

// listMacros is .list macros: every macro, its source, mode and state.
func (r *REPL) listMacros() error {
	list, warnings := r.macros.Discover(r.o.MacroDirs)
	for _, w := range warnings {
		r.printError(errors.New(w))
	}
	entries := macro.Resolve(list, r.macroPolicy(), r.isBuiltin)
	if len(entries) == 0 {
		r.printf("No macros: add them to %s (or .macro NAME to write one).\n", r.o.MacroDirs.Global)
		return nil
	}
	var enabled []*macro.Macro
	for _, e := range entries {
		if e.Macro != nil && e.State == macro.Enabled {
			enabled = append(enabled, e.Macro)
		}
	}
	notes := r.macroTrustNotes(enabled)
	tw := tabwriter.NewWriter(r.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSOURCE\tISOLATED\tSTATE\tDESCRIPTION")
	for _, e := range entries {
		src, iso, desc := "-", "-", ""
		if m := e.Macro; m != nil {
			src, desc = m.Source, m.Description
			if m.ShadowedBy != "" {
				src += " (shadowed by " + m.ShadowedBy + ")"
			}
			iso = fmt.Sprint(m.Isolated)
		}
		state := e.State.String()
		if e.LockedBy != "" {
			state += " by " + e.LockedBy
		}
		if e.Macro != nil {
			state += notes[e.Macro]
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.Name, src, iso, state, desc)
	}
	return tw.Flush()
}

// macroCandidates are the visible macros for top-level completion.
func (r *REPL) macroCandidates(prefix string) []Candidate {
	var out []Candidate
	for _, e := range macro.Resolve(r.macroList(), r.macroPolicy(), r.isBuiltin) {
		if e.State != macro.Enabled || e.Macro == nil || e.Macro.ShadowedBy != "" || !fuzzy("."+e.Name, prefix) {
			continue
		}
		out = append(out, Candidate{"." + e.Name, e.Macro.Description})
	}
	return out
}

func completeMacro(r *REPL, done []string) []Candidate {
	entries := macro.Resolve(r.macroList(), r.macroPolicy(), r.isBuiltin)
	switch {
	case len(done) == 0:
		out := values([]string{"enable", "disable"}, "")
		for _, e := range entries {
			if e.Macro != nil && e.Macro.ShadowedBy == "" && e.State != macro.Invalid {
				out = append(out, Candidate{e.Name, e.Macro.Description})
			}
		}
		return out
	case len(done) == 1 && (done[0] == "enable" || done[0] == "disable"):
		var out []Candidate
		for _, e := range entries {
			if e.Macro == nil || e.Macro.ShadowedBy != "" {
				continue
			}
			if done[0] == "enable" && e.State == macro.DisabledRuntime || done[0] == "disable" && (e.State == macro.Enabled || e.State == macro.Shadowed) {
				out = append(out, Candidate{e.Name, e.Macro.Description})
			}
		}
		return out
	}
	return nil
}

// macroHelp is the custom-commands section of .help.
func (r *REPL) macroHelp() string {
	var b strings.Builder
	b.WriteString("\nCustom commands (macros): Coyote's custom commands are macros, YAML files of steps in\n")
	b.WriteString("macros/ or .coyote/macros/. Run one with .NAME [args] or .macro NAME [args]; .macro NEW-NAME writes one.\n")
	cands := r.macroCandidates(".")
	width := 0
	for _, c := range cands {
		width = max(width, len(c.Value))
	}
	for _, c := range cands {
		fmt.Fprintf(&b, "%-*s  %s\n", width, c.Value, c.Desc)
	}
	return b.String()
}

// RunMacro runs a macro by name outside the loop (coyote --macro NAME),
// with args as typed after its name.
func (r *REPL) RunMacro(ctx context.Context, name, args string) error {
	m, ok := r.macros.Find(r.o.MacroDirs, name)
	if !ok {
		return fmt.Errorf("%w %q (coyote --list-macros lists them)", macro.ErrUnknown, name)
	}
	return r.runMacro(ctx, m, args)
}
