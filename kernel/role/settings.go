package role

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/coyote-cli/coyote/kernel/config"

	"gopkg.in/yaml.v3"
)

// Settings are the per-role settings of a role file's front matter. Every
// field can be unset, which means "inherit" (from the current model or the
// global configuration): an empty string, a nil pointer, or a StringList
// whose Set is false. Session files carry the same keys.
type Settings struct {
	// Model is a model id ("client:model" or a bare client name).
	Model           string
	Temperature     *float64
	TopP            *float64
	ReasoningEffort string

	// EnabledTools, EnabledMCPServers, EnabledSkills and EnabledMacros
	// are allow-lists; the item "all" is kept as written for the caller
	// to interpret.
	EnabledTools      StringList
	EnabledMCPServers StringList
	SkillsEnabled     *bool
	EnabledSkills     StringList
	EnabledMacros     StringList

	AutoContinue           *bool
	MaxAutoContinues       *int
	InjectTodoInstructions *bool
	ContinuationPrompt     *string

	InjectSkillInstructions *bool
	SkillInstructions       *string

	Memory *bool
}

// StringList is a list setting that may be unset (null or absent: inherit) or
// set, possibly to no items ([] or "": nothing allowed). In YAML it is a
// list or a comma-separated string ("fs_ls,fs_cat").
type StringList struct {
	Set   bool
	Items []string
}

// ListOf returns a set StringList of the items.
func ListOf(items ...string) StringList {
	return StringList{Set: true, Items: items}
}

// ParseList reads a comma-separated list: items are trimmed and empty ones
// dropped, so "" is a set, empty list.
func ParseList(s string) StringList {
	l := StringList{Set: true}
	for item := range strings.SplitSeq(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			l.Items = append(l.Items, item)
		}
	}
	return l
}

// String returns the list comma-separated, or "null" when unset.
func (l StringList) String() string {
	if !l.Set {
		return "null"
	}
	return strings.Join(l.Items, ",")
}

// Equal reports whether two lists are both unset or both set to the same
// items.
func (l StringList) Equal(o StringList) bool {
	return l.Set == o.Set && slices.Equal(l.Items, o.Items)
}

// IsZero reports whether the list is unset, so that `omitempty` drops it
// when a struct holding it is written as YAML.
func (l StringList) IsZero() bool { return !l.Set }

// UnmarshalYAML reads a YAML list of names or a comma-separated string.
// yaml.v3 does not call it for null, which leaves the StringList unset.
func (l *StringList) UnmarshalYAML(n *yaml.Node) error {
	v, msg := parseListNode(n)
	if msg != "" {
		return fmt.Errorf("line %d: %s", n.Line, msg)
	}
	*l = v
	return nil
}

// MarshalYAML writes an unset list as null and a set one as a YAML list.
func (l StringList) MarshalYAML() (any, error) {
	if !l.Set {
		return nil, nil
	}
	if l.Items == nil {
		return []string{}, nil
	}
	return l.Items, nil
}

func parseListNode(n *yaml.Node) (StringList, string) {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.ShortTag() == "!!null" {
			return StringList{}, ""
		}
		return ParseList(n.Value), ""
	case yaml.SequenceNode:
		l := StringList{Set: true}
		for _, item := range n.Content {
			if item.Kind != yaml.ScalarNode || item.ShortTag() == "!!null" {
				return StringList{}, "the items of the list must be names"
			}
			if v := strings.TrimSpace(item.Value); v != "" {
				l.Items = append(l.Items, v)
			}
		}
		return l, ""
	}
	return StringList{}, `must be a list of names or a comma-separated string (like "a,b")`
}

// The kinds of value a setting holds.
type kind int

const (
	kindString kind = iota // a single-line word such as a model id; "" is unset
	kindText               // free text; *string
	kindFloat              // *float64
	kindBool               // *bool
	kindInt                // *int, 0 or more
	kindList               // StringList
)

// field ties a front-matter key to its Settings field.
type field struct {
	key  string
	kind kind
	ptr  func(*Settings) any // a *string, **string, **float64, **bool, **int or *StringList
}

// fields lists the keys of a role file in the order Encode writes new ones.
var fields = [...]field{
	{"model", kindString, func(s *Settings) any { return &s.Model }},
	{"temperature", kindFloat, func(s *Settings) any { return &s.Temperature }},
	{"top_p", kindFloat, func(s *Settings) any { return &s.TopP }},
	{"reasoning_effort", kindString, func(s *Settings) any { return &s.ReasoningEffort }},
	{"enabled_tools", kindList, func(s *Settings) any { return &s.EnabledTools }},
	{"enabled_mcp_servers", kindList, func(s *Settings) any { return &s.EnabledMCPServers }},
	{"skills_enabled", kindBool, func(s *Settings) any { return &s.SkillsEnabled }},
	{"enabled_skills", kindList, func(s *Settings) any { return &s.EnabledSkills }},
	{"inject_skill_instructions", kindBool, func(s *Settings) any { return &s.InjectSkillInstructions }},
	{"skill_instructions", kindText, func(s *Settings) any { return &s.SkillInstructions }},
	{"enabled_macros", kindList, func(s *Settings) any { return &s.EnabledMacros }},
	{"memory", kindBool, func(s *Settings) any { return &s.Memory }},
	{"auto_continue", kindBool, func(s *Settings) any { return &s.AutoContinue }},
	{"max_auto_continues", kindInt, func(s *Settings) any { return &s.MaxAutoContinues }},
	{"inject_todo_instructions", kindBool, func(s *Settings) any { return &s.InjectTodoInstructions }},
	{"continuation_prompt", kindText, func(s *Settings) any { return &s.ContinuationPrompt }},
}

func lookupField(key string) (field, bool) {
	for _, f := range fields {
		if f.key == key {
			return f, true
		}
	}
	return field{}, false
}

// Keys returns the settings keys of a role file, in the order Encode
// writes them.
func Keys() []string {
	keys := make([]string, len(fields))
	for i, f := range fields {
		keys[i] = f.key
	}
	return keys
}

// get returns the field's value in s, or nil when unset: a string,
// float64, bool, int or StringList.
func (f field) get(s *Settings) any {
	switch p := f.ptr(s).(type) {
	case *string:
		if *p == "" {
			return nil
		}
		return *p
	case **string:
		if *p == nil {
			return nil
		}
		return **p
	case **float64:
		if *p == nil {
			return nil
		}
		return **p
	case **bool:
		if *p == nil {
			return nil
		}
		return **p
	case **int:
		if *p == nil {
			return nil
		}
		return **p
	case *StringList:
		if !p.Set {
			return nil
		}
		return *p
	}
	return nil
}

// set stores v (as returned by get or parse; nil unsets) in s.
func (f field) set(s *Settings, v any) {
	switch p := f.ptr(s).(type) {
	case *string:
		x, _ := v.(string)
		*p = x
	case **string:
		*p = nil
		if x, ok := v.(string); ok {
			*p = &x
		}
	case **float64:
		*p = nil
		if x, ok := v.(float64); ok {
			*p = &x
		}
	case **bool:
		*p = nil
		if x, ok := v.(bool); ok {
			*p = &x
		}
	case **int:
		*p = nil
		if x, ok := v.(int); ok {
			*p = &x
		}
	case *StringList:
		x, _ := v.(StringList)
		*p = x
	}
}

// parseNode reads the YAML value of the field; nil means unset. A wrong
// value gives a message that says what the key expects.
func (f field) parseNode(n *yaml.Node) (any, string) {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return nil, ""
	}
	switch f.kind {
	case kindList:
		l, msg := parseListNode(n)
		if msg != "" {
			return nil, f.key + " " + msg
		}
		return l, ""
	case kindString, kindText:
		if n.Kind != yaml.ScalarNode {
			return nil, f.key + " must be a single value, not a list or a mapping"
		}
		if f.kind == kindString {
			if n.Value == "" {
				return nil, ""
			}
			if strings.ContainsAny(n.Value, "\r\n") {
				return nil, f.key + " must be on one line"
			}
		}
		return n.Value, ""
	case kindFloat:
		var v float64
		if n.Kind != yaml.ScalarNode || n.Decode(&v) != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Sprintf("%s must be a number (like 0.7), not %s", f.key, describe(n))
		}
		if err := config.CheckNumber(f.key, v); err != nil {
			return nil, err.Error()
		}
		return v, ""
	case kindBool:
		var v bool
		if n.Kind != yaml.ScalarNode || n.Decode(&v) != nil {
			return nil, fmt.Sprintf("%s must be true or false, not %s", f.key, describe(n))
		}
		return v, ""
	case kindInt:
		var v int
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || n.Decode(&v) != nil || v < 0 {
			return nil, fmt.Sprintf("%s must be a whole number, 0 or more, not %s", f.key, describe(n))
		}
		return v, ""
	}
	return nil, ""
}

// parseText reads a value as typed after `.set KEY`: "null" unsets, a list
// is comma-separated.
func (f field) parseText(s string) (any, error) {
	s = strings.TrimSpace(s)
	if s == "null" {
		return nil, nil
	}
	switch f.kind {
	case kindList:
		return ParseList(s), nil
	case kindString:
		if s == "" {
			return nil, nil
		}
		return s, nil
	case kindText:
		return s, nil
	case kindFloat:
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%s must be a number (like 0.7) or null, not %q", f.key, s)
		}
		if err := config.CheckNumber(f.key, v); err != nil {
			return nil, err
		}
		return v, nil
	case kindBool:
		v, err := strconv.ParseBool(s)
		if err != nil {
			return nil, fmt.Errorf("%s must be true, false or null, not %q", f.key, s)
		}
		return v, nil
	case kindInt:
		v, err := strconv.Atoi(s)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("%s must be a whole number, 0 or more, or null, not %q", f.key, s)
		}
		return v, nil
	}
	return nil, nil
}

// node returns v (not nil) as a YAML value node.
func (f field) node(v any) *yaml.Node {
	n := new(yaml.Node)
	if l, ok := v.(StringList); ok {
		if len(l.Items) == 0 {
			return &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle}
		}
		v = l.Items
	}
	if err := n.Encode(v); err != nil {
		// Strings, numbers, booleans and string lists always encode.
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	}
	return n
}

func sameValue(a, b any) bool {
	la, okA := a.(StringList)
	lb, okB := b.(StringList)
	if okA || okB {
		return okA && okB && la.Equal(lb)
	}
	return a == b
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	}
	return strconv.Quote(n.Value)
}

// Set changes one setting from text, as `.set KEY VALUE` does: "null"
// unsets it, lists are comma-separated ("" is an empty list), numbers and
// booleans are parsed.
func (s *Settings) Set(key, value string) error {
	f, ok := lookupField(key)
	if !ok {
		return fmt.Errorf("unknown role setting %q (the settings are: %s)", key, strings.Join(Keys(), ", "))
	}
	v, err := f.parseText(value)
	if err != nil {
		return err
	}
	f.set(s, v)
	return nil
}

// Clone returns a copy of s that shares no pointer or slice with it.
func (s Settings) Clone() Settings {
	var c Settings
	for _, f := range fields {
		v := f.get(&s)
		if l, ok := v.(StringList); ok {
			l.Items = slices.Clone(l.Items)
			v = l
		}
		f.set(&c, v)
	}
	return c
}

// Equal reports whether two Settings hold the same values.
func (s *Settings) Equal(o *Settings) bool {
	for _, f := range fields {
		a, b := f.get(s), f.get(o)
		if (a == nil) != (b == nil) || (a != nil && !sameValue(a, b)) {
			return false
		}
	}
	return true
}

// ParseSetting reads the YAML value n of the role setting key into s, for
// files that carry role settings among keys of their own (an agent's
// config.yaml). known is false for a key that is no role setting; msg says
// what is wrong with a value of the wrong type ("" when it is fine).
func (s *Settings) ParseSetting(key string, n *yaml.Node) (known bool, msg string) {
	f, ok := lookupField(key)
	if !ok {
		return false, ""
	}
	v, msg := f.parseNode(n)
	if msg != "" {
		return true, msg
	}
	f.set(s, v)
	return true, ""
}
