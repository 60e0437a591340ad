package role

import (
	"bytes"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// Encode returns the role as a role file: front matter with the settings
// that are set, then the prompt. A role read from a file keeps that file's
// front matter: unchanged, it is written back byte for byte (comments,
// layout, unknown keys); changed, only the changed keys are rewritten,
// unset ones removed (a key written as null stays), new ones added.
func (r *Role) Encode() []byte {
	front := r.encodeFront()
	var b bytes.Buffer
	if front != "" || startsWithDashLine(r.Prompt) {
		b.WriteString("---\n")
		b.WriteString(front)
		if front != "" && !strings.HasSuffix(front, "\n") {
			b.WriteByte('\n')
		}
		b.WriteString("---\n")
	}
	if r.Prompt != "" {
		b.WriteString(r.Prompt)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// encodeFront returns the front matter without its --- lines, or "".
func (r *Role) encodeFront() string {
	if r.hasFront && r.Settings.Equal(&r.parsed) {
		return r.front
	}
	var doc yaml.Node
	_ = yaml.Unmarshal([]byte(r.front), &doc) // it parsed when the role was read
	var m *yaml.Node
	if len(doc.Content) == 1 && doc.Content[0].Kind == yaml.MappingNode {
		m = doc.Content[0]
	} else {
		m = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{m}}
	}
	for _, f := range fields {
		v := f.get(&r.Settings)
		idx := -1
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Kind == yaml.ScalarNode && m.Content[i].Value == f.key {
				idx = i
				break
			}
		}
		if idx < 0 {
			if v != nil {
				key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: f.key}
				m.Content = append(m.Content, key, f.node(v))
			}
			continue
		}
		old := m.Content[idx+1]
		ov, msg := f.parseNode(old)
		if msg == "" && ((v == nil && ov == nil) || (v != nil && ov != nil && sameValue(v, ov))) {
			continue // as written
		}
		if v == nil {
			m.Content = append(m.Content[:idx], m.Content[idx+2:]...)
			continue
		}
		n := f.node(v)
		if l, ok := v.(StringList); ok {
			n = listLike(l, n, old)
		}
		n.LineComment, n.FootComment = old.LineComment, old.FootComment
		m.Content[idx+1] = n
	}
	if len(m.Content) == 0 {
		return ""
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return ""
	}
	_ = enc.Close()
	return b.String()
}

func startsWithDashLine(s string) bool {
	first, _, _ := strings.Cut(s, "\n")
	return isDashLine(first)
}

// listLike writes a changed list the way the file wrote it before: a
// comma-separated string stays one (unless an item holds a comma), a flow
// list stays a flow list.
func listLike(l StringList, n, old *yaml.Node) *yaml.Node {
	switch {
	case old.Kind == yaml.ScalarNode && old.ShortTag() != "!!null" && len(l.Items) > 0 && !slices.ContainsFunc(l.Items, hasComma):
		s := new(yaml.Node)
		if s.Encode(strings.Join(l.Items, ",")) == nil {
			return s
		}
	case old.Kind == yaml.SequenceNode && old.Style&yaml.FlowStyle != 0:
		n.Style |= yaml.FlowStyle
	}
	return n
}

func hasComma(s string) bool { return strings.Contains(s, ",") }
