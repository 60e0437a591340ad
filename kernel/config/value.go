package config

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Source says where a setting's value came from, for `coyote --info` and
// `.info`.
type Source struct {
	// Kind is "default", "file", "env", "flag", "role", "session", "agent"
	// or "runtime" (.set in the REPL).
	Kind string
	// Where is the file and line, the variable, the flag or the name.
	Where string
}

func (s Source) String() string {
	if s.Where == "" {
		return s.Kind
	}
	return s.Kind + " " + s.Where
}

// Value is one setting's value and where it came from. Null means unset:
// for a list, null and [] differ (null inherits or means "none", [] is an
// explicit empty list).
type Value struct {
	Null bool
	// V is string, bool, int64, float64, []string, map[string]any or any
	// decoded YAML value, by the key's Kind.
	V   any
	Src Source
	// Template is the value as written in the file when that differs from
	// V because {{NAME}} placeholders were replaced by secrets; people are
	// shown the template, never the secret.
	Template any
}

// defaultValue is a key's value when nothing sets it.
func defaultValue(k Key) *Value {
	return &Value{Null: k.Default == nil, V: k.Default, Src: Source{Kind: "default"}}
}

// decodeNode reads a YAML node as a value of the key's kind, checked by
// k.Check; null is true for a YAML null. Every error names the key.
func decodeNode(k Key, n *yaml.Node) (v any, null bool, err error) {
	if n.Tag == "!!null" {
		return nil, true, nil
	}
	if v, err = decodeValue(k, n); err != nil {
		return nil, false, err
	}
	return v, false, k.Check(v)
}

func decodeValue(k Key, n *yaml.Node) (any, error) {
	switch k.Kind {
	case KindString:
		if n.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("%s must be a string", k.Name)
		}
		return n.Value, nil
	case KindBool:
		var b bool
		if err := n.Decode(&b); err != nil {
			return nil, fmt.Errorf("%s must be true or false", k.Name)
		}
		return b, nil
	case KindInt:
		var i int64
		if err := n.Decode(&i); err != nil {
			return nil, fmt.Errorf("%s must be a whole number", k.Name)
		}
		return i, nil
	case KindFloat:
		var f float64
		if err := n.Decode(&f); err != nil {
			return nil, fmt.Errorf("%s must be a number", k.Name)
		}
		return f, nil
	case KindList:
		switch n.Kind {
		case yaml.SequenceNode:
			var l []string
			if err := n.Decode(&l); err != nil {
				return nil, fmt.Errorf("%s must be a list of names", k.Name)
			}
			if l == nil {
				l = []string{}
			}
			return l, nil
		case yaml.ScalarNode:
			return splitList(n.Value), nil
		}
		return nil, fmt.Errorf("%s must be a list or a comma-separated string", k.Name)
	case KindMap:
		var m map[string]any
		if err := n.Decode(&m); err != nil {
			return nil, fmt.Errorf("%s must be a mapping", k.Name)
		}
		return m, nil
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, fmt.Errorf("%s: %v", k.Name, err)
	}
	return v, nil
}

// parseEnv reads an environment variable's text (or a .set value) as a
// value of the key's kind, checked by k.Check: "null" unsets (null is
// true); lists are JSON arrays or comma strings; maps are JSON. Every error
// names the key, as decodeNode's do.
func parseEnv(k Key, s string) (v any, null bool, err error) {
	s = strings.TrimSpace(s)
	if s == "null" {
		return nil, true, nil
	}
	if v, err = parseValue(k, s); err != nil {
		return nil, false, err
	}
	return v, false, k.Check(v)
}

func parseValue(k Key, s string) (any, error) {
	switch k.Kind {
	case KindString:
		return s, nil
	case KindBool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return nil, fmt.Errorf("%s must be true or false, not %q", k.Name, s)
		}
		return b, nil
	case KindInt:
		i, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s must be a whole number, not %q", k.Name, s)
		}
		return i, nil
	case KindFloat:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("%s must be a number, not %q", k.Name, s)
		}
		return f, nil
	case KindList:
		if strings.HasPrefix(s, "[") {
			var l []string
			if err := json.Unmarshal([]byte(s), &l); err != nil {
				return nil, fmt.Errorf("%s must be a JSON list of strings or a comma-separated string: %v", k.Name, err)
			}
			if l == nil {
				l = []string{}
			}
			return l, nil
		}
		return splitList(s), nil
	case KindMap:
		var m map[string]any
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			return nil, fmt.Errorf("%s must be a JSON object: %v", k.Name, err)
		}
		return m, nil
	}
	var v any
	if err := yaml.Unmarshal([]byte(s), &v); err != nil {
		return nil, fmt.Errorf("%s: %v", k.Name, err)
	}
	return v, nil
}

// splitList reads "a, b,c" as [a b c]; an empty string is an empty list.
func splitList(s string) []string {
	out := []string{}
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// EnvName is the environment variable that overrides a key.
func EnvName(key string) string { return "COYOTE_" + strings.ToUpper(key) }

// Format renders a value for --info.
func (v *Value) Format() string {
	if v == nil || v.Null {
		return "null"
	}
	shown := v.V
	if v.Template != nil {
		shown = v.Template
	}
	switch x := shown.(type) {
	case string:
		if strings.ContainsAny(x, "\n") {
			first, _, _ := strings.Cut(x, "\n")
			return strconv.Quote(first + "…")
		}
		return x
	case []string:
		return "[" + strings.Join(x, ", ") + "]"
	case map[string]any:
		b, _ := json.Marshal(x)
		return string(b)
	}
	return fmt.Sprint(shown)
}

// ParseText reads a setting's value from text, as COYOTE_<KEY> and `.set`
// write it: "null" unsets (null is true); lists are JSON arrays, comma
// lists or "" for none; maps are JSON. Every error names the key, so a
// caller adds only where the text came from.
func ParseText(key, s string) (v any, null bool, err error) {
	k, ok := LookupKey(key)
	if !ok {
		return nil, false, fmt.Errorf("unknown setting %q", key)
	}
	return parseEnv(k, s)
}
