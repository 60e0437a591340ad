package script

import (
	"fmt"
	"strconv"
	"strings"
)

// The Python declaration comes from the source text, without running
// Python: the parameters of the top-level def run(...), their type hints
// and defaults, and a Google style docstring:
//
//	def run(path: str, offset: Optional[int] = 1, tags: list[str] = None):
//	    """Read a text file.
//
//	    Args:
//	        path: The file to read.
//	        offset: The first line (1-based).
//	    """

var pyRunRe = lazyRegexp(`(?m)^(?:async[ \t]+)?def[ \t]+run[ \t]*\(`)

func parsePython(path, src string) ([]Decl, error) {
	loc := pyRunRe().FindStringIndex(src)
	if loc == nil {
		return nil, fmt.Errorf("%s: no top-level def run(...)", path)
	}
	open := loc[1] - 1
	end, err := matchBracket(src, open)
	if err != nil {
		return nil, fmt.Errorf("%s: def run: %w", path, err)
	}
	paramsText := src[open+1 : end]
	// The body starts after the ':' that ends the signature (a return
	// annotation may come first).
	colon := -1
	for i := end + 1; i < len(src) && colon < 0; i++ {
		switch src[i] {
		case ':':
			colon = i
		case '(', '[', '{':
			j, err := matchBracket(src, i)
			if err != nil {
				return nil, fmt.Errorf("%s: def run: %w", path, err)
			}
			i = j
		case '"', '\'':
			i = skipString(src, i) - 1
		}
	}
	if colon < 0 {
		return nil, fmt.Errorf("%s: def run: no ':' after the parameters", path)
	}
	doc, ok := pyDocstring(src[colon+1:])
	if !ok {
		return nil, fmt.Errorf("%s: run has no docstring (its description)", path)
	}
	desc, argDocs := splitDocstring(doc)
	if desc == "" {
		return nil, fmt.Errorf("%s: run's docstring has no description", path)
	}
	var params []Param
	seen := map[string]int{}
	for _, raw := range splitTopLevel(paramsText, ',') {
		raw = strings.TrimSpace(raw)
		if raw == "" || raw == "/" || strings.HasPrefix(raw, "*") || raw == "self" {
			continue
		}
		name, annot, def, hasDef := raw, "", "", false
		if i := indexTopLevel(name, '='); i >= 0 {
			name, def, hasDef = name[:i], strings.TrimSpace(name[i+1:]), true
		}
		if i := indexTopLevel(name, ':'); i >= 0 {
			name, annot = name[:i], strings.TrimSpace(name[i+1:])
		}
		name = strings.TrimSpace(name)
		if !propRe().MatchString(name) {
			return nil, fmt.Errorf("%s: def run: cannot read the parameter %q", path, raw)
		}
		t := pyType(annot)
		p := Param{
			Name: name, Kind: KindOption, Type: t.typ, Items: t.items,
			Choices: t.choices, CheckChoices: true,
			Required:    !hasDef && !t.optional,
			Description: argDocs[name],
		}
		if hasDef && def != "None" {
			p.Default, p.HasDefault = strings.Trim(def, `"'`), true
		}
		if err := checkDuplicate(seen, path, lineOf(src, open), p); err != nil {
			return nil, err
		}
		params = append(params, p)
	}
	return []Decl{{Name: baseName(path), Description: desc, Command: "run", Params: params}}, nil
}

// lineOf is the 1-based line of byte offset i.
func lineOf(src string, i int) int { return strings.Count(src[:i], "\n") + 1 }

// matchBracket returns the index of the bracket closing the one at open,
// skipping Python/JavaScript string literals and # comments.
func matchBracket(s string, open int) (int, error) {
	closing := map[byte]byte{'(': ')', '[': ']', '{': '}'}
	var stack []byte
	for i := open; i < len(s); i++ {
		switch c := s[i]; c {
		case '(', '[', '{':
			stack = append(stack, closing[c])
		case ')', ']', '}':
			if len(stack) == 0 || stack[len(stack)-1] != c {
				return 0, fmt.Errorf("unbalanced %q on line %d", c, lineOf(s, i))
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return i, nil
			}
		case '"', '\'', '`':
			i = skipString(s, i) - 1
		case '#':
			if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
				i += j
			} else {
				i = len(s)
			}
		}
	}
	return 0, fmt.Errorf("unclosed %q on line %d", s[open], lineOf(s, open))
}

// skipString returns the index just past the string literal starting at
// i (triple-quoted or not).
func skipString(s string, i int) int {
	q := s[i]
	if q != '`' && strings.HasPrefix(s[i:], strings.Repeat(string(q), 3)) {
		if j := strings.Index(s[i+3:], strings.Repeat(string(q), 3)); j >= 0 {
			return i + 3 + j + 3
		}
		return len(s)
	}
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case q:
			return j + 1
		case '\n':
			if q != '`' {
				return j
			}
		}
	}
	return len(s)
}

// splitTopLevel splits s at sep outside brackets and strings.
func splitTopLevel(s string, sep byte) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case c == '"' || c == '\'':
			i = skipString(s, i) - 1
		case c == '#':
			if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
				s = s[:i] + strings.Repeat(" ", j) + s[i+j:]
			}
		case c == sep && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// indexTopLevel is the first sep of s outside brackets and strings.
func indexTopLevel(s string, sep byte) int {
	parts := splitTopLevel(s, sep)
	if len(parts) < 2 {
		return -1
	}
	return len(parts[0])
}

// pyDocstring reads the string literal that starts the body after a
// def's colon, unquoted and cleaned as inspect.cleandoc does.
func pyDocstring(body string) (string, bool) {
	i := 0
	for i < len(body) {
		switch body[i] {
		case ' ', '\t', '\r', '\n':
			i++
			continue
		case '#':
			if j := strings.IndexByte(body[i:], '\n'); j >= 0 {
				i += j
				continue
			}
			return "", false
		}
		break
	}
	raw := false
	for i < len(body) && strings.ContainsRune("rRuU", rune(body[i])) {
		raw = raw || body[i] == 'r' || body[i] == 'R'
		i++
	}
	if i >= len(body) || body[i] != '"' && body[i] != '\'' {
		return "", false
	}
	end := skipString(body, i)
	q := 1
	if strings.HasPrefix(body[i:], `"""`) || strings.HasPrefix(body[i:], `'''`) {
		q = 3
	}
	if end-i < 2*q {
		return "", false
	}
	text := body[i+q : end-q]
	if !raw {
		text = strings.NewReplacer(`\\`, `\`, `\"`, `"`, `\'`, `'`, `\n`, "\n", `\t`, "\t").Replace(text)
	}
	return cleandoc(text), true
}

// cleandoc removes the docstring indentation: the first line is
// stripped, the others lose their common leading whitespace, and blank
// lines at either end go.
func cleandoc(s string) string {
	lines := strings.Split(strings.ReplaceAll(s, "\t", "        "), "\n")
	indent := -1
	for _, l := range lines[1:] {
		if t := strings.TrimLeft(l, " "); t != "" {
			if n := len(l) - len(t); indent < 0 || n < indent {
				indent = n
			}
		}
	}
	lines[0] = strings.TrimSpace(lines[0])
	for i := 1; i < len(lines); i++ {
		if indent > 0 && len(lines[i]) >= indent {
			lines[i] = lines[i][indent:]
		} else {
			lines[i] = strings.TrimLeft(lines[i], " ")
		}
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	return strings.Trim(strings.Join(lines, "\n"), "\n")
}

var (
	pySectionRe = lazyRegexp(`^(\s*)(Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments|Kwargs|Returns|Return|Yields|Yield|Raises|Examples|Example|Notes|Note|Attributes|See Also|Todo|Warnings|Warning)\s*:\s*$`)
	pyArgRe     = lazyRegexp(`^\*{0,2}([A-Za-z_][A-Za-z0-9_]*)\s*(?:\([^)]*\))?\s*:\s*(.*)$`)
)

// splitDocstring returns a docstring's description (the text before its
// first section) and the descriptions of its Args entries.
func splitDocstring(doc string) (string, map[string]string) {
	lines := strings.Split(doc, "\n")
	args := map[string]string{}
	var desc []string
	i := 0
	for ; i < len(lines); i++ {
		if pySectionRe().MatchString(lines[i]) {
			break
		}
		desc = append(desc, lines[i])
	}
	for i < len(lines) {
		m := pySectionRe().FindStringSubmatch(lines[i])
		headIndent, section := len(m[1]), m[2]
		i++
		isArgs := strings.HasPrefix(section, "Arg") || strings.HasPrefix(section, "Param") ||
			strings.HasPrefix(section, "Keyword") || section == "Kwargs"
		entryIndent, last := -1, ""
		for ; i < len(lines); i++ {
			l := lines[i]
			t := strings.TrimLeft(l, " ")
			if t == "" {
				continue
			}
			ind := len(l) - len(t)
			if ind <= headIndent {
				break
			}
			if !isArgs {
				continue
			}
			if entryIndent < 0 {
				entryIndent = ind
			}
			if ind == entryIndent {
				if am := pyArgRe().FindStringSubmatch(t); am != nil {
					last = am[1]
					args[last] = strings.TrimSpace(am[2])
					continue
				}
			}
			if last != "" { // a continuation line
				args[last] = strings.TrimSpace(args[last] + " " + strings.TrimSpace(t))
			}
		}
		for i < len(lines) && !pySectionRe().MatchString(lines[i]) {
			i++ // text after a section that is not one: skip to the next
		}
	}
	return joinDesc(desc), args
}

// pyTypeInfo is a Python annotation as JSON Schema.
type pyTypeInfo struct {
	typ, items string
	optional   bool
	choices    []string
}

// pyType maps a type hint to a JSON Schema type. Unknown or missing hints
// are strings.
func pyType(annot string) pyTypeInfo {
	a := strings.TrimSpace(annot)
	if len(a) >= 2 && (a[0] == '"' || a[0] == '\'') && a[len(a)-1] == a[0] {
		a = strings.TrimSpace(a[1 : len(a)-1])
	}
	if a == "" {
		return pyTypeInfo{typ: "string"}
	}
	// X | None, None | X
	if parts := splitTopLevel(a, '|'); len(parts) > 1 {
		return pyUnion(parts)
	}
	head, inner := a, ""
	if i := strings.IndexByte(a, '['); i > 0 && strings.HasSuffix(a, "]") {
		head, inner = strings.TrimSpace(a[:i]), a[i+1:len(a)-1]
	}
	head = head[strings.LastIndexByte(head, '.')+1:] // typing.List → List
	switch head {
	case "Optional":
		t := pyType(inner)
		t.optional = true
		return t
	case "Union":
		return pyUnion(splitTopLevel(inner, ','))
	case "Annotated":
		return pyType(splitTopLevel(inner, ',')[0])
	case "Literal":
		return pyLiteral(splitTopLevel(inner, ','))
	case "list", "List", "Sequence", "MutableSequence", "Iterable", "tuple", "Tuple", "set", "Set", "frozenset", "FrozenSet":
		t := pyTypeInfo{typ: "array", items: "string"}
		if inner != "" {
			it := pyType(splitTopLevel(inner, ',')[0])
			if it.typ != "array" && it.typ != "object" {
				t.items, t.choices = it.typ, it.choices
			}
		}
		return t
	case "dict", "Dict", "Mapping", "MutableMapping", "object":
		return pyTypeInfo{typ: "object"}
	case "str":
		return pyTypeInfo{typ: "string"}
	case "int":
		return pyTypeInfo{typ: "integer"}
	case "float":
		return pyTypeInfo{typ: "number"}
	case "bool":
		return pyTypeInfo{typ: "boolean"}
	}
	return pyTypeInfo{typ: "string"}
}

func pyUnion(parts []string) pyTypeInfo {
	var kept []string
	optional := false
	for _, p := range parts {
		if p = strings.TrimSpace(p); p == "None" || p == "NoneType" {
			optional = true
		} else {
			kept = append(kept, p)
		}
	}
	t := pyTypeInfo{typ: "string"}
	if len(kept) == 1 {
		t = pyType(kept[0])
	}
	t.optional = t.optional || optional
	return t
}

// pyLiteral maps Literal["a", "b"] to a string enum, Literal[1, 2] to an
// integer one.
func pyLiteral(vals []string) pyTypeInfo {
	t := pyTypeInfo{typ: "string"}
	allInt := true
	for _, v := range vals {
		v = strings.TrimSpace(v)
		if v == "" {
			continue
		}
		if _, err := strconv.Atoi(v); err != nil {
			allInt = false
		}
		t.choices = append(t.choices, strings.Trim(v, `"'`))
	}
	if allInt && len(t.choices) > 0 {
		t.typ = "integer"
	}
	return t
}
