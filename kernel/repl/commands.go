package repl

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/coyote-cli/coyote/kernel/convo"
	"github.com/coyote-cli/coyote/kernel/tools"
)

// commands is the registry's content, in .help order.
func commands() []*Command {
	return []*Command{
		{Name: ".help", Help: "Show this help", run: (*REPL).cmdHelp},
		{Name: ".info", Args: "[role|session|rag|agent|tools|todo|skills]", Help: "Show the settings, their values and sources", run: (*REPL).cmdInfo},
		{Name: ".model", Args: "<id>", Help: "Change the model", Complete: completeModels, run: (*REPL).cmdModel},
		{Name: ".prompt", Args: "<text>", Help: "Use text as a temporary role", Not: StSession, run: (*REPL).cmdPrompt},
		{Name: ".role", Args: "<name> [text]", Help: "Use a role (a new name creates it); with text, ask once with it", Not: StSession, Complete: completeRoles, run: (*REPL).cmdRole},
		{Name: ".info role", Help: "Show the active role", Need: StRole, run: (*REPL).cmdInfoRole},
		{Name: ".edit role", Help: "Edit the active role in $EDITOR", Need: StRole, Not: StSession, run: (*REPL).cmdEditRole},
		{Name: ".save role", Args: "[name]", Help: "Save the active role to roles/<name>.md", Need: StRole, run: (*REPL).cmdSaveRole},
		{Name: ".exit role", Help: "Leave the active role", Need: StRole, Not: StSession, run: (*REPL).cmdExitRole},
		{Name: ".session", Args: "[name]", Help: "Start or load a session", Not: StSession, Complete: completeSessions, run: (*REPL).cmdSession},
		{Name: ".empty session", Help: "Clear the session's messages", Need: StSession | StNonEmpty, run: (*REPL).cmdEmptySession},
		{Name: ".compress session", Help: "Summarise the session's messages to save tokens", Need: StSession | StNonEmpty, run: (*REPL).cmdCompressSession},
		{Name: ".info session", Help: "Show the active session", Need: StSession, run: (*REPL).cmdInfoSession},
		{Name: ".edit session", Help: "Edit the active session's file in $EDITOR", Need: StSession, run: (*REPL).cmdEditSession},
		{Name: ".save session", Args: "[name]", Help: "Save the active session", Need: StSession, run: (*REPL).cmdSaveSession},
		{Name: ".exit session", Help: "Leave the active session", Need: StSession, run: (*REPL).cmdExitSession},
		{Name: ".undo", Help: "Drop the last exchange and put its question back on the line", Need: StSession | StNonEmpty, run: (*REPL).cmdUndo},
		{Name: ".fork", Args: "[name]", Help: "Save the session and continue in a copy", Need: StSession | StNonEmpty, run: (*REPL).cmdFork},
		{Name: ".agent", Args: "<name> [session] [key=value...]", Help: "Start an agent (its instructions, tools, variables and documents)", Not: StAgent | StSession, Complete: completeAgent, run: (*REPL).cmdAgent},
		{Name: ".starter", Args: "[n]", Help: "List the agent's conversation starters, or send starter n", Need: StAgent, Complete: completeStarter, run: (*REPL).cmdStarter},
		{Name: ".info agent", Help: "Show the active agent", Need: StAgent, run: (*REPL).cmdInfoAgent},
		{Name: ".edit agent-config", Help: "Edit the agent's config.yaml in $EDITOR", Need: StAgent, run: (*REPL).cmdEditAgentConfig},
		{Name: ".exit agent", Help: "Leave the agent (and its session)", Need: StAgent, run: (*REPL).cmdExitAgent},
		{Name: ".rag", Args: "[name] | attach <name>", Help: "Use a RAG (a new name builds one from your documents; attach: query an external collection)", Not: StRAG, Complete: completeRAGs, run: (*REPL).cmdRAG},
		{Name: ".rebuild rag", Help: "Read and embed every document of the RAG again", Need: StRAG, run: (*REPL).cmdRebuildRAG},
		{Name: ".sources rag", Help: "Show the sources the last answer was given", Need: StRAG, run: (*REPL).cmdSourcesRAG},
		{Name: ".info rag", Help: "Show the active RAG", Need: StRAG, run: (*REPL).cmdInfoRAG},
		{Name: ".edit rag-docs", Help: "Edit the RAG's documents in $EDITOR, then re-sync", Need: StRAG, run: (*REPL).cmdEditRAGDocs},
		{Name: ".exit rag", Help: "Stop using the RAG", Need: StRAG, run: (*REPL).cmdExitRAG},
		{Name: ".file", Args: "<path>... [-- text]", Help: "Ask about files, directories, globs, URLs or `commands` (%% is the last reply)", run: (*REPL).cmdFile},
		{Name: ".info todo", Help: "Show the todo list", run: (*REPL).cmdInfoTodo},
		{Name: ".clear", Args: "todo", Help: "Clear the todo list", run: (*REPL).cmdClear},
		{Name: ".skill", Args: "[loaded | load <name> | unload <name> | <name>]", Help: "List the loaded skills, load or unload one, or edit a skill (a new name creates it)", Complete: completeSkill, run: (*REPL).cmdSkill},
		{Name: ".edit skill", Args: "<name>", Help: "Edit a skill's SKILL.md in $EDITOR", Complete: completeEditSkill, run: (*REPL).cmdEditSkill},
		{Name: ".info skills", Help: "Show the skills available here, the loaded ones marked", run: (*REPL).cmdInfoSkills},
		{Name: ".continue", Help: "Continue the last reply", run: (*REPL).cmdContinue},
		{Name: ".regenerate", Help: "Ask for the last reply again", run: (*REPL).cmdRegenerate},
		{Name: ".recover", Args: "[text]", Help: "Send a turn that failed or was cancelled again", Need: StSession, run: (*REPL).cmdRecover},
		{Name: ".copy", Help: "Copy the last reply to the clipboard", run: (*REPL).cmdCopy},
		{Name: ".set", Args: "<key> <value|null>", Help: "Change a setting for this run", Complete: completeSet, run: (*REPL).cmdSet},
		{Name: ".reasoning", Args: "<level>", Help: "Set the reasoning effort of the model", Need: StReasoning, Complete: completeReasoning, run: (*REPL).cmdReasoning},
		{Name: ".list", Args: "<roles|sessions|models|macros|skills|tools|agents|rags|mcp-servers>", Help: "List things, the active one marked", Complete: completeList, run: (*REPL).cmdList},
		{Name: ".delete", Args: "<role|session|rag|macro|skill|agent-data>", Help: "Delete roles, sessions, RAGs, macros, skills or agents' sessions and RAGs (choose from a list)", Complete: completeDelete, run: (*REPL).cmdDelete},
		{Name: ".tool", Args: "<enable|disable> <name>", Help: "Offer a tool to the model, or stop offering it", Need: StFunctionCall, Complete: completeTool, run: (*REPL).cmdTool},
		{Name: ".mcp", Args: "<enable|disable|auth> <server>", Help: "Enable or disable an MCP server here, or authorize a remote one (OAuth)", Complete: completeMCP, run: (*REPL).cmdMCP},
		{Name: ".workspace", Args: "[trust|untrust]", Help: "Show the workspace's files that can run commands or use secrets, approve them, or forget the answers", Complete: completeWorkspace, run: (*REPL).cmdWorkspace},
		{Name: ".macro", Args: "<name> [args] | enable|disable <name>", Help: "Run a macro (a custom command), write a new one, or enable/disable one", Complete: completeMacro, run: (*REPL).cmdMacro},
		{Name: ".edit config", Help: "Edit config.yaml in $EDITOR", run: (*REPL).cmdEditConfig},
		{Name: ".edit mcp-config", Help: "Edit the MCP servers (functions/mcp.json) in $EDITOR", run: (*REPL).cmdEditMCPConfig},
		{Name: ".authenticate", Help: "Log the current model's client in with OAuth (a client with auth: oauth)", run: (*REPL).cmdAuthenticate},
		{Name: ".vault", Args: "<add|get|update|delete <name>|list>", Help: "Manage the secrets vault", Complete: completeVault, run: (*REPL).cmdVault},
		{Name: ".exit", Args: "[role|session|rag|agent]", Help: "Leave the REPL (or the role, session, RAG or agent)", run: (*REPL).cmdExit},
	}
}

func (r *REPL) cmdHelp(*call) error {
	_, err := fmt.Fprint(r.out, r.reg.help(r.state())+r.macroHelp())
	return err
}

func (r *REPL) cmdInfo(c *call) error {
	switch arg := strings.TrimSpace(c.raw); arg {
	case "":
	case "role", "session", "rag", "agent", "todo", "skills":
		return r.dispatch(c.ctx, ".info "+arg)
	case "tools":
		return r.infoTools()
	default:
		return fmt.Errorf(".info %s: want role, session, rag, agent, tools, todo or skills", arg)
	}
	return convo.WriteInfo(r.out, r.conv.Info())
}

func (r *REPL) cmdEditConfig(*call) error {
	if err := r.noEditorInMacro(); err != nil {
		return err
	}
	path := r.conv.Paths().ConfigFile
	if err := r.editFile(path); err != nil {
		return err
	}
	r.println("Saved. The changes take effect the next time Coyote starts.")
	return nil
}

func (r *REPL) cmdVault(c *call) error {
	if r.o.Vault == nil {
		return errors.New("the vault is not available")
	}
	switch {
	case len(c.args) == 1 && c.args[0] == "list":
		return r.o.Vault("list", "")
	case len(c.args) == 2 && slices.Contains([]string{"add", "get", "update", "delete"}, c.args[0]):
		return r.o.Vault(c.args[0], c.args[1])
	}
	return errors.New("usage: .vault add|get|update|delete <name>, or .vault list")
}

// cmdAuthenticate is .authenticate: the OAuth login of the current
// model's client, as --authenticate CLIENT.
func (r *REPL) cmdAuthenticate(c *call) error {
	if len(c.args) > 0 {
		return errors.New("usage: .authenticate (it logs in the current model's client; switch with .model first)")
	}
	if r.o.Authenticate == nil {
		return errors.New("logins are not available in this run")
	}
	t, err := r.conv.Target()
	if t.Client == nil {
		return err
	}
	if !t.Client.UsesOAuth() {
		return fmt.Errorf("client %q does not log in with OAuth: set `auth: oauth` on it in config.yaml", t.Client.Name)
	}
	return r.whileInterruptible(c.ctx, func(ctx context.Context) error {
		return r.o.Authenticate(ctx, t.Client.Name, r.out, func(prompt string) (string, error) { return r.line(prompt) })
	})
}

func (r *REPL) cmdExit(c *call) error {
	switch strings.TrimSpace(c.raw) {
	case "":
		if r.inMacro {
			r.println("(.exit does not leave the REPL from inside a macro)")
			return nil
		}
		r.leave(c.ctx)
		return nil
	case "role", "session", "rag", "agent":
		return r.dispatch(c.ctx, ".exit "+c.raw)
	}
	return fmt.Errorf(".exit %s: want role, session, rag or agent, or nothing to leave the REPL", c.raw)
}

// offered are the functions the model would get now.
func (r *REPL) offered() []*tools.Func {
	t, err := r.conv.Target()
	if err != nil {
		return nil
	}
	fs, _ := r.conv.Offered(t.Model)
	return fs
}

// infoTools shows what the model will see: each function and its
// description.
func (r *REPL) infoTools() error {
	fs := r.offered()
	if len(fs) == 0 {
		t, _ := r.conv.Target()
		switch {
		case !r.conv.Config().Bool("function_calling_support"):
			r.println("No tools: function_calling_support is off.")
		case !t.Model.SupportsFunctionCalling:
			r.printf("No tools: model %s does not support function calling (supports_function_calling in its catalog entry).\n", t.ID())
		default:
			r.println("No tools are enabled: set enabled_tools (a list of tool names, or all).")
		}
		return nil
	}
	tw := tabwriter.NewWriter(r.out, 0, 4, 2, ' ', 0)
	for _, f := range fs {
		desc, _, _ := strings.Cut(f.Description, "\n")
		fmt.Fprintf(tw, "%s\t%s\t%s\n", f.Name, f.Source, desc)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if b := r.conv.Config().String("tool_sandbox"); b != "" {
		r.printf("Tool scripts run sandboxed (%s): only the workspace is writable, no network unless a tool declares # @meta network.\n", b)
	} else {
		r.println("Tool scripts run unsandboxed (tool_sandbox is not set).")
	}
	return nil
}

func (r *REPL) cmdTool(c *call) error {
	if len(c.args) != 2 || (c.args[0] != "enable" && c.args[0] != "disable") {
		return errors.New("usage: .tool enable|disable <name>")
	}
	name := c.args[1]
	sel := r.conv.Selection()
	mapping := sel.Mapping
	if _, ok := r.conv.Tools.Get(name); !ok {
		if _, alias := mapping[name]; !alias {
			return fmt.Errorf("there is no tool or mapping_tools alias named %q (.list tools shows them)", name)
		}
	}
	var current []string
	switch v := sel.Enabled.(type) {
	case []string:
		current = v
	case string:
		current = strings.Split(v, ",")
	}
	if slices.Contains(current, "all") {
		current = nil
		for _, f := range r.conv.Tools.All() {
			if !f.Builtin {
				current = append(current, f.Name)
			}
		}
	}
	names := []string{}
	for _, n := range current {
		if n = strings.TrimSpace(n); n != "" && n != name {
			names = append(names, n)
		}
	}
	if c.args[0] == "enable" {
		names = append(names, name)
	}
	return r.dispatch(c.ctx, ".set enabled_tools "+strconv.Quote(strings.Join(names, ",")))
}

// noEditorInMacro refuses the editor in the middle of a macro.
func (r *REPL) noEditorInMacro() error {
	if r.inMacro {
		return errors.New("a macro cannot open the editor")
	}
	return nil
}
