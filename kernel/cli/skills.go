package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/coyote-cli/coyote/kernel/convo"
	"github.com/coyote-cli/coyote/kernel/skill"
)

// installSkills puts the bundled skills that are missing into the
// config directory's skills/, as the original does on every run; a
// failure is a warning.
func installSkills(f *Factory) {
	p, err := f.Paths()
	if err != nil {
		return
	}
	if _, err := skill.Install(p.SkillsDir); err != nil {
		fmt.Fprintln(f.IO.ErrOut, "warning: install the bundled skills: "+err.Error())
	}
}

// runListSkills prints the installed skills, one name per line (the
// workspace's and the user's, each name once); a skill whose file does
// not load is warned about on standard error.
func runListSkills(f *Factory) error {
	p, err := f.Paths()
	if err != nil {
		return err
	}
	installSkills(f)
	st := convo.New(convo.Deps{Paths: p})
	cat := st.SkillCatalog()
	entries, warnings := cat.Installed(st.SkillDirs())
	for _, w := range warnings {
		fmt.Fprintln(f.IO.ErrOut, "warning: "+w)
	}
	var b strings.Builder
	for _, e := range entries {
		if _, err := cat.Header(e); err != nil {
			fmt.Fprintln(f.IO.ErrOut, "warning: "+err.Error())
		}
		b.WriteString(e.Name + "\n")
	}
	_, err = f.IO.Out.Write([]byte(b.String()))
	return err
}

// loadSkills loads the --skill skills, in order, before the prompt. A
// single name that is not installed, with a terminal, opens the editor on
// a new skill of that name (as the original does); without one it is an
// error.
func loadSkills(f *Factory, st *convo.State, names []string) error {
	for _, name := range names {
		_, err := st.LoadSkill(name)
		if errors.Is(err, skill.ErrNotFound) && len(names) == 1 && f.IO.IsStdinTTY() && f.IO.IsStdoutTTY() {
			path, cerr := skill.Create(st.SkillDirs().Global, name, func(text string) (string, error) { return editText(f, text) })
			if cerr != nil {
				return cerr
			}
			fmt.Fprintf(f.IO.ErrOut, "Created skill %s (%s).\n", name, path)
			_, err = st.LoadSkill(name)
		}
		if err != nil {
			return fmt.Errorf("--skill %s: %w", name, err)
		}
	}
	return nil
}

// editText lets the user edit text in $VISUAL or $EDITOR (else vi) and
// returns the result.
func editText(f *Factory, text string) (string, error) {
	tmp, err := os.CreateTemp("", "coyote-*.md")
	if err != nil {
		return "", err
	}
	path := tmp.Name()
	defer os.Remove(path)
	if _, err := tmp.WriteString(text); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	editor := f.Env("VISUAL")
	if editor == "" {
		editor = f.Env("EDITOR")
	}
	if editor == "" {
		editor = "vi"
	}
	args := strings.Fields(editor)
	cmd := exec.Command(args[0], append(args[1:], path)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("editor %q: %w (set $EDITOR to the editor you use)", editor, err)
	}
	data, err := os.ReadFile(path)
	return string(data), err
}
