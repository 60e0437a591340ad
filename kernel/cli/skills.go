package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/coyote-cli/coyote/kernel/convo"
	"github.com/coyote-cli/coyote/kernel/editor"
	"github.com/coyote-cli/coyote/kernel/skill"
)

// runListSkills prints the installed skills, one name per line (the
// workspace's and the user's, each name once); a skill whose file does
// not load is warned about on standard error.
func runListSkills(f *Factory) error {
	p, err := f.Paths()
	if err != nil {
		return err
	}
	ensureBundled(f)
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
			configured := ""
			if cfg := st.Config(); cfg != nil {
				configured = cfg.String("editor")
			}
			path, cerr := skill.Create(st.SkillDirs().Global, name, func(text string) (string, error) { return editor.Text(configured, f.Env, text, ".md") })
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
