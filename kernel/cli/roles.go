package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/coyote-cli/coyote/assets"
	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/role"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// activeRole picks the role of a one-shot prompt, as the original orders
// them: --prompt, then -r, then -e (the shell role), then -c (the code
// role); nil when none applies.
func activeRole(f *Factory, opts *rootOptions) (*role.Role, error) {
	name := ""
	switch {
	case opts.Prompt != "":
		return role.Temp(opts.Prompt), nil
	case opts.Role != "":
		name = opts.Role
	case opts.Execute:
		name = role.Shell
	case opts.Code:
		name = role.Code
	default:
		return nil, nil
	}
	p, err := f.Paths()
	if err != nil {
		return nil, err
	}
	r, warnings, err := role.Load(name, p.RolesDir, assets.Roles())
	if err != nil {
		return nil, err
	}
	for _, w := range warnings {
		fmt.Fprintln(f.IO.ErrOut, "warning: "+w.String())
	}
	return r, nil
}

// roleLayer is a role's settings as a precedence level.
func roleLayer(r *role.Role) config.Layer {
	if r == nil {
		return nil
	}
	src := config.Source{Kind: "role", Where: r.Name}
	l := config.MapLayer{}
	set := func(key string, v any) { l[key] = &config.Value{V: v, Src: src} }
	s := r.Settings
	if s.Model != "" {
		set("model", s.Model)
	}
	if s.Temperature != nil {
		set("temperature", *s.Temperature)
	}
	if s.TopP != nil {
		set("top_p", *s.TopP)
	}
	if s.ReasoningEffort != "" {
		set("reasoning_effort", s.ReasoningEffort)
	}
	lists := map[string]role.StringList{
		"enabled_tools": s.EnabledTools, "enabled_mcp_servers": s.EnabledMCPServers,
		"enabled_skills": s.EnabledSkills, "enabled_macros": s.EnabledMacros,
	}
	for k, v := range lists {
		if v.Set {
			set(k, append([]string{}, v.Items...))
		}
	}
	bools := map[string]*bool{
		"skills_enabled": s.SkillsEnabled, "auto_continue": s.AutoContinue, "inject_todo_instructions": s.InjectTodoInstructions,
		"inject_skill_instructions": s.InjectSkillInstructions, "memory": s.Memory,
	}
	for k, v := range bools {
		if v != nil {
			set(k, *v)
		}
	}
	if s.MaxAutoContinues != nil {
		set("max_auto_continues", int64(*s.MaxAutoContinues))
	}
	if s.ContinuationPrompt != nil {
		set("continuation_prompt", *s.ContinuationPrompt)
	}
	if s.SkillInstructions != nil {
		set("skill_instructions", *s.SkillInstructions)
	}
	return l
}

// applySampling fills the request's sampling options from the resolved
// settings.
func applySampling(cfg *config.Config, layers config.Layers, req *provider.ChatRequest) {
	if f, ok := cfg.Resolve("temperature", layers).V.(float64); ok {
		req.Temperature = &f
	}
	if f, ok := cfg.Resolve("top_p", layers).V.(float64); ok {
		req.TopP = &f
	}
	if s, ok := cfg.Resolve("reasoning_effort", layers).V.(string); ok {
		req.ReasoningEffort = s
	}
}

// runListRoles prints every role, user and built-in, one per line.
func runListRoles(f *Factory) error {
	p, err := f.Paths()
	if err != nil {
		return err
	}
	names := role.List(p.RolesDir, assets.Roles())
	if len(names) == 0 {
		return nil
	}
	_, err = io.WriteString(f.IO.Out, strings.Join(names, "\n")+"\n")
	return err
}

// codeOnly returns the code of a reply: the contents of its fenced code
// blocks, joined, or the whole reply trimmed when it has none.
func codeOnly(reply string) string {
	var blocks []string
	lines := strings.SplitAfter(reply, "\n")
	inside := false
	var cur strings.Builder
	fence := ""
	for _, l := range lines {
		trimmed := strings.TrimSpace(l)
		switch {
		case !inside && strings.HasPrefix(trimmed, "```"):
			inside, fence = true, trimmed[:strings.IndexFunc(trimmed+"x", func(r rune) bool { return r != '`' })]
			cur.Reset()
		case inside && strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, "`") == "":
			inside = false
			blocks = append(blocks, strings.TrimRight(cur.String(), "\n"))
		case inside:
			cur.WriteString(l)
		}
	}
	if inside { // an unclosed block at the end of the reply
		blocks = append(blocks, strings.TrimRight(cur.String(), "\n"))
	}
	if len(blocks) == 0 {
		return strings.TrimSpace(reply)
	}
	return strings.Join(blocks, "\n\n")
}
