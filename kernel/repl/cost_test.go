package repl

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/kernel/repl/prompt"
)

// {cost} and {consume_tokens} read what the session's turns recorded, and
// .info session ends with the totals.
func TestPromptAndInfoSessionShowTheCost(t *testing.T) {
	for _, tc := range []struct {
		name, usage, prompt, info string
	}{
		{"priced", "  usage:\n    input_tokens: 10000\n    output_tokens: 2000\n    context_tokens: 12000\n    cost: 0.045\n",
			"$0.0450 12000 ", "# 1 turns used 10000 in, 2000 out tokens; cost $0.0450\n"},
		{"unpriced", "  usage:\n    input_tokens: 10\n    output_tokens: 2\n    context_tokens: 12\n",
			"unknown 12 ", "; cost unknown\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, io := newTestREPL(t)
			file := "model: fake:small\nmessages:\n- role: user\n  content: hi\n- role: assistant\n  content: hello\n" + tc.usage
			if err := os.WriteFile(filepath.Join(r.conv.Paths().SessionsDir, "paid.yaml"), []byte(file), 0o600); err != nil {
				t.Fatal(err)
			}
			r.left = prompt.Parse("{cost} {consume_tokens} ")
			if got := r.renderPrompts(); got != "  " {
				t.Fatalf("before any session, the prompt is %q", got)
			}
			mustHandle(t, r, ".session paid")
			if got := r.renderPrompts(); got != tc.prompt {
				t.Fatalf("prompt %q, want %q", got, tc.prompt)
			}
			out := io.Out.(*bytes.Buffer)
			out.Reset()
			mustHandle(t, r, ".info session")
			if !strings.HasSuffix(out.String(), tc.info) {
				t.Fatalf(".info session:\n%s", out.String())
			}
		})
	}
}
