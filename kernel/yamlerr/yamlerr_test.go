package yamlerr

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func TestLocate(t *testing.T) {
	tests := []struct {
		name, in  string
		line, col int
		msg       string
	}{
		{"mapping value", "a: 1\nb:\n   c: x: y\n", 3, 4, "mapping values are not allowed in this context"},
		{"tab indent", "a:\n\tb: 1\n", 2, 1, "found character that cannot start any token (a tab in the indentation: indent with spaces)"},
		{"unclosed quote", "a: 1\nb: \"x\n", 2, 1, "found unexpected end of stream"},
		{"bad flow", "a: [1, 2\n", 1, 1, "did not find expected ',' or ']'"},
		// yaml.v3 says line 2 (where clients: starts); the bad indent is on 5.
		{"bad indent deep in a block", "model: a\nclients:\n  - type: openai\n    name: x\n   api_key: k\n    models: []\nsave: true\n", 5, 4, "did not find expected '-' indicator"},
		{"unclosed bracket", "model: a\nclients:\n  - type: openai\n    name: x\n    api_key: k\nsave: true\nstream: true\nenabled_tools: [a, b\nhighlight: true\n", 8, 1, "did not find expected ',' or ']'"},
		{"closed bracket over lines, error later", "a: [1,\n  2]\nb: 1\nc: d: e\n", 4, 1, "mapping values are not allowed in this context"},
		{"unclosed quote", "a: 1\nb: 'x\nc: 2\n", 2, 1, "found unexpected end of stream"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var n yaml.Node
			err := yaml.Unmarshal([]byte(tt.in), &n)
			if err == nil {
				t.Fatal("no error from yaml.v3")
			}
			line, col, msg := Locate([]byte(tt.in), err)
			if line != tt.line || col != tt.col {
				t.Errorf("Locate(%q) = %d:%d, want %d:%d (err %v)", tt.in, line, col, tt.line, tt.col, err)
			}
			if len(msg) < len(tt.msg) || msg[:len(tt.msg)] != tt.msg {
				t.Errorf("msg = %q, want it to start with %q", msg, tt.msg)
			}
		})
	}
}

// A broken line deep in a big file is found in bounded time (the search
// gives up rather than parse the file thousands of times).
func BenchmarkLocateDeepError(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("messages:\n")
	for range 5000 {
		sb.WriteString("  - role: user\n    content: hello there\n")
	}
	sb.WriteString("  - role: x: y\n")
	data := []byte(sb.String())
	var n yaml.Node
	err := yaml.Unmarshal(data, &n)
	for b.Loop() {
		Locate(data, err)
	}
}
