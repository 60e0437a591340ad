package mcp

import "testing"

func TestSecretMask(t *testing.T) {
	m := newSecretMask(map[string]string{"SHORT": "abc", "KEY": "abcd1234", "INNER": "abcd", "SPACED": "a b/c"})
	for _, tc := range []struct{ in, want string }{
		{"key abcd1234 here", "key {{KEY}} here"},
		{"inner abcd here", "inner {{INNER}} here"},
		{"abc is too short to be a secret", "abc is too short to be a secret"},
		{"q=a+b%2Fc p=a%20b%2Fc raw=a b/c", "q={{SPACED}} p={{SPACED}} raw={{SPACED}}"},
		{"nothing", "nothing"},
	} {
		if got := m.text(tc.in); got != tc.want {
			t.Errorf("text(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	var zero secretMask
	if zero.text("abcd1234") != "abcd1234" || zero.err(nil) != nil {
		t.Error("the zero mask changed something")
	}
}
