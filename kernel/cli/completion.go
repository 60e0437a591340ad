package cli

import (
	"context"
	_ "embed"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/coyote-cli/coyote/assets"
	"github.com/coyote-cli/coyote/kernel/agent"
	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/convo"
	"github.com/coyote-cli/coyote/kernel/llm"
	"github.com/coyote-cli/coyote/kernel/role"
	"github.com/coyote-cli/coyote/kernel/session"
)

// completionShells are the shells --completions and COMPLETE=<shell> know.
var completionShells = []string{"bash", "elvish", "fish", "nushell", "powershell", "zsh"}

// The elvish and nushell scripts, which cobra does not write; like
// cobra's, they ask `coyote __complete WORDS` at each Tab.
var (
	//go:embed completions/coyote.elv
	elvishCompletion []byte
	//go:embed completions/coyote.nu
	nushellCompletion []byte
)

// runCompletions prints the completion script of a shell (the original's
// --completions SHELL; `coyote completion SHELL` and COMPLETE=SHELL do the
// same). Every script is dynamic: it asks coyote for the candidates.
func runCompletions(cmd *cobra.Command, f *Factory, shell string) error {
	root := cmd.Root()
	switch shell {
	case "bash":
		return root.GenBashCompletionV2(f.IO.Out, true)
	case "zsh":
		return root.GenZshCompletion(f.IO.Out)
	case "fish":
		return root.GenFishCompletion(f.IO.Out, true)
	case "powershell":
		return root.GenPowerShellCompletionWithDesc(f.IO.Out)
	case "elvish":
		_, err := f.IO.Out.Write(elvishCompletion)
		return err
	case "nushell":
		_, err := f.IO.Out.Write(nushellCompletion)
		return err
	}
	return &UsageError{Err: fmt.Errorf("--completions %q: choose among %s", shell, strings.Join(completionShells, ", "))}
}

// completeEnv rewrites the command line of COMPLETE=SHELL, the original's
// switch for dynamic completion: `COMPLETE=bash coyote` prints the
// script (as --completions bash does), and
// `COMPLETE=bash coyote -- coyote WORDS…` prints the candidates for WORDS
// (the last one being completed), as `coyote __complete WORDS…` does. Any
// other COMPLETE value is left alone.
func completeEnv(shell string, args []string) []string {
	if !slices.Contains(completionShells, shell) {
		return args
	}
	if len(args) == 0 {
		return []string{"--completions", shell}
	}
	if args[0] != "--" {
		return args
	}
	words := args[1:]
	if len(words) > 0 {
		words = words[1:] // the program's own name
	}
	return append([]string{cobra.ShellCompRequestCmd}, words...)
}

// completionWords lets `coyote -s <Tab>` complete a session's name: the
// flags whose value is optional (-s, --update, --sandbox) take the word
// after them only as --flag=WORD, as joinOptionalValues spells it for a
// run, so the word being completed is joined to its flag the same way.
func completionWords(args []string) []string {
	if len(args) < 3 || args[0] != cobra.ShellCompRequestCmd {
		return args
	}
	n := len(args)
	long := optionalValueFlags[args[n-2]]
	if long == "" || strings.HasPrefix(args[n-1], "-") {
		return args
	}
	return append(slices.Clone(args[:n-2]), long+"="+args[n-1])
}

// nameCompletion completes a flag's value from the names list returns, the
// ones starting with what is typed; an error (no config yet) offers none.
func nameCompletion(list func() ([]string, error)) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, typed string) ([]cobra.Completion, cobra.ShellCompDirective) {
		names, err := list()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, n := range names {
			if strings.HasPrefix(n, typed) {
				out = append(out, n)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// registerCompletions completes the values of the flags that name a
// model, role, session, agent, RAG, macro or skill from the user's files,
// when the shell asks.
func registerCompletions(cmd *cobra.Command, f *Factory) {
	paths := func(names func(config.Paths) ([]string, error)) cobra.CompletionFunc {
		return nameCompletion(func() ([]string, error) {
			p, err := f.Paths()
			if err != nil {
				return nil, err
			}
			return names(p)
		})
	}
	_ = cmd.RegisterFlagCompletionFunc("model", nameCompletion(func() ([]string, error) {
		cfg, err := f.Config()
		if err != nil {
			return nil, err
		}
		return llm.ChatModelIDs(cfg), nil
	}))
	_ = cmd.RegisterFlagCompletionFunc("role", paths(func(p config.Paths) ([]string, error) {
		return role.List(p.RolesDir, assets.Roles()), nil
	}))
	_ = cmd.RegisterFlagCompletionFunc("session", paths(func(p config.Paths) ([]string, error) {
		return session.List(p.SessionsDir)
	}))
	_ = cmd.RegisterFlagCompletionFunc("agent", paths(func(p config.Paths) ([]string, error) {
		var names []string
		for _, e := range agent.List(p.AgentsDir, f.Env) {
			if e.Err == nil {
				names = append(names, e.Name)
			}
		}
		return names, nil
	}))
	_ = cmd.RegisterFlagCompletionFunc("rag", paths(func(p config.Paths) ([]string, error) {
		return config.Names(".yaml", p.RagsDir), nil
	}))
	_ = cmd.RegisterFlagCompletionFunc("macro", paths(func(p config.Paths) ([]string, error) {
		return config.Names(".yaml", filepath.Join(p.WorkspaceDir, "macros"), p.MacrosDir), nil
	}))
	_ = cmd.RegisterFlagCompletionFunc("skill", paths(func(p config.Paths) ([]string, error) {
		st := convo.New(convo.Deps{Paths: p})
		entries, _ := st.SkillCatalog().Installed(st.SkillDirs())
		names := make([]string, 0, len(entries))
		for _, e := range entries {
			names = append(names, e.Name)
		}
		return names, nil
	}))
	_ = cmd.RegisterFlagCompletionFunc("shell-integration", nameCompletion(func() ([]string, error) {
		return slices.Sorted(maps.Keys(assets.ShellFiles)), nil
	}))
	_ = cmd.RegisterFlagCompletionFunc("completions", nameCompletion(func() ([]string, error) { return completionShells, nil }))
}

// newCompletionCmd is `coyote completion SHELL`, cobra's usual spelling of
// --completions. Other words after "completion" are a prompt, as in the
// original, which has no subcommands.
func newCompletionCmd(f *Factory, opts *rootOptions, runF func(context.Context, *rootOptions) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:       "completion bash|elvish|fish|nushell|powershell|zsh",
		Short:     "Print the shell completion script (same as --completions SHELL)",
		Hidden:    true,
		Args:      cobra.ArbitraryArgs,
		ValidArgs: completionShells,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 && slices.Contains(cmd.ValidArgs, args[0]) {
				return runCompletions(cmd, f, args[0])
			}
			opts.Text = append([]string{"completion"}, args...)
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runPrompt(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().SetInterspersed(false)
	return cmd
}

// runShellIntegration prints a shell's Alt+E widget (assets/shell).
func runShellIntegration(f *Factory, shell string) error {
	script, ok := assets.ShellIntegration(shell)
	if !ok {
		names := slices.Sorted(maps.Keys(assets.ShellFiles))
		return &UsageError{Err: fmt.Errorf("--shell-integration %q: choose among %s", shell, strings.Join(names, ", "))}
	}
	_, err := f.IO.Out.Write(script)
	return err
}
