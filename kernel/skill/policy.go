package skill

import (
	"fmt"
	"slices"
	"sort"
)

// Policy is the resolved settings that decide which skills a context may
// use (the caller resolves them with config.Resolve).
type Policy struct {
	// Enabled is skills_enabled (false at any level turns skills off).
	Enabled bool
	// EnabledSkills is enabled_skills, the first level that sets it
	// (session, agent, role, global); nil when no level does.
	EnabledSkills []string
	// Visible is visible_skills, the global allow-list; nil when it is
	// not set (every installed skill is visible).
	Visible []string
	// MCP is mcp_server_support: without it, skills that name MCP
	// servers are left out.
	MCP bool
}

// Available returns the skills a context may list and load, sorted:
// none when skills are off; else enabled_skills, or without it
// visible_skills, or without that every installed skill; less those that
// need MCP when MCP is off (needsMCP, asked only then, says which do; a
// skill whose front matter cannot be read is left out too). A name of enabled_skills
// that visible_skills does not hold, or that is not installed, and a
// name of visible_skills that is not installed, are errors naming it.
func Available(p Policy, installed []string, needsMCP func(name string) (bool, error)) ([]string, error) {
	if !p.Enabled {
		return nil, nil
	}
	have := make(map[string]bool, len(installed))
	for _, n := range installed {
		have[n] = true
	}
	var want []string
	switch {
	case p.EnabledSkills != nil:
		for _, n := range p.EnabledSkills {
			if p.Visible != nil && !slices.Contains(p.Visible, n) {
				return nil, fmt.Errorf("enabled_skills names skill %q, which visible_skills does not list: add it to visible_skills or remove it", n)
			}
			if !have[n] {
				return nil, fmt.Errorf("enabled_skills names skill %q, which is not installed (no skills/%s/%s)", n, n, FileName)
			}
		}
		want = p.EnabledSkills
	case p.Visible != nil:
		for _, n := range p.Visible {
			if !have[n] {
				return nil, fmt.Errorf("visible_skills names skill %q, which is not installed (no skills/%s/%s)", n, n, FileName)
			}
		}
		want = p.Visible
	default:
		want = installed
	}
	seen := map[string]bool{}
	out := make([]string, 0, len(want))
	for _, n := range want {
		if seen[n] {
			continue
		}
		seen[n] = true
		if needsMCP != nil && !p.MCP {
			needs, err := needsMCP(n)
			if err != nil || needs {
				continue
			}
		}
		out = append(out, n)
	}
	sort.Strings(out)
	return out, nil
}
