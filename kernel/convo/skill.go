package convo

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/models"
	"github.com/coyote-cli/coyote/kernel/skill"
	"github.com/coyote-cli/coyote/kernel/tools"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// Skills. The skills a conversation has loaded live here (not in the
// session file): their bodies join the system message (systemText), their
// enabled_tools and enabled_mcp_servers join the ones in force (Selection,
// MCPServers), and those marked auto_unload are dropped when Run ends.
// Which skills may be loaded is skill.Available over skills_enabled,
// enabled_skills (session → agent → role → global) and visible_skills;
// the model loads them itself through skill__list, skill__load and
// skill__unload, offered when any skill is available.

// SkillDirs are the config directory's skills/ and the workspace's
// .coyote/skills/.
func (s *State) SkillDirs() skill.Dirs {
	d := skill.Dirs{Global: s.d.Paths.SkillsDir}
	if s.WorkDir != "" {
		d.Workspace = filepath.Join(s.WorkDir, ".coyote", "skills")
	} else if s.d.Paths.WorkspaceDir != "" {
		d.Workspace = filepath.Join(s.d.Paths.WorkspaceDir, "skills")
	}
	return d
}

// SkillCatalog finds the installed skills (shared with forks).
func (s *State) SkillCatalog() *skill.Catalog {
	s.pool.mu.Lock()
	defer s.pool.mu.Unlock()
	if s.pool.skills == nil {
		s.pool.skills = skill.NewCatalog()
	}
	return s.pool.skills
}

// SkillsOff says why skills cannot be used here ("" when they can):
// skills_enabled is false at some level, or function calling is off.
func (s *State) SkillsOff() string {
	cfg := s.d.Config
	switch {
	case cfg == nil:
		return "there is no configuration"
	case !cfg.Bool("function_calling_support"):
		return "skills need function calling, and function_calling_support is off"
	}
	v := cfg.Resolve("skills_enabled", s.Layers())
	if on, ok := v.V.(bool); ok && !on {
		return "skills_enabled is false (" + v.Src.String() + ")"
	}
	return ""
}

// skillPolicy is the resolved settings skill.Available decides with.
func (s *State) skillPolicy() skill.Policy {
	cfg := s.d.Config
	p := skill.Policy{Enabled: s.SkillsOff() == "", MCP: cfg != nil && cfg.Bool("mcp_server_support")}
	if cfg == nil {
		return p
	}
	list := func(v *config.Value) []string {
		if v.Null {
			return nil
		}
		l, _ := v.V.([]string)
		if l == nil {
			l = []string{}
		}
		return l
	}
	p.EnabledSkills = list(cfg.Resolve("enabled_skills", s.Layers()))
	if slices.Contains(p.EnabledSkills, "all") {
		p.EnabledSkills = nil // as .set enabled_skills all says: every visible skill
	}
	p.Visible = list(cfg.Get("visible_skills"))
	return p
}

// AvailableSkills are the names of the skills that may be loaded here,
// sorted: none when skills are off. A name of enabled_skills or
// visible_skills that is not installed (or not visible) is an error; a
// skill whose front matter is broken is warned about and left out when
// it had to be read.
func (s *State) AvailableSkills() ([]string, error) {
	if s.turnSkills != nil {
		return s.turnSkills.names, s.turnSkills.err
	}
	return s.availableSkills()
}

// turnSkills is AvailableSkills as a turn found it at its start
// (checkSkills): a turn asks three times (the check, the hint, the
// functions), and the files are read once.
type turnSkills struct {
	names []string
	err   error
}

func (s *State) availableSkills() ([]string, error) {
	p := s.skillPolicy()
	if !p.Enabled {
		return nil, nil
	}
	cat, dirs := s.SkillCatalog(), s.SkillDirs()
	entries, warnings := cat.Installed(dirs)
	for _, w := range warnings {
		s.warnOnce(w)
	}
	installed := make([]string, len(entries))
	byName := make(map[string]skill.Entry, len(entries))
	for i, e := range entries {
		installed[i], byName[e.Name] = e.Name, e
	}
	return skill.Available(p, installed, func(name string) (bool, error) {
		h, err := cat.Header(byName[name])
		if err != nil {
			s.warnOnce(err.Error())
			return false, err
		}
		return h.NeedsMCP(), nil
	})
}

// ListSkills are the available skills with their front matter, for
// skill__list and .list skills; one whose file is broken is warned about
// and left out.
func (s *State) ListSkills() ([]skill.Listed, error) {
	names, err := s.AvailableSkills()
	if err != nil {
		return nil, err
	}
	cat, dirs := s.SkillCatalog(), s.SkillDirs()
	out := make([]skill.Listed, 0, len(names))
	for _, n := range names {
		e, ok := cat.Find(dirs, n)
		if !ok {
			continue // removed meanwhile
		}
		h, err := cat.Header(e)
		if err != nil {
			s.warnOnce(err.Error())
			continue
		}
		out = append(out, skill.Listed{Name: n, Description: h.Description, Tools: h.EnabledTools, MCPServers: h.EnabledMCPServers,
			Loaded: s.skills.Has(n)})
	}
	return out, nil
}

// LoadSkill loads an available skill into the conversation (--skill,
// .skill load, skill__load). A tool the skill names that does not exist
// is warned about, naming the skill's file.
func (s *State) LoadSkill(name string) (*skill.Skill, error) {
	if why := s.SkillsOff(); why != "" {
		return nil, fmt.Errorf("cannot load skill %q: %s", name, why)
	}
	if err := skill.CheckName(name); err != nil {
		return nil, err
	}
	if s.skills.Has(name) {
		return nil, fmt.Errorf("skill %q is already loaded", name)
	}
	avail, err := s.AvailableSkills()
	if err != nil {
		return nil, err
	}
	if !slices.Contains(avail, name) {
		if _, installed := s.SkillCatalog().Find(s.SkillDirs(), name); !installed {
			return nil, fmt.Errorf("skill %q: %w (no skills/%s/%s here or in .coyote/skills)", name, skill.ErrNotFound, name, skill.FileName)
		}
		return nil, fmt.Errorf("skill %q is not available here (enabled_skills or visible_skills leaves it out, or it needs MCP and mcp_server_support is off)", name)
	}
	sk, err := s.SkillCatalog().Load(s.SkillDirs(), name)
	if err != nil {
		return nil, err
	}
	s.warnUnknownSkillTools(sk)
	if s.skills == nil {
		s.skills = new(skill.Loaded)
	}
	return sk, s.skills.Add(sk)
}

// UnloadSkill unloads a loaded skill.
func (s *State) UnloadSkill(name string) error {
	if s.skills == nil {
		return fmt.Errorf("skill %q is not loaded", name)
	}
	return s.skills.Remove(name)
}

// LoadedSkills are the loaded skills, in load order.
func (s *State) LoadedSkills() []*skill.Skill { return s.skills.Skills() }

// warnUnknownSkillTools warns about each enabled_tools name of sk that is
// no function and no mapping_tools alias.
func (s *State) warnUnknownSkillTools(sk *skill.Skill) {
	if s.Tools == nil || len(sk.EnabledTools) == 0 {
		return
	}
	mapping := s.d.Config.StringMap("mapping_tools")
	for _, n := range sk.EnabledTools {
		if _, ok := s.Tools.Get(n); ok {
			continue
		}
		if _, alias := mapping[n]; alias || n == "all" {
			continue
		}
		s.warnOnce(fmt.Sprintf("%s: enabled_tools names %q, which is no tool or mapping_tools alias", sk.Path, n))
	}
}

// skillFuncs are the skill functions to offer: none unless a skill is
// available. A settings error is warned about once, and offers none.
func (s *State) skillFuncs() []*tools.Func {
	avail, err := s.AvailableSkills()
	if err != nil {
		s.warnOnce(err.Error())
		return nil
	}
	if len(avail) == 0 && len(s.LoadedSkills()) == 0 {
		return nil
	}
	return skill.Funcs(s)
}

// skillText is what skills add to the system message: the hint pointing
// at skill__list (unless inject_skill_instructions is false;
// skill_instructions replaces it; none when no skill is available or the
// model cannot call functions), then the loaded skills' bodies.
func (s *State) skillText() string {
	var parts []string
	if s.skillHint() {
		hint, _ := s.d.Config.Resolve("skill_instructions", s.Layers()).V.(string)
		if strings.TrimSpace(hint) == "" {
			hint = skill.Instructions
		}
		parts = append(parts, hint)
	}
	if b := s.skills.Bodies(); b != "" {
		parts = append(parts, b)
	}
	return strings.Join(parts, "\n\n")
}

// skillHint reports whether the skill hint goes into the system message.
func (s *State) skillHint() bool {
	if s.SkillsOff() != "" {
		return false
	}
	if inject, ok := s.d.Config.Resolve("inject_skill_instructions", s.Layers()).V.(bool); ok && !inject {
		return false
	}
	if t, err := s.Target(); err != nil || !t.Model.SupportsFunctionCalling {
		return false
	}
	avail, err := s.AvailableSkills()
	return err == nil && len(avail) > 0
}

// checkSkills is the hard error of skill settings that name a skill that
// is not there (nil when skills are off). It starts a turn: what it
// finds is kept for the rest of the turn, until endSkillTurn.
func (s *State) checkSkills() error {
	names, err := s.availableSkills()
	s.turnSkills = &turnSkills{names, err}
	return err
}

// endSkillTurn drops the skills marked auto_unload and forgets what the
// turn found (the end of Run).
func (s *State) endSkillTurn() {
	s.skills.DropAutoUnload()
	s.turnSkills = nil
}

// skillsVersion changes when a skill is loaded or unloaded.
func (s *State) skillsVersion() int { return s.skills.Version() }

// refreshForSkills rebuilds what a turn offers after a tool round loaded
// or unloaded a skill: the functions (and runner's list) and the system
// message.
func (s *State) refreshForSkills(m models.Model, req *provider.ChatRequest, runner *tools.Runner) {
	offered, _ := s.Offered(m)
	req.Tools = tools.Declarations(offered)
	runner.Offered = offered
	s.replaceSystemText(req, s.systemAdded)
}

// withSkillMCP is enabled (an enabled_mcp_servers value, nil for null)
// with the loaded skills' MCP servers added.
func (s *State) withSkillMCP(enabled any) any {
	add := s.skills.MCPServers()
	if len(add) == 0 {
		return enabled
	}
	return unionNames(enabled, add)
}

// withSkillTools is enabled (an enabled_tools value) with the loaded
// skills' tools added.
func (s *State) withSkillTools(enabled any) any {
	add := s.skills.Tools()
	if len(add) == 0 {
		return enabled
	}
	return unionNames(enabled, add)
}

// unionNames adds names to a list setting's value (nil, "all", a list,
// or "a,b"); "all" stays all.
func unionNames(v any, names []string) any {
	var have []string
	switch v := v.(type) {
	case string:
		if strings.TrimSpace(v) == "all" {
			return v
		}
		have = tools.SplitNames(v)
	case []string:
		if slices.Contains(v, "all") {
			return v
		}
		have = slices.Clone(v)
	}
	for _, n := range names {
		if !slices.Contains(have, n) {
			have = append(have, n)
		}
	}
	return have
}
