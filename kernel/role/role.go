package role

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/coyote-cli/coyote/sdk/fsx"
)

// Names and sources with a fixed meaning.
const (
	// TempName is the name of the role made by --prompt and .prompt.
	TempName = "temp"
	// SourceBuiltin is the Source of a role shipped in the binary.
	SourceBuiltin = "built-in"
	// SourceTemp is the Source of a role made from a prompt text.
	SourceTemp = "temporary"
	// InputPlaceholder in a prompt is replaced by the user's input.
	InputPlaceholder = "__INPUT__"
)

// Built-in roles the kernel itself uses (a user file of the same name
// replaces each).
const (
	// Shell turns a request into a shell command (-e).
	Shell = "shell"
	// ExplainShell explains a shell command (the "describe" action of -e).
	ExplainShell = "explain-shell"
	// Code answers with code only (-c).
	Code = "code"
	// CreateTitle names a conversation (the autonamed session's slug).
	CreateTitle = "create-title"
)

// Role is a named prompt with settings.
type Role struct {
	Name string
	// Prompt is the text after the front matter, trimmed. It may hold
	// __INPUT__, "### INPUT:"/"### OUTPUT:" examples and system
	// variables, which Messages interprets.
	Prompt   string
	Settings Settings
	// Source is the file the role was read from, SourceBuiltin or
	// SourceTemp.
	Source string

	// front is the front matter as written (without the --- lines) and
	// parsed the settings it held, so that Encode can keep the file's
	// comments, layout and unknown keys.
	front    string
	hasFront bool
	parsed   Settings
}

// ErrNotFound matches (with errors.Is) the error of Load for a role that
// is neither in the roles directory nor built in.
var ErrNotFound = errors.New("role not found")

// NotFoundError is the error of Load for a missing role.
type NotFoundError struct {
	Name string
	// Dir is the roles directory looked in ("" if none).
	Dir string
}

func (e *NotFoundError) Error() string {
	where := "the built-in roles"
	if e.Dir != "" {
		where = e.Dir + " and the built-in roles"
	}
	return fmt.Sprintf("role %q not found (looked in %s; run coyote --list-roles)", e.Name, where)
}

// Is makes errors.Is(err, ErrNotFound) true.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// CheckName reports whether name can name a role file: not empty, no path
// separator, no leading dot.
func CheckName(name string) error {
	if name == "" || strings.ContainsAny(name, "/\\\x00") || strings.HasPrefix(name, ".") {
		return fmt.Errorf("invalid role name %q: a role name is a file name without / or \\ and not starting with a dot", name)
	}
	return nil
}

// Load reads the role name: <userDir>/<name>.md if it exists, else the
// built-in <name>.md of builtin. Either may be empty/nil. A missing role
// is a *NotFoundError. The warnings (unknown keys) are for the caller to
// show.
func Load(name, userDir string, builtin fs.FS) (*Role, []Warning, error) {
	if err := CheckName(name); err != nil {
		return nil, nil, err
	}
	if userDir != "" {
		path := filepath.Join(userDir, name+".md")
		data, err := os.ReadFile(path)
		switch {
		case err == nil:
			r, warnings, err := Parse(name, data, path)
			if err != nil {
				return nil, nil, fmt.Errorf("load role %q: %w", name, err)
			}
			return r, warnings, nil
		case !errors.Is(err, fs.ErrNotExist):
			return nil, nil, fmt.Errorf("load role %q: %w", name, err)
		}
	}
	if builtin != nil {
		data, err := fs.ReadFile(builtin, name+".md")
		switch {
		case err == nil:
			r, warnings, err := Parse(name, data, SourceBuiltin)
			if err != nil {
				return nil, nil, fmt.Errorf("load role %q: %w", name, err)
			}
			return r, warnings, nil
		case !errors.Is(err, fs.ErrNotExist):
			return nil, nil, fmt.Errorf("load built-in role %q: %w", name, err)
		}
	}
	return nil, nil, &NotFoundError{Name: name, Dir: userDir}
}

// List returns the names of the roles in userDir and builtin, sorted,
// each once. A missing or unreadable directory adds no names.
func List(userDir string, builtin fs.FS) []string {
	var names []string
	add := func(entries []fs.DirEntry) {
		for _, e := range entries {
			n, ok := strings.CutSuffix(e.Name(), ".md")
			if !ok || CheckName(n) != nil || e.IsDir() {
				continue
			}
			names = append(names, n)
		}
	}
	if userDir != "" {
		entries, _ := os.ReadDir(userDir)
		add(entries)
	}
	if builtin != nil {
		entries, _ := fs.ReadDir(builtin, ".")
		add(entries)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// Temp returns the temporary role of --prompt TEXT or .prompt TEXT: named
// "temp", its prompt the text as given (no front matter is read from it).
func Temp(prompt string) *Role {
	return &Role{Name: TempName, Prompt: strings.TrimSpace(prompt), Source: SourceTemp}
}

// Save writes the role to <dir>/<Name>.md (atomically) and makes that file
// its Source.
func (r *Role) Save(dir string) (string, error) {
	if err := CheckName(r.Name); err != nil {
		return "", fmt.Errorf("save role: %w", err)
	}
	path := filepath.Join(dir, r.Name+".md")
	data := r.Encode()
	if err := fsx.WriteFileAtomic(path, data, 0o644); err != nil {
		return "", fmt.Errorf("save role %q: %w", r.Name, err)
	}
	saved, _, err := Parse(r.Name, data, path)
	if err != nil { // cannot happen: Encode writes what Parse reads
		return "", fmt.Errorf("save role %q: %w", r.Name, err)
	}
	*r = *saved
	return path, nil
}

// Embedded reports whether the prompt takes the input in place of
// __INPUT__ (so there is no system message to extend).
func (r *Role) Embedded() bool {
	return strings.Contains(r.Prompt, InputPlaceholder)
}
