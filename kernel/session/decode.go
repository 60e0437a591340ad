package session

import (
	"fmt"
	"strings"

	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/todo"

	"gopkg.in/yaml.v3"

	"github.com/coyote-cli/coyote/kernel/yamlerr"
)

// FileError is a session file that cannot be read: where, and what is
// wrong.
type FileError struct {
	Path         string
	Line, Column int // 1-based
	Msg          string
}

func (e *FileError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Column, e.Msg)
}

// fileData is what a session file holds.
type fileData struct {
	settings   Settings
	extra      []field // unknown top-level keys, in file order
	compressed []entry
	messages   []entry
	dataURLs   []dataURL
	// todos is the todo list (never nil once read), todoExtra what its
	// key held that this package does not know.
	todos     *todo.List
	todoExtra todoExtra
}

// decode reads a session file. path is only used in errors.
func decode(path string, data []byte) (fd *fileData, err error) {
	doc, ok := fastParse(data) // the files this package writes (fastyaml.go)
	if !ok {
		doc = new(yaml.Node)
		if err := yamlerr.Unmarshal(data, doc); err != nil {
			return nil, syntaxError(path, data, err)
		}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, &FileError{Path: path, Line: 1, Column: 1, Msg: "the file is empty; a session file is a mapping with model and messages"}
	}
	d := &decoder{path: path}
	return d.file(doc.Content[0])
}

// syntaxError turns a yaml.v3 error into a FileError at its line and
// column.
func syntaxError(path string, data []byte, err error) error {
	line, col, msg := yamlerr.Locate(data, err)
	return &FileError{Path: path, Line: line, Column: col, Msg: msg}
}

type decoder struct {
	path string
}

func (d *decoder) fail(n *yaml.Node, where, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if where != "" {
		msg = where + ": " + msg
	}
	return &FileError{Path: d.path, Line: n.Line, Column: n.Column, Msg: msg}
}

// keys checks that a mapping repeats no key and calls fn for each pair.
func (d *decoder) keys(n *yaml.Node, where string, fn func(k string, v *yaml.Node) error) error {
	if n.Kind != yaml.MappingNode {
		return d.fail(n, where, "want a mapping, not %s", yamlerr.Describe(n))
	}
	if k, _ := yamlerr.RepeatedKey(n); k != nil {
		return d.fail(k, where, "%q appears twice", k.Value)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if k.Kind != yaml.ScalarNode {
			return d.fail(k, where, "a key must be a plain name")
		}
		if err := fn(k.Value, n.Content[i+1]); err != nil {
			return err
		}
	}
	return nil
}

func join(where, key string) string {
	if where == "" {
		return key
	}
	return where + "." + key
}

// raw checks a value kept as read and returns it. Aliases are refused:
// expanding them could multiply a small file into a huge one.
func (d *decoder) raw(n *yaml.Node, where string) (*yaml.Node, error) {
	if n.Kind == yaml.AliasNode {
		return nil, d.fail(n, where, "aliases (*%s) are not supported in session files; write the value out", n.Value)
	}
	for _, c := range n.Content {
		if _, err := d.raw(c, where); err != nil {
			return nil, err
		}
	}
	return n, nil
}

func (d *decoder) str(n *yaml.Node, where string) (string, error) {
	if n.Kind != yaml.ScalarNode {
		return "", d.fail(n, where, "want a string, not %s", yamlerr.Describe(n))
	}
	if n.ShortTag() == "!!null" {
		return "", nil
	}
	return n.Value, nil
}

func (d *decoder) optStr(n *yaml.Node, where string) (*string, error) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return nil, nil
	}
	s, err := d.str(n, where)
	return &s, err
}

func (d *decoder) boolean(n *yaml.Node, where string) (*bool, error) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return nil, nil
	}
	var b bool
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" || n.Decode(&b) != nil {
		return nil, d.fail(n, where, "want true or false, not %s", yamlerr.Describe(n))
	}
	return &b, nil
}

func (d *decoder) float(n *yaml.Node, where string) (*float64, error) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return nil, nil
	}
	var f float64
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!float" && n.ShortTag() != "!!int") || n.Decode(&f) != nil {
		return nil, d.fail(n, where, "want a number, not %s", yamlerr.Describe(n))
	}
	if err := config.CheckNumber(where, f); err != nil {
		return nil, d.fail(n, "", "%v", err)
	}
	return &f, nil
}

func (d *decoder) integer(n *yaml.Node, where string) (*int64, error) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return nil, nil
	}
	var i int64
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || n.Decode(&i) != nil || i < 0 {
		return nil, d.fail(n, where, "want a whole number, not %s", yamlerr.Describe(n))
	}
	return &i, nil
}

// list reads a list of names: a YAML list, or a comma-separated string as
// the original accepts ("a,b"; "" is an empty list). null is unset.
func (d *decoder) list(n *yaml.Node, where string) ([]string, error) {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.ShortTag() == "!!null" {
			return nil, nil
		}
		out := []string{}
		for p := range strings.SplitSeq(n.Value, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		return out, nil
	case yaml.SequenceNode:
		out := make([]string, 0, len(n.Content))
		for i, c := range n.Content {
			s, err := d.str(c, fmt.Sprintf("%s[%d]", where, i))
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, d.fail(n, where, "want a list of names or a comma-separated string, not %s", yamlerr.Describe(n))
}

func (d *decoder) file(root *yaml.Node) (*fileData, error) {
	fd := &fileData{todos: new(todo.List)}
	s := &fd.settings
	err := d.keys(root, "", func(k string, v *yaml.Node) error {
		var err error
		switch k {
		case "model":
			s.Model, err = d.str(v, k)
		case "temperature":
			s.Temperature, err = d.float(v, k)
		case "top_p":
			s.TopP, err = d.float(v, k)
		case "reasoning_effort":
			s.ReasoningEffort, err = d.optStr(v, k)
		case "enabled_tools":
			s.EnabledTools, err = d.list(v, k)
		case "enabled_mcp_servers":
			s.EnabledMCPServers, err = d.list(v, k)
		case "skills_enabled":
			s.SkillsEnabled, err = d.boolean(v, k)
		case "enabled_skills":
			s.EnabledSkills, err = d.list(v, k)
		case "enabled_macros":
			s.EnabledMacros, err = d.list(v, k)
		case "save_session":
			s.SaveSession, err = d.boolean(v, k)
		case "compression_threshold":
			s.CompressionThreshold, err = d.integer(v, k)
		case "auto_continue":
			s.AutoContinue, err = d.boolean(v, k)
		case "max_auto_continues":
			s.MaxAutoContinues, err = d.integer(v, k)
		case "inject_todo_instructions":
			s.InjectTodoInstructions, err = d.boolean(v, k)
		case "continuation_prompt":
			s.ContinuationPrompt, err = d.optStr(v, k)
		case "inject_skill_instructions":
			s.InjectSkillInstructions, err = d.boolean(v, k)
		case "skill_instructions":
			s.SkillInstructions, err = d.optStr(v, k)
		case "memory":
			s.Memory, err = d.boolean(v, k)
		case "role_name":
			s.RoleName, err = d.optStr(v, k)
		case "agent_variables":
			s.AgentVariables, err = d.variables(v, k)
		case "agent_instructions":
			s.AgentInstructions, err = d.str(v, k)
		case "todo_list":
			err = d.todoList(v, k, fd)
		case "compressed_messages":
			fd.compressed, err = d.entries(v, k)
		case "messages":
			fd.messages, err = d.entries(v, k)
		case "data_urls":
			fd.dataURLs, err = d.dataURLs(v, k)
		default:
			var n *yaml.Node
			n, err = d.raw(v, k)
			fd.extra = append(fd.extra, field{k, n})
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return fd, nil
}

func (d *decoder) variables(n *yaml.Node, where string) ([]Variable, error) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return nil, nil
	}
	var out []Variable
	err := d.keys(n, where, func(k string, v *yaml.Node) error {
		s, err := d.str(v, join(where, k))
		out = append(out, Variable{Name: k, Value: s})
		return err
	})
	return out, err
}

func (d *decoder) dataURLs(n *yaml.Node, where string) ([]dataURL, error) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return nil, nil
	}
	var out []dataURL
	err := d.keys(n, where, func(k string, v *yaml.Node) error {
		s, err := d.str(v, join(where, k))
		out = append(out, dataURL{sha: k, path: s})
		return err
	})
	return out, err
}

func (d *decoder) entries(n *yaml.Node, where string) ([]entry, error) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, d.fail(n, where, "want a list of messages, not %s", yamlerr.Describe(n))
	}
	out := make([]entry, len(n.Content))
	for i, c := range n.Content {
		if err := d.entry(c, fmt.Sprintf("%s[%d]", where, i), &out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// knownRole reports whether a session message may have the role.
func knownRole(role string) bool {
	switch role {
	case "system", "user", "assistant", "tool":
		return true
	}
	return false
}

func (d *decoder) entry(n *yaml.Node, where string, e *entry) error {
	var content *yaml.Node
	err := d.keys(n, where, func(k string, v *yaml.Node) error {
		var err error
		switch k {
		case "role":
			e.role, err = d.str(v, join(where, k))
			if err == nil && !knownRole(e.role) {
				err = d.fail(v, join(where, k), "want system, user, assistant or tool, not %s", yamlerr.Describe(v))
			}
		case "content":
			content = v
		case "thinking":
			e.thinking, err = d.thinking(v, join(where, k))
		default:
			var r *yaml.Node
			r, err = d.raw(v, join(where, k))
			e.extra = append(e.extra, field{k, r})
		}
		return err
	})
	if err != nil {
		return err
	}
	if e.role == "" {
		return d.fail(n, where, "the message has no role")
	}
	if content == nil {
		return nil // an empty text
	}
	where = join(where, "content")
	switch content.Kind {
	case yaml.ScalarNode:
		e.kind = textContent
		e.text, err = d.str(content, where)
	case yaml.SequenceNode:
		e.kind = partsContent
		e.parts = make([]part, len(content.Content))
		for i, c := range content.Content {
			if err = d.part(c, fmt.Sprintf("%s[%d]", where, i), &e.parts[i]); err != nil {
				break
			}
		}
	case yaml.MappingNode:
		e.kind = callsContent
		e.calls, err = d.toolCalls(content, where)
	default:
		err = d.fail(content, where, "want a text, a list of parts or tool calls, not %s", yamlerr.Describe(content))
	}
	return err
}

func (d *decoder) part(n *yaml.Node, where string, p *part) error {
	if n.Kind != yaml.MappingNode {
		return d.fail(n, where, "want a part ({type: text, text: ...}), not %s", yamlerr.Describe(n))
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "type" {
			p.typ, _ = d.str(n.Content[i+1], "")
		}
	}
	switch p.typ {
	case "text", "image_url":
	default:
		var err error
		p.raw, err = d.raw(n, where)
		return err
	}
	var seen bool
	err := d.keys(n, where, func(k string, v *yaml.Node) error {
		var err error
		switch {
		case k == "type":
		case k == "text" && p.typ == "text":
			p.text, err = d.str(v, join(where, k))
			seen = true
		case k == "image_url" && p.typ == "image_url":
			seen = true
			err = d.keys(v, join(where, k), func(k2 string, v2 *yaml.Node) error {
				if k2 == "url" {
					var err error
					p.url, err = d.str(v2, join(where, k+"."+k2))
					return err
				}
				r, err := d.raw(v2, join(where, k+"."+k2))
				p.urlExtra = append(p.urlExtra, field{k2, r})
				return err
			})
		default:
			var r *yaml.Node
			r, err = d.raw(v, join(where, k))
			p.extra = append(p.extra, field{k, r})
		}
		return err
	})
	if err == nil && !seen {
		err = d.fail(n, where, "a %s part needs its %s key", p.typ, p.typ)
	}
	return err
}

func (d *decoder) toolCalls(n *yaml.Node, where string) (*toolCalls, error) {
	tc := &toolCalls{}
	var seen bool
	err := d.keys(n, where, func(k string, v *yaml.Node) error {
		var err error
		switch k {
		case "tool_results":
			seen = true
			if v.Kind != yaml.SequenceNode {
				return d.fail(v, join(where, k), "want a list of tool results, not %s", yamlerr.Describe(v))
			}
			tc.results = make([]toolResult, len(v.Content))
			for i, c := range v.Content {
				if err = d.toolResult(c, fmt.Sprintf("%s.%s[%d]", where, k, i), &tc.results[i]); err != nil {
					return err
				}
			}
		case "text":
			tc.text, err = d.str(v, join(where, k))
		case "sequence":
			var b *bool
			b, err = d.boolean(v, join(where, k))
			tc.sequence = b != nil && *b
		default:
			var r *yaml.Node
			r, err = d.raw(v, join(where, k))
			tc.extra = append(tc.extra, field{k, r})
		}
		return err
	})
	if err == nil && !seen {
		err = d.fail(n, where, "a mapping content must hold tool_results")
	}
	return tc, err
}

var nullNode = yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}

func (d *decoder) toolResult(n *yaml.Node, where string, r *toolResult) error {
	var seen bool
	err := d.keys(n, where, func(k string, v *yaml.Node) error {
		var err error
		switch k {
		case "call":
			seen = true
			err = d.toolCall(v, join(where, k), &r.call)
		case "output":
			r.output, err = d.raw(v, join(where, k))
		case "text":
			r.text, err = d.optStr(v, join(where, k))
		case "thinking":
			r.thinking, err = d.thinking(v, join(where, k))
		case "is_error":
			var b *bool
			b, err = d.boolean(v, join(where, k))
			r.isError = b != nil && *b
		default:
			var x *yaml.Node
			x, err = d.raw(v, join(where, k))
			r.extra = append(r.extra, field{k, x})
		}
		return err
	})
	if err != nil {
		return err
	}
	if !seen {
		return d.fail(n, where, "the tool result has no call")
	}
	if r.output == nil {
		out := nullNode
		r.output = &out
	}
	r.outputText = valueText(r.output)
	return nil
}

func (d *decoder) toolCall(n *yaml.Node, where string, c *toolCall) error {
	err := d.keys(n, where, func(k string, v *yaml.Node) error {
		var err error
		switch k {
		case "name":
			c.name, err = d.str(v, join(where, k))
		case "arguments":
			c.args, err = d.raw(v, join(where, k))
		case "id":
			c.id, err = d.str(v, join(where, k))
		case "thought_signature":
			c.signature, err = d.str(v, join(where, k))
		default:
			var x *yaml.Node
			x, err = d.raw(v, join(where, k))
			c.extra = append(c.extra, field{k, x})
		}
		return err
	})
	if err != nil {
		return err
	}
	if c.name == "" {
		return d.fail(n, where, "the tool call has no name")
	}
	if c.args == nil {
		c.args = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	}
	c.argsText = valueText(c.args)
	return nil
}

func (d *decoder) thinking(n *yaml.Node, where string) ([]thinkingBlock, error) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, d.fail(n, where, "want a list of thinking blocks, not %s", yamlerr.Describe(n))
	}
	out := make([]thinkingBlock, len(n.Content))
	for i, c := range n.Content {
		w := fmt.Sprintf("%s[%d]", where, i)
		b := &out[i]
		if c.Kind != yaml.MappingNode {
			return nil, d.fail(c, w, "want a thinking block, not %s", yamlerr.Describe(c))
		}
		for j := 0; j+1 < len(c.Content); j += 2 {
			if c.Content[j].Value == "type" {
				b.typ, _ = d.str(c.Content[j+1], "")
			}
		}
		if b.typ != typeThinking && b.typ != typeRedacted {
			var err error
			if b.raw, err = d.raw(c, w); err != nil {
				return nil, err
			}
			continue
		}
		err := d.keys(c, w, func(k string, v *yaml.Node) error {
			var err error
			switch {
			case k == "type":
			case k == "thinking" && b.typ == typeThinking:
				b.thinking, err = d.str(v, join(w, k))
			case k == "signature" && b.typ == typeThinking:
				b.signature, err = d.str(v, join(w, k))
			case k == "data" && b.typ == typeRedacted:
				b.data, err = d.str(v, join(w, k))
			default:
				var x *yaml.Node
				x, err = d.raw(v, join(w, k))
				b.extra = append(b.extra, field{k, x})
			}
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
