package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// flagGroups are the headings of --help and the flags under each, in the
// order a user looks for them (as the original groups them). Every flag of
// the root command is in exactly one group; a test keeps it so, so a new
// flag joins its group here.
var flagGroups = []struct {
	title string
	flags []string
}{
	{"Input", []string{"model", "prompt", "role", "execute", "code", "file", "no-stream", "raw-markdown", "dry-run",
		"no-workspace-mcp", "no-workspace-macros", "no-workspace-instructions", "workspace-instructions-file", "trust-workspace", "untrust-workspace", "dangerously-skip-permissions"}},
	{"Sessions and memory", []string{"session", "empty-session", "save-session", "init-instructions", "no-memory", "init-memory", "skill"}},
	{"Agents, RAG and macros", []string{"agent", "agent-variable", "rag", "rebuild-rag", "macro"}},
	{"Lists", []string{"list-models", "refresh", "list-roles", "list-sessions", "list-agents", "list-rags", "list-macros", "list-skills", "list-plugins"}},
	{"Install", []string{"install", "install-from", "filter", "install-force", "update", "force", "sync-models"}},
	{"Vault (each alone on the command line)", []string{"add-secret", "get-secret", "update-secret", "delete-secret", "list-secrets"}},
	{"Auth", []string{"authenticate", "auth-mcp"}},
	{"MCP servers", []string{"mcp-add", "mcp-remove", "mcp-list", "mcp-get", "transport", "url", "scope", "env", "header", "cwd",
		"client-id", "client-secret", "callback-port", "redirect-host", "mcp-force"}},
	{"Headless and editors", []string{"headless", "output-format", "acp-server"}},
	{"Sandbox", []string{"sandbox", "fresh", "sandbox-list", "sandbox-remove", "tool-sandbox"}},
	{"Diagnostics and shell", []string{"info", "build-tools", "tail-logs", "disable-log-colors", "completions", "shell-integration", "version", "help"}},
}

// rootHelp prints the root command's help: the description, usage, the
// commands, then the flags under their headings, one line each.
func rootHelp(cmd *cobra.Command, w io.Writer) {
	var b strings.Builder
	if cmd.Long != "" {
		b.WriteString(strings.TrimRight(cmd.Long, "\n") + "\n\n")
	}
	b.WriteString("Usage:\n  coyote [flags] [TEXT...]\n  coyote [command]\n\nCommands:\n")
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			fmt.Fprintf(&b, "  %-14s %s\n", c.Name(), c.Short)
		}
	}
	flags := cmd.Flags()
	type line struct{ left, usage string }
	var groups [][]line
	width := 0
	for _, g := range flagGroups {
		var lines []line
		for _, name := range g.flags {
			f := flags.Lookup(name)
			if f == nil {
				continue
			}
			l := line{left: flagLeft(f), usage: flagUsage(f)}
			width = max(width, len(l.left))
			lines = append(lines, l)
		}
		groups = append(groups, lines)
	}
	for i, g := range flagGroups {
		if len(groups[i]) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n%s:\n", g.title)
		for _, l := range groups[i] {
			fmt.Fprintf(&b, "  %-*s  %s\n", width, l.left, l.usage)
		}
	}
	b.WriteString("\nRun `coyote plugins --help` for the plugins command.\n")
	_, _ = io.WriteString(w, b.String())
}

// flagLeft is a flag's names and value placeholder: "-m, --model ID",
// "-s, --session [NAME]" for a flag whose value is optional.
func flagLeft(f *pflag.Flag) string {
	left := "    --" + f.Name
	if f.Shorthand != "" {
		left = "-" + f.Shorthand + ", --" + f.Name
	}
	varname, _ := pflag.UnquoteUsage(f)
	switch {
	case f.Value.Type() == "bool":
	case f.NoOptDefVal != "":
		left += " [" + varname + "]"
	case varname != "":
		left += " " + varname
	}
	return left
}

// flagUsage is a flag's description with its placeholder quotes removed.
func flagUsage(f *pflag.Flag) string {
	_, usage := pflag.UnquoteUsage(f)
	if f.Name == "help" {
		return "show this help"
	}
	return usage
}
