package session

import (
	"encoding/json"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// Tool arguments and tool outputs are JSON values in the original's files,
// written as YAML (a mapping for an object, a plain 42 for a number, a
// string for a string). The kernel's messages carry them as text. These
// functions convert between the two: a string value is its own text, any
// other value is its JSON text.

// valueText is the message text of a JSON value read from a file.
func valueText(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		switch n.ShortTag() {
		case "!!str", "!!binary", "!!timestamp":
			return n.Value
		}
	}
	var b []byte
	b = appendJSON(b, n)
	return string(b)
}

// appendJSON appends n as compact JSON. Keys keep their order; numbers keep
// their literal when it is valid JSON.
func appendJSON(b []byte, n *yaml.Node) []byte {
	switch n.Kind {
	case yaml.MappingNode:
		b = append(b, '{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, n.Content[i].Value)
			b = append(b, ':')
			b = appendJSON(b, n.Content[i+1])
		}
		return append(b, '}')
	case yaml.SequenceNode:
		b = append(b, '[')
		for i, c := range n.Content {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, c)
		}
		return append(b, ']')
	case yaml.DocumentNode:
		if len(n.Content) == 1 {
			return appendJSON(b, n.Content[0])
		}
		return append(b, "null"...)
	case yaml.ScalarNode:
	default:
		return append(b, "null"...)
	}
	switch n.ShortTag() {
	case "!!null":
		return append(b, "null"...)
	case "!!bool":
		var v bool
		if n.Decode(&v) == nil {
			return strconv.AppendBool(b, v)
		}
	case "!!int":
		if jsonNumber(n.Value) {
			return append(b, n.Value...)
		}
		// 0x1F, 0o17, 1_000: the number in decimal.
		digits := strings.ReplaceAll(n.Value, "_", "")
		if i, err := strconv.ParseInt(digits, 0, 64); err == nil {
			return strconv.AppendInt(b, i, 10)
		}
		if u, err := strconv.ParseUint(digits, 0, 64); err == nil {
			return strconv.AppendUint(b, u, 10)
		}
	case "!!float":
		if jsonNumber(n.Value) {
			return append(b, n.Value...)
		}
		if f, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64); err == nil && !isInfOrNaN(f) {
			return strconv.AppendFloat(b, f, 'g', -1, 64)
		}
	}
	return appendJSONString(b, n.Value)
}

func isInfOrNaN(f float64) bool { return math.IsInf(f, 0) || math.IsNaN(f) }

// jsonNumber reports whether s is a number in JSON's grammar.
func jsonNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		d := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		d := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	return i == len(s)
}

// appendJSONString appends s as a JSON string, escaping only what JSON
// requires (serde_json's choice, unlike encoding/json's HTML escapes).
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"':
				b = append(b, `\"`...)
			case '\\':
				b = append(b, `\\`...)
			case '\n':
				b = append(b, `\n`...)
			case '\r':
				b = append(b, `\r`...)
			case '\t':
				b = append(b, `\t`...)
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// textValue is the inverse of valueText: the value to store for a message
// text. A text that is JSON (other than a JSON string) is stored as that
// value, so the file holds structure as the original's does; any other
// text is stored as a string. A JSON number, boolean or null is only taken
// when the text is exactly its literal, so that reading it back gives the
// same text; objects and arrays come back compact.
func textValue(text string) *yaml.Node {
	if n := jsonNode(text); n != nil {
		return n
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: text}
}

// jsonNode parses text as a JSON value other than a string, or returns
// nil. Objects with a repeated key are refused: YAML forbids them.
func jsonNode(text string) *yaml.Node {
	t := strings.TrimSpace(text)
	if t == "" || t[0] == '"' {
		return nil
	}
	switch t[0] {
	case '{', '[':
	default:
		if t != text {
			return nil
		}
		switch {
		case t == "null":
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
		case t == "true" || t == "false":
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: t}
		case jsonNumber(t):
			return numberNode(t)
		}
		return nil
	}
	if !json.Valid([]byte(t)) {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(t))
	dec.UseNumber()
	n, err := decodeJSON(dec)
	if err != nil {
		return nil
	}
	return n
}

func numberNode(lit string) *yaml.Node {
	tag := "!!int"
	if strings.ContainsAny(lit, ".eE") {
		tag = "!!float"
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: lit}
}

var errDuplicateKey = errors.New("duplicate key")

// decodeJSON reads one value from dec as a yaml.Node tree.
func decodeJSON(dec *json.Decoder) (*yaml.Node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch v := tok.(type) {
	case json.Delim:
		switch v {
		case '{':
			n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				if seen[k] {
					return nil, errDuplicateKey
				}
				seen[k] = true
				val, err := decodeJSON(dec)
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k}, val)
			}
			_, err := dec.Token() // '}'
			return n, err
		case '[':
			n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
			for dec.More() {
				val, err := decodeJSON(dec)
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, val)
			}
			_, err := dec.Token() // ']'
			return n, err
		}
	case string:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v}, nil
	case json.Number:
		return numberNode(string(v)), nil
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(v)}, nil
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
	}
	return nil, io.ErrUnexpectedEOF
}
