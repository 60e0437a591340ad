package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
)

// A rule planted in AGENTS.md two directories up (at the repository's
// root) reaches the system prompt, with the file's path; it is left out
// with --no-workspace-instructions and with workspace_instructions: false.
func TestWorkspaceInstructionsReachTheModel(t *testing.T) {
	fake := answering("ok")
	url := fakellm.StartOpenAI(t, fake)
	e := newEnv(t, fakeConfig(url, ""))
	repo := t.TempDir()
	cwd := filepath.Join(repo, "src", "pkg")
	for _, d := range []string{filepath.Join(repo, ".git"), cwd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	rule := "Always answer in haiku (rule R-1138)."
	if err := os.WriteFile(filepath.Join(repo, "AGENTS.md"), []byte(rule+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cwd, "NOTES.md"), []byte("Local note N-77.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	last := func() string { reqs := fake.Requests(); return systemText(&reqs[len(reqs)-1]) }

	e.mustSucceed(e.runIn(cwd, "", "hello"))
	if sys := last(); !strings.Contains(sys, rule) || !strings.Contains(sys, filepath.Join(repo, "AGENTS.md")) {
		t.Fatalf("system prompt %q", sys)
	}
	e.mustSucceed(e.runIn(cwd, "", "--no-workspace-instructions", "hello"))
	if sys := last(); strings.Contains(sys, rule) {
		t.Fatalf("--no-workspace-instructions: %q", sys)
	}
	// A chain of names of one's own, in order: only those files.
	e.mustSucceed(e.runIn(cwd, "", "--workspace-instructions-file", "NOTES.md", "hello"))
	if sys := last(); strings.Contains(sys, rule) || !strings.Contains(sys, "Local note N-77.") {
		t.Fatalf("--workspace-instructions-file: %q", sys)
	}
	// With a role, the rule comes after the role's prompt.
	e.writeFiles(map[string]string{"roles/brief.md": "Be brief."})
	e.mustSucceed(e.runIn(cwd, "", "-r", "brief", "hello"))
	if sys := last(); !strings.HasPrefix(sys, "Be brief.") || !strings.Contains(sys, rule) {
		t.Fatalf("with a role: %q", sys)
	}
	r := e.runIn(cwd, "", "--info")
	e.mustSucceed(r)
	if !strings.Contains(r.stdout, "workspace_instructions_in_force") || !strings.Contains(r.stdout, filepath.Join(repo, "AGENTS.md")) {
		t.Errorf("--info does not show the file in force:\n%s", r.stdout)
	}

	off := newEnv(t, fakeConfig(url, "workspace_instructions: false\n"))
	off.mustSucceed(off.runIn(cwd, "", "hello"))
	if sys := last(); strings.Contains(sys, rule) {
		t.Fatalf("workspace_instructions: false: %q", sys)
	}

	// --init-instructions writes COYOTE.md once, and never replaces it.
	r = e.runIn(cwd, "", "--init-instructions")
	e.mustSucceed(r)
	if _, err := os.Stat(filepath.Join(cwd, "COYOTE.md")); err != nil {
		t.Fatal(err)
	}
	if r = e.runIn(cwd, "", "--init-instructions"); r.code != 1 || !strings.Contains(r.stderr, "exists already") {
		t.Fatalf("second --init-instructions: %d %q", r.code, r.stderr)
	}
}
