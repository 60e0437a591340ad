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
