package skill

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/coyote-cli/coyote/sdk/fsx"
)

// Create writes a new skill dir/name/SKILL.md from what edit makes of
// Scaffold (the user's editor), and returns its path. Nothing is written
// when the text comes back unchanged or empty, or does not parse; a file
// that exists meanwhile is never replaced.
func Create(dir, name string, edit func(text string) (string, error)) (string, error) {
	if err := CheckName(name); err != nil {
		return "", err
	}
	edited, err := edit(Scaffold)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(edited) == "" || edited == Scaffold {
		return "", fmt.Errorf("skill %s was not created: the scaffold was left unchanged", name)
	}
	path := filepath.Join(dir, name, FileName)
	if _, err := Parse(name, path, []byte(edited)); err != nil {
		return "", fmt.Errorf("skill %s was not created: %w", name, err)
	}
	created, err := fsx.CreateNew(path, []byte(edited), 0o644)
	if err != nil {
		return "", fmt.Errorf("create skill %s: %w", name, err)
	}
	if !created {
		return "", fmt.Errorf("skill %s was not created: %s appeared meanwhile", name, path)
	}
	return path, nil
}
