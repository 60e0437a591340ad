package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
)

// TestExecuteSavesShellHistory: the command -e's menu executes joins the
// history file of the shell that ran it, in that file's format, unless
// save_shell_history is off.
func TestExecuteSavesShellHistory(t *testing.T) {
	tests := []struct {
		name, shell, file, before, extra string
		want                             string // a regexp of the whole file after
	}{
		{"bash timestamped", "bash", "HISTFILE", "#1690000000\nls\n", "",
			`^#1690000000\nls\n#\d{10}\necho from-coyote\n$`},
		{"zsh extended", "zsh", "HISTFILE", ": 1690000000:0;ls\n", "",
			`^: 1690000000:0;ls\n: \d{10}:0;echo from-coyote\n$`},
		{"fish", "fish", "XDG_DATA_HOME", "", "",
			`^- cmd: echo from-coyote\n  when: \d{10}\n$`},
		{"off", "bash", "HISTFILE", "ls\n", "save_shell_history: false\n", `^ls\n$`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sh, err := exec.LookPath(tt.shell)
			if err != nil {
				t.Skipf("%s is not installed", tt.shell)
			}
			fake := answering("```sh\necho from-coyote\n```\n")
			e := newEnv(t, openAIConfig(fakellm.StartOpenAI(t, fake), "k")+tt.extra)
			dir := t.TempDir()
			hist := filepath.Join(dir, "history")
			e.set("SHELL="+sh, tt.file+"="+hist)
			if tt.file == "XDG_DATA_HOME" {
				hist = filepath.Join(dir, "history", "fish", "fish_history")
			}
			if tt.before != "" {
				if err := os.WriteFile(hist, []byte(tt.before), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			p := e.startPTY("-e", "say something")
			p.expect("[e]xecute  [r]evise  [d]escribe  [c]opy  [q]uit: ", replTimeout)
			p.send("e\r")
			p.expect("from-coyote", replTimeout)
			if code := p.waitExit(replTimeout); code != 0 {
				p.fail("exit code %d", code)
			}
			got, _ := os.ReadFile(hist)
			if !regexp.MustCompile(tt.want).Match(got) {
				t.Errorf("history file is %q, want %s", got, tt.want)
			}
		})
	}
}
