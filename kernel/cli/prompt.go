package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/coyote-cli/coyote/kernel/chat"
	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/convo"
	"github.com/coyote-cli/coyote/kernel/input"
	"github.com/coyote-cli/coyote/kernel/llm"
	"github.com/coyote-cli/coyote/kernel/textutil"
	"github.com/coyote-cli/coyote/kernel/tools"
)

// runPrompt sends the text of the arguments (and of standard input, and
// of the -f sources) to the model and streams the answer to standard
// output.
func runPrompt(ctx context.Context, f *Factory, opts *rootOptions) error {
	text := strings.Join(opts.Text, " ")
	repl := strings.TrimSpace(text) == "" && len(opts.Files) == 0 && f.IO.IsStdinTTY()
	if repl && !f.IO.IsStdoutTTY() {
		return nothingToAsk(opts) // no terminal to hold a conversation on
	}

	cfg, cfgErr := f.Config()
	if errors.Is(cfgErr, config.ErrNoConfig) && f.IO.IsStdinTTY() && f.IO.IsStdoutTTY() {
		// First run in a terminal: write a config, then carry on.
		if err := runWizard(f); err != nil {
			return err
		}
		f.reloadConfig()
		cfg, cfgErr = f.Config()
	}
	ensureBundled(f)
	if repl {
		if opts.SessionFromWord {
			fmt.Fprintf(f.IO.ErrOut, "Session %q (-s takes the word after it as the session's name).\n", opts.Session)
		}
		return runREPL(ctx, f, opts)
	}
	st, err := newConversation(ctx, f, cfg, opts)
	if err != nil {
		return err
	}
	defer st.CloseSubagents() // no sub-agent outlives the run
	if cfgErr == nil && st.Agent == nil && st.Role == nil && st.Session == nil && opts.RAG == "" && opts.Macro == "" {
		if err := applyCmdPrelude(st, cfg.String("cmd_prelude")); err != nil {
			return err
		}
	}
	if st.Agent != nil {
		if err := useAgentDocuments(ctx, f, st); err != nil {
			return err
		}
	} else if opts.RAG != "" || opts.RebuildRAG {
		if cfgErr != nil {
			return cfgErr
		}
		if err := useRAG(ctx, f, st, opts); err != nil {
			return err
		}
		if opts.RebuildRAG && text == "" && len(opts.Files) == 0 && opts.Macro == "" {
			return nil // --rebuild-rag alone: rebuild, then exit
		}
	}
	if opts.Macro != "" {
		if cfgErr != nil {
			return cfgErr
		}
		stdin := ""
		if !f.IO.IsStdinTTY() && f.IO.In != nil {
			in, err := io.ReadAll(f.IO.In)
			if err != nil {
				return fmt.Errorf("read standard input: %w", err)
			}
			stdin = strings.TrimRight(string(in), "\n")
		}
		return runMacroCommand(ctx, f, cfg, st, opts, stdin)
	}

	// With a config to go by, start the plugin while standard input and
	// the -f sources are read; a dry run starts nothing.
	dryRun := opts.DryRun || cfgErr == nil && cfg.Bool("dry_run")
	connect := func() (llm.Bound, error) { return st.Connect(ctx) }
	if cfgErr == nil && !dryRun {
		type connected struct {
			bound llm.Bound
			err   error
		}
		ready := make(chan connected, 1)
		go func() {
			b, err := st.Connect(ctx)
			ready <- connected{b, err}
		}()
		connect = sync.OnceValues(func() (llm.Bound, error) { c := <-ready; return c.bound, c.err })
		// However the run ends, the start finishes first, so that the
		// factory's Close stops the plugin.
		defer func() { _, _ = connect() }()
	}

	if !f.IO.IsStdinTTY() {
		if text, err = withStdin(f, text); err != nil {
			return err
		}
	}
	if strings.TrimSpace(text) == "" && len(opts.Files) == 0 {
		return nothingToAsk(opts)
	}
	if valid, changed := textutil.Valid(text); changed {
		text = valid
		fmt.Fprintln(f.IO.ErrOut, "warning: the prompt had bytes that are not UTF-8 text; each was replaced by "+textutil.Replacement)
	}
	if cfgErr != nil {
		return cfgErr
	}
	if st.Agent != nil && st.Agent.Graph != nil {
		return runGraph(ctx, f, st, text) // graph.go: the input is the graph's initial_prompt
	}
	var docs []input.Document
	if len(opts.Files) > 0 {
		if docs, err = input.Load(ctx, opts.Files, st.InputOptions()); err != nil {
			return err
		}
	}
	parts := input.Parts(docs, text)
	show := func() chat.Display { return display(f, cfg, opts.RawMarkdown) }
	ask := convo.Ask{Parts: parts, Text: text, Stream: !opts.NoStream && cfg.Bool("stream"), Display: show,
		Connect: func(context.Context) (llm.Bound, error) { return connect() }}
	ask.Continuing = convo.ContinuingLine(f.IO.ErrOut)
	switch {
	case dryRun:
		ask.DryRun = f.IO.Out
	case opts.Execute && opts.Prompt == "" && opts.Role == "" && st.Agent == nil:
		// -e: a menu around the answer, which may ask again (revise).
		bound, err := connect()
		if err != nil {
			return err
		}
		req, _, _, err := st.Prepare(ctx, ask)
		if err != nil {
			return err
		}
		return runExecute(ctx, f, bound, req, show)
	case opts.Code && st.Agent == nil && !f.IO.IsStdoutTTY():
		// Piped: only the code, so that `coyote -c ... > file` is usable.
		ask.Display = func() chat.Display { return chat.Plain(io.Discard) }
	}
	reply, err := st.Run(ctx, ask)
	if st.Session != nil && !dryRun {
		err = saveOneShotSession(st.Session, err, opts.SaveSession)
	}
	if err == nil && !dryRun && opts.Code && st.Agent == nil && !f.IO.IsStdoutTTY() {
		return writeCode(f, codeOnly(reply.Text))
	}
	return err
}

// nothingToAsk is the error of a run with no question and no terminal
// for the REPL: printing the help and exiting 0, as before, let a script
// take the help text for the answer.
func nothingToAsk(opts *rootOptions) error {
	if opts.SessionFromWord {
		return fmt.Errorf("nothing to ask: %q was taken as the session's name (-s takes an optional name); "+
			"to ask it, name the session first: coyote -s temp %q", opts.Session, opts.Session)
	}
	return errors.New("nothing to ask: give a prompt, pipe input, or run in a terminal for the REPL")
}

// newConversation starts the conversation of a command line: its model,
// its role (--prompt, -r, -e, -c) and its session (-s). cfg may be nil (a
// dry run without a config file).
func newConversation(ctx context.Context, f *Factory, cfg *config.Config, opts *rootOptions) (*convo.State, error) {
	p, err := f.Paths()
	if err != nil {
		return nil, err
	}
	st := convo.New(convo.Deps{
		Paths:  p,
		Config: cfg,
		Env:    f.Env,
		Host:   f.Host,
		Warn:   func(msg string) { fmt.Fprintln(f.IO.ErrOut, "warning: "+msg) },
		Retrying: func() func(string) {
			if !f.IO.IsStderrTTY() {
				return nil // a script sees only the outcome
			}
			return func(msg string) { fmt.Fprintln(f.IO.ErrOut, msg) }
		}(),
		Secret: func(name string) (string, error) { return f.secrets(name, "") },
		MCP:    f.MCP(opts.NoWorkspaceMCP),
	})
	st.Model = opts.Model
	st.NoWorkspaceInstructions, st.InstructionNames = opts.NoWorkspaceInstructions, opts.InstructionFiles
	st.NoMemory = opts.NoMemory
	st.Tools, st.ShowCall = toolsFor(f, cfg, opts.SkipPermissions)
	if cfg != nil {
		ensureBundled(f)
	}
	if f.IO.IsStdinTTY() && f.IO.IsStdoutTTY() {
		st.Asker = tools.TerminalAsker{In: os.Stdin, Out: f.IO.Out} // for sub-agents' questions
	}
	if f.observe != nil {
		f.observe(st)
	}
	if opts.Agent != "" {
		if err := startAgent(ctx, f, cfg, st, opts); err != nil {
			return nil, err
		}
		if opts.EmptySession && st.Session != nil {
			st.Session.Empty()
		}
		return st, loadSkills(f, st, opts.Skills)
	}
	if st.Role, err = activeRole(st, opts); err != nil {
		return nil, err
	}
	if opts.Session != "" {
		sess, err := st.OpenSession(opts.Session)
		if err != nil {
			return nil, err
		}
		if opts.EmptySession {
			sess.Empty()
		}
	}
	return st, loadSkills(f, st, opts.Skills)
}

// withStdin appends what standard input holds (when it is not a
// terminal: the caller checks) to text, after a line break.
func withStdin(f *Factory, text string) (string, error) {
	if f.IO.In == nil {
		return text, nil
	}
	in, err := io.ReadAll(f.IO.In)
	if err != nil {
		return "", fmt.Errorf("read standard input: %w", err)
	}
	if s := string(in); s != "" {
		if text != "" {
			text += "\n"
		}
		text += s
	}
	return text, nil
}
