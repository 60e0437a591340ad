package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// completionEnv is a user with two models, two sessions, a RAG, a macro,
// an agent and a skill, and coyote on PATH.
func completionEnv(t *testing.T) *env {
	t.Helper()
	e := newEnv(t, `model: fake:m1
clients:
- type: openai-compatible
  name: fake
  api_base: http://127.0.0.1:1/v1
  models:
  - name: m1
  - name: m2
`)
	e.writeFiles(map[string]string{
		"sessions/work.yaml":            "messages: []\n",
		"sessions/weekly.yaml":          "messages: []\n",
		"rags/docs.yaml":                "embedding_model: fake:embed\n",
		"macros/release.yaml":           "steps:\n  - .info\n",
		"agents/helper/config.yaml":     "name: helper\ninstructions: help\n",
		"skills/tidy/SKILL.md":          "---\ndescription: tidy up\n---\nTidy.\n",
		"roles/pirate-captain.md":       "Talk like a pirate.\n",
		"roles/pirate-parrot.md":        "Squawk.\n",
		"roles/unrelated-translator.md": "Translate.\n",
	})
	return e.set("PATH=" + binDir + string(os.PathListSeparator) + os.Getenv("PATH"))
}

// shellOut runs a shell's script with e's environment.
func shellOut(t *testing.T, e *env, shell string, args ...string) []string {
	t.Helper()
	return shellOutIn(t, e, t.TempDir(), shell, args...)
}

// shellOutIn is shellOut in the directory dir.
func shellOutIn(t *testing.T, e *env, dir, shell string, args ...string) []string {
	t.Helper()
	if _, err := exec.LookPath(shell); err != nil {
		t.Skipf("%s is not installed (scripts/install-test-deps.sh installs it)", shell)
	}
	cmd := exec.Command(shell, args...)
	cmd.Env = e.vars
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %q: %v\n%s", shell, args, err, out)
	}
	var lines []string
	for l := range strings.Lines(string(out)) {
		if l = strings.TrimRight(l, "\n"); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// The cases every shell is asked: the flags that name the user's things
// complete from their files, and only the names starting with the word.
var completionCases = []struct {
	line string // the command line, up to the cursor
	want []string
}{
	{"coyote -s w", []string{"weekly", "work"}},
	{"coyote --session wo", []string{"work"}},
	{"coyote --rag ", []string{"docs"}},
	{"coyote --macro r", []string{"release"}},
	{"coyote -a ", []string{"helper"}},
	{"coyote --skill t", []string{"tidy"}},
	{"coyote -r pirate-", []string{"pirate-captain", "pirate-parrot"}},
	{"coyote --completions n", []string{"nushell"}},
}

func sameNames(got, want []string) bool {
	got = slices.Clone(got)
	slices.Sort(got)
	return slices.Equal(got, want)
}

func TestCompletionsBash(t *testing.T) {
	const lib = "/usr/share/bash-completion/bash_completion"
	if _, err := os.Stat(lib); err != nil {
		t.Skip("bash-completion is not installed (scripts/install-test-deps.sh installs it)")
	}
	e := completionEnv(t)
	for _, c := range completionCases {
		words := strings.Split(c.line, " ")
		quoted := make([]string, len(words))
		for i, w := range words {
			quoted[i] = "'" + w + "'"
		}
		// COMPLETE=bash coyote is the original's spelling of the script.
		script := `source ` + lib + `; source <(COMPLETE=bash coyote)
COMP_WORDS=(` + strings.Join(quoted, " ") + `); COMP_CWORD=` + strconv.Itoa(len(words)-1) + `
COMP_LINE='` + c.line + `'; COMP_POINT=${#COMP_LINE}
__start_coyote 2>/dev/null; printf '%s\n' "${COMPREPLY[@]}"`
		if got := shellOut(t, e, "bash", "-c", script); !sameNames(got, c.want) {
			t.Errorf("bash %q: %q, want %q", c.line, got, c.want)
		}
	}
}

func TestCompletionsFish(t *testing.T) {
	e := completionEnv(t)
	cases := append(slices.Clone(completionCases), struct {
		line string
		want []string
	}{"coyote -m fake:", []string{"fake:m1", "fake:m2"}})
	for _, c := range cases {
		got := shellOut(t, e, "fish", "--no-config", "-c", `coyote --completions fish | source; complete -C '`+c.line+`'`)
		for i, l := range got { // fish adds "\tdescription"
			got[i], _, _ = strings.Cut(l, "\t")
		}
		if !sameNames(got, c.want) {
			t.Errorf("fish %q: %q, want %q", c.line, got, c.want)
		}
	}
}

// Elvish's edit: module exists only in an interactive shell; the script is
// loaded with a stand-in module of that name, which records candidates.
func TestCompletionsElvish(t *testing.T) {
	e := completionEnv(t)
	lib := t.TempDir()
	stub := "var completion: = (ns [&arg-completer= [&]])\n" +
		"fn complex-candidate {|v &display='' &code-suffix=' '| put $v }\n" +
		"fn complete-filename {|w| put 'FILES:'$w }\n"
	if err := os.WriteFile(filepath.Join(lib, "stubedit.elv"), []byte(stub), 0o644); err != nil {
		t.Fatal(err)
	}
	r := e.run("", "--completions", "elvish")
	e.mustSucceed(r)
	script := strings.ReplaceAll(r.stdout, "edit:", "stubedit:")
	if err := os.WriteFile(filepath.Join(lib, "script.elv"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := append(slices.Clone(completionCases), struct {
		line string
		want []string
	}{"coyote -f not-a-flag-value", []string{"FILES:not-a-flag-value"}})
	for _, c := range cases {
		words := strings.Split(c.line, " ")
		for i, w := range words {
			words[i] = "'" + w + "'"
		}
		got := shellOutIn(t, e, lib, "elvish", "-norc", "-c",
			"use ./stubedit; eval (slurp < script.elv) &ns=(ns [&stubedit:=$stubedit:])\n"+
				"$stubedit:completion:arg-completer[coyote] "+strings.Join(words, " ")+" | each {|c| echo $c }")
		if !sameNames(got, c.want) {
			t.Errorf("elvish %q: %q, want %q", c.line, got, c.want)
		}
	}
}

func TestCompletionsZshNushellPowershell(t *testing.T) {
	e := completionEnv(t)
	// zsh: the script parses and, loaded after compinit, defines its
	// completion function for coyote.
	got := shellOut(t, e, "zsh", "-f", "-c", `autoload -U compinit; compinit -u -D; source <(coyote --completions zsh); print -r -- ${_comps[coyote]}`)
	if !slices.Equal(got, []string{"_coyote"}) {
		t.Errorf("zsh: coyote's completion function is %q", got)
	}
	// No nushell or PowerShell here: their scripts ask the same
	// `coyote __complete` the other shells' do.
	for _, sh := range []string{"nushell", "powershell"} {
		r := e.run("", "--completions", sh)
		e.mustSucceed(r)
		if !strings.Contains(r.stdout, "__complete") {
			t.Errorf("%s script does not ask coyote __complete:\n%s", sh, r.stdout)
		}
		r = e.set("COMPLETE=" + sh).run("")
		e.mustSucceed(r)
		if !strings.Contains(r.stdout, "__complete") {
			t.Errorf("COMPLETE=%s printed no script", sh)
		}
		e.vars = e.vars[:len(e.vars)-1]
	}
	// The original's callback: COMPLETE=SHELL coyote -- coyote WORDS.
	r := e.set("COMPLETE=fish").run("", "--", "coyote", "--rag", "")
	e.mustSucceed(r)
	if !strings.HasPrefix(r.stdout, "docs\n:4\n") {
		t.Errorf("COMPLETE=fish coyote -- coyote --rag '': %q", r.stdout)
	}
	r = e.run("", "--completions", "tcsh")
	if r.code != 2 || !strings.Contains(r.stderr, "choose among bash, elvish, fish, nushell, powershell, zsh") {
		t.Errorf("--completions tcsh: exit %d, %q", r.code, r.stderr)
	}
}
