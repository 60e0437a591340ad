package repl

// Role commands: .prompt, .role and what acts on the active role.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/coyote-cli/coyote/kernel/role"
	"github.com/coyote-cli/coyote/sdk/provider"
)

func (r *REPL) cmdPrompt(c *call) error {
	if c.raw == "" {
		return errors.New("usage: .prompt <text>")
	}
	r.conv.Role = role.Temp(c.raw)
	return nil
}

func (r *REPL) cmdRole(c *call) error {
	if len(c.args) == 0 {
		return errors.New("usage: .role <name> [text]")
	}
	name := c.args[0]
	ro, err := r.conv.LoadRole(name)
	if errors.Is(err, role.ErrNotFound) {
		if len(c.args) > 1 {
			return err
		}
		if ro, err = r.createRole(name); err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	if len(c.args) > 1 {
		// One question with the role, which is then put back.
		_, text := splitCommand(c.raw)
		prev := r.conv.Role
		r.conv.Role = ro
		defer func() { r.conv.Role = prev }()
		return r.ask(c.ctx, []provider.Part{{Text: text}}, text)
	}
	r.conv.Role = ro
	return nil
}

// createRole writes a new role in the editor and loads it.
func (r *REPL) createRole(name string) (*role.Role, error) {
	if r.inMacro {
		return nil, fmt.Errorf("role %q does not exist (a macro cannot create roles)", name)
	}
	if err := role.CheckName(name); err != nil {
		return nil, err
	}
	dir := r.conv.Paths().RolesDir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, name+".md")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		return nil, err
	}
	if err := r.editFile(path); err != nil {
		return nil, err
	}
	if data, err := os.ReadFile(path); err == nil && strings.TrimSpace(string(data)) == "" {
		os.Remove(path)
		return nil, fmt.Errorf("role %q was not created: its file was left empty", name)
	}
	return r.conv.LoadRole(name)
}

func (r *REPL) cmdInfoRole(*call) error {
	text := r.conv.Role.Encode()
	_, err := r.out.Write(text)
	if err == nil && !bytes.HasSuffix(text, []byte("\n")) {
		r.println()
	}
	return err
}

func (r *REPL) cmdEditRole(*call) error {
	if err := r.noEditorInMacro(); err != nil {
		return err
	}
	ro := r.conv.Role
	if ro.Source == role.SourceTemp || ro.Embedded() {
		edited, err := r.editText(string(ro.Encode()), ".md")
		if err != nil {
			return err
		}
		nr, warnings, err := role.Parse(ro.Name, []byte(edited), role.SourceTemp)
		if err != nil {
			return err
		}
		for _, w := range warnings {
			r.printError(errors.New(w.String()))
		}
		r.conv.Role = nr
		return nil
	}
	path := filepath.Join(r.conv.Paths().RolesDir, ro.Name+".md")
	if err := r.editFile(path); err != nil {
		return err
	}
	nr, err := r.conv.LoadRole(ro.Name)
	if err != nil {
		return err
	}
	r.conv.Role = nr
	return nil
}

func (r *REPL) cmdSaveRole(c *call) error {
	ro := r.conv.Role
	if len(c.args) > 0 {
		if err := role.CheckName(c.args[0]); err != nil {
			return err
		}
		ro.Name = c.args[0]
	} else if ro.Source == role.SourceTemp {
		return errors.New("a temporary role needs a name: .save role <name>")
	}
	path, err := ro.Save(r.conv.Paths().RolesDir)
	if err != nil {
		return err
	}
	r.printf("Saved role %s to %s\n", ro.Name, path)
	return nil
}

func (r *REPL) cmdExitRole(*call) error {
	r.conv.Role = nil
	return nil
}
