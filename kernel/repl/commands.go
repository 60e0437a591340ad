package repl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/coyote-cli/coyote/assets"
	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/convo"
	"github.com/coyote-cli/coyote/kernel/input"
	"github.com/coyote-cli/coyote/kernel/llm"
	"github.com/coyote-cli/coyote/kernel/macro"
	"github.com/coyote-cli/coyote/kernel/role"
	"github.com/coyote-cli/coyote/kernel/session"
	"github.com/coyote-cli/coyote/kernel/tools"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// commands is the registry's content, in .help order.
func commands() []*Command {
	return []*Command{
		{Name: ".help", Help: "Show this help", run: (*REPL).cmdHelp},
		{Name: ".info", Args: "[role|session|rag|tools]", Help: "Show the settings, their values and sources", run: (*REPL).cmdInfo},
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
		{Name: ".rag", Args: "[name] | attach <name>", Help: "Use a RAG (a new name builds one from your documents; attach: query an external collection)", Not: StRAG, Complete: completeRAGs, run: (*REPL).cmdRAG},
		{Name: ".rebuild rag", Help: "Read and embed every document of the RAG again", Need: StRAG, run: (*REPL).cmdRebuildRAG},
		{Name: ".sources rag", Help: "Show the sources the last answer was given", Need: StRAG, run: (*REPL).cmdSourcesRAG},
		{Name: ".info rag", Help: "Show the active RAG", Need: StRAG, run: (*REPL).cmdInfoRAG},
		{Name: ".edit rag-docs", Help: "Edit the RAG's documents in $EDITOR, then re-sync", Need: StRAG, run: (*REPL).cmdEditRAGDocs},
		{Name: ".exit rag", Help: "Stop using the RAG", Need: StRAG, run: (*REPL).cmdExitRAG},
		{Name: ".file", Args: "<path>... [-- text]", Help: "Ask about files, directories, globs, URLs or `commands` (%% is the last reply)", run: (*REPL).cmdFile},
		{Name: ".continue", Help: "Continue the last reply", run: (*REPL).cmdContinue},
		{Name: ".regenerate", Help: "Ask for the last reply again", run: (*REPL).cmdRegenerate},
		{Name: ".recover", Args: "[text]", Help: "Send a turn that failed or was cancelled again", Need: StSession, run: (*REPL).cmdRecover},
		{Name: ".copy", Help: "Copy the last reply to the clipboard", run: (*REPL).cmdCopy},
		{Name: ".set", Args: "<key> <value|null>", Help: "Change a setting for this run", Complete: completeSet, run: (*REPL).cmdSet},
		{Name: ".reasoning", Args: "<level>", Help: "Set the reasoning effort of the model", Need: StReasoning, Complete: completeReasoning, run: (*REPL).cmdReasoning},
		{Name: ".list", Args: "<roles|sessions|models|macros|tools|agents|rags|mcp-servers>", Help: "List things, the active one marked", Complete: completeList, run: (*REPL).cmdList},
		{Name: ".delete", Args: "<role|session|rag>", Help: "Delete roles, sessions or RAGs (choose from a list)", Complete: completeDelete, run: (*REPL).cmdDelete},
		{Name: ".tool", Args: "<enable|disable> <name>", Help: "Offer a tool to the model, or stop offering it", Need: StFunctionCall, Complete: completeTool, run: (*REPL).cmdTool},
		{Name: ".mcp", Args: "<enable|disable|auth> <server>", Help: "Enable or disable an MCP server here, or authorize a remote one (OAuth)", Complete: completeMCP, run: (*REPL).cmdMCP},
		{Name: ".workspace", Args: "[trust|untrust]", Help: "Show the workspace's files that can run commands or use secrets, approve them, or forget the answers", Complete: completeWorkspace, run: (*REPL).cmdWorkspace},
		{Name: ".macro", Args: "<name> [args] | enable|disable <name>", Help: "Run a macro (a custom command), write a new one, or enable/disable one", Complete: completeMacro, run: (*REPL).cmdMacro},
		{Name: ".edit config", Help: "Edit config.yaml in $EDITOR", run: (*REPL).cmdEditConfig},
		{Name: ".edit mcp-config", Help: "Edit the MCP servers (functions/mcp.json) in $EDITOR", run: (*REPL).cmdEditMCPConfig},
		{Name: ".vault", Args: "<add|get|update|delete <name>|list>", Help: "Manage the secrets vault", Complete: completeVault, run: (*REPL).cmdVault},
		{Name: ".exit", Args: "[role|session|rag]", Help: "Leave the REPL (or the role, session or RAG)", run: (*REPL).cmdExit},
	}
}

func (r *REPL) cmdHelp(*call) error {
	_, err := fmt.Fprint(r.out, r.reg.help(r.state())+r.macroHelp())
	return err
}

func (r *REPL) cmdInfo(c *call) error {
	switch arg := strings.TrimSpace(c.raw); arg {
	case "":
	case "role", "session", "rag":
		return r.dispatch(c.ctx, ".info "+arg)
	case "tools":
		return r.infoTools()
	default:
		return fmt.Errorf(".info %s: want role, session, rag or tools", arg)
	}
	return convo.WriteInfo(r.out, r.conv.Info())
}

func (r *REPL) cmdModel(c *call) error {
	if len(c.args) != 1 {
		return errors.New("usage: .model <client:model>")
	}
	id := c.args[0]
	if _, err := llm.Resolve(r.conv.Config(), id); err != nil {
		return err
	}
	r.conv.Model = id
	if s := r.conv.Session; s != nil {
		s.Update(func(st *session.Settings) { st.Model = id })
	}
	return nil
}

func (r *REPL) cmdPrompt(c *call) error {
	if c.raw == "" {
		return errors.New("usage: .prompt <text>")
	}
	r.conv.Role = role.Temp(c.raw)
	return nil
}

func (r *REPL) cmdRole(c *call) error {
	if len(c.args) == 0 {
		return errors.New("usage: .role <name> [text]")
	}
	name := c.args[0]
	ro, err := r.conv.LoadRole(name)
	if errors.Is(err, role.ErrNotFound) {
		if len(c.args) > 1 {
			return err
		}
		if ro, err = r.createRole(name); err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	if len(c.args) > 1 {
		// One question with the role, which is then put back.
		_, text := splitCommand(c.raw)
		prev := r.conv.Role
		r.conv.Role = ro
		defer func() { r.conv.Role = prev }()
		return r.ask(c.ctx, []provider.Part{{Text: text}}, text)
	}
	r.conv.Role = ro
	return nil
}

// createRole writes a new role in the editor and loads it.
func (r *REPL) createRole(name string) (*role.Role, error) {
	if r.inMacro {
		return nil, fmt.Errorf("role %q does not exist (a macro cannot create roles)", name)
	}
	if err := role.CheckName(name); err != nil {
		return nil, err
	}
	dir := r.conv.Paths().RolesDir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, name+".md")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		return nil, err
	}
	if err := r.editFile(path); err != nil {
		return nil, err
	}
	if data, err := os.ReadFile(path); err == nil && strings.TrimSpace(string(data)) == "" {
		os.Remove(path)
		return nil, fmt.Errorf("role %q was not created: its file was left empty", name)
	}
	return r.conv.LoadRole(name)
}

func (r *REPL) cmdInfoRole(*call) error {
	text := r.conv.Role.Encode()
	_, err := r.out.Write(text)
	if err == nil && !bytes.HasSuffix(text, []byte("\n")) {
		r.println()
	}
	return err
}

func (r *REPL) cmdEditRole(*call) error {
	if err := r.noEditorInMacro(); err != nil {
		return err
	}
	ro := r.conv.Role
	if ro.Source == role.SourceTemp || ro.Embedded() {
		edited, err := r.editText(string(ro.Encode()), ".md")
		if err != nil {
			return err
		}
		nr, warnings, err := role.Parse(ro.Name, []byte(edited), role.SourceTemp)
		if err != nil {
			return err
		}
		for _, w := range warnings {
			r.printError(errors.New(w.String()))
		}
		r.conv.Role = nr
		return nil
	}
	path := filepath.Join(r.conv.Paths().RolesDir, ro.Name+".md")
	if err := r.editFile(path); err != nil {
		return err
	}
	nr, err := r.conv.LoadRole(ro.Name)
	if err != nil {
		return err
	}
	r.conv.Role = nr
	return nil
}

func (r *REPL) cmdSaveRole(c *call) error {
	ro := r.conv.Role
	if len(c.args) > 0 {
		if err := role.CheckName(c.args[0]); err != nil {
			return err
		}
		ro.Name = c.args[0]
	} else if ro.Source == role.SourceTemp {
		return errors.New("a temporary role needs a name: .save role <name>")
	}
	path, err := ro.Save(r.conv.Paths().RolesDir)
	if err != nil {
		return err
	}
	r.printf("Saved role %s to %s\n", ro.Name, path)
	return nil
}

func (r *REPL) cmdExitRole(*call) error {
	r.conv.Role = nil
	return nil
}

func (r *REPL) cmdSession(c *call) error {
	name := session.TempName
	if len(c.args) > 0 {
		name = c.args[0]
	}
	s, err := r.conv.OpenSession(name)
	if err != nil {
		return err
	}
	if rn := s.Settings().RoleName; rn != nil && r.conv.Role == nil {
		if ro, err := r.conv.LoadRole(*rn); err == nil {
			r.conv.Role = ro
		}
	}
	if r.conv.Role != nil && s.IsEmpty() {
		name := r.conv.Role.Name
		s.Update(func(st *session.Settings) { st.RoleName = &name })
	}
	if !s.IsEmpty() {
		r.replay()
	}
	return nil
}

func (r *REPL) cmdEmptySession(*call) error {
	r.conv.Session.Empty()
	return nil
}

func (r *REPL) cmdCompressSession(c *call) error {
	s := r.conv.Session
	if !s.HasUserMessages() {
		return errors.New("nothing to compress: the session has no message of yours since the last compression")
	}
	return r.whileInterruptible(c.ctx, func(ctx context.Context) error {
		bound, err := r.conv.Connect(ctx)
		if err != nil {
			return err
		}
		if err := r.conv.Compress(ctx, bound); err != nil {
			return err
		}
		r.println("Compressed the session.")
		return nil
	})
}

func (r *REPL) cmdInfoSession(*call) error {
	s := r.conv.Session
	_, err := r.out.Write(s.Encode())
	return err
}

func (r *REPL) cmdEditSession(*call) error {
	if err := r.noEditorInMacro(); err != nil {
		return err
	}
	s := r.conv.Session
	if s.IsTemp() {
		return errors.New("the temporary session has no file yet: .save session <name> first")
	}
	if s.Dirty() {
		if err := s.Save(); err != nil {
			return err
		}
	}
	if err := r.editFile(s.Path()); err != nil {
		return err
	}
	reloaded, err := r.conv.SessionStore().Load(s.Name())
	if err != nil {
		return err
	}
	r.conv.Session = reloaded
	return nil
}

func (r *REPL) cmdSaveSession(c *call) error {
	s := r.conv.Session
	var err error
	switch {
	case len(c.args) > 0:
		err = s.SaveAs(c.args[0])
	case s.IsTemp():
		return errors.New("the temporary session needs a name: .save session <name>")
	default:
		err = s.Save()
	}
	if err != nil {
		return err
	}
	r.printf("Saved session %s to %s\n", s.Name(), s.Path())
	return nil
}

func (r *REPL) cmdExitSession(c *call) error {
	return r.closeSession(c.ctx)
}

func (r *REPL) cmdUndo(*call) error {
	text, err := r.conv.Session.Undo()
	if err != nil {
		return err
	}
	r.prefill = text
	return nil
}

func (r *REPL) cmdFork(c *call) error {
	name := ""
	if len(c.args) > 0 {
		name = c.args[0]
	}
	f, err := r.conv.Session.Fork(name)
	if err != nil {
		return err
	}
	r.conv.Session = f
	r.printf("Forked to session %s\n", f.Name())
	return nil
}

func (r *REPL) cmdFile(c *call) error {
	srcs, text := c.args, ""
	for i, a := range c.args {
		if a == "--" {
			srcs = c.args[:i]
			_, text, _ = strings.Cut(c.raw, " -- ")
			if strings.HasSuffix(c.raw, " --") {
				text = ""
			}
			break
		}
	}
	if len(srcs) == 0 {
		return errors.New("usage: .file <path>... [-- text]")
	}
	var docs []input.Document
	var rest []string
	for _, s := range srcs {
		if s == "%%" {
			if r.conv.LastReply == nil {
				return errors.New("%% is the last reply, and there is none yet")
			}
			docs = append(docs, input.Document{Name: "last reply", Text: r.conv.LastReply.Text})
			continue
		}
		rest = append(rest, s)
	}
	if len(rest) > 0 {
		loaded, err := input.Load(c.ctx, rest, r.conv.InputOptions())
		if err != nil {
			return err
		}
		docs = append(docs, loaded...)
	}
	return r.ask(c.ctx, input.Parts(docs, text), text)
}

func (r *REPL) cmdContinue(c *call) error {
	if r.conv.LastReply == nil {
		return errors.New("nothing to continue: there is no reply yet")
	}
	last := *r.conv.LastReply
	parts := r.conv.LastInput
	if s := r.conv.Session; s != nil {
		// The session holds the exchange: send it without its reply, and
		// the reply to continue as the assistant's start.
		if _, err := s.Undo(); err != nil {
			return err
		}
		err := r.send(c.ctx, parts, "", &last)
		if err != nil && !s.Interrupted() {
			_ = s.Append(provider.Message{Role: provider.RoleUser, Parts: parts}, last.Message())
		}
		return err
	}
	return r.send(c.ctx, parts, "", &last)
}

func (r *REPL) cmdRegenerate(c *call) error {
	if r.conv.LastInput == nil {
		return errors.New("nothing to regenerate: there is no reply yet")
	}
	if s := r.conv.Session; s != nil {
		if _, err := s.Undo(); err != nil {
			return err
		}
	}
	return r.ask(c.ctx, r.conv.LastInput, "")
}

func (r *REPL) cmdRecover(c *call) error {
	s := r.conv.Session
	if !s.Interrupted() {
		return errors.New("nothing to recover: the last turn of the session finished")
	}
	text, err := s.Undo()
	if err != nil {
		return err
	}
	if c.raw != "" {
		text += "\n\n" + c.raw
	}
	return r.ask(c.ctx, []provider.Part{{Text: text}}, text)
}

func (r *REPL) cmdCopy(*call) error {
	text := ""
	switch {
	case r.conv.LastReply != nil:
		text = r.conv.LastReply.Text
	case r.conv.Session != nil:
		msgs := r.conv.Session.Messages()
		for i := len(msgs) - 1; i >= 0; i-- {
			if msgs[i].Role == provider.RoleAssistant {
				text = messageText(msgs[i])
				break
			}
		}
	}
	if text == "" {
		return errors.New("nothing to copy: there is no reply yet")
	}
	return copyToClipboard(r.out, r.o.Env, text)
}

// roleKeys are the .set keys that belong to the role-like level (the
// session when one is active, else the role, else the global config);
// sessionKeys belong to the session when one is active.
var (
	roleKeys    = map[string]bool{"temperature": true, "top_p": true, "reasoning_effort": true, "enabled_tools": true, "enabled_mcp_servers": true, "skills_enabled": true, "auto_continue": true, "max_auto_continues": true, "inject_todo_instructions": true, "continuation_prompt": true, "inject_skill_instructions": true, "skill_instructions": true, "memory": true}
	sessionKeys = map[string]bool{"save_session": true, "compression_threshold": true}
)

// setKeys are the keys .set accepts, as the original lists them.
var setKeys = []string{"temperature", "top_p", "reasoning_effort", "max_output_tokens", "enabled_tools", "enabled_mcp_servers",
	"enabled_skills", "enabled_macros", "skills_enabled", "save_session", "compression_threshold", "rag_reranker_model", "rag_top_k",
	"dry_run", "function_calling_support", "mcp_server_support", "stream", "save", "highlight", "raw_markdown", "auto_continue",
	"max_auto_continues", "inject_todo_instructions", "continuation_prompt", "inject_skill_instructions", "skill_instructions", "memory"}

func (r *REPL) cmdSet(c *call) error {
	key, text := splitCommand(c.raw)
	if key == "" || text == "" {
		return errors.New("usage: .set <key> <value|null>")
	}
	if !slices.Contains(setKeys, key) {
		return fmt.Errorf("unknown key %q (the keys are: %s)", key, strings.Join(setKeys, ", "))
	}
	if key != "continuation_prompt" && key != "skill_instructions" { // the two that take free text
		if len(c.args) != 2 {
			return fmt.Errorf(".set %s takes one value (quote it if it has spaces)", key)
		}
		text = c.args[1]
	}
	if key == "max_output_tokens" {
		// A fact of the model, not a config setting: it lasts for this
		// conversation, as in the original.
		n, err := parseMaxTokens(text)
		if err != nil {
			return fmt.Errorf(".set max_output_tokens: %w", err)
		}
		r.conv.MaxOutputTokens = n
		return nil
	}
	v, null, err := parseSetValue(key, text)
	if err != nil {
		if strings.HasPrefix(err.Error(), key+" ") { // it names the key already
			return fmt.Errorf(".set: %w", err)
		}
		return fmt.Errorf(".set %s: %w", key, err)
	}
	if key == "enabled_macros" && !null {
		if err := macro.Validate(r.macroList(), v.([]string)); err != nil {
			return fmt.Errorf(".set enabled_macros: %w", err)
		}
	}
	if key == "reasoning_effort" && !null {
		if err := r.checkEffort(v.(string)); err != nil {
			return err
		}
	}
	var stored any
	if !null {
		stored = v
	}
	switch s := r.conv.Session; {
	case s != nil && (roleKeys[key] || sessionKeys[key]):
		s.Update(func(st *session.Settings) { st.Set(key, stored) })
		return nil
	case r.conv.Role != nil && roleKeys[key]:
		return r.conv.Role.Settings.Set(key, text)
	}
	r.conv.Config().Set(key, &config.Value{V: stored, Null: null, Src: config.Source{Kind: "repl", Where: ".set"}})
	return nil
}

// parseSetValue reads a .set value, checked as config.yaml's (numbers
// finite and in range).
func parseSetValue(key, text string) (any, bool, error) {
	v, null, err := config.ParseText(key, text)
	if err != nil || null {
		return v, null, err
	}
	switch key {
	case "enabled_tools", "enabled_mcp_servers", "enabled_skills":
		if l := v.([]string); len(l) == 1 && l[0] == "all" {
			return "all", false, nil
		}
	}
	return v, false, nil
}

// parseMaxTokens reads .set max_output_tokens: a positive whole number,
// or null (0) for the model's own limit.
func parseMaxTokens(text string) (int64, error) {
	if text == "null" {
		return 0, nil
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("want a whole number of tokens of at least 1, or null for the model's own limit, not %q", text)
	}
	return n, nil
}

// checkEffort accepts a reasoning level only when the model has it.
func (r *REPL) checkEffort(level string) error {
	t, err := r.conv.Target()
	if err != nil {
		return err
	}
	if len(t.Model.ReasoningLevels) == 0 {
		return fmt.Errorf("model %s has no reasoning levels", t.ID())
	}
	if !slices.Contains(t.Model.ReasoningLevels, level) {
		return fmt.Errorf("model %s has no reasoning level %q (it has: %s)", t.ID(), level, strings.Join(t.Model.ReasoningLevels, ", "))
	}
	return nil
}

func (r *REPL) cmdReasoning(c *call) error {
	if len(c.args) != 1 {
		return errors.New("usage: .reasoning <level>")
	}
	return r.dispatch(c.ctx, ".set reasoning_effort "+c.args[0])
}

func (r *REPL) cmdList(c *call) error {
	if len(c.args) != 1 {
		return errors.New("usage: .list " + strings.Trim(r.reg.byName[".list"].Args, "<>"))
	}
	var names []string
	active := ""
	p := r.conv.Paths()
	switch c.args[0] {
	case "roles":
		names = role.List(p.RolesDir, assets.Roles())
		if r.conv.Role != nil {
			active = r.conv.Role.Name
		}
	case "sessions":
		var err error
		if names, err = session.List(p.SessionsDir); err != nil {
			return err
		}
		if r.conv.Session != nil {
			active = r.conv.Session.Name()
		}
	case "models":
		names = llm.ChatModelIDs(r.conv.Config())
		if t, err := r.conv.Target(); err == nil {
			active = t.ID()
		}
	case "macros":
		return r.listMacros()
	case "agents":
		names = config.Agents(p.AgentsDir)
	case "rags":
		names = config.Names(".yaml", p.RagsDir)
	case "tools":
		offered := map[string]bool{}
		for _, f := range r.offered() {
			offered[f.Name] = true
		}
		for _, f := range r.conv.Tools.All() {
			mark := "  "
			if offered[f.Name] {
				mark = "* "
			}
			r.println(mark + f.Name)
		}
		return nil
	case "mcp-servers":
		return r.listMCPServers()
	case "skills":
		r.printf("No %s: they are not part of this build yet.\n", c.args[0])
		return nil
	default:
		return fmt.Errorf(".list %s: want roles, sessions, models, macros, tools, agents, rags or mcp-servers", c.args[0])
	}
	for _, n := range names {
		mark := "  "
		if n == active {
			mark = "* "
		}
		r.println(mark + n)
	}
	return nil
}

func (r *REPL) cmdDelete(c *call) error {
	if len(c.args) != 1 {
		return errors.New("usage: .delete <role|session|rag>")
	}
	p := r.conv.Paths()
	var names []string
	var pathOf func(string) string
	// drop removes what an item keeps besides its file (a RAG's store).
	drop := func(string) error { return nil }
	inUse := func(string) bool { return false }
	switch c.args[0] {
	case "role", "roles":
		names = role.List(p.RolesDir, nil)
		pathOf = func(n string) string { return filepath.Join(p.RolesDir, n+".md") }
	case "session", "sessions":
		var err error
		if names, err = session.List(p.SessionsDir); err != nil {
			return err
		}
		store := r.conv.SessionStore()
		pathOf = func(n string) string { path, _ := store.Path(n); return path }
	case "rag", "rags":
		names = config.Names(".yaml", p.RagsDir)
		pathOf = r.conv.RAGPath
		inUse = func(n string) bool { return r.conv.RAG != nil && r.conv.RAG.Name == n }
		drop = func(n string) error { return r.conv.DropRAG(c.ctx, n) }
	default:
		return fmt.Errorf(".delete %s: want role, session or rag", c.args[0])
	}
	if len(names) == 0 {
		r.printf("No %s to delete.\n", c.args[0])
		return nil
	}
	for i, n := range names {
		r.printf("%3d  %s\n", i+1, n)
	}
	ans, err := r.line("Delete which (numbers separated by spaces, empty for none): ")
	if err != nil {
		return err
	}
	picked, err := pickNumbers(ans, len(names))
	if err != nil {
		return err
	}
	for _, i := range picked {
		if inUse(names[i]) {
			return fmt.Errorf("%s is in use: .exit rag first", names[i])
		}
		// A RAG's store goes first, so a delete that fails half-way
		// leaves the yaml to retry from.
		if err := drop(names[i]); err != nil {
			return err
		}
		if err := os.Remove(pathOf(names[i])); err != nil {
			return fmt.Errorf("delete %s: %w", names[i], err)
		}
		r.printf("Deleted %s\n", names[i])
	}
	return nil
}

// pickNumbers reads "1 3 5" (1-based, up to n) as indexes.
func pickNumbers(s string, n int) ([]int, error) {
	var out []int
	for _, f := range strings.Fields(strings.ReplaceAll(s, ",", " ")) {
		i, err := strconv.Atoi(f)
		if err != nil || i < 1 || i > n {
			return nil, fmt.Errorf("%q is not a number from 1 to %d", f, n)
		}
		out = append(out, i-1)
	}
	return out, nil
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

func (r *REPL) cmdExit(c *call) error {
	switch strings.TrimSpace(c.raw) {
	case "":
		if r.inMacro {
			r.println("(.exit does not leave the REPL from inside a macro)")
			return nil
		}
		r.leave(c.ctx)
		return nil
	case "role", "session", "rag":
		return r.dispatch(c.ctx, ".exit "+c.raw)
	}
	return fmt.Errorf(".exit %s: want role, session or rag, or nothing to leave the REPL", c.raw)
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
	return tw.Flush()
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
