// Package editor opens the user's editor (the editor setting of
// config.yaml, else $VISUAL, else $EDITOR, else vi) on a file or on a
// text, with the terminal: for .edit commands, new roles, macros and
// skills, and Ctrl+O. It owns nothing else.
package editor

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// Command is the editor to run: configured (config.yaml's editor, a
// command with optional arguments such as "code --wait") when set, else
// $VISUAL, else $EDITOR, else vi. getenv reads the environment.
func Command(configured string, getenv func(string) string) string {
	if e := strings.TrimSpace(configured); e != "" {
		return e
	}
	for _, k := range []string{"VISUAL", "EDITOR"} {
		if e := strings.TrimSpace(getenv(k)); e != "" {
			return e
		}
	}
	return "vi"
}

// File edits path in the editor (see Command), which gets the terminal.
func File(configured string, getenv func(string) string, path string) error {
	ed := Command(configured, getenv)
	args := strings.Fields(ed)
	cmd := exec.Command(args[0], append(args[1:], path)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("editor %q: %w (set editor in config.yaml, or $EDITOR, to the editor you use)", ed, err)
	}
	return nil
}

// Text edits text in a temporary file whose name ends with ext (".md")
// and returns what the user saved.
func Text(configured string, getenv func(string) string, text, ext string) (string, error) {
	f, err := os.CreateTemp("", "coyote-*"+ext)
	if err != nil {
		return "", err
	}
	path := f.Name()
	defer os.Remove(path)
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	if err := File(configured, getenv, path); err != nil {
		return "", err
	}
	data, err := os.ReadFile(path)
	return string(data), err
}
