package skill

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/coyote-cli/coyote/kernel/textutil"
	"github.com/coyote-cli/coyote/kernel/yamlerr"
)

// FileName is the file that makes a directory of skills/ a skill.
const FileName = "SKILL.md"

// Where a skill comes from.
const (
	SourceGlobal    = "global"
	SourceWorkspace = "workspace"
)

// Skill is one SKILL.md.
type Skill struct {
	Name string
	// Path is the SKILL.md read; Source is SourceGlobal or SourceWorkspace.
	Path, Source string
	// Description says what the skill is for (skill__list, .list skills).
	Description string
	// EnabledTools and EnabledMCPServers are what the skill adds to the
	// tools and MCP servers in force while it is loaded (nil: none).
	EnabledTools, EnabledMCPServers []string
	// AutoUnload drops the skill after the turn it was used in.
	AutoUnload bool
	// Body is the markdown after the front matter, trimmed; it is empty
	// when only the front matter was read (Catalog.Header).
	Body string
}

// NeedsMCP reports whether the skill names MCP servers: it is left out
// when mcp_server_support is off.
func (s *Skill) NeedsMCP() bool { return len(s.EnabledMCPServers) > 0 }

// FileError is a SKILL.md that cannot be used: not UTF-8, a front matter
// that is not closed or not YAML, a value of the wrong type. Line is the
// file's line (1-based), 0 when the problem has none.
type FileError struct {
	File string
	Line int
	Msg  string
}

func (e *FileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return e.File + ": " + e.Msg
}

// ErrNotFound is the error of a skill name that has no SKILL.md.
var ErrNotFound = errors.New("no such skill")

// CheckName refuses names that cannot be a directory of skills/: empty,
// starting with a dot, or holding a character other than letters,
// digits, '-', '_' and '.'.
func CheckName(name string) error {
	if name == "" {
		return errors.New("a skill needs a name")
	}
	if strings.HasPrefix(name, ".") {
		return fmt.Errorf("%q is not a valid skill name: it starts with a dot", name)
	}
	for _, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.'
		if !ok {
			return fmt.Errorf("%q is not a valid skill name: use letters, digits, '-', '_' and '.'", name)
		}
	}
	return nil
}

// Parse reads a SKILL.md's content; path names the file in errors.
func Parse(name, path string, data []byte) (*Skill, error) {
	s, body, err := parse(name, path, data, false)
	if err != nil {
		return nil, err
	}
	s.Body = strings.TrimSpace(body)
	return s, nil
}

// parseHeader reads the front matter only; data may stop right after
// its closing line.
func parseHeader(name, path string, data []byte) (*Skill, error) {
	s, _, err := parse(name, path, data, true)
	return s, err
}

// parse splits data into front matter and body and reads the front
// matter. With header, data may end after the front matter and the body
// is not checked.
func parse(name, path string, data []byte, header bool) (*Skill, string, error) {
	if line := textutil.BadLine(data); line > 0 {
		return nil, "", &FileError{path, line, "not UTF-8 text; save the file as UTF-8"}
	}
	text := string(bytes.TrimPrefix(data, []byte("\ufeff")))
	front, offset, body, ferr := splitFrontMatter(text)
	if ferr != nil {
		ferr.File = path
		return nil, "", ferr
	}
	s := &Skill{Name: name, Path: path}
	if strings.TrimSpace(front) == "" {
		return s, body, nil
	}
	var doc yaml.Node
	if err := yamlerr.Unmarshal([]byte(front), &doc); err != nil {
		line, _, msg := yamlerr.Locate([]byte(front), err)
		return nil, "", &FileError{path, line + offset, "front matter: " + msg}
	}
	if len(doc.Content) == 0 {
		return s, body, nil
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
		return s, body, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, "", &FileError{path, root.Line + offset,
			"the front matter between the --- lines must be `key: value` lines (like `description: ...`)"}
	}
	if k, first := yamlerr.RepeatedKey(root); k != nil {
		return nil, "", &FileError{path, k.Line + offset, fmt.Sprintf("%s is set twice (first at line %d); remove one", k.Value, first+offset)}
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		bad := func(want string) error {
			return &FileError{path, v.Line + offset, fmt.Sprintf("%s must be %s, not %s", k.Value, want, yamlerr.Describe(v))}
		}
		null := v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null"
		switch k.Value {
		case "description":
			if null {
				continue
			}
			if v.Kind != yaml.ScalarNode {
				return nil, "", bad("text")
			}
			s.Description = strings.TrimSpace(v.Value)
		case "enabled_tools", "enabled_mcp_servers":
			if null {
				continue
			}
			l, ok := names(v)
			if !ok {
				return nil, "", bad(`a list of names or "a,b"`)
			}
			if k.Value == "enabled_tools" {
				s.EnabledTools = l
			} else {
				s.EnabledMCPServers = l
			}
		case "auto_unload":
			if null {
				continue
			}
			var b bool
			if v.Kind != yaml.ScalarNode || v.Decode(&b) != nil {
				return nil, "", bad("true or false")
			}
			s.AutoUnload = b
		}
		// Other keys (name, a third party's metadata) are left alone, as
		// the original does.
	}
	return s, body, nil
}

// names reads a list of names: a YAML list of strings, or "a, b".
func names(v *yaml.Node) ([]string, bool) {
	var out []string
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	switch v.Kind {
	case yaml.ScalarNode:
		for _, p := range strings.Split(v.Value, ",") {
			add(p)
		}
	case yaml.SequenceNode:
		for _, item := range v.Content {
			if item.Kind != yaml.ScalarNode {
				return nil, false
			}
			add(item.Value)
		}
	default:
		return nil, false
	}
	return out, true
}

// splitFrontMatter cuts "---\nYAML\n---\nbody". offset is the number of
// lines before the YAML (so a YAML line n is the file's line n+offset);
// a text that does not start with "---" has no front matter.
func splitFrontMatter(text string) (front string, offset int, body string, err *FileError) {
	first, rest, _ := strings.Cut(text, "\n")
	if strings.TrimRight(first, " \t\r") != "---" {
		return "", 0, text, nil
	}
	var b strings.Builder
	line := 1
	for rest != "" {
		var l string
		l, rest, _ = strings.Cut(rest, "\n")
		line++
		if strings.TrimRight(l, " \t\r") == "---" {
			return b.String(), 1, rest, nil
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return "", 0, "", &FileError{Line: 1, Msg: "the front matter that starts here is not closed by a --- line"}
}
