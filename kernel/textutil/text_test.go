package textutil

import "testing"

func TestValidAndBadLine(t *testing.T) {
	tests := []struct {
		in, want string
		changed  bool
		line     int
	}{
		{"plain", "plain", false, 0},
		{"héllo", "héllo", false, 0},
		{"a\xffb", "a\uFFFDb", true, 1},
		{"one\ntwo\nth\xc3ree", "one\ntwo\nth\uFFFDree", true, 3},
		{"cut \xe2\x82", "cut \uFFFD", true, 1},
	}
	for _, tt := range tests {
		got, changed := Valid(tt.in)
		if got != tt.want || changed != tt.changed {
			t.Errorf("Valid(%q) = %q, %v; want %q, %v", tt.in, got, changed, tt.want, tt.changed)
		}
		if l := BadLine([]byte(tt.in)); l != tt.line {
			t.Errorf("BadLine(%q) = %d, want %d", tt.in, l, tt.line)
		}
	}
}

func TestCutKeepsToWidthByRunes(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"one more", 7, "one mo…"},
		{"héhéhé", 4, "héh…"},
		{"日本語のテキスト", 3, "日本…"},
		{"x", 0, ""},
		{"", 0, ""},
	}
	for _, tt := range tests {
		if got := Cut(tt.in, tt.n); got != tt.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}
