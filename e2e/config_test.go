package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInfoShowsEachSettingWithItsSource(t *testing.T) {
	e := newEnv(t, "model: t:m\nstream: false\nmystery_key: 1\nclients:\n  - {type: testing, name: t, models: [{name: m}]}\n").
		set("COYOTE_TEMPERATURE=0.25")
	r := e.run("", "--info")
	e.mustSucceed(r)
	rows := map[string][]string{}
	for _, l := range strings.Split(r.stdout, "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			rows[f[0]] = f[1:]
		}
	}
	want := map[string]string{
		"stream":      "false file " + e.configDir + "/config.yaml:2",
		"temperature": "0.25 env COYOTE_TEMPERATURE",
		"highlight":   "true default",
		"clients":     "t",
		"roles_dir":   e.configDir + "/roles",
	}
	for k, w := range want {
		if got := strings.Join(rows[k], " "); got != w {
			t.Errorf("%s: %q, want %q", k, got, w)
		}
	}
	if !strings.Contains(r.stderr, `config.yaml:3: unknown setting "mystery_key" is ignored`) {
		t.Errorf("no warning for the unknown key; stderr %q", r.stderr)
	}
}

func TestMalformedConfigNamesFileLineAndColumn(t *testing.T) {
	tests := []struct{ file, want string }{
		{"model: a\nclients:\n  - type: openai\n    name: x: y\n", "/config.yaml:4:5: mapping values"},
		// The line that is wrong, not the line its block starts on.
		{"model: a\nclients:\n  - type: openai\n    name: x\n   api_key: k\n", "/config.yaml:5:4: did not find expected '-' indicator"},
		{"model: a\nclients:\n  - type: openai\n    name: x\nsave: true\nstream: true\nwrap: no\nenabled_tools: [a, b\nhighlight: true\n", "/config.yaml:8:1: did not find expected ',' or ']'"},
	}
	for _, tt := range tests {
		e := newEnv(t, tt.file)
		line := oneLineError(t, e.run("", "hi"))
		if !strings.Contains(line, e.configDir+tt.want) {
			t.Errorf("stderr %q, want %q", line, tt.want)
		}
	}
}

func TestDryRunPrintsWhatWouldBeSentAndCallsNothing(t *testing.T) {
	dir := testPlugins(t, "testing")
	e := newEnv(t, testingConfig).set("COYOTE_PLUGINS_DIR=" + dir)
	r := e.run("piped part\n", "--dry-run", "explain", "this")
	e.mustSucceed(r)
	if r.stdout != "explain this\npiped part\n" {
		t.Fatalf("stdout %q", r.stdout)
	}
	if pids := launchedPIDs(t, dir); pids != nil {
		t.Fatal("a dry run started the provider plugin")
	}
	// dry_run in the config (or COYOTE_DRY_RUN) does the same.
	r = e.set("COYOTE_DRY_RUN=true").run("", "hello")
	if r.stdout != "hello\n" || launchedPIDs(t, dir) != nil {
		t.Fatalf("stdout %q", r.stdout)
	}
}

func TestSaveAppendsExchangesToMessagesMD(t *testing.T) {
	dir := testPlugins(t, "testing")
	e := newEnv(t, "save: true\n"+testingConfig).set("COYOTE_PLUGINS_DIR=" + dir)
	e.mustSucceed(e.run("", "first"))
	e.mustSucceed(e.run("", "second"))
	b, err := os.ReadFile(filepath.Join(e.cacheDir, "messages.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if strings.Count(s, "# CHAT: ") != 2 || !strings.Contains(s, "first\n--------\necho: first\n--------") || !strings.Contains(s, "echo: second") {
		t.Fatalf("messages.md:\n%s", s)
	}
}

func TestShellCompletionsKnowModelsAndRoles(t *testing.T) {
	e := newEnv(t, testingConfig)
	for shell, want := range map[string]string{"bash": "bash completion", "zsh": "#compdef coyote", "fish": "complete -c coyote", "powershell": "Register-ArgumentCompleter"} {
		if r := e.run("", "--completions", shell); r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("--completions %s: exit %d, %.60q", shell, r.code, r.stdout)
		}
	}
	if r := e.run("", "__complete", "-m", ""); !strings.Contains(r.stdout, "t:m\n") {
		t.Errorf("model completion: %q", r.stdout)
	}
	if r := e.run("", "__complete", "-r", ""); !strings.Contains(r.stdout, "shell\n") || !strings.Contains(r.stdout, "code\n") {
		t.Errorf("role completion: %q", r.stdout)
	}
}

func TestListsOfTheUsersFiles(t *testing.T) {
	e := newEnv(t, testingConfig)
	work := t.TempDir()
	e.set("COYOTE_WORKSPACE_CONFIG_DIR=" + filepath.Join(work, ".coyote"))
	files := map[string]string{
		filepath.Join(e.configDir, "agents", "coder", "config.yaml"):        "name: coder\n",
		filepath.Join(e.configDir, "agents", "flow", "graph.yaml"):          "version: '1.0'\n",
		filepath.Join(e.configDir, "agents", "empty", "README.md"):          "not an agent\n",
		filepath.Join(e.configDir, "rags", "docs.yaml"):                     "driver: yaml\n",
		filepath.Join(e.configDir, "macros", "review.yaml"):                 "steps: []\n",
		filepath.Join(work, ".coyote", "macros", "ship.yaml"):               "steps: []\n",
		filepath.Join(e.configDir, "sessions", "work.yaml"):                 "messages: []\n",
		filepath.Join(e.configDir, "sessions", "_", "20260101T000000.yaml"): "messages: []\n",
	}
	for p, body := range files {
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for flag, want := range map[string]string{
		// The user's coder, and the bundled agents of other names; a graph
		// agent does not run in this version, and is left out (with a
		// warning, on stderr).
		"--list-agents": "coder\nexplore\nreviewer\nsql\n",
		"--list-rags":   "docs\n",
		// The user's and the workspace's, and the built-in macros, which
		// every run installs when missing.
		"--list-macros":   "generate-commit-message\nrelease-notes\nreview\nreview-changes\nship\n",
		"--list-sessions": "work\n_/20260101T000000\n",
	} {
		if r := e.run("", flag); r.code != 0 || r.stdout != want {
			t.Errorf("%s printed %q (exit %d), want %q", flag, r.stdout, r.code, want)
		}
	}
}

// --info with a role or a session shows that role's or session's settings
// and says where each comes from, as .info does in the REPL.
func TestInfoShowsTheSettingsOfTheRoleOrSessionInUse(t *testing.T) {
	e := newEnv(t, "model: t:m\ntemperature: 0.5\nclients:\n  - {type: testing, name: t, models: [{name: m}, {name: n}]}\n")
	e.writeFiles(map[string]string{
		"roles/poet.md":      "---\ntemperature: 0.9\n---\nYou write poems.\n",
		"sessions/work.yaml": "model: t:n\ntop_p: 0.3\nmessages:\n- role: user\n  content: hi\n- role: assistant\n  content: hello\n",
	})
	rowsOf := func(r result) map[string]string {
		e.mustSucceed(r)
		rows := map[string]string{}
		for _, l := range strings.Split(r.stdout, "\n") {
			if f := strings.Fields(l); len(f) > 0 {
				rows[f[0]] = strings.Join(f[1:], " ")
			}
		}
		return rows
	}
	tests := []struct {
		args []string
		want map[string]string
	}{
		// Without a terminal no one can answer the user__* questions, so
		// they are not offered.
		{[]string{"--info"}, map[string]string{"temperature": "0.5 file " + e.configDir + "/config.yaml:2", "model": "t:m file " + e.configDir + "/config.yaml:1",
			"builtin_functions": "none"}},
		{[]string{"-r", "poet", "--info"}, map[string]string{"role": "poet", "temperature": "0.9 role poet"}},
		{[]string{"-s", "work", "--info"}, map[string]string{"session": "work", "model": "t:n session work", "top_p": "0.3 session work", "temperature": "0.5 file " + e.configDir + "/config.yaml:2"}},
		{[]string{"-m", "t:n", "--info"}, map[string]string{"model": "t:n chosen for this run (-m or .model)"}},
	}
	for _, tt := range tests {
		rows := rowsOf(e.run("", tt.args...))
		for k, w := range tt.want {
			if rows[k] != w {
				t.Errorf("%v: %s = %q, want %q", tt.args, k, rows[k], w)
			}
		}
	}
	// .info in the REPL shows the same rows, clients included.
	repl := e.startPTY("-r", "poet")
	repl.expect("poet>", replTimeout)
	repl.enter(".info", "builtin_functions")
	repl.exit()
	for _, want := range []string{"clients", "temperature", "0.9", "role poet", "user__select, user__confirm"} {
		if !strings.Contains(repl.output(), want) {
			t.Errorf(".info lacks %q:\n%s", want, repl.output())
		}
	}
}

// A number that is not finite, or out of its range, is refused where it is
// written: YAML's .nan and .inf parse as numbers, and once sent every
// request would fail to encode (issue 14).
func TestConfigRefusesANumberThatIsNotFinite(t *testing.T) {
	tests := []struct{ file, want string }{
		{"temperature: .nan\n", "/config.yaml:1:14: temperature must be a finite number between 0 and 2, not NaN"},
		{"top_p: -.inf\n", "/config.yaml:1:8: top_p must be a finite number between 0 and 1, not -Inf"},
	}
	for _, tt := range tests {
		e := newEnv(t, tt.file+testingConfig)
		line := oneLineError(t, e.run("", "hi"))
		if line != "Error: "+e.configDir+tt.want {
			t.Errorf("stderr %q, want %q", line, "Error: "+e.configDir+tt.want)
		}
	}
}

// A key set twice is an error naming both lines, in the settings and in a
// client's entry alike (yaml.v3 would keep the last one silently).
func TestConfigRefusesAKeySetTwice(t *testing.T) {
	tests := []struct{ file, want string }{
		{"model: t:m\nstream: false\nstream: true\nclients:\n  - {type: testing, name: t, models: [{name: m}]}\n",
			`/config.yaml:3:1: "stream" is set twice (first on line 2); keep one`},
		{"model: t:m\nclients:\n  - type: testing\n    name: t\n    models: [{name: m}]\n    name: u\n",
			`/config.yaml:6:5: "name" is set twice (first on line 4); keep one`},
	}
	for _, tt := range tests {
		e := newEnv(t, tt.file)
		line := oneLineError(t, e.run("", "hi"))
		if line != "Error: "+e.configDir+tt.want {
			t.Errorf("stderr %q, want %q", line, "Error: "+e.configDir+tt.want)
		}
	}
}
