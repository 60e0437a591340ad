package yamlerr

import (
	"fmt"
	"strconv"

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
