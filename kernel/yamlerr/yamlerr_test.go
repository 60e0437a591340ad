package yamlerr

import (
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
