package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// bareRepo makes a git repository with files (paths relative to its
// root) and returns the path of a bare clone of it, to install from.
func bareRepo(t *testing.T, branch string, files map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root := t.TempDir()
	src := filepath.Join(root, "src")
	for name, text := range files {
		p := filepath.Join(src, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git(src, "init", "-q", "-b", branch)
	git(src, "add", "-A")
	git(src, "commit", "-q", "-m", "bundle")
	bare := filepath.Join(root, "bundle.git")
	git(root, "clone", "-q", "--bare", src, bare)
	return bare
}

func TestInstallFromRepository(t *testing.T) {
	repo := bareRepo(t, "stable", map[string]string{
		"agents/helper/config.yaml":   "name: helper\ninstructions: help\n",
		"roles/pirate.md":             "Talk like a pirate.\n",
		"skills/tidy/SKILL.md":        "---\ndescription: tidy\n---\nTidy up.\n",
		"macros/info.yaml":            "steps:\n  - .info\n",
		"functions/tools/say_hi.sh":   "#!/usr/bin/env bash\n# @describe Say hi\nmain() { echo hi >> \"$LLM_OUTPUT\"; }\n",
		"functions/mcp.json":          `{"mcpServers":{"notes":{"command":"notes-server","env":{"TOKEN":"{{NOTES_TOKEN}}"}},"mine":{"command":"theirs"}}}`,
		"README.md":                   "not installed",
		"functions/bin/should-not-go": "x",
	})
	e := newEnv(t, fakeConfig("http://127.0.0.1:1", ""))
	e.writeFiles(map[string]string{"functions/mcp.json": `{"mcpServers":{"mine":{"command":"mine"}}}`})

	// Only roles, from the branch.
	r := e.run("", "--install-from", repo+"#stable", "--filter", "roles")
	e.mustSucceed(r)
	if got := string(mustRead(t, filepath.Join(e.configDir, "roles", "pirate.md"))); got != "Talk like a pirate.\n" {
		t.Fatalf("role = %q", got)
	}
	if _, err := os.Stat(filepath.Join(e.configDir, "agents", "helper")); err == nil {
		t.Fatal("--filter roles installed an agent")
	}

	// A changed file without a terminal: refused, nothing written.
	e.writeFiles(map[string]string{"roles/pirate.md": "my pirate\n"})
	r = e.run("", "--install-from", repo+"#stable")
	if line := oneLineError(t, r); !strings.Contains(line, "roles/pirate.md and 1 more are already there") || !strings.Contains(line, "--install-force") {
		t.Fatalf("refusal: %s", line)
	}
	if _, err := os.Stat(filepath.Join(e.configDir, "agents", "helper", "config.yaml")); err == nil {
		t.Fatal("a refused install wrote the agent")
	}

	// --install-force: every part, the changed role and server replaced.
	r = e.run("", "--install-from", repo+"#stable", "--install-force")
	e.mustSucceed(r)
	for name, want := range map[string]string{
		"agents/helper/config.yaml": "name: helper\ninstructions: help\n",
		"roles/pirate.md":           "Talk like a pirate.\n",
		"skills/tidy/SKILL.md":      "---\ndescription: tidy\n---\nTidy up.\n",
		"macros/info.yaml":          "steps:\n  - .info\n",
	} {
		if got := string(mustRead(t, filepath.Join(e.configDir, filepath.FromSlash(name)))); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
		if !strings.Contains(r.stdout, filepath.Join(e.configDir, filepath.FromSlash(name))) {
			t.Errorf("%s is not listed:\n%s", name, r.stdout)
		}
	}
	if st, err := os.Stat(filepath.Join(e.configDir, "functions", "tools", "say_hi.sh")); err != nil || st.Mode().Perm()&0o100 == 0 {
		t.Errorf("tool script: %v, %v", st, err)
	}
	for _, not := range []string{"README.md", "functions/bin/should-not-go"} {
		if _, err := os.Stat(filepath.Join(e.configDir, filepath.FromSlash(not))); err == nil {
			t.Errorf("%s was installed", not)
		}
	}
	mcp := filepath.Join(e.configDir, "functions", "mcp.json")
	if got := mcpServerJSON(t, mcp, "mine"); !strings.Contains(got, `"theirs"`) {
		t.Errorf("server mine = %s, want theirs", got)
	}
	if got := mcpServerJSON(t, mcp, "notes"); !strings.Contains(got, "notes-server") {
		t.Errorf("server notes = %s", got)
	}
	if !strings.Contains(r.stderr, "Warning: macro info has the name of the built-in command .info") {
		t.Errorf("no warning for a macro named as a built-in command:\n%s", r.stderr)
	}
	if !strings.Contains(r.stderr, "--add-secret NOTES_TOKEN") {
		t.Errorf("the missing secret is not offered:\n%s", r.stderr)
	}
	// The installed tool runs.
	e.mustSucceed(e.run("", "--build-tools"))

	// Again: nothing to do.
	r = e.run("", "--install-from", repo+"#stable")
	e.mustSucceed(r)
	if r.stdout != "" || !strings.Contains(r.stderr, "Installed 0 files from") {
		t.Errorf("a second install wrote:\n%s\n%s", r.stdout, r.stderr)
	}
}

func TestInstallFlagErrors(t *testing.T) {
	e := newEnv(t, "")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--filter", "roles"}, "--filter goes with --install-from"},
		{[]string{"--install-force"}, "--install-force goes with --install or --install-from"},
		{[]string{"--install", "agents", "--install-from", "x"}, "not both"},
		{[]string{"--install", "roles"}, `--install "roles": choose among`},
		{[]string{"--install-from", "x", "--filter", "tools"}, `--filter "tools": choose among`},
		{[]string{"--install-from", filepath.Join(t.TempDir(), "missing.git")}, "clone "},
	} {
		r := e.run("", tt.args...)
		if r.code == 0 || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tt.args, r.code, r.stderr, tt.want)
		}
	}
}

func TestInstallBundled(t *testing.T) {
	e := newEnv(t, "")
	r := e.run("", "--install", "macros")
	e.mustSucceed(r)
	path := filepath.Join(e.configDir, "macros", "review-changes.yaml")
	orig := mustRead(t, path)
	e.writeFiles(map[string]string{"macros/review-changes.yaml": "steps: [mine]\n"})
	r = e.run("", "--install", "macros")
	if line := oneLineError(t, r); !strings.Contains(line, "macros/review-changes.yaml is already there") {
		t.Fatalf("refusal: %s", line)
	}
	e.mustSucceed(e.run("", "--install", "macros", "--install-force"))
	if got := mustRead(t, path); string(got) != string(orig) {
		t.Fatalf("not reinstalled: %s", got)
	}
	r = e.run("", "--install", "mcp_config")
	e.mustSucceed(r)
	if got := mcpServerJSON(t, filepath.Join(e.configDir, "functions", "mcp.json"), "github"); got == "" {
		t.Fatalf("bundled mcp.json not merged:\n%s", r.stderr)
	}
}
