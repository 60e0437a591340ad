package cli

import (
	"errors"
	"fmt"
	"slices"

	"github.com/coyote-cli/coyote/kernel/mcpconf"
	"github.com/coyote-cli/coyote/kernel/termtext"
	"github.com/coyote-cli/coyote/kernel/trust"
)

// Trust returns the run's gate for workspace files that can run commands
// or name secrets (kernel/trust): it remembers answers in the cache
// directory, approves every file under --trust-workspace, and asks on the
// terminal when standard input and error output are one (the REPL asks
// on its own input line instead).
func (f *Factory) Trust() *trust.Gate {
	f.trustOnce.Do(func() {
		o := trust.Options{
			TrustAll: f.trustAll,
			Notify:   func(line string) { fmt.Fprintln(f.IO.ErrOut, line) },
		}
		if p, err := f.Paths(); err == nil {
			o.Store = trust.NewStore(trust.StorePath(p.CacheDir))
		}
		if f.IO.IsStdinTTY() && f.IO.IsStderrTTY() {
			o.Ask = f.askTrust
		}
		f.trust = trust.NewGate(o)
	})
	return f.trust
}

// askTrust asks about a workspace file on standard error and reads the
// answer from standard input; an input that ends leaves it unanswered.
func (f *Factory) askTrust(s trust.Subject) trust.Answer {
	fmt.Fprint(f.IO.ErrOut, s.Describe()+trust.Prompt)
	line, err := f.stdin().ReadString('\n')
	if err != nil && line == "" {
		fmt.Fprintln(f.IO.ErrOut)
		return trust.Later
	}
	return trust.ParseAnswer(line)
}

// runUntrustWorkspace is --untrust-workspace: the answers about the files
// of this workspace (under its .coyote, and ./.mcp.json) are forgotten,
// so that each is asked about again when next used.
func runUntrustWorkspace(f *Factory, opts *rootOptions, args []string) error {
	if len(args) > 0 || opts.TrustWorkspace {
		return &UsageError{Err: errors.New("--untrust-workspace takes no other arguments, and cannot go with --trust-workspace")}
	}
	p, err := f.Paths()
	if err != nil {
		return err
	}
	gone, err := f.Trust().Forget(mcpconf.WorkspaceTrustMatch(p))
	if err != nil {
		return err
	}
	var files []string
	for _, r := range gone {
		if !slices.Contains(files, r.Path) {
			files = append(files, r.Path)
		}
	}
	if len(files) == 0 {
		fmt.Fprintln(f.IO.ErrOut, "No answers about this workspace's files were remembered.")
		return nil
	}
	slices.Sort(files)
	for _, path := range files {
		fmt.Fprintf(f.IO.ErrOut, "Forgot the answers about %s.\n", termtext.Quote(path))
	}
	return nil
}
