package cli

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/coyote-cli/coyote/assets"
	"github.com/coyote-cli/coyote/kernel/llm"
	"github.com/coyote-cli/coyote/kernel/role"
)

// runCompletions prints the completion script of a shell (the original's
// --completions SHELL; `coyote completion SHELL` does the same).
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
	}
	return &UsageError{Err: fmt.Errorf("--completions %q: choose bash, zsh, fish or powershell", shell)}
}

// registerCompletions completes model ids and role names from the user's
// files, when the shell asks.
func registerCompletions(cmd *cobra.Command, f *Factory) {
	_ = cmd.RegisterFlagCompletionFunc("model", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		cfg, err := f.Config()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return llm.ChatModelIDs(cfg), cobra.ShellCompDirectiveNoFileComp
	})
	_ = cmd.RegisterFlagCompletionFunc("role", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		p, err := f.Paths()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return role.List(p.RolesDir, assets.Roles()), cobra.ShellCompDirectiveNoFileComp
	})
	_ = cmd.RegisterFlagCompletionFunc("shell-integration", cobra.FixedCompletions(slices.Sorted(maps.Keys(assets.ShellFiles)), cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("completions", cobra.FixedCompletions([]string{"bash", "zsh", "fish", "powershell"}, cobra.ShellCompDirectiveNoFileComp))
}

// newCompletionCmd is `coyote completion SHELL`, cobra's usual spelling of
// --completions. Other words after "completion" are a prompt, as in the
// original, which has no subcommands.
func newCompletionCmd(f *Factory, opts *rootOptions, runF func(context.Context, *rootOptions) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:       "completion bash|zsh|fish|powershell",
		Short:     "Print the shell completion script (same as --completions SHELL)",
		Hidden:    true,
		Args:      cobra.ArbitraryArgs,
		ValidArgs: []string{"bash", "zsh", "fish", "powershell"},
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
