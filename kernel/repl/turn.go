package repl

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/coyote-cli/coyote/kernel/editor"

	"github.com/coyote-cli/coyote/kernel/chat"
	"github.com/coyote-cli/coyote/kernel/convo"
	"github.com/coyote-cli/coyote/kernel/graph"
	"github.com/coyote-cli/coyote/kernel/session"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// ask sends input to the model and shows the reply as it streams; Ctrl-C
// cancels it and the REPL stays. text is the input as typed, for
// messages.md.
func (r *REPL) ask(ctx context.Context, parts []provider.Part, text string) error {
	return r.send(ctx, parts, text, nil)
}

// send runs one turn (convo.Run) with Ctrl-C cancelling it. prefix, when
// set, is an assistant message the model continues (.continue).
func (r *REPL) send(ctx context.Context, parts []provider.Part, text string, prefix *chat.Reply) error {
	if a := r.conv.Agent; a != nil && a.Graph != nil {
		if prefix != nil {
			return fmt.Errorf("agent %s is a graph agent: each line runs its graph, and there is no reply to continue", a.Name)
		}
		return r.runGraph(ctx, text)
	}
	cfg := r.conv.Config()
	ask := convo.Ask{Parts: parts, Text: text, Stream: cfg.Bool("stream"), Prefix: prefix, Display: r.o.Display}
	ask.Continuing = convo.ContinuingLine(r.o.IO.ErrOut)
	if cfg.Bool("dry_run") {
		ask.DryRun = r.out
	}
	err := r.whileInterruptible(ctx, func(ctx context.Context) error {
		_, err := r.conv.Run(ctx, ask)
		return err
	})
	if errors.Is(err, context.Canceled) && ctx.Err() == nil {
		// Ctrl-C is the user's own doing: a quiet note, not an error. What
		// arrived stays on the screen (and in the session).
		note := "(cancelled)"
		if r.conv.Session != nil {
			note = "(cancelled; .recover sends it again)"
		}
		r.printf("\n%s\n", r.dim(note))
		return nil
	}
	return err
}

// runGraph runs the active graph agent with a line as its input: each
// node's progress as it runs, approval and input questions asked on the
// REPL's line, the end node's output printed. Ctrl-C cancels the run.
func (r *REPL) runGraph(ctx context.Context, text string) error {
	ui := convo.GraphUI{Environ: r.o.Environ}
	var mu sync.Mutex // a parallel step's nodes report from several goroutines
	ui.Progress = func(e graph.Event) {
		mu.Lock()
		defer mu.Unlock()
		r.printf("%s\n", r.dim(graph.ProgressLine(e)))
	}
	if r.rl != nil {
		ui.Ask = func(_ context.Context, q graph.Question) (string, error) {
			mu.Lock()
			defer mu.Unlock()
			r.printf("%s\n", graph.QuestionText(q))
			a, err := r.line("> ")
			return graph.Answer(q, a), err
		}
	}
	var out string
	err := r.whileInterruptible(ctx, func(ctx context.Context) error {
		var err error
		out, err = r.conv.RunGraph(ctx, text, ui)
		return err
	})
	if errors.Is(err, context.Canceled) && ctx.Err() == nil {
		r.printf("\n%s\n", r.dim("(cancelled)"))
		return nil
	}
	if err != nil {
		return fmt.Errorf("graph agent %s: %w", r.conv.Agent.Name, err)
	}
	r.printf("%s\n", strings.TrimRight(out, "\n"))
	return nil
}

// replay prints a loaded session's conversation, so the user sees where
// it stands.
func (r *REPL) replay() {
	left := r.leftPrompt() // once: it walks the whole session
	for _, m := range r.conv.Session.Messages() {
		text := messageText(m)
		switch m.Role {
		case provider.RoleUser:
			r.printf("%s%s\n", left, text)
		case provider.RoleAssistant:
			d := r.o.Display()
			_ = d.Write(text)
			_ = d.Close()
			r.println()
		}
	}
}

// messageText is the text of a message's parts.
func messageText(m provider.Message) string {
	var b []string
	for _, p := range m.Parts {
		if p.Text != "" {
			b = append(b, p.Text)
		}
	}
	return strings.Join(b, "\n\n")
}

// leave ends the REPL after closing the session (asking to save it when
// save_session says to ask).
func (r *REPL) leave(ctx context.Context) {
	if err := r.closeSession(ctx); err != nil {
		r.printError(err)
		return
	}
	r.exit = true
}

// closeSession saves the active session as save_session says, asking when
// it is unset, and drops it.
func (r *REPL) closeSession(_ context.Context) error {
	s := r.conv.Session
	if s == nil {
		return nil
	}
	switch s.OnExit(r.o.SaveSession) {
	case session.ExitSave:
		if err := s.Save(); err != nil {
			return err
		}
	case session.ExitAsk:
		yes, err := r.confirm("Save session? [y/N] ")
		if err != nil {
			return err
		}
		if yes {
			if s.IsTemp() {
				name, err := r.line("Session name: ")
				if err != nil {
					return err
				}
				if name = strings.TrimSpace(name); name == "" {
					return errors.New("the session was not saved: it needs a name")
				}
				if err := s.SaveAs(name); err != nil {
					return err
				}
			} else if err := s.Save(); err != nil {
				return err
			}
			r.printf("Saved session %s to %s\n", s.Name(), s.Path())
		}
	}
	r.conv.Session = nil
	return nil
}

// line asks a question on the input line.
func (r *REPL) line(question string) (string, error) {
	if r.rl == nil {
		return "", errors.New("no terminal to ask on")
	}
	r.asking = true
	defer func() { r.asking = false }()
	r.rl.SetPrompt(question)
	return r.rl.Readline()
}

// confirm asks a yes/no question; no is the default.
func (r *REPL) confirm(question string) (bool, error) {
	ans, err := r.line(question)
	if err != nil {
		return false, err
	}
	ans = strings.ToLower(strings.TrimSpace(ans))
	return ans == "y" || ans == "yes", nil
}

// editText opens text in the user's editor and returns what the user
// saved. ext is the temporary file's extension.
func (r *REPL) editText(text, ext string) (string, error) {
	return editor.Text(r.conv.Config().String("editor"), r.o.Env, text, ext)
}

// editFile opens path in the user's editor.
func (r *REPL) editFile(path string) error {
	return editor.File(r.conv.Config().String("editor"), r.o.Env, path)
}
