package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestShellIntegrationBashWidget loads the bash widget printed by
// --shell-integration bash and runs it on a command line, with a stand-in
// coyote on PATH that prints a command for its -e text: the line is
// replaced by it and the cursor put at its end.
func TestShellIntegrationBashWidget(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	e := newEnv(t, "")
	r := e.run("", "--shell-integration", "bash")
	e.mustSucceed(r)
	dir := t.TempDir()
	script := filepath.Join(dir, "widget.bash")
	if err := os.WriteFile(script, []byte(r.stdout), 0o600); err != nil {
		t.Fatal(err)
	}
	fake := filepath.Join(dir, "coyote")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\n[ \"$1\" = -e ] && printf 'ls -la  # %s\\n' \"$2\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bash, "--norc", "-c", `source "$1" 2>/dev/null; READLINE_LINE="list files"; __coyote_widget; printf '%s|%s' "$READLINE_LINE" "$READLINE_POINT"`, "x", script)
	cmd.Env = []string{"PATH=" + dir + ":" + os.Getenv("PATH")}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want := "ls -la  # list files|20"
	if string(out) != want {
		t.Fatalf("widget left %q, want %q", out, want)
	}
	for _, sh := range []string{"zsh", "fish", "nushell", "elvish", "powershell"} {
		r := e.run("", "--shell-integration", sh)
		e.mustSucceed(r)
		if !strings.Contains(r.stdout, "coyote -e") && !strings.Contains(r.stdout, "^coyote -e") {
			t.Errorf("%s widget does not run coyote -e:\n%s", sh, r.stdout)
		}
	}
	if r := e.run("", "--shell-integration", "tcsh"); r.code == 0 || !strings.Contains(r.stderr, "choose among bash, elvish, fish, nushell, powershell, zsh") {
		t.Errorf("unknown shell: %d %s", r.code, r.stderr)
	}
}
