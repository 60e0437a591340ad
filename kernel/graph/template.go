package graph

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// placeholderRe matches {{key}} and {{key.path.0}}.
var placeholderRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*)\s*\}\}`)
})

// scope is what templates see: the state, then the node's own values
// ({{output}}, {{choice}}, {{input}}, a map branch's item) over it.
type scope struct {
	state  map[string]any
	locals map[string]any
}

// lookup resolves a dotted path; ok is false when any part is missing.
func (s scope) lookup(path string) (any, bool) {
	parts := strings.Split(path, ".")
	v, ok := s.locals[parts[0]]
	if !ok {
		v, ok = s.state[parts[0]]
	}
	if !ok {
		return nil, false
	}
	for _, p := range parts[1:] {
		switch x := v.(type) {
		case map[string]any:
			if v, ok = x[p]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// render fills the placeholders of t. Strict, a missing key is an error
// naming it (a prompt, instructions, a question); lenient, it is empty (an
// end node's output, state_updates).
func (s scope) render(t string, strict bool) (string, error) {
	var missing []string
	out := placeholderRe().ReplaceAllStringFunc(t, func(m string) string {
		path := placeholderRe().FindStringSubmatch(m)[1]
		v, ok := s.lookup(path)
		if !ok {
			missing = append(missing, path)
			return ""
		}
		return text(v)
	})
	if strict && len(missing) > 0 {
		return "", fmt.Errorf("the template uses %s, which the state does not hold (seed it in initial_state)", quoteAll(missing))
	}
	return out, nil
}

// value is a state_updates value or a map's `over`: a string that is one
// placeholder alone gives the value itself (a list stays a list), another
// string is rendered leniently, anything else is taken as it is.
func (s scope) value(v any) any {
	t, ok := v.(string)
	if !ok {
		return v
	}
	if m := placeholderRe().FindStringSubmatch(strings.TrimSpace(t)); m != nil && m[0] == strings.TrimSpace(t) {
		x, _ := s.lookup(m[1])
		return x
	}
	out, _ := s.render(t, false)
	return out
}

// text is a state value as prompt text: a string as it is, null as
// nothing, anything else as JSON.
func text(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "{{" + n + "}}"
	}
	return strings.Join(q, ", ")
}
