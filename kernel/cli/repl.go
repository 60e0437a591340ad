package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/coyote-cli/coyote/kernel/chat"
	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/convo"
	"github.com/coyote-cli/coyote/kernel/envlist"
	"github.com/coyote-cli/coyote/kernel/macro"
	"github.com/coyote-cli/coyote/kernel/repl"
	"github.com/coyote-cli/coyote/kernel/tools"
)

// runREPL opens the interactive REPL: coyote with no text in a terminal.
// It starts no plugin: the first prompt sent does.
func runREPL(ctx context.Context, f *Factory, opts *rootOptions) error {
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	st, err := newConversation(ctx, f, cfg, opts)
	if err != nil {
		return err
	}
	defer st.CloseSubagents() // no sub-agent outlives the REPL
	ensureBundled(f)
	if st.Agent != nil {
		if err := useAgentDocuments(ctx, f, st); err != nil {
			return err
		}
	}
	defer f.Interactive()()
	r := repl.New(replOptions(f, cfg, st, opts))
	if err := r.Run(ctx); errors.Is(err, repl.ErrHangUp) {
		return &ExitCodeError{Code: ExitHangUp}
	} else if err != nil {
		return err
	}
	return nil
}

// replOptions are what the REPL (or a --macro run) gets from the factory.
func replOptions(f *Factory, cfg *config.Config, st *convo.State, opts *rootOptions) repl.Options {
	p, _ := f.Paths()
	dirs := macro.Dirs{Global: p.MacrosDir, Workspace: filepath.Join(p.WorkspaceDir, "macros")}
	if opts.NoWorkspaceMacros {
		dirs.Workspace = ""
	}
	return repl.Options{
		IO:          f.IO,
		Conv:        st,
		Env:         f.Env,
		Log:         f.Logger(),
		Display:     func() chat.Display { return display(f, cfg, opts.RawMarkdown) },
		Vault:       func(op, name string) error { return runVault(f, vaultOp(op, name), nil) },
		OnInterrupt: f.OnInterrupt,
		SaveSession: opts.SaveSession,
		HistoryFile: filepath.Join(p.CacheDir, "repl-history", "history.txt"),
		MacroDirs:   dirs,
		Trust:       f.Trust(),
		AgentTools:  agentTools(f, cfg, opts.SkipPermissions),
		Environ:     envlist.Filter(f.Environ),
		Tools:       func() *tools.Registry { reg, _ := toolsFor(f, cfg, opts.SkipPermissions); return reg },
		Authenticate: func(ctx context.Context, client string, out io.Writer, readCode func(string) (string, error)) error {
			c, ok := cfg.Client(client)
			if !ok {
				return fmt.Errorf("there is no client named %q", client)
			}
			return authenticate(ctx, f, c, out, readCode)
		},
	}
}

// runMacroCommand is --macro NAME [TEXT]: the macro runs as in the REPL,
// with the text's words as its arguments (each quoted, so they arrive as
// typed) and standard input, when piped, after " -- ".
func runMacroCommand(ctx context.Context, f *Factory, cfg *config.Config, st *convo.State, opts *rootOptions, stdin string) error {
	args := make([]string, len(opts.Text))
	for i, a := range opts.Text {
		args[i] = quoteArg(a)
	}
	line := strings.Join(args, " ")
	if stdin != "" {
		line += " -- " + quoteArg(stdin)
	}
	r := repl.New(replOptions(f, cfg, st, opts))
	return r.RunMacro(ctx, opts.Macro, line)
}

// quoteArg quotes a word for the REPL's argument rules.
func quoteArg(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}

// vaultOp is a .vault operation as the secret flags would give it.
func vaultOp(op, name string) *vaultOptions {
	o := &vaultOptions{}
	switch op {
	case "add":
		o.Add = name
	case "get":
		o.Get = name
	case "update":
		o.Update = name
	case "delete":
		o.Delete = name
	case "list":
		o.List = true
	}
	return o
}
