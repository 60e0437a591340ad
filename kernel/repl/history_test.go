package repl

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 14: the history holds prompts, so it is 0600 in a 0700 folder,
// including one an older version left 0644 in 0755; and the line editor
// never gets to rewrite it through a file of its own mode.
func TestHistoryFileIsMadePrivate(t *testing.T) {
	lines := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "prompt %d\n", i)
		}
		return b.String()
	}
	tests := []struct {
		name     string
		existing string // "" for no file
		want     string
	}{
		{"no history yet", "", ""},
		{"an old open history", "my secret prompt\n", "my secret prompt\n"},
		{"a history longer than the limit keeps its last lines", lines(1500), lines(1500)[len(lines(500)):]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "repl-history")
			path := filepath.Join(dir, "history.txt")
			if tt.existing != "" {
				os.Mkdir(dir, 0o755)
				os.WriteFile(path, []byte(tt.existing), 0o644)
				os.WriteFile(path+".tmp", []byte(tt.existing), 0o644)
				os.Chmod(dir, 0o755)
				os.Chmod(path, 0o644)
				os.Chmod(path+".tmp", 0o644)
			}
			if err := prepareHistory(path, historyLimit); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(path)
			if err != nil || string(data) != tt.want {
				t.Fatalf("history holds %d bytes (%v), want %d", len(data), err, len(tt.want))
			}
			for p, want := range map[string]fs.FileMode{dir: 0o700, path: 0o600} {
				if st, _ := os.Stat(p); st.Mode().Perm() != want {
					t.Errorf("%s: mode %04o, want %04o", filepath.Base(p), st.Mode().Perm(), want)
				}
			}
			if st, err := os.Stat(path + ".tmp"); err == nil && st.Mode().Perm() != 0o600 {
				t.Errorf("the editor's temporary file is %04o", st.Mode().Perm())
			}
		})
	}
}
