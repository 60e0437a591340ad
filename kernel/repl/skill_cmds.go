package repl

// Skill commands: .skill (list the loaded ones, load, unload, edit or
// create one), .edit skill, .info skills, and the skills' part of .list
// and .delete. The loaded skills are the conversation's
// (convo.State.LoadSkill); they are not saved in the session.

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/coyote-cli/coyote/kernel/skill"
)

func (r *REPL) cmdSkill(c *call) error {
	switch {
	case len(c.args) == 0 || len(c.args) == 1 && c.args[0] == "loaded":
		names := r.loadedSkillNames()
		if len(names) == 0 {
			r.println("No skills are loaded (.skill load NAME loads one; .list skills shows them).")
			return nil
		}
		for _, n := range names {
			r.println(n)
		}
		return nil
	case len(c.args) == 2 && c.args[0] == "load":
		sk, err := r.conv.LoadSkill(c.args[1])
		if err != nil {
			return err
		}
		r.printf("Loaded skill %s.\n", sk.Name)
		return nil
	case len(c.args) == 2 && c.args[0] == "unload":
		if err := r.conv.UnloadSkill(c.args[1]); err != nil {
			return err
		}
		r.printf("Unloaded skill %s.\n", c.args[1])
		return nil
	case len(c.args) == 1 && c.args[0] != "load" && c.args[0] != "unload":
		return r.editOrCreateSkill(c.args[0], true)
	}
	return errors.New("usage: .skill [loaded | load <name> | unload <name> | <name>]")
}

func (r *REPL) cmdEditSkill(c *call) error {
	if len(c.args) != 1 {
		return errors.New("usage: .edit skill <name>")
	}
	return r.editOrCreateSkill(c.args[0], false)
}

// editOrCreateSkill opens a skill's SKILL.md in the editor (the
// workspace's copy when there is one), or, with create, writes a new one
// from the scaffold. A loaded skill is loaded again from the edited file.
func (r *REPL) editOrCreateSkill(name string, create bool) error {
	if err := r.noEditorInMacro(); err != nil {
		return err
	}
	if err := skill.CheckName(name); err != nil {
		return err
	}
	e, ok := r.conv.SkillCatalog().Find(r.conv.SkillDirs(), name)
	if !ok {
		if !create {
			return fmt.Errorf("there is no skill %q (.skill %s creates it)", name, name)
		}
		path, err := skill.Create(r.conv.SkillDirs().Global, name, func(text string) (string, error) { return r.editText(text, ".md") })
		if err != nil {
			return err
		}
		r.printf("Created skill %s (%s); .skill load %s loads it.\n", name, path, name)
		return nil
	}
	if err := r.editFile(e.Path); err != nil {
		return err
	}
	if slices.Contains(r.loadedSkillNames(), name) {
		if err := r.conv.UnloadSkill(name); err != nil {
			return err
		}
		if _, err := r.conv.LoadSkill(name); err != nil {
			return fmt.Errorf("skill %s was unloaded: %w", name, err)
		}
		r.printf("Saved; skill %s was loaded again.\n", name)
		return nil
	}
	r.println("Saved.")
	return nil
}

// cmdInfoSkills shows whether skills can be used here, and each available
// skill: loaded or not, where it comes from, what it grants and what it
// is for.
func (r *REPL) cmdInfoSkills(*call) error {
	if why := r.conv.SkillsOff(); why != "" {
		r.printf("Skills are off: %s.\n", why)
		return nil
	}
	list, err := r.conv.ListSkills()
	if err != nil {
		return err
	}
	if len(list) == 0 {
		r.println("No skills are available (skills/<name>/SKILL.md in the config directory or .coyote/skills/).")
		return nil
	}
	cat, dirs := r.conv.SkillCatalog(), r.conv.SkillDirs()
	tw := tabwriter.NewWriter(r.out, 0, 4, 2, ' ', 0)
	for _, l := range list {
		mark := "  "
		if l.Loaded {
			mark = "* "
		}
		source := ""
		if e, ok := cat.Find(dirs, l.Name); ok {
			source = e.Source
		}
		grants := strings.Join(append(append([]string{}, l.Tools...), l.MCPServers...), ",")
		if grants == "" {
			grants = "-"
		}
		desc, _, _ := strings.Cut(l.Description, "\n")
		fmt.Fprintf(tw, "%s%s\t%s\t%s\t%s\n", mark, l.Name, source, grants, desc)
	}
	return tw.Flush()
}

// listSkills is .list skills: every installed skill, the loaded ones
// marked; one whose file does not load says why.
func (r *REPL) listSkills() error {
	cat := r.conv.SkillCatalog()
	entries, warnings := cat.Installed(r.conv.SkillDirs())
	for _, w := range warnings {
		r.printError(errors.New(w))
	}
	if len(entries) == 0 {
		r.println("No skills.")
		return nil
	}
	loaded := r.loadedSkillNames()
	tw := tabwriter.NewWriter(r.out, 0, 4, 2, ' ', 0)
	for _, e := range entries {
		mark := "  "
		if slices.Contains(loaded, e.Name) {
			mark = "* "
		}
		desc := ""
		if h, err := cat.Header(e); err != nil {
			desc = "does not load: " + err.Error()
		} else {
			desc, _, _ = strings.Cut(h.Description, "\n")
		}
		fmt.Fprintf(tw, "%s%s\t%s\n", mark, e.Name, desc)
	}
	return tw.Flush()
}

// loadedSkillNames are the loaded skills' names, in load order.
func (r *REPL) loadedSkillNames() []string {
	var out []string
	for _, s := range r.conv.LoadedSkills() {
		out = append(out, s.Name)
	}
	return out
}

// installedSkillNames are the installed skills' names, sorted.
func (r *REPL) installedSkillNames() []string {
	entries, _ := r.conv.SkillCatalog().Installed(r.conv.SkillDirs())
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.Name
	}
	return out
}

// completeSkill completes .skill: load, unload, loaded or a skill's name;
// after load the available skills, after unload the loaded ones.
func completeSkill(r *REPL, done []string) []Candidate {
	switch len(done) {
	case 0:
		return append(values([]string{"load", "unload", "loaded"}, ""), values(r.installedSkillNames(), "skill (edit)")...)
	case 1:
		switch done[0] {
		case "load":
			names, _ := r.conv.AvailableSkills()
			var out []string
			for _, n := range names {
				if !slices.Contains(r.loadedSkillNames(), n) {
					out = append(out, n)
				}
			}
			return values(out, "skill")
		case "unload":
			return values(r.loadedSkillNames(), "loaded skill")
		}
	}
	return nil
}

var completeEditSkill = firstArg("skill", func(r *REPL) []string { return r.installedSkillNames() })
