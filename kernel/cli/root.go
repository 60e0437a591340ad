package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/coyote-cli/coyote/kernel/buildinfo"
)

// rootOptions are the flags of the root command.
type rootOptions struct {
	Model        string
	NoStream     bool
	DryRun       bool
	Files        []string
	Role         string
	Prompt       string
	Execute      bool
	Code         bool
	ListRoles    bool
	Completions  string
	Session      string
	EmptySession bool
	SaveSession  bool
	ListSessions bool
	RawMarkdown  bool
	ListAgents   bool
	ListRags     bool
	ListMacros   bool
	ListModels   bool
	Refresh      bool
	SyncModels   bool
	ListPlugins  bool
	Info         bool
	BuildTools   bool
	Macro        string
	RAG          string
	RebuildRAG   bool
	// ListSkills is --list-skills; Skills are the --skill names, loaded
	// in order before the prompt.
	ListSkills bool
	Skills     []string
	// NoWorkspaceInstructions, InstructionFiles and InitInstructions are
	// --no-workspace-instructions, --workspace-instructions-file (in order)
	// and --init-instructions.
	NoWorkspaceInstructions bool
	InstructionFiles        []string
	InitInstructions        bool
	// NoMemory is --no-memory; InitMemory is --init-memory's scope
	// (global or workspace).
	NoMemory   bool
	InitMemory string
	// Agent is -a NAME; AgentVars are --agent-variable NAME VALUE, as
	// NAME=VALUE.
	Agent     string
	AgentVars []string
	// NoWorkspaceMacros turns off the macros of ./.coyote/macros.
	NoWorkspaceMacros bool
	// SkipPermissions lets tools run without asking for confirmation.
	SkipPermissions bool
	Version         bool
	Text            []string
	Vault           vaultOptions
	// MCP are the MCP server management flags (--mcp-add, …).
	MCP mcpOptions
	// NoWorkspaceMCP turns off the workspace's MCP servers
	// (.coyote/mcp.json, .coyote/.mcp.json, ./.mcp.json).
	NoWorkspaceMCP bool
	// AuthMCP is --auth-mcp: the remote MCP server to authorize.
	AuthMCP string
	// Authenticate is --authenticate: the client to log in with OAuth
	// (authPick without a name).
	Authenticate string
	// TrustWorkspace approves (and remembers) the workspace files this
	// run uses that can run commands or name secrets; UntrustWorkspace
	// forgets every answer about this workspace's files.
	TrustWorkspace, UntrustWorkspace bool
	// Headless is --headless: a prompt with no one to ask (auto-confirm,
	// user__* answered "needs a human", nothing waits on the terminal);
	// OutputFormat is --output-format (text, json). ACPServer is
	// --acp-server (headless, the Agent Client Protocol on stdio).
	Headless     bool
	OutputFormat string
	ACPServer    bool
	// TailLogs is --tail-logs (follow coyote.log), DisableLogColors
	// --disable-log-colors.
	TailLogs, DisableLogColors bool
	// ShellIntegration is --shell-integration SHELL.
	ShellIntegration string
	// Install is --install, --install-from and their modifiers.
	Install installOptions
	// Update is --update [VERSION] and --force.
	Update updateOptions
	// SessionFromWord: -s took the word after it as the session's name
	// (-s's value is optional, as in the original), which the user may
	// have meant as the question.
	SessionFromWord bool
	// Sandbox are the sandbox flags (--sandbox, --fresh, --sandbox-list,
	// --sandbox-remove, --tool-sandbox).
	Sandbox sandboxOptions
}

// NewRootCmd builds the coyote command. runF replaces the prompt run
// function in tests; nil means the real one.
func NewRootCmd(f *Factory, runF func(context.Context, *rootOptions) error) *cobra.Command {
	cmd, _ := newRootCmd(f, runF)
	return cmd
}

func newRootCmd(f *Factory, runF func(context.Context, *rootOptions) error) (*cobra.Command, *rootOptions) {
	opts := &rootOptions{}
	cmd := &cobra.Command{
		Use:   "coyote [flags] [TEXT...]",
		Short: "An all-in-one LLM command-line tool",
		Long: `Coyote sends your text to a large language model and prints the answer as it
arrives. Text on standard input is appended to the text of the arguments.

  coyote "explain the difference between TCP and UDP"
  git diff | coyote "write a commit message for this change"
  coyote -m openai:gpt-4.1 "hello"

Configuration lives in config.yaml in the config directory
($COYOTE_CONFIG_DIR, else $XDG_CONFIG_HOME/coyote, else ~/.config/coyote).`,
		Args:          cobra.ArbitraryArgs,
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Text = args
			f.trustAll = opts.TrustWorkspace
			if err := checkSandboxFlags(cmd.Flags(), &opts.Sandbox); err != nil {
				return err
			}
			if opts.Sandbox.Tool != "" {
				f.toolSandbox = opts.Sandbox.Tool
			}
			switch {
			case opts.Sandbox.launching():
				return runSandbox(cmd.Context(), f, opts)
			case opts.Sandbox.List:
				return runSandboxList(cmd.Context(), f)
			case opts.Sandbox.Remove != "":
				return runSandboxRemove(cmd.Context(), f, opts.Sandbox.Remove)
			case opts.TailLogs:
				return runTailLogs(cmd.Context(), f, opts)
			case opts.ACPServer:
				return runACPServer(cmd.Context(), f, opts)
			case opts.Headless:
				return runHeadless(cmd.Context(), f, opts, runF)
			case opts.OutputFormat != "":
				return &UsageError{Err: errors.New("--output-format goes with --headless")}
			case opts.UntrustWorkspace:
				return runUntrustWorkspace(f, opts, args)
			case opts.Update.active():
				return runUpdate(cmd.Context(), f, &opts.Update, args)
			case opts.Install.active():
				return runInstall(cmd.Context(), f, &opts.Install, args)
			case opts.MCP.active():
				return runMCP(cmd, f, opts, args)
			case opts.AuthMCP != "":
				return runAuthMCP(cmd.Context(), f, opts.AuthMCP, opts.NoWorkspaceMCP, args)
			case opts.Authenticate != "":
				return runAuthenticate(cmd.Context(), f, opts.Authenticate, args)
			case opts.Vault.active():
				return runVault(f, &opts.Vault, args)
			case opts.Version:
				_, err := fmt.Fprintf(f.IO.Out, "coyote %s\n", buildinfo.String())
				return err
			case opts.ListPlugins:
				return runPlugins(cmd.Context(), f)
			case opts.ListModels:
				return runListModels(cmd.Context(), f, opts.Refresh)
			case opts.Refresh:
				return &UsageError{Err: errors.New("--refresh goes with --list-models")}
			case opts.SyncModels:
				return runSyncModels(cmd.Context(), f)
			case opts.ShellIntegration != "":
				return runShellIntegration(f, opts.ShellIntegration)
			case opts.Completions != "":
				return runCompletions(cmd, f, opts.Completions)
			case opts.Info:
				return runInfo(cmd.Context(), f, opts)
			case opts.InitInstructions:
				return runInitInstructions(f)
			case opts.InitMemory != "":
				return runInitMemory(f, opts.InitMemory)
			case opts.BuildTools:
				return runBuildTools(cmd.Context(), f, opts)
			case opts.ListRoles:
				return runListRoles(f)
			case opts.ListSessions:
				return runListSessions(f)
			case opts.ListAgents:
				return runListAgents(f)
			case opts.ListRags:
				return runListRags(f)
			case opts.ListMacros:
				return runListMacros(f, opts)
			case opts.ListSkills:
				return runListSkills(f)
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runPrompt(cmd.Context(), f, opts)
		},
	}
	// Flags end at the first word of the text, so a prompt may contain
	// words that look like flags: coyote what does ls -la do
	cmd.Flags().SetInterspersed(false)
	fl := cmd.PersistentFlags()
	fl.StringVarP(&opts.Model, "model", "m", "", "use the model `ID` (client:model, or a client's name for its first model)")
	fl.BoolVarP(&opts.NoStream, "no-stream", "S", false, "wait for the whole answer instead of streaming it")
	fl.StringArrayVarP(&opts.Files, "file", "f", nil, "add a `SOURCE` to the prompt: a file, directory, glob, URL, command or loader:x (repeatable)")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "print what would be sent to the model, and send nothing")
	fl.StringVarP(&opts.Role, "role", "r", "", "use the role `NAME` (roles/NAME.md or a built-in one)")
	fl.StringVar(&opts.Prompt, "prompt", "", "use `TEXT` as the system prompt (a temporary role)")
	fl.BoolVarP(&opts.Execute, "execute", "e", false, "turn the request into a shell command, then execute, revise, describe or copy it")
	fl.BoolVarP(&opts.Code, "code", "c", false, "answer with code only (only the code when piped)")
	fl.StringVarP(&opts.Session, "session", "s", "", "continue or start the session `NAME` (without one: the temporary session)")
	fl.Lookup("session").NoOptDefVal = "temp"
	fl.BoolVar(&opts.EmptySession, "empty-session", false, "clear the session's messages before the prompt")
	fl.BoolVar(&opts.SaveSession, "save-session", false, "save the session at the end, whatever save_session says")
	fl.BoolVar(&opts.RawMarkdown, "raw-markdown", false, "show the answer's markdown as written (code is still highlighted)")
	cmd.Flags().BoolVar(&opts.ListModels, "list-models", false, "list the configured chat models, one per line")
	cmd.Flags().BoolVar(&opts.Refresh, "refresh", false, "with --list-models: ask the providers for their models again instead of using the day-old cache")
	cmd.Flags().BoolVar(&opts.SyncModels, "sync-models", false, "fetch the latest model catalog from sync_models_url into models-override.yaml")
	cmd.Flags().BoolVar(&opts.ListRoles, "list-roles", false, "list the roles, one per line")
	cmd.Flags().BoolVar(&opts.ListSessions, "list-sessions", false, "list the saved sessions, one per line")
	cmd.Flags().BoolVar(&opts.ListAgents, "list-agents", false, "list the agents, one per line")
	cmd.Flags().BoolVar(&opts.ListRags, "list-rags", false, "list the RAGs, one per line")
	cmd.Flags().BoolVar(&opts.ListMacros, "list-macros", false, "list the macros, one per line")
	cmd.Flags().BoolVar(&opts.ListSkills, "list-skills", false, "list the skills, one per line")
	cmd.Flags().BoolVar(&opts.ListPlugins, "list-plugins", false, "list the plugins found (as the plugins command does)")
	cmd.Flags().StringVar(&opts.Vault.Add, "add-secret", "", "add the secret `NAME` to the vault (its value is asked for, or read from stdin)")
	cmd.Flags().StringVar(&opts.Vault.Get, "get-secret", "", "print the secret `NAME` from the vault")
	cmd.Flags().StringVar(&opts.Vault.Update, "update-secret", "", "change the secret `NAME` of the vault")
	cmd.Flags().StringVar(&opts.Vault.Delete, "delete-secret", "", "delete the secret `NAME` from the vault")
	cmd.Flags().BoolVar(&opts.Vault.List, "list-secrets", false, "list the names of the vault's secrets")
	cmd.MarkFlagsMutuallyExclusive("add-secret", "get-secret", "update-secret", "delete-secret", "list-secrets")
	cmd.Flags().BoolVar(&opts.Info, "info", false, "show every setting, its value and where it comes from, and Coyote's files")
	cmd.Flags().BoolVarP(&opts.Version, "version", "V", false, "print the version")
	fl.StringVar(&opts.RAG, "rag", "", "answer from the RAG `NAME` (rags/NAME.yaml): questions get its best passages")
	fl.BoolVar(&opts.RebuildRAG, "rebuild-rag", false, "with --rag: read and embed its documents again (then exit, without text)")
	fl.StringVarP(&opts.Agent, "agent", "a", "", "start the agent `NAME` (agents/NAME/config.yaml): its instructions, tools and documents")
	fl.StringArrayVar(&opts.AgentVars, "agent-variable", nil, "set the agent's variable `NAME VALUE` (two words; repeatable)")
	fl.StringArrayVar(&opts.Skills, "skill", nil, "load the skill `NAME` (skills/NAME/SKILL.md) before the prompt (repeatable; a new name opens $EDITOR)")
	fl.StringVar(&opts.Macro, "macro", "", "run the macro `NAME` (a custom command) with the text as its arguments")
	fl.BoolVar(&opts.NoWorkspaceMacros, "no-workspace-macros", false, "ignore the macros of ./.coyote/macros")
	fl.BoolVar(&opts.NoWorkspaceMCP, "no-workspace-mcp", false, "ignore the workspace's MCP servers (.coyote/mcp.json, ./.mcp.json, …)")
	fl.BoolVar(&opts.NoWorkspaceInstructions, "no-workspace-instructions", false, "leave out the workspace instruction files (COYOTE.md, AGENTS.md, …)")
	fl.StringArrayVar(&opts.InstructionFiles, "workspace-instructions-file", nil, "look for the instruction file `NAME` instead of COYOTE.md, AGENTS.md, … (repeatable, in order)")
	cmd.Flags().BoolVar(&opts.InitInstructions, "init-instructions", false, "write a COYOTE.md for this directory to fill in (never replacing one), then exit")
	fl.BoolVar(&opts.NoMemory, "no-memory", false, "leave out the memory (MEMORY.md) and its functions for this run")
	cmd.Flags().StringVar(&opts.InitMemory, "init-memory", "", "set up the `SCOPE` memory, global or workspace (its MEMORY.md; the workspace one git-ignored), then exit")
	fl.BoolVar(&opts.TrustWorkspace, "trust-workspace", false, "approve the workspace's files that run commands or name secrets (its mcp.json, macros), as they are now")
	cmd.Flags().BoolVar(&opts.UntrustWorkspace, "untrust-workspace", false, "forget the approvals and refusals of this workspace's files, then exit")
	addMCPFlags(cmd, f, &opts.MCP)
	addInstallFlags(cmd, &opts.Install)
	addUpdateFlags(cmd, &opts.Update)
	fl.StringVar(&opts.AuthMCP, "auth-mcp", "", "authorize the remote MCP server `SERVER` (OAuth in the browser), then exit")
	cmd.Flags().StringVar(&opts.Authenticate, "authenticate", "", "log the client `CLIENT` in (auth: oauth: a subscription login in the browser), then exit; without a name, the only OAuth client or a choice")
	cmd.Flags().Lookup("authenticate").NoOptDefVal = authPick
	cmd.Flags().BoolVar(&opts.BuildTools, "build-tools", false, "write the wrappers of the tool scripts into functions/bin (with -a: the agent's, into agents/NAME/bin)")
	fl.BoolVar(&opts.SkipPermissions, "dangerously-skip-permissions", false, "let tools run commands and change files without asking (sets AUTO_CONFIRM)")
	cmd.Flags().StringVar(&opts.Sandbox.Name, "sandbox", "", "run coyote (with the rest of the command line) inside the sandbox `NAME` (default: this directory's name)")
	cmd.Flags().Lookup("sandbox").NoOptDefVal = sandboxHere
	cmd.Flags().BoolVar(&opts.Sandbox.Fresh, "fresh", false, "with --sandbox: start the sandbox from nothing (no state, no OAuth tokens)")
	cmd.Flags().BoolVar(&opts.Sandbox.List, "sandbox-list", false, "list the sandboxes, then exit")
	cmd.Flags().StringVar(&opts.Sandbox.Remove, "sandbox-remove", "", "remove the sandbox `NAME`, then exit")
	fl.StringVar(&opts.Sandbox.Tool, "tool-sandbox", "", "run every tool script call inside the sandbox `BACKEND` (default bwrap): only the workspace is writable (tool_sandbox)")
	fl.Lookup("tool-sandbox").NoOptDefVal = "bwrap"

	// `coyote help me write a regex` is a prompt, as in the original: no
	// help subcommand (--help and -h still work).
	cmd.SetHelpCommand(&cobra.Command{Use: "no-help-command", Hidden: true})
	cobraHelp := cmd.HelpFunc() // subcommands keep cobra's own help
	cmd.SetHelpFunc(func(c *cobra.Command, args []string) {
		if c != cmd {
			cobraHelp(c, args)
			return
		}
		rootHelp(c, c.OutOrStdout())
	})
	cmd.CompletionOptions.DisableDefaultCmd = true
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &UsageError{Err: err}
	})
	cmd.SetOut(f.IO.Out)
	cmd.SetErr(f.IO.ErrOut)

	fl.BoolVar(&opts.Headless, "headless", false, "run the prompt with no one at the terminal: tools go ahead without asking, questions get a \"needs a human\" answer, only the answer on stdout")
	fl.StringVar(&opts.OutputFormat, "output-format", "", "with --headless: `FORMAT` text (the answer) or json (one object: answer, model, usage, tool calls, todos, exit reason)")
	cmd.Flags().BoolVar(&opts.ACPServer, "acp-server", false, "serve the Agent Client Protocol on stdin/stdout for an editor (Zed, …); logs go to stderr")
	cmd.Flags().BoolVar(&opts.TailLogs, "tail-logs", false, "follow coyote.log, coloured by level (COYOTE_LOG_FILTER picks a module or plugin)")
	cmd.Flags().BoolVar(&opts.DisableLogColors, "disable-log-colors", false, "with --tail-logs: no colours")
	cmd.Flags().StringVar(&opts.Completions, "completions", "", "print the completion script of `SHELL`: bash, zsh, fish, nushell, elvish or powershell (COMPLETE=SHELL coyote does the same)")
	cmd.Flags().StringVar(&opts.ShellIntegration, "shell-integration", "", "print the Alt+E widget of `SHELL` (bash, zsh, fish, nushell, elvish, powershell): it turns the command line into a command from coyote -e")
	registerCompletions(cmd, f)
	cmd.AddCommand(newPluginsCmd(f, opts, runF), newCompletionCmd(f, opts, runF))
	return cmd, opts
}

// Execute runs the command line and returns the error to report. It stops
// every plugin before returning.
func Execute(ctx context.Context, f *Factory, args []string) error {
	defer f.Close()
	cmd, opts := newRootCmd(f, nil)
	if f.Env != nil {
		args = completeEnv(f.Env("COMPLETE"), args)
	}
	args = completionWords(args)
	args, opts.SessionFromWord = joinOptionalValues(cmd.LocalFlags(), args)
	opts.Sandbox.args = args
	if err := f.startSandboxForward(); err != nil {
		return err
	}
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(ctx)
	if err != nil && !errors.Is(err, context.Canceled) {
		f.Logger().Error("command failed", "args", strings.Join(redactArgs(args), " "), "error", err)
	}
	return err
}

// redactArgs keeps the shape of a command line for the log without the
// prompt text, which may be private.
func redactArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if strings.HasPrefix(a, "-") {
			// --flag=value keeps the flag only: the value may be a secret
			// (--client-secret=…, --env=KEY=…).
			out[i], _, _ = strings.Cut(a, "=")
		} else {
			out[i] = "…"
		}
	}
	return out
}
