package cli

import (
	"context"
	"path/filepath"

	"github.com/coyote-cli/coyote/kernel/chat"
	"github.com/coyote-cli/coyote/kernel/repl"
)

// runREPL opens the interactive REPL: coyote with no text in a terminal.
// It starts no plugin: the first prompt sent does.
func runREPL(ctx context.Context, f *Factory, opts *rootOptions) error {
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	st, err := newConversation(f, cfg, opts)
	if err != nil {
		return err
	}
	p, err := f.Paths()
	if err != nil {
		return err
	}
	defer f.Interactive()()
	r := repl.New(repl.Options{
		IO:          f.IO,
		Conv:        st,
		Env:         f.Env,
		Log:         f.Logger(),
		Display:     func() chat.Display { return display(f, cfg, opts.RawMarkdown) },
		Vault:       func(op, name string) error { return runVault(f, vaultOp(op, name), nil) },
		OnInterrupt: f.OnInterrupt,
		SaveSession: opts.SaveSession,
		HistoryFile: filepath.Join(p.CacheDir, "repl-history", "history.txt"),
	})
	return r.Run(ctx)
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
