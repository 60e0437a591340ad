package repl

// .list and .delete: the user's roles, sessions, RAGs, macros, tools and
// MCP servers, the active one marked; deleting by picking from a list.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/coyote-cli/coyote/assets"
	"github.com/coyote-cli/coyote/kernel/agent"
	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/llm"
	"github.com/coyote-cli/coyote/kernel/macro"
	"github.com/coyote-cli/coyote/kernel/role"
	"github.com/coyote-cli/coyote/kernel/session"
)

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
		if names, err = session.List(r.conv.SessionStore().Dir); err != nil {
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
		return r.listAgents()
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
		return r.listSkills() // skill_cmds.go
	default:
		return fmt.Errorf(".list %s: want roles, sessions, models, macros, skills, tools, agents, rags or mcp-servers", c.args[0])
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
		return errors.New("usage: .delete <role|session|rag|macro|skill|agent-data>")
	}
	p := r.conv.Paths()
	var names []string
	var pathOf func(string) string
	// drop removes what an item keeps besides its file (a RAG's store).
	drop := func(string) error { return nil }
	inUse := func(string) bool { return false }
	// after tidies up once the file at a path is gone (a skill's emptied
	// directory).
	after := func(string) {}
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
	case "macro", "macros":
		// Every macro file, loadable or not: a workspace one is marked, as
		// the same name may be in both directories.
		list, _ := r.macros.Discover(r.o.MacroDirs)
		paths := map[string]string{}
		for _, m := range list {
			n := m.Name
			if m.Source == macro.SourceWorkspace {
				n += " (workspace)"
			}
			names = append(names, n)
			paths[n] = m.Path
		}
		pathOf = func(n string) string { return paths[n] }
	case "skill", "skills":
		names = r.installedSkillNames()
		pathOf = func(n string) string { e, _ := r.conv.SkillCatalog().Find(r.conv.SkillDirs(), n); return e.Path }
		inUse = func(n string) bool { return slices.Contains(r.loadedSkillNames(), n) }
		after = func(path string) { _ = os.Remove(filepath.Dir(path)) } // only when nothing else is in it
	case "agent-data":
		var paths map[string]string
		names, paths = r.agentDataItems()
		pathOf = func(n string) string { return paths[n] }
		inUse = func(n string) bool {
			return r.conv.Session != nil && r.conv.Session.Path() == paths[n] ||
				r.conv.RAG != nil && r.conv.RAG.File != nil && r.conv.RAG.File.Path == paths[n]
		}
		drop = func(n string) error {
			if agentName, ok := strings.CutSuffix(n, ": rag"); ok {
				return r.conv.DropRAGAt(c.ctx, "agent-"+agentName, paths[n])
			}
			return nil
		}
	default:
		return fmt.Errorf(".delete %s: want role, session, rag, macro, skill or agent-data", c.args[0])
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
			return fmt.Errorf("%s is in use: leave it first (.exit rag, .exit session, .exit agent or .skill unload)", names[i])
		}
		// A RAG's store goes first, so a delete that fails half-way
		// leaves the yaml to retry from.
		if err := drop(names[i]); err != nil {
			return err
		}
		path := pathOf(names[i])
		if err := os.Remove(path); err != nil {
			return fmt.Errorf("delete %s: %w", names[i], err)
		}
		after(path)
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

// listAgents shows the agents that load, the active one marked, with
// their descriptions; one that does not load says why.
func (r *REPL) listAgents() error {
	entries := agent.List(r.conv.Paths().AgentsDir, r.o.Env)
	if len(entries) == 0 {
		r.println("No agents.")
		return nil
	}
	tw := tabwriter.NewWriter(r.out, 0, 4, 2, ' ', 0)
	for _, e := range entries {
		mark := "  "
		if r.conv.Agent != nil && r.conv.Agent.Name == e.Name {
			mark = "* "
		}
		desc := e.Description
		if e.Err != nil {
			desc = "does not load: " + e.Err.Error()
		}
		desc, _, _ = strings.Cut(desc, "\n")
		fmt.Fprintf(tw, "%s%s\t%s\n", mark, e.Name, desc)
	}
	return tw.Flush()
}
