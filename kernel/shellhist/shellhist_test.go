package shellhist

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestAppend(t *testing.T) {
	now := time.Unix(1700000000, 0)
	tests := []struct {
		name, shell, before, command, want string
	}{
		{"bash plain", "bash", "ls\n", "echo hi", "ls\necho hi\n"},
		{"bash new file", "bash", "", "echo hi", "echo hi\n"},
		{"bash timestamped", "bash", "#1690000000\nls\n", "echo hi", "#1690000000\nls\n#1700000000\necho hi\n"},
		{"bash no final newline", "bash", "ls", "pwd", "ls\npwd\n"},
		{"zsh plain", "zsh", "ls\n", "echo hi", "ls\necho hi\n"},
		{"zsh extended", "zsh", ": 1690000000:0;ls\n", "echo hi", ": 1690000000:0;ls\n: 1700000000:0;echo hi\n"},
		{"zsh multi-line", "zsh", "", "for f in *\ndo echo $f\ndone", "for f in *\\\ndo echo $f\\\ndone\n"},
		// à is c3 a0: a0 is in zsh's meta range; ü is c3 bc: not.
		{"zsh metafied", "zsh", "", "echo à ü", "echo \xc3\x83\x80 \xc3\xbc\n"},
		{"fish", "fish", "- cmd: ls\n  when: 1690000000\n", "printf 'a\\n'\necho b",
			"- cmd: ls\n  when: 1690000000\n- cmd: printf 'a\\\\n'\\necho b\n  when: 1700000000\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "sub", "history")
			if tt.before != "" {
				if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, []byte(tt.before), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			ok, err := Append(tt.shell, file, tt.command, now)
			if err != nil || !ok {
				t.Fatalf("Append = %v, %v", ok, err)
			}
			got, _ := os.ReadFile(file)
			if string(got) != tt.want {
				t.Errorf("history is %q, want %q", got, tt.want)
			}
		})
	}
	if ok, err := Append("nu", filepath.Join(t.TempDir(), "h"), "ls", now); ok || err != nil {
		t.Errorf("unknown shell: %v, %v", ok, err)
	}
}

func TestFile(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tests := []struct {
		shell string
		env   map[string]string
		want  string
	}{
		{"bash", nil, "/h/.bash_history"},
		{"bash", map[string]string{"HISTFILE": "/x/hist"}, "/x/hist"},
		{"zsh", map[string]string{"ZDOTDIR": "/z"}, "/z/.zsh_history"},
		{"fish", nil, "/h/.local/share/fish/fish_history"},
		{"fish", map[string]string{"XDG_DATA_HOME": "/d", "fish_history": "work"}, "/d/fish/work_history"},
		{"tcsh", nil, ""},
	}
	for _, tt := range tests {
		if got := File(tt.shell, env(tt.env), "/h"); got != tt.want {
			t.Errorf("File(%s, %v) = %q, want %q", tt.shell, tt.env, got, tt.want)
		}
	}
	if Shell("/usr/local/bin/ZSH") != "zsh" || Shell(`C:\x\bash.exe`) != "bash" {
		t.Error("Shell")
	}
}
