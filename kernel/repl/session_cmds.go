package repl

// Session commands: .session and what acts on the active session.

import (
	"context"
	"errors"
	"fmt"

	"github.com/coyote-cli/coyote/kernel/session"
)

func (r *REPL) cmdSession(c *call) error {
	if a := r.conv.Agent; a != nil && a.Graph != nil {
		return fmt.Errorf("agent %s is a graph agent, which has no sessions (.exit agent first)", a.Name)
	}
	name := session.TempName
	if len(c.args) > 0 {
		name = c.args[0]
	}
	s, err := r.conv.OpenSession(name)
	if err != nil {
		return err
	}
	if rn := s.Settings().RoleName; rn != nil && r.conv.Role == nil {
		if ro, err := r.conv.LoadRole(*rn); err == nil {
			r.conv.Role = ro
		}
	}
	if r.conv.Role != nil && s.IsEmpty() {
		name := r.conv.Role.Name
		s.Update(func(st *session.Settings) { st.RoleName = &name })
	}
	if !s.IsEmpty() {
		r.replay()
	}
	return nil
}

func (r *REPL) cmdEmptySession(*call) error {
	r.conv.Session.Empty()
	return nil
}

func (r *REPL) cmdCompressSession(c *call) error {
	s := r.conv.Session
	if !s.HasUserMessages() {
		return errors.New("nothing to compress: the session has no message of yours since the last compression")
	}
	return r.whileInterruptible(c.ctx, func(ctx context.Context) error {
		bound, err := r.conv.Connect(ctx)
		if err != nil {
			return err
		}
		if err := r.conv.Compress(ctx, bound); err != nil {
			return err
		}
		r.println("Compressed the session.")
		return nil
	})
}

func (r *REPL) cmdInfoSession(*call) error {
	s := r.conv.Session
	if _, err := r.out.Write(s.Encode()); err != nil {
		return err
	}
	// What the turns used, as YAML comments so that the whole stays the
	// session's YAML.
	if sp, _ := r.conv.SessionSpend(); sp.Calls > 0 {
		_, err := fmt.Fprintf(r.out, "# %d turns used %s tokens; cost %s\n", sp.Calls, sp.TokensText(), sp.CostText())
		return err
	}
	return nil
}

func (r *REPL) cmdEditSession(*call) error {
	if err := r.noEditorInMacro(); err != nil {
		return err
	}
	s := r.conv.Session
	if s.IsTemp() {
		return errors.New("the temporary session has no file yet: .save session <name> first")
	}
	if s.Dirty() {
		if err := s.Save(); err != nil {
			return err
		}
	}
	if err := r.editFile(s.Path()); err != nil {
		return err
	}
	reloaded, err := r.conv.SessionStore().Load(s.Name())
	if err != nil {
		return err
	}
	r.conv.Session = reloaded
	return nil
}

func (r *REPL) cmdSaveSession(c *call) error {
	s := r.conv.Session
	var err error
	switch {
	case len(c.args) > 0:
		err = s.SaveAs(c.args[0])
	case s.IsTemp():
		return errors.New("the temporary session needs a name: .save session <name>")
	default:
		err = s.Save()
	}
	if err != nil {
		return err
	}
	r.printf("Saved session %s to %s\n", s.Name(), s.Path())
	return nil
}

func (r *REPL) cmdExitSession(c *call) error {
	return r.closeSession(c.ctx)
}

func (r *REPL) cmdUndo(*call) error {
	text, err := r.conv.Session.Undo()
	if err != nil {
		return err
	}
	r.prefill = text
	return nil
}

func (r *REPL) cmdFork(c *call) error {
	name := ""
	if len(c.args) > 0 {
		name = c.args[0]
	}
	f, err := r.conv.Session.Fork(name)
	if err != nil {
		return err
	}
	r.conv.Session = f
	r.printf("Forked to session %s\n", f.Name())
	return nil
}
