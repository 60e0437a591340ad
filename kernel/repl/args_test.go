package repl

import (
	"reflect"
	"testing"
)

func TestSplitArgs(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  bool
	}{
		{"", nil, false},
		{"   ", nil, false},
		{"a b  c", []string{"a", "b", "c"}, false},
		{`"a b" c`, []string{"a b", "c"}, false},
		{`'a "b"' c`, []string{`a "b"`, "c"}, false},
		{`"say \"hi\"" x`, []string{`say "hi"`, "x"}, false},
		{`"C:\path"`, []string{`C:\path`}, false},
		{`a\ b`, []string{"a b"}, false},
		{`pre"mid dle"post`, []string{"premid dlepost"}, false},
		{`""`, []string{""}, false},
		{"`git diff --staged` -- write it", []string{"`git diff --staged`", "--", "write", "it"}, false},
		{"x`a b`y", []string{"x`a b`y"}, false},
		{"`open", nil, true},
		{`'unclosed`, nil, true},
		{`"unclosed`, nil, true},
		{"tab\tsep\nline", []string{"tab", "sep", "line"}, false},
	}
	for _, tt := range tests {
		got, err := splitArgs(tt.in)
		if (err != nil) != tt.err {
			t.Errorf("splitArgs(%q) err = %v", tt.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("splitArgs(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSplitCommand(t *testing.T) {
	for in, want := range map[string][2]string{
		".help":                    {".help", ""},
		"  .model  openai:gpt ":    {".model", "openai:gpt"},
		".prompt be brief\nplease": {".prompt", "be brief\nplease"},
	} {
		name, rest := splitCommand(in)
		if name != want[0] || rest != want[1] {
			t.Errorf("splitCommand(%q) = %q, %q", in, name, rest)
		}
	}
}
