package repl

// Settings commands: .model, .set and .reasoning change this run's
// settings, at the level the original puts each (session, role or the
// in-memory global config); nothing is written to a file.

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/llm"
	"github.com/coyote-cli/coyote/kernel/macro"
	"github.com/coyote-cli/coyote/kernel/session"
)

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
		return fmt.Errorf(".set: %w", err) // it names the key
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
