package role

import (
	"testing"
)

// Any role file either parses or is refused with a file error, never a
// panic; one that parses is written back (Encode) to a file that parses
// to the same settings and prompt.
func FuzzParseEncode(f *testing.F) {
	for _, seed := range []string{
		"---\nmodel: a:b\ntemperature: 0.2\nenabled_tools: fs,web\n---\nYou are __INPUT__",
		"---\ntop_p: .inf\n---\n",
		"---\n[a]: 1\n---\nbody",
		"no front matter\n### INPUT:\nx\n### OUTPUT:\ny\n",
		"\ufeff---\nmemory: true\ncontinuation_prompt: |\n  go on\n---\n",
		"---\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, _, err := Parse("x", data, "roles/x.md")
		if err != nil {
			return
		}
		_ = r.Messages("input")
		back, _, err := Parse("x", r.Encode(), "roles/x.md")
		if err != nil {
			t.Fatalf("Encode wrote a role Parse refuses: %v\n%q", err, r.Encode())
		}
		if !back.Settings.Equal(&r.Settings) || back.Prompt != r.Prompt {
			t.Fatalf("the role changed through Encode:\n%+v %q\n%+v %q", r.Settings, r.Prompt, back.Settings, back.Prompt)
		}
	})
}
