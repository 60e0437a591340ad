package role

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/coyote-cli/coyote/kernel/textutil"
	"github.com/coyote-cli/coyote/kernel/yamlerr"

	"gopkg.in/yaml.v3"
)

// Warning is a problem in a role file that did not stop it from loading,
// for the caller to show.
type Warning struct {
	File    string
	Line    int
	Message string
}

func (w Warning) String() string {
	return fmt.Sprintf("%s line %d: %s", w.File, w.Line, w.Message)
}

// FileError is a role file that cannot be used: its front matter is not
// valid YAML, is not closed, or holds a value of the wrong type. Line is
// the line of the file (1-based).
type FileError struct {
	File string
	Line int
	Msg  string
}

func (e *FileError) Error() string {
	return fmt.Sprintf("%s line %d: %s", e.File, e.Line, e.Msg)
}

// ignoredKeys are keys the annotated example role carries that a role
// does not read: the name comes from the file name, the prompt from the
// text after the front matter. They are kept by Encode and not warned
// about.
func ignoredKey(k string) bool { return k == "name" || k == "prompt" }

// Parse reads a role file's content. source names the file in warnings
// and errors: a path, or SourceBuiltin.
func Parse(name string, data []byte, source string) (*Role, []Warning, error) {
	where := source
	switch source {
	case SourceBuiltin:
		where = "built-in role " + name
	case "", SourceTemp:
		where = "role " + name
	}
	if line := textutil.BadLine(data); line > 0 {
		return nil, nil, fmt.Errorf("%s:%d: not UTF-8 text; save the file as UTF-8", where, line)
	}
	text := string(bytes.TrimPrefix(data, []byte("\ufeff")))
	front, offset, body, err := splitFrontMatter(text)
	if err != nil {
		err.File = where
		return nil, nil, err
	}
	r := &Role{Name: name, Prompt: strings.TrimSpace(body), Source: source, front: front, hasFront: offset > 0}
	if strings.TrimSpace(front) == "" {
		return r, nil, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(front), &doc); err != nil {
		return nil, nil, yamlError(where, offset, err)
	}
	if len(doc.Content) == 0 {
		return r, nil, nil // only comments
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
		return r, nil, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, nil, &FileError{where, root.Line + offset,
			"the front matter between the --- lines must be `key: value` lines (like `temperature: 0.2`)"}
	}
	var (
		warnings     []Warning
		unknown      []string // keys that are not a role's, in file order
		unknownLine  int      // the first one's line
		notNames     int
		notNamesLine int
	)
	if k, first := yamlerr.RepeatedKey(root); k != nil {
		return nil, nil, &FileError{where, k.Line + offset,
			fmt.Sprintf("%s is set twice (first at line %d); remove one", k.Value, first+offset)}
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		line := k.Line + offset
		if k.Kind != yaml.ScalarNode {
			if notNames++; notNames == 1 {
				notNamesLine = line
			}
			continue
		}
		f, known := lookupField(k.Value)
		if !known {
			if !ignoredKey(k.Value) {
				if len(unknown) == 0 {
					unknownLine = line
				}
				unknown = append(unknown, k.Value)
			}
			continue
		}
		val, msg := f.parseNode(v)
		if msg != "" {
			return nil, nil, &FileError{where, v.Line + offset, msg}
		}
		f.set(&r.Settings, val)
	}
	// One warning per kind of problem, however many keys have it: a file
	// with thousands of stray keys must not print thousands of lines.
	if notNames > 0 {
		warnings = append(warnings, Warning{where, notNamesLine, countText(notNames, "key that is not a name is", "keys that are not names are") + " ignored"})
	}
	if len(unknown) > 0 {
		warnings = append(warnings, Warning{where, unknownLine,
			fmt.Sprintf("%s ignored (a role reads %s)", yamlerr.UnknownKeys("key", unknown), strings.Join(Keys(), ", "))})
	}
	r.parsed = r.Settings.Clone()
	return r, warnings, nil
}

// countText is "a key that is …" for one, "N keys that are …" for more.
func countText(n int, one, many string) string {
	if n == 1 {
		return "a " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// splitFrontMatter separates the front matter from the prompt. The front
// matter starts at the first line that is not blank, if that line is ---
// (or more dashes), and ends at the next such line. offset is the line of
// the opening dashes (0 when there is no front matter), so that line n of
// front is line n+offset of the file.
func splitFrontMatter(text string) (front string, offset int, body string, err *FileError) {
	pos, line := 0, 1
	for pos < len(text) {
		end := strings.IndexByte(text[pos:], '\n')
		next := len(text)
		if end >= 0 {
			next = pos + end + 1
		}
		cur := text[pos:next]
		if strings.TrimSpace(cur) != "" {
			if !isDashLine(cur) {
				return "", 0, text, nil
			}
			break
		}
		pos, line = next, line+1
	}
	if pos >= len(text) {
		return "", 0, text, nil // blank
	}
	open := line
	start := strings.IndexByte(text[pos:], '\n')
	if start < 0 {
		return "", 0, "", &FileError{Line: open, Msg: "the front matter opened by --- is not closed; add a --- line after it"}
	}
	start += pos + 1
	for p := start; p < len(text); {
		end := strings.IndexByte(text[p:], '\n')
		next := len(text)
		if end >= 0 {
			next = p + end + 1
		}
		if isDashLine(text[p:next]) {
			return text[start:p], open, text[next:], nil
		}
		p = next
	}
	return "", 0, "", &FileError{Line: open, Msg: "the front matter opened by --- is not closed; add a --- line after it"}
}

// isDashLine reports whether a line is three or more dashes and nothing
// else but trailing blanks.
func isDashLine(s string) bool {
	s = strings.TrimRight(s, " \t\r\n")
	return len(s) >= 3 && strings.Trim(s, "-") == ""
}

// yamlError turns a yaml.v3 syntax error ("yaml: line 3: ...") into a
// FileError on the line of the file.
func yamlError(where string, offset int, err error) *FileError {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := offset + 1
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, after, ok := strings.Cut(rest, ": "); ok {
			if n, err := strconv.Atoi(num); err == nil {
				if parserProblem(after) {
					// yaml.v3 counts the lines of these from 0.
					n++
				}
				line, msg = offset+n, after
			}
		}
	}
	msg = strings.Join(strings.Fields(msg), " ")
	return &FileError{where, line, "the front matter is not valid YAML (" + msg + "); fix it or remove the --- lines"}
}

// parserProblem reports whether a yaml.v3 error message comes from its
// parser (rather than its scanner): the parser's line numbers are 0-based,
// and name the line where the unfinished construct began.
func parserProblem(msg string) bool {
	switch msg {
	case "did not find expected ',' or ']'", "did not find expected ',' or '}'",
		"did not find expected '-' indicator", "did not find expected <document start>",
		"did not find expected key", "did not find expected node content",
		"found incompatible YAML document", "found undefined tag handle",
		"found duplicate %TAG directive", "found duplicate %YAML directive":
		return true
	}
	return false
}
