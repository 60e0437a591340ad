package macro

import (
	"bytes"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/coyote-cli/coyote/kernel/trust"
	"github.com/coyote-cli/coyote/kernel/yamlerr"
)

// Variable is one declared variable.
type Variable struct {
	Name    string
	Default *string // nil: required
	Rest    bool    // collects the remaining arguments (joined by spaces)
}

// Macro is one macro file.
type Macro struct {
	Name        string // the file stem: the command name
	Description string
	Isolated    bool // default true when the key is absent
	Variables   []Variable
	Steps       []string
	Source      string // "workspace" or "global"
	Path        string
	// ShadowedBy is "workspace" for a global macro hidden by a workspace one of the same name.
	ShadowedBy string
	// Err is why the file is invalid (parse error, no steps, reserved name enable/disable); the macro
	// is then listed as invalid and never runs.
	Err error
	// Sum is the hash of the file's content as parsed (zero for a macro
	// not read from a file): what a workspace macro's approval is about.
	Sum trust.Sum
}

// Sources of a macro.
const (
	SourceWorkspace = "workspace"
	SourceGlobal    = "global"
)

// FileError is a macro file that cannot be used. File is the path (or
// "<name>.yaml" when Parse was given no path); Line is 1-based, 0 when
// the problem is the file as a whole (its name, or no steps).
type FileError struct {
	File string
	Line int
	Msg  string
}

func (e *FileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s line %d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// UsageError is the error of Expand when the arguments do not fit the
// variables. Its text is exactly the macro's Usage line; the fields say
// what was wrong for a caller that wants more.
type UsageError struct {
	Usage   string
	Missing string   // the first required variable without an argument
	Extra   []string // arguments left over when no variable is rest
}

func (e *UsageError) Error() string { return e.Usage }

// Reserved reports whether name is taken by `.macro enable` and
// `.macro disable`, so that no macro can have it.
func Reserved(name string) bool { return name == "enable" || name == "disable" }

// keys a macro file may have, in the order the error message lists them.
var fileKeys = []string{"description", "isolated", "variables", "steps"}

// Parse reads one macro file; name is its stem, the command name. A
// missing isolated key means true, so a file written for an older version
// (only variables and steps) stays valid. It refuses unknown keys (naming
// the key and its line), steps that are not text, a file without steps,
// a rest variable that is not the last, duplicate variable names, and the
// reserved names enable and disable.
//
// On error the returned Macro is still non-nil: it carries Name, Err (the
// same error, a *FileError) and whatever fields could be read, so that a
// listing can show it as invalid; it must never run.
func Parse(name string, data []byte) (*Macro, error) {
	m := &Macro{Name: name, Isolated: true}
	err := m.parse(data)
	switch {
	case Reserved(name):
		err = &FileError{File: name + ".yaml", Msg: fmt.Sprintf("%q is reserved for .macro enable and .macro disable: rename the file", name)}
	case strings.TrimSpace(name) == "" || strings.ContainsAny(name, " \t\r\n"):
		err = &FileError{File: name + ".yaml", Msg: "a macro's name is its file name and cannot contain spaces: rename the file"}
	}
	if err != nil {
		m.Err = err
		return m, err
	}
	return m, nil
}

// parse fills m from the file's content.
func (m *Macro) parse(data []byte) error {
	fail := func(line int, format string, args ...any) error {
		return &FileError{File: m.Name + ".yaml", Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		line, _, msg := yamlerr.Locate(data, err)
		return fail(line, "%s", msg)
	}
	var root *yaml.Node
	if len(doc.Content) > 0 {
		root = deref(doc.Content[0])
	}
	if root == nil || isNull(root) {
		return fail(0, "no steps: a macro needs a `steps:` list of REPL lines")
	}
	if root.Kind != yaml.MappingNode {
		return fail(root.Line, "a macro file must be `key: value` lines (%s)", strings.Join(fileKeys, ", "))
	}
	if k, _ := yamlerr.RepeatedKey(root); k != nil {
		return fail(k.Line, "key %q appears twice", k.Value)
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], deref(root.Content[i+1])
		switch k.Value {
		case "description":
			if isNull(v) {
				continue
			}
			if v.Kind != yaml.ScalarNode {
				return fail(v.Line, "description must be one line of text")
			}
			m.Description = strings.TrimSpace(v.Value)
		case "isolated":
			if isNull(v) {
				continue
			}
			if v.Kind != yaml.ScalarNode || v.Decode(&m.Isolated) != nil {
				return fail(v.Line, "isolated must be true or false, not %s", show(v))
			}
		case "variables":
			vars, line, msg := parseVariables(v)
			if msg != "" {
				return fail(line, "%s", msg)
			}
			m.Variables = vars
		case "steps":
			if isNull(v) {
				continue
			}
			if v.Kind != yaml.SequenceNode {
				return fail(v.Line, "steps must be a list (one `- line` per REPL line)")
			}
			for n, s := range v.Content {
				s = deref(s)
				if s.Kind != yaml.ScalarNode || isNull(s) {
					return fail(s.Line, "step %d is not a line of text (quote a step that contains \": \" or starts with a special character)", n+1)
				}
				m.Steps = append(m.Steps, s.Value)
			}
		default:
			return fail(k.Line, "unknown key %q (a macro has %s)", k.Value, strings.Join(fileKeys, ", "))
		}
	}
	if len(m.Steps) == 0 {
		return fail(0, "no steps: a macro needs a `steps:` list of REPL lines")
	}
	return nil
}

// parseVariables reads the variables list; msg is non-empty on error.
func parseVariables(v *yaml.Node) (vars []Variable, line int, msg string) {
	if isNull(v) {
		return nil, 0, ""
	}
	if v.Kind != yaml.SequenceNode {
		return nil, v.Line, "variables must be a list of `- name: ...` entries"
	}
	names := map[string]bool{}
	for i, item := range v.Content {
		item = deref(item)
		if item.Kind != yaml.MappingNode {
			return nil, item.Line, fmt.Sprintf("variable %d must be `name:` (with optional `default:` and `rest:`)", i+1)
		}
		var (
			vr      Variable
			hasName bool
		)
		if k, _ := yamlerr.RepeatedKey(item); k != nil {
			return nil, k.Line, fmt.Sprintf("key %q appears twice in variable %d", k.Value, i+1)
		}
		for j := 0; j+1 < len(item.Content); j += 2 {
			k, val := item.Content[j], deref(item.Content[j+1])
			switch k.Value {
			case "name":
				if val.Kind != yaml.ScalarNode || isNull(val) || strings.TrimSpace(val.Value) == "" {
					return nil, val.Line, fmt.Sprintf("variable %d has no name", i+1)
				}
				vr.Name, hasName = val.Value, true
			case "default":
				if isNull(val) {
					continue // null: required, as when the key is absent
				}
				if val.Kind != yaml.ScalarNode {
					return nil, val.Line, fmt.Sprintf("the default of variable %d must be text", i+1)
				}
				d := val.Value
				vr.Default = &d
			case "rest":
				if isNull(val) {
					continue
				}
				if val.Kind != yaml.ScalarNode || val.Decode(&vr.Rest) != nil {
					return nil, val.Line, fmt.Sprintf("rest must be true or false, not %s", show(val))
				}
			default:
				return nil, k.Line, fmt.Sprintf("unknown key %q in variable %d (a variable has name, default and rest)", k.Value, i+1)
			}
		}
		if !hasName {
			return nil, item.Line, fmt.Sprintf("variable %d has no name", i+1)
		}
		if names[vr.Name] {
			return nil, item.Line, fmt.Sprintf("variable %q is declared twice", vr.Name)
		}
		names[vr.Name] = true
		if vr.Rest && i != len(v.Content)-1 {
			return nil, item.Line, fmt.Sprintf("variable %q is rest but not the last: only the last variable can collect the remaining arguments", vr.Name)
		}
		vars = append(vars, vr)
	}
	return vars, 0, ""
}

// deref follows an alias to the node it names.
func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n == nil || n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// show is a node as a message quotes it.
func show(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return fmt.Sprintf("%q", n.Value)
	}
	return "a list or a mapping"
}

// Usage is the one-line synopsis of the macro, with each variable in
// declaration order: <name> when required, [name] when it has a default,
// <name...> or [name...] when it collects the remaining arguments.
func (m *Macro) Usage() string {
	var b strings.Builder
	b.WriteString("Usage: .")
	b.WriteString(m.Name)
	for _, v := range m.Variables {
		open, closing := "<", ">"
		if v.Default != nil {
			open, closing = "[", "]"
		}
		b.WriteString(" ")
		b.WriteString(open)
		b.WriteString(v.Name)
		if v.Rest {
			b.WriteString("...")
		}
		b.WriteString(closing)
	}
	return b.String()
}

// Values binds the arguments to the variables: positionally in
// declaration order; a rest variable (only ever the last) takes every
// remaining argument joined by single spaces; a variable without an
// argument takes its default. A required variable without an argument, or
// arguments left over with no rest variable, is a *UsageError.
func (m *Macro) Values(args []string) (map[string]string, error) {
	vals := make(map[string]string, len(m.Variables))
	for i, v := range m.Variables {
		switch {
		case v.Rest && i < len(args):
			vals[v.Name] = strings.Join(args[i:], " ")
		case i < len(args):
			vals[v.Name] = args[i]
		case v.Default != nil:
			vals[v.Name] = *v.Default
		default:
			return nil, &UsageError{Usage: m.Usage(), Missing: v.Name}
		}
	}
	if n := len(m.Variables); len(args) > n && (n == 0 || !m.Variables[n-1].Rest) {
		return nil, &UsageError{Usage: m.Usage(), Extra: args[n:]}
	}
	return vals, nil
}

// Expand returns the steps with every {{name}} of a declared variable
// replaced by its value (see Values for the binding and its errors, whose
// text is Usage()). A {{x}} naming no variable is left as written, and a
// value is inserted as is: a {{...}} inside an argument is never expanded.
func (m *Macro) Expand(args []string) ([]string, error) {
	vals, err := m.Values(args)
	if err != nil {
		return nil, err
	}
	steps := make([]string, len(m.Steps))
	for i, s := range m.Steps {
		steps[i] = Substitute(s, vals)
	}
	return steps, nil
}

// Substitute replaces each {{name}} of s whose name is a key of vals, in
// one left-to-right pass over s: replaced text is never scanned again.
// The name between the braces is taken as written (no trimming).
func Substitute(s string, vals map[string]string) string {
	if !strings.Contains(s, "{{") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for {
		open := strings.Index(s, "{{")
		if open < 0 {
			break
		}
		b.WriteString(s[:open])
		s = s[open:]
		end := strings.Index(s[2:], "}}")
		if end < 0 {
			break
		}
		if v, ok := vals[s[2:2+end]]; ok {
			b.WriteString(v)
			s = s[2+end+2:]
			continue
		}
		// Not a variable: keep one brace and look again from the next
		// one, so that "{{{x}}}" still finds "{{x}}".
		b.WriteByte(s[0])
		s = s[1:]
	}
	b.WriteString(s)
	return b.String()
}
