package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/coyote-cli/coyote/kernel/agent"
	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/convo"
	"github.com/coyote-cli/coyote/kernel/envlist"
	"github.com/coyote-cli/coyote/kernel/rag"
	"github.com/coyote-cli/coyote/kernel/tools"
	"github.com/coyote-cli/coyote/kernel/tools/script"
)

// AgentTools builds the functions an agent may call: the built-ins (the
// user__* questions with a terminal), and, with function calling on, the
// global tool files its global_tools names and its own tools script's
// functions, whose calls see its variables (env). A function of the
// agent's script that has the name of one of its global tools is an
// error naming both files.
type agentToolsFunc = func(a *agent.Agent, env []string) (*tools.Registry, error)

func agentTools(f *Factory, cfg *config.Config, skipPermissions bool) agentToolsFunc {
	return func(a *agent.Agent, env []string) (*tools.Registry, error) {
		reg := builtinTools(f)
		if cfg == nil || !cfg.Bool("function_calling_support") {
			return reg, nil
		}
		terminal := f.IO.IsStdinTTY() && f.IO.IsStdoutTTY()
		warn := func(msg string) { fmt.Fprintln(f.IO.ErrOut, "warning: "+msg) }
		global, err := scriptsFor(f, cfg, terminal, skipPermissions)
		if err != nil {
			return nil, err
		}
		autoConfirmNote(f, global.Runner.PassEnv, skipPermissions, warn)
		global.Env = env
		global.Visible = append([]string{}, a.Config.GlobalTools.Items...)
		global.VisibleFrom = "agent " + a.Name + "'s global_tools"
		global.Load(reg, warn)

		decls, err := a.Declarations()
		if err != nil {
			return nil, err
		}
		if len(decls) == 0 {
			return reg, nil
		}
		for _, d := range decls {
			if g, ok := reg.Get(d.Name); ok && g.Source == "script" {
				return nil, fmt.Errorf("agent %q: %s declares %q, which a global tool of global_tools also declares: rename one of them",
					a.Name, a.ToolsScript(), d.Name)
			}
		}
		src, err := os.ReadFile(a.ToolsScript())
		if err != nil {
			return nil, err
		}
		own := *global
		runner, guarded := *global.Runner, *global.Guarded
		runner.WrapperDir, guarded.WrapperDir = a.Dir, a.Dir
		own.Runner, own.Guarded = &runner, &guarded
		own.Add(reg, src, decls, warn)
		return reg, nil
	}
}

// builtinTools is a registry of the built-in functions: the user__*
// questions when there is a terminal to ask on.
func builtinTools(f *Factory) *tools.Registry {
	reg := tools.NewRegistry()
	switch {
	case f.IO.IsStdinTTY() && f.IO.IsStdoutTTY():
		for _, fn := range tools.UserFuncs(tools.TerminalAsker{In: os.Stdin, Out: f.IO.Out}) {
			reg.Add(fn)
		}
	case f.headless: // answered "needs a human"
		for _, fn := range tools.UserFuncs(nil) {
			reg.Add(fn)
		}
	}
	return reg
}

// agentVars reads --agent-variable NAME VALUE (passed on as NAME=VALUE).
func agentVars(given []string) (map[string]string, error) {
	vars := map[string]string{}
	for _, g := range given {
		name, value, ok := strings.Cut(g, "=")
		if !ok || strings.TrimSpace(name) == "" {
			return nil, fmt.Errorf("--agent-variable %q: give a name and a value: --agent-variable NAME VALUE", g)
		}
		vars[strings.TrimSpace(name)] = value
	}
	return vars, nil
}

// startAgent makes -a NAME the conversation's agent: its variables from
// --agent-variable (the missing ones asked for in a terminal) and its
// session (-s, else its agent_session). Its documents are the caller's
// (useAgentDocuments): --info shows the agent without building them.
func startAgent(ctx context.Context, f *Factory, cfg *config.Config, st *convo.State, opts *rootOptions) error {
	vars, err := agentVars(opts.AgentVars)
	if err != nil {
		return err
	}
	var ignored []string
	for _, x := range []struct {
		set  bool
		flag string
	}{{opts.Prompt != "", "--prompt"}, {opts.Role != "", "-r"}, {opts.Execute, "-e"}, {opts.Code, "-c"}, {opts.RAG != "", "--rag"}} {
		if x.set {
			ignored = append(ignored, x.flag)
		}
	}
	if len(ignored) > 0 {
		fmt.Fprintf(f.IO.ErrOut, "note: with -a, %s %s ignored\n", strings.Join(ignored, ", "), map[bool]string{true: "is", false: "are"}[len(ignored) == 1])
	}
	ensureBundled(f)
	terminal := f.IO.IsStdinTTY() && f.IO.IsStderrTTY()
	start := convo.AgentStart{Name: opts.Agent, Vars: vars, Session: opts.Session,
		Tools: agentTools(f, cfg, opts.SkipPermissions), Environ: envlist.Filter(f.Environ)}
	switch {
	case opts.Info:
		// --info shows the agent as configured: a variable nobody gave is
		// shown empty rather than asked for.
		start.Ask = func(agent.Variable) (string, error) { return "", nil }
	case terminal:
		start.Ask = func(v agent.Variable) (string, error) {
			q := v.Name
			if v.Description != "" {
				q += " (" + v.Description + ")"
			}
			return ask(f, q+": ")
		}
	}
	return st.StartAgent(ctx, start)
}

// useAgentDocuments opens the agent's RAG, or builds it from its documents
// once the user agrees (a terminal is needed to agree; without one the
// agent runs without it, and says so).
func useAgentDocuments(ctx context.Context, f *Factory, st *convo.State) error {
	terminal := f.IO.IsStdinTTY() && f.IO.IsStderrTTY()
	switch st.AgentRAG() {
	case convo.AgentRAGNone:
		return nil
	case convo.AgentRAGReady:
		return st.UseAgentRAG(ctx, nil)
	}
	a := st.Agent
	if !terminal {
		fmt.Fprintf(f.IO.ErrOut, "warning: agent %s has documents but no RAG yet; start it once in a terminal to build it (%s)\n", a.Name, a.RAGFile())
		return nil
	}
	answer, err := ask(f, st.AgentRAGQuestion())
	if err != nil {
		return err
	}
	if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
		fmt.Fprintln(f.IO.ErrOut, "The agent runs without its documents this time.")
		return nil
	}
	tty := f.IO.IsStderrTTY()
	err = st.UseAgentRAG(ctx, func(p rag.Progress) {
		if tty {
			fmt.Fprintf(f.IO.ErrOut, "\r\x1b[2KIndexing %s: %s", a.Name, p)
		}
	})
	if tty {
		fmt.Fprint(f.IO.ErrOut, "\r\x1b[2K")
	}
	return err
}

// runListAgents prints the agents that load, one per line; one that does
// not is said on stderr with why.
func runListAgents(f *Factory) error {
	p, err := f.Paths()
	if err != nil {
		return err
	}
	ensureBundled(f)
	var b strings.Builder
	for _, e := range agent.List(p.AgentsDir, f.Env) {
		if e.Err != nil {
			fmt.Fprintf(f.IO.ErrOut, "warning: agent %s is left out: %v\n", e.Name, e.Err)
			continue
		}
		b.WriteString(e.Name + "\n")
	}
	_, err = fmt.Fprint(f.IO.Out, b.String())
	return err
}

// runBuildTools writes the wrappers of every visible tool into
// functions/bin (--build-tools), or with -a those of the agent's tools
// script into agents/NAME/bin.
func runBuildTools(ctx context.Context, f *Factory, opts *rootOptions) error {
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	if opts.Agent == "" {
		return buildGlobalTools(f, cfg)
	}
	p, err := f.Paths()
	if err != nil {
		return err
	}
	a, err := agent.Load(p.AgentsDir, opts.Agent, f.Env)
	if err != nil {
		return err
	}
	decls, err := a.Declarations()
	if err != nil {
		return err
	}
	if len(decls) == 0 {
		return fmt.Errorf("agent %q has no tools script (tools.sh, tools.py, tools.ts or tools.js in %s)", a.Name, a.Dir)
	}
	names := make([]string, len(decls))
	for i, d := range decls {
		names[i] = d.Name
	}
	if err := script.BuildAll(a.Dir, decls); err != nil {
		return err
	}
	fmt.Fprintf(f.IO.Out, "Built %d tools in %s: %s\n", len(names), filepath.Join(a.Dir, "bin"), strings.Join(names, ", "))
	return nil
}
