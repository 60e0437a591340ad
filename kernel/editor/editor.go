// Package editor opens the user's editor ($VISUAL, else $EDITOR, else vi)
// on a file or on a text, with the terminal: for .edit commands, new roles,
// macros and skills, and Ctrl+O. It owns nothing else.
package editor

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// Command is the editor the environment names: $VISUAL, else $EDITOR,
// else vi. getenv reads the environment.
func Command(getenv func(string) string) string {
	for _, k := range []string{"VISUAL", "EDITOR"} {
		if e := strings.TrimSpace(getenv(k)); e != "" {
			return e
		}
	}
	return "vi"
}

// File edits path in the editor, which gets the terminal.
func File(getenv func(string) string, path string) error {
	ed := Command(getenv)
	args := strings.Fields(ed)
	cmd := exec.Command(args[0], append(args[1:], path)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("editor %q: %w (set $EDITOR to the editor you use)", ed, err)
	}
	return nil
}

// Text edits text in a temporary file whose name ends with ext (".md")
// and returns what the user saved.
func Text(getenv func(string) string, text, ext string) (string, error) {
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
	if err := File(getenv, path); err != nil {
		return "", err
	}
	data, err := os.ReadFile(path)
	return string(data), err
}
