package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
)

// macroEnv is a REPL environment with a workspace directory and the given
// macro files ("ws:" names go to the workspace, others to the global dir).
func macroEnv(t *testing.T, fake *replFake, files map[string]string) *env {
	t.Helper()
	e := newEnv(t, openAIConfig(fake.url, "k"))
	ws := filepath.Join(t.TempDir(), ".coyote")
	e.set("COYOTE_WORKSPACE_CONFIG_DIR=" + ws)
	for name, text := range files {
		dir := filepath.Join(e.configDir, "macros")
		if rest, ok := strings.CutPrefix(name, "ws:"); ok {
			dir, name = filepath.Join(ws, "macros"), rest
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".yaml"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	roles := filepath.Join(e.configDir, "roles")
	if err := os.MkdirAll(roles, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"pirate": "Talk like a pirate.", "strict": "---\nenabled_macros: review-work\n---\nBe strict."} {
		if err := os.WriteFile(filepath.Join(roles, name+".md"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

const reviewWork = `description: Review work against a base branch
isolated: false
variables:
  - name: base
    default: main
  - name: notes
    rest: true
    default: ""
steps:
  - "Review the work against {{base}}. {{notes}}"
`

func TestMacrosInTheREPL(t *testing.T) {
	fake := startREPLFake(t, func(_ int, r *fakellm.ChatRequest) fakellm.Reply {
		return fakellm.Reply{Text: "reply to: " + lastText(r)}
	})
	e := macroEnv(t, fake, map[string]string{
		"ws:review-work": reviewWork,
		"review-work":    "description: the global one, shadowed\nsteps:\n  - never sent\n",
		"be-pirate":      "description: Talk like a pirate from now on\nisolated: false\nsteps:\n  - .role pirate\n",
		"pirate-aside":   "description: One pirate answer, aside\nsteps:\n  - .role pirate\n  - ahoy\n",
	})
	p := e.startREPL()

	// Top-level invocation of the workspace macro, with an argument.
	p.enter(".review-work develop", ">> Review the work against develop.", "reply to: Review the work against develop.", replPrompt)

	// Tab completion shows the macro with its description.
	p.send(".review")
	p.expect(replPrompt+".review", replTimeout)
	p.send("\t") // .review-work and the built-in .review-changes share ".review-"
	p.expect(replPrompt+".review-", replTimeout)
	p.send("\t")
	p.expect(".review-changes  Review the working tree", replTimeout)
	p.expect(".review-work     Review work against a base branch", replTimeout)
	p.send("\x15") // clear the line
	p.send(".be\t")
	p.expect(".be-pirate ", replTimeout)
	p.send("\x15.p\t")
	p.expect(".pirate-aside  One pirate answer, aside", replTimeout)
	p.expect(".prompt", replTimeout)
	p.send("\x15")

	// An isolated macro's role switch stays in the macro.
	p.enter(".pirate-aside", "reply to: ahoy", replPrompt)

	// A non-isolated one's persists.
	p.enter(".be-pirate", "fake:gpt-4o-mini)pirate> ")
	p.enter(".exit role", replPrompt)

	// Under a role whose enabled_macros leaves a macro out, it is locked,
	// and the error names the config.
	p.enter(".role strict", "fake:gpt-4o-mini)strict> ")
	p.enter(".be-pirate", `restricted by role:strict enabled_macros`, "fake:gpt-4o-mini)strict> ")

	reqs := fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if sys := reqs[1].Messages[0]; sys["role"] != "system" || sys["content"] != "Talk like a pirate." {
		t.Fatalf("the isolated macro's question did not use the pirate role: %v", reqs[1].Messages)
	}
}

func TestMacroFromTheCommandLine(t *testing.T) {
	fake := startREPLFake(t, func(_ int, r *fakellm.ChatRequest) fakellm.Reply {
		return fakellm.Reply{Text: "reply to: " + lastText(r)}
	})
	e := macroEnv(t, fake, map[string]string{"ws:review-work": reviewWork})
	r := e.run("", "--macro", "review-work", "release", "be", "brief")
	e.mustSucceed(r)
	if !strings.Contains(r.stdout, "reply to: Review the work against release. be brief") {
		t.Fatalf("stdout %q", r.stdout)
	}
	r = e.run("", "--no-workspace-macros", "--macro", "review-work")
	if r.code != 1 || !strings.Contains(r.stderr, `unknown macro "review-work"`) {
		t.Fatalf("without workspace macros: %d %q", r.code, r.stderr)
	}
	r = e.run("", "--list-macros")
	if !strings.Contains(r.stdout, "review-work\n") || !strings.Contains(r.stdout, "generate-commit-message\n") {
		t.Fatalf("--list-macros: %q", r.stdout)
	}
}
