package config

import (
	"fmt"
	"math"
)

// Kind is how a setting's value is read.
type Kind int

// Kinds of settings.
const (
	KindString Kind = iota
	KindBool
	KindInt
	KindFloat
	// KindList is a list of strings, written as a YAML list or a comma
	// string ("a,b"); null (unset) and [] (empty) differ.
	KindList
	// KindMap is a mapping, written in YAML (or JSON in the environment).
	KindMap
	// KindAny is any YAML value, kept as decoded.
	KindAny
)

// Key describes one setting of config.yaml.
type Key struct {
	Name    string
	Kind    Kind
	Default any // nil: unset (null)
	// FileIgnored keys are known but not read from the file, as in the
	// original (reasoning_effort is set by the environment or .set only;
	// light_theme and no_workspace_mcp appear in its example but do
	// nothing there).
	FileIgnored bool
	// Range bounds a number setting; nil means any finite number.
	Range *Range
}

// Range is the values a number setting allows, ends included.
type Range struct{ Min, Max float64 }

// Ranges of the number settings.
var (
	atLeast0  = &Range{0, math.Inf(1)}
	atLeast1  = &Range{1, math.Inf(1)}
	positive  = &Range{math.SmallestNonzeroFloat64, math.Inf(1)}
	tempRange = &Range{0, 2}
	unitRange = &Range{0, 1}
)

// Check reports whether v (a value of the key's kind) is allowed: a number
// must be finite (YAML's .nan and .inf, and "NaN" in .set, are numbers to
// a parser, and every request would then fail to encode) and in range.
// The error names the key and the range.
func (k Key) Check(v any) error {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case int64:
		f = float64(x)
	default:
		return nil
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("%s must be a finite number%s, not %v", k.Name, k.Range.text(), f)
	}
	if r := k.Range; r != nil && (f < r.Min || f > r.Max) {
		return fmt.Errorf("%s must be a number%s, not %v", k.Name, r.text(), v)
	}
	return nil
}

// text is the range as a message says it: " between 0 and 2", " of at
// least 1", "".
func (r *Range) text() string {
	switch {
	case r == nil:
		return ""
	case r == positive:
		return " above 0"
	case math.IsInf(r.Max, 1):
		return fmt.Sprintf(" of at least %v", r.Min)
	}
	return fmt.Sprintf(" between %v and %v", r.Min, r.Max)
}

// CheckNumber checks a number setting read elsewhere (a role's front
// matter, a session file) by the rule of config.yaml's key of that name.
func CheckNumber(key string, v any) error {
	k, ok := LookupKey(key)
	if !ok {
		return nil
	}
	return k.Check(v)
}

// Keys lists every setting of config.yaml, in the order `coyote --info`
// shows them. clients is read separately (see Config.Clients).
var Keys = []Key{
	{Name: "model", Kind: KindString},
	{Name: "temperature", Kind: KindFloat, Range: tempRange},
	{Name: "top_p", Kind: KindFloat, Range: unitRange},
	{Name: "reasoning_effort", Kind: KindString, FileIgnored: true},
	{Name: "stream", Kind: KindBool, Default: true},
	{Name: "save", Kind: KindBool, Default: false},
	{Name: "keybindings", Kind: KindString, Default: "emacs"},
	{Name: "editor", Kind: KindString},
	{Name: "wrap", Kind: KindString, Default: "no"},
	{Name: "wrap_code", Kind: KindBool, Default: false},
	{Name: "dry_run", Kind: KindBool, Default: false},
	{Name: "repl_prelude", Kind: KindString},
	{Name: "cmd_prelude", Kind: KindString},
	{Name: "agent_session", Kind: KindString},
	{Name: "highlight", Kind: KindBool, Default: true},
	{Name: "raw_markdown", Kind: KindBool, Default: false},
	{Name: "theme", Kind: KindString},
	{Name: "light_theme", Kind: KindBool, FileIgnored: true},
	{Name: "left_prompt", Kind: KindString},
	{Name: "right_prompt", Kind: KindString},
	{Name: "user_agent", Kind: KindString},
	{Name: "save_shell_history", Kind: KindBool, Default: true},
	// update_feed is --update's release feed (kernel/update's format).
	{Name: "update_feed", Kind: KindString, Default: "https://github.com/coyote-cli/coyote/releases/latest/download/releases.json"},
	{Name: "sync_models_url", Kind: KindString},
	{Name: "vault_password_file", Kind: KindString},
	{Name: "secrets_provider", Kind: KindMap},
	{Name: "function_calling_support", Kind: KindBool, Default: true},
	{Name: "mapping_tools", Kind: KindMap},
	{Name: "enabled_tools", Kind: KindList},
	{Name: "visible_tools", Kind: KindList},
	{Name: "tool_env_passthrough", Kind: KindList},
	// The sandbox launcher (coyote-sandbox): which backend --sandbox uses
	// (empty: the first available), whether the sandbox has the network,
	// the image of the container backends, and the backend that runs each
	// tool script call (--tool-sandbox; empty: tools run unsandboxed).
	{Name: "sandbox_backend", Kind: KindString},
	{Name: "sandbox_network", Kind: KindBool, Default: false},
	{Name: "sandbox_image", Kind: KindString},
	{Name: "tool_sandbox", Kind: KindString},
	{Name: "mcp_server_support", Kind: KindBool, Default: true},
	{Name: "mapping_mcp_servers", Kind: KindMap},
	{Name: "enabled_mcp_servers", Kind: KindList},
	{Name: "no_workspace_mcp", Kind: KindBool, FileIgnored: true},
	{Name: "skills_enabled", Kind: KindBool, Default: true},
	{Name: "visible_skills", Kind: KindList},
	{Name: "enabled_skills", Kind: KindList},
	{Name: "inject_skill_instructions", Kind: KindBool, Default: true},
	{Name: "skill_instructions", Kind: KindString},
	{Name: "enabled_macros", Kind: KindList},
	{Name: "auto_continue", Kind: KindBool, Default: false},
	{Name: "max_auto_continues", Kind: KindInt, Default: int64(10), Range: atLeast0},
	{Name: "inject_todo_instructions", Kind: KindBool, Default: true},
	{Name: "continuation_prompt", Kind: KindString},
	{Name: "save_session", Kind: KindBool},
	{Name: "compression_threshold", Kind: KindInt, Default: int64(4000), Range: atLeast0},
	{Name: "compression_keep_last", Kind: KindInt, Default: int64(0), Range: atLeast0},
	{Name: "summarization_prompt", Kind: KindString},
	{Name: "summary_context_prompt", Kind: KindString},
	{Name: "max_tool_result_chars", Kind: KindInt, Range: atLeast0},
	// Spending limits in USD, checked before each request (convo/cost.go).
	{Name: "max_session_cost", Kind: KindFloat, Range: positive},
	{Name: "max_cost_per_run", Kind: KindFloat, Range: positive},
	{Name: "memory", Kind: KindBool},
	{Name: "memory_cap_with_tools", Kind: KindInt, Default: int64(6000), Range: atLeast0},
	{Name: "memory_cap_without_tools", Kind: KindInt, Default: int64(12000), Range: atLeast0},
	{Name: "workspace_instructions", Kind: KindBool},
	{Name: "workspace_instructions_files", Kind: KindList, Default: []string{"COYOTE.md", "AGENTS.md", "CLAUDE.md", "GEMINI.md"}},
	{Name: "rag_embedding_model", Kind: KindString},
	{Name: "rag_reranker_model", Kind: KindString},
	{Name: "rag_top_k", Kind: KindInt, Default: int64(5), Range: atLeast1},
	{Name: "rag_chunk_size", Kind: KindInt, Range: atLeast1},
	{Name: "rag_chunk_overlap", Kind: KindInt, Range: atLeast0},
	{Name: "rag_default_driver", Kind: KindString, Default: "duckdb"},
	{Name: "rag_template", Kind: KindString},
	{Name: "rag_extractor_model", Kind: KindString},
	{Name: "rag_extractor_prompt", Kind: KindString},
	{Name: "rag_graph_hops", Kind: KindInt, Default: int64(1), Range: atLeast0},
	{Name: "document_loaders", Kind: KindMap, Default: map[string]any{"pdf": "pdftotext $1 -", "docx": "pandoc --to plain $1"}},
	{Name: "plugin_start_timeout", Kind: KindFloat, Default: 10.0, Range: positive},
}

// LookupKey returns the description of a setting.
func LookupKey(name string) (Key, bool) {
	for _, k := range Keys {
		if k.Name == name {
			return k, true
		}
	}
	return Key{}, false
}
