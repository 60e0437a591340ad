//go:build unix

package editor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCommandPrefersTheConfigThenVisualThenEditor(t *testing.T) {
	for _, c := range []struct {
		configured, visual, editor, want string
	}{
		{"code --wait", "nvim", "nano", "code --wait"},
		{"  ", "nvim", "nano", "nvim"},
		{"", "", "nano", "nano"},
		{"", " ", " ", "vi"},
	} {
		env := map[string]string{"VISUAL": c.visual, "EDITOR": c.editor}
		if got := Command(c.configured, func(k string) string { return env[k] }); got != c.want {
			t.Errorf("Command(%q) with VISUAL=%q EDITOR=%q = %q, want %q", c.configured, c.visual, c.editor, got, c.want)
		}
	}
}

// fakeEditor writes a script that appends its arguments (all but the
// file) and the name of the variable it was chosen by to the file it is
// given.
func fakeEditor(t *testing.T, tag string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ed-"+tag)
	script := "#!/bin/sh\nfor last; do :; done\nprintf '" + tag + " %s\\n' \"$*\" >>\"$last\"\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestTextRunsTheConfiguredEditorWithItsArguments(t *testing.T) {
	configured := fakeEditor(t, "config") + " --wait -n"
	env := map[string]string{"VISUAL": fakeEditor(t, "visual"), "EDITOR": fakeEditor(t, "editor")}
	getenv := func(k string) string { return env[k] }

	got, err := Text(configured, getenv, "start\n", ".md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got, "start\nconfig --wait -n ") || !strings.HasSuffix(strings.TrimSpace(got), ".md") {
		t.Errorf("the configured editor was not run with its arguments: %q", got)
	}
	got, err = Text("", getenv, "", ".txt")
	if err != nil || !strings.HasPrefix(got, "visual ") {
		t.Errorf("without a configured editor: %q, %v", got, err)
	}
	delete(env, "VISUAL")
	if got, _ := Text("", getenv, "", ".txt"); !strings.HasPrefix(got, "editor ") {
		t.Errorf("without VISUAL: %q", got)
	}
}

func TestFileSaysHowToSetTheEditor(t *testing.T) {
	err := File("/nonexistent/editor", func(string) string { return "" }, filepath.Join(t.TempDir(), "f"))
	if err == nil || !strings.Contains(err.Error(), "set editor in config.yaml") {
		t.Fatalf("error %v", err)
	}
}
