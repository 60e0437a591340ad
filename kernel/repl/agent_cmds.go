package repl

// Agent commands: .agent, .starter and what acts on the active agent.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/coyote-cli/coyote/kernel/agent"
	"github.com/coyote-cli/coyote/kernel/convo"
	"github.com/coyote-cli/coyote/kernel/rag"
	"github.com/coyote-cli/coyote/kernel/role"
	"github.com/coyote-cli/coyote/kernel/session"
	"github.com/coyote-cli/coyote/kernel/tools"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// beforeAgent is what .agent replaced, put back by .exit agent.
type beforeAgent struct {
	role  *role.Role
	tools *tools.Registry
	rag   *rag.RAG
}

// cmdAgent is .agent NAME [SESSION] [k=v…].
func (r *REPL) cmdAgent(c *call) error {
	if len(c.args) == 0 {
		return errors.New("usage: .agent <name> [session] [key=value...]")
	}
	start := convo.AgentStart{Name: c.args[0], Vars: map[string]string{}, NoSession: false,
		Tools: r.o.AgentTools, Environ: r.o.Environ}
	for _, a := range c.args[1:] {
		if k, v, ok := strings.Cut(a, "="); ok {
			start.Vars[k] = v
			continue
		}
		if start.Session != "" {
			return fmt.Errorf(".agent %s: one session name only (%q and %q); variables are key=value", c.args[0], start.Session, a)
		}
		start.Session = a
	}
	if r.rl != nil {
		start.Ask = func(v agent.Variable) (string, error) {
			q := v.Name
			if v.Description != "" {
				q += " (" + v.Description + ")"
			}
			return r.question(q, "")
		}
	}
	prev := beforeAgent{role: r.conv.Role, tools: r.conv.Tools, rag: r.conv.RAG}
	if err := r.conv.StartAgent(c.ctx, start); err != nil {
		return err
	}
	r.beforeAgent = &prev
	a := r.conv.Agent
	if prev.rag != nil && len(a.Config.Documents) > 0 {
		r.conv.UseRAG(nil) // the agent's documents take its place
	}
	if err := r.agentDocuments(c.ctx); err != nil {
		r.printError(err)
	}
	r.agentBanner()
	if s := r.conv.Session; s != nil && !s.IsEmpty() {
		r.replay()
	}
	return nil
}

// agentDocuments opens the agent's RAG, building it from its documents
// after the user agrees.
func (r *REPL) agentDocuments(ctx context.Context) error {
	switch r.conv.AgentRAG() {
	case convo.AgentRAGNone:
		return nil
	case convo.AgentRAGReady:
		return r.conv.UseAgentRAG(ctx, nil)
	}
	ok, err := r.confirm(r.conv.AgentRAGQuestion())
	if err != nil || !ok {
		if err == nil {
			r.println("The agent runs without its documents (.agent again to build them).")
		}
		return err
	}
	return r.whileInterruptible(ctx, func(ctx context.Context) error {
		progress, done := r.indexProgress()
		err := r.conv.UseAgentRAG(ctx, func(p rag.Progress) { progress(p) })
		done()
		return err
	})
}

// agentBanner introduces the agent and its conversation starters.
func (r *REPL) agentBanner() {
	a := r.conv.Agent
	line := "Agent " + a.Title()
	if a.Config.Description != "" {
		line += ": " + a.Config.Description
	}
	r.println(r.dim(line))
	if starters := r.conv.Starters(); len(starters) > 0 {
		r.println(r.dim("Conversation starters (.starter N sends one):"))
		for _, s := range starters {
			r.println(r.dim("  " + s))
		}
	}
}

// cmdStarter is .starter [N]: list the starters, or send one.
func (r *REPL) cmdStarter(c *call) error {
	if len(c.args) == 0 {
		if len(r.conv.Starters()) == 0 {
			r.printf("Agent %s has no conversation starters.\n", r.conv.Agent.Name)
			return nil
		}
		for _, s := range r.conv.Starters() {
			r.println(s)
		}
		return nil
	}
	n, err := strconv.Atoi(c.args[0])
	if err != nil {
		return fmt.Errorf(".starter %s: give the starter's number", c.args[0])
	}
	text, err := r.conv.Agent.Starter(n)
	if err != nil {
		return err
	}
	r.println(r.dim("> " + text))
	return r.ask(c.ctx, []provider.Part{{Text: text}}, text)
}

// cmdInfoAgent shows the active agent: where it comes from, its settings
// (with their sources), variables, tools and documents, and what it names
// that is not here.
func (r *REPL) cmdInfoAgent(*call) error {
	a := r.conv.Agent
	tw := tabwriter.NewWriter(r.out, 0, 4, 2, ' ', 0)
	row := func(k, v string) { fmt.Fprintf(tw, "%s\t%s\n", k, v) }
	row("name", a.Name)
	if a.Config.DisplayName != "" && a.Config.DisplayName != a.Name {
		row("title", a.Config.DisplayName)
	}
	row("description", a.Config.Description)
	row("version", a.Config.Version)
	row("config", a.File)
	if s := a.ToolsScript(); s != "" {
		row("tools_script", s)
	}
	cfg := r.conv.Config()
	layers := r.conv.Layers()
	for _, k := range []string{"model", "temperature", "top_p", "reasoning_effort", "enabled_mcp_servers", "auto_continue",
		"max_auto_continues", "inject_todo_instructions", "enabled_macros", "skills_enabled", "enabled_skills", "memory",
		"compression_threshold", "max_tool_result_chars"} {
		v := cfg.Resolve(k, layers)
		row(k, v.Format()+"\t("+v.Src.String()+")")
	}
	row("global_tools", a.Config.GlobalTools.String())
	if a.Config.CanSpawnAgents {
		row("can_spawn_agents", fmt.Sprintf("true (spawnable: %s, at most %d at once, depth %d)", a.Config.SpawnableAgents.String(), a.Config.MaxConcurrentAgents, a.Config.MaxAgentDepth))
	}
	if s := r.conv.Session; s != nil {
		row("session", s.Name()+" ("+a.SessionsDir()+")")
	}
	keys := make([]string, 0, len(a.Vars))
	for k := range a.Vars {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		row("variable "+k, a.Vars[k])
	}
	var own []string
	for _, f := range r.conv.Tools.All() {
		if !f.Builtin {
			own = append(own, f.Name)
		}
	}
	row("tools", strings.Join(own, ", "))
	if len(a.Config.Documents) > 0 {
		state := "not built yet"
		if r.conv.AgentRAG() == convo.AgentRAGReady {
			state = a.RAGFile()
		}
		row("documents", strings.Join(a.Config.Documents, ", ")+" (RAG: "+state+")")
	}
	if n := len(a.Config.ConversationStarters); n > 0 {
		row("conversation_starters", strconv.Itoa(n)+" (.starter lists them)")
	}
	for _, m := range r.agentMissing() {
		row("missing", m)
	}
	if sup := r.conv.Supervisor(); sup != nil {
		for _, st := range sup.List() {
			row("sub-agent "+st.ID, fmt.Sprintf("%s, %s, %s", st.Agent, st.State, st.Elapsed.Round(time.Second)))
		}
	}
	return tw.Flush()
}

// agentMissing names what the active agent's config refers to that does
// not exist here: global tool files and agents it may spawn.
func (r *REPL) agentMissing() []string {
	a := r.conv.Agent
	p := r.conv.Paths()
	var out []string
	for _, t := range a.Config.GlobalTools.Items {
		if _, err := os.Stat(filepath.Join(p.FunctionsDir, "tools", t)); err != nil {
			out = append(out, "global tool "+t+" (not in "+filepath.Join(p.FunctionsDir, "tools")+")")
		}
	}
	for _, n := range a.Config.SpawnableAgents.Items {
		if _, err := os.Stat(filepath.Join(p.AgentsDir, n)); err != nil {
			out = append(out, "spawnable agent "+n+" (not in "+p.AgentsDir+")")
		}
	}
	return out
}

// cmdEditAgentConfig edits the agent's config.yaml, then starts the agent
// again with it (same variables and session).
func (r *REPL) cmdEditAgentConfig(c *call) error {
	if err := r.noEditorInMacro(); err != nil {
		return err
	}
	a := r.conv.Agent
	if err := r.editFile(a.File); err != nil {
		return err
	}
	if _, err := agent.Load(filepath.Dir(a.Dir), a.Name, r.o.Env); err != nil {
		return fmt.Errorf("the agent keeps its previous settings: %w", err)
	}
	session := ""
	if s := r.conv.Session; s != nil {
		session = s.Name()
	}
	st := convo.AgentStart{Name: a.Name, Vars: a.Vars, Session: session, NoSession: session == "", Tools: r.o.AgentTools, Environ: r.o.Environ}
	keep := r.conv.Session
	if err := r.conv.StartAgent(c.ctx, st); err != nil {
		return err
	}
	if keep != nil {
		r.conv.Session = keep // the same session, with its unsaved messages
	}
	r.println("Saved. The agent uses its new settings.")
	return nil
}

// cmdExitAgent leaves the agent (and its session, as .exit session does),
// putting back the role, tools and RAG that were active before it.
func (r *REPL) cmdExitAgent(c *call) error {
	if r.conv.Session != nil {
		if err := r.dispatch(c.ctx, ".exit session"); err != nil {
			return err
		}
	}
	r.conv.CancelSubagents() // none runs on once its agent is left
	a := r.conv.Agent
	if r.conv.RAG != nil && r.conv.RAG.File != nil && r.conv.RAG.File.Path == a.RAGFile() {
		r.conv.UseRAG(nil)
	}
	r.conv.Agent, r.conv.AgentPrompt = nil, ""
	if b := r.beforeAgent; b != nil {
		r.conv.Role, r.conv.Tools = b.role, b.tools
		if b.rag != nil && r.conv.RAG == nil {
			r.conv.UseRAG(b.rag)
		}
	} else if r.o.Tools != nil {
		r.conv.Tools = r.o.Tools() // the agent came with -a
	}
	r.beforeAgent = nil
	return nil
}

// agentDataItems are what .delete agent-data offers: each agent's sessions
// and RAG, by a name to show, and their files.
func (r *REPL) agentDataItems() (names []string, paths map[string]string) {
	p := r.conv.Paths()
	paths = map[string]string{}
	for _, e := range agent.List(p.AgentsDir, r.o.Env) {
		a := e.Agent
		if a == nil {
			continue
		}
		sessions, _ := session.List(a.SessionsDir())
		for _, s := range sessions {
			n := e.Name + ": session " + s
			path, err := (&session.Store{Dir: a.SessionsDir()}).Path(s)
			if err == nil {
				names = append(names, n)
				paths[n] = path
			}
		}
		if _, err := os.Stat(a.RAGFile()); err == nil {
			n := e.Name + ": rag"
			names = append(names, n)
			paths[n] = a.RAGFile()
		}
	}
	return names, paths
}
