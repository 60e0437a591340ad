package yamlerr

import (
	"fmt"
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

func TestRepeatedKeyFindsTheFirstKeyThatRepeats(t *testing.T) {
	// many is a mapping with more keys than the pairwise scan handles.
	many := func(extra string) string {
		var b strings.Builder
		for i := range 40 {
			fmt.Fprintf(&b, "k%d: %d\n", i, i)
		}
		return b.String() + extra
	}
	tests := []struct {
		name, yaml string
		dup        string // "" when none repeats
		line, col  int    // of the repeated key
		first      int
	}{
		{"none", "a: 1\nb: 2\n", "", 0, 0, 0},
		{"repeated", "a: 1\nb: 2\na: 3\n", "a", 3, 1, 1},
		{"the first that repeats", "a: 1\nb: 2\nb: 3\na: 4\n", "b", 3, 1, 2},
		{"flow mapping", "{x: 1, y: 2, x: 3}", "x", 1, 14, 1},
		{"quoted the same text", "'a': 1\n\"a\": 2\n", "a", 2, 1, 1},
		{"complex keys are not compared", "? [a]\n: 1\n? [a]\n: 2\n", "", 0, 0, 0},
		{"empty", "{}", "", 0, 0, 0},
		{"not a mapping", "[a, a]", "", 0, 0, 0},
		{"many keys, none repeats", many(""), "", 0, 0, 0},
		{"many keys, one repeats", many("k7: x\n"), "k7", 41, 1, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var doc yaml.Node
			if err := yaml.Unmarshal([]byte(tt.yaml), &doc); err != nil {
				t.Fatal(err)
			}
			dup, first := RepeatedKey(doc.Content[0])
			if tt.dup == "" {
				if dup != nil || first != 0 {
					t.Fatalf("RepeatedKey = %q at %d:%d, first %d; want none", dup.Value, dup.Line, dup.Column, first)
				}
				return
			}
			if dup == nil || dup.Value != tt.dup || dup.Line != tt.line || dup.Column != tt.col || first != tt.first {
				t.Fatalf("RepeatedKey = %+v, %d; want %q at %d:%d, first %d", dup, first, tt.dup, tt.line, tt.col, tt.first)
			}
		})
	}
	if dup, _ := RepeatedKey(nil); dup != nil {
		t.Fatal("RepeatedKey(nil) found a key")
	}
}

func TestUnknownKeysNamesAFewAndCountsMany(t *testing.T) {
	tests := []struct {
		keys []string
		want string
	}{
		{[]string{"colour"}, `unknown key "colour"`},
		{[]string{"a", "b"}, `2 unknown keys ("a", "b")`},
		{[]string{"a", "b", "c"}, `3 unknown keys ("a", "b", "c")`},
		{[]string{"a", "b", "c", "d\n"}, `4 unknown keys ("a", "b", "c", …)`},
		{[]string{"x\x1b[2K"}, `unknown key "x\x1b[2K"`},
	}
	for _, tt := range tests {
		if got := UnknownKeys("key", tt.keys); got != tt.want {
			t.Errorf("UnknownKeys(%q) = %s, want %s", tt.keys, got, tt.want)
		}
	}
}
