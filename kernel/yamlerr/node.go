package yamlerr

import (
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Unmarshal is yaml.Unmarshal into a node, with a panic inside the parser
// turned into an error: a bad file must never crash the kernel.
func Unmarshal(data []byte, n *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: %v", r)
		}
	}()
	return yaml.Unmarshal(data, n)
}

// Describe names what a node holds, for errors such as "want a number,
// not a list": a mapping, a list, an alias, null, or its quoted value.
func Describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	if n.ShortTag() == "!!null" {
		return "null"
	}
	return strconv.Quote(n.Value)
}

// RepeatedKey returns the first key of the mapping m that repeats an
// earlier one (two scalar keys of the same text), and the line of that
// earlier key; nil and 0 when no key repeats, or m is not a mapping.
// YAML forbids a repeated key, and a file read node by node would
// otherwise keep one of the two silently; each caller says so in its own
// words. Keys that are not scalars are not compared: the caller refuses
// or ignores them.
func RepeatedKey(m *yaml.Node) (dup *yaml.Node, firstLine int) {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, 0
	}
	n := len(m.Content) / 2
	if n <= smallMapping {
		// The common case (a message, a client, a variable): comparing
		// every pair costs less than a map.
		for i := 2; i < 2*n; i += 2 {
			k := m.Content[i]
			if k.Kind != yaml.ScalarNode {
				continue
			}
			for j := 0; j < i; j += 2 {
				if e := m.Content[j]; e.Kind == yaml.ScalarNode && e.Value == k.Value {
					return k, e.Line
				}
			}
		}
		return nil, 0
	}
	seen := make(map[string]int, n)
	for i := 0; i < 2*n; i += 2 {
		k := m.Content[i]
		if k.Kind != yaml.ScalarNode {
			continue
		}
		if first, ok := seen[k.Value]; ok {
			return k, first
		}
		seen[k.Value] = k.Line
	}
	return nil, 0
}

// smallMapping is the number of keys up to which RepeatedKey compares
// pairs rather than build a map.
const smallMapping = 16

// UnknownKeys names the keys of a file that are not known, in one phrase
// however many there are (a file with thousands of stray keys must not
// print thousands of lines): `unknown setting "x"` for one, `4 unknown
// settings ("a", "b", "c", …)` for more, with noun "setting". The caller
// adds what happens to them.
func UnknownKeys(noun string, keys []string) string {
	const shown = 3
	quoted := make([]string, 0, shown)
	for _, k := range keys[:min(len(keys), shown)] {
		quoted = append(quoted, strconv.Quote(k))
	}
	if len(keys) == 1 {
		return "unknown " + noun + " " + quoted[0]
	}
	list := strings.Join(quoted, ", ")
	if len(keys) > shown {
		list += ", …"
	}
	return fmt.Sprintf("%d unknown %ss (%s)", len(keys), noun, list)
}
