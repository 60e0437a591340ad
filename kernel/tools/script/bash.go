package script

import (
	"fmt"
	"path/filepath"
	"strings"
)

var (
	// tagRe matches an argc comment tag: "# @option --x! The x".
	tagRe = lazyRegexp(`^\s*#+\s*@([A-Za-z][A-Za-z0-9_-]*)(?:\s+(.*?))?\s*$`)
	// commentRe matches any comment line, capturing its text.
	commentRe = lazyRegexp(`^\s*#(.*)$`)
	// funcRe matches the first line of a shell function definition.
	funcRe = lazyRegexp(`^\s*(?:function\s+([A-Za-z_][A-Za-z0-9_:.-]*)\s*(?:\(\s*\))?|([A-Za-z_][A-Za-z0-9_:.-]*)\s*\(\s*\))\s*(?:[{(].*)?$`)
	// propRe is what a parameter name must be once dashes are underscores.
	propRe = lazyRegexp(`^[A-Za-z0-9_]+$`)
	envRe  = lazyRegexp(`^[A-Za-z_][A-Za-z0-9_]*$`)
	// fnNameRe is a shell function name, for =`fn` defaults.
	fnNameRe = lazyRegexp(`^[A-Za-z_][A-Za-z0-9_:.-]*$`)
)

// bashScope collects the tags of the script (the root) or of one @cmd.
type bashScope struct {
	desc   []string
	params []Param
	env    []EnvVar
	meta   map[string]string
	seen   map[string]int // parameter name → line
	line   int            // the @cmd tag's line
}

func newScope(line int) *bashScope {
	return &bashScope{meta: map[string]string{}, seen: map[string]int{}, line: line}
}

func parseBash(path, src string) ([]Decl, error) {
	lines := strings.Split(src, "\n")
	root := newScope(0)
	var (
		cur    *bashScope // the open @cmd, if any
		cmds   []Decl
		scopes []*bashScope
		// A comment line after a tag, up to the next tag or non-comment
		// line, continues the tag's description (argc's long
		// descriptions); cont adds it, or is nil for ignored tags.
		inBlock bool
		cont    func(string)
	)
	for i, text := range lines {
		n := i + 1
		if n == 1 && strings.HasPrefix(text, "#!") {
			continue
		}
		m := tagRe().FindStringSubmatch(text)
		if m == nil {
			if inBlock {
				if c := commentRe().FindStringSubmatch(text); c != nil {
					if cont != nil {
						cont(strings.TrimSpace(c[1]))
					}
					continue
				}
			}
			inBlock, cont = false, nil
			if cur != nil {
				if f := funcRe().FindStringSubmatch(text); f != nil {
					name := f[1] + f[2]
					cmds = append(cmds, Decl{Name: name, Command: name})
					scopes = append(scopes, cur)
					cur = nil
				}
			}
			continue
		}
		inBlock, cont = true, nil
		tag, rest := m[1], m[2]
		scope := root
		if cur != nil {
			scope = cur
		}
		switch tag {
		case "describe":
			root.desc = []string{rest}
			cont = func(l string) { root.desc = append(root.desc, l) }
		case "cmd":
			if cur != nil {
				return nil, fmt.Errorf("%s:%d: @cmd is not followed by a function before the next @cmd on line %d", path, cur.line, n)
			}
			c := newScope(n)
			c.desc = []string{rest}
			cur, cont = c, func(l string) { c.desc = append(c.desc, l) }
		case "option", "flag":
			p, err := parseParamSpec(rest, tag == "flag")
			if err != nil {
				return nil, fmt.Errorf("%s:%d: @%s: %w", path, n, tag, err)
			}
			if err := checkDuplicate(scope.seen, path, n, p); err != nil {
				return nil, err
			}
			scope.params = append(scope.params, p)
			ps := &scope.params[len(scope.params)-1]
			cont = func(l string) { ps.Description = joinDesc([]string{ps.Description, l}) }
		case "env":
			e, err := parseEnvSpec(rest)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: @env: %w", path, n, err)
			}
			scope.env = append(scope.env, e)
			es := &scope.env[len(scope.env)-1]
			cont = func(l string) { es.Description = joinDesc([]string{es.Description, l}) }
		case "meta":
			key, val := rest, ""
			if j := strings.IndexAny(rest, " \t"); j >= 0 {
				key, val = rest[:j], strings.TrimSpace(rest[j:])
			}
			if key == "" {
				continue
			}
			if old, ok := scope.meta[key]; ok && old != "" {
				val = strings.TrimSpace(old + " " + val)
			}
			scope.meta[key] = val
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("%s:%d: @cmd is not followed by a function", path, cur.line)
	}
	if len(cmds) == 0 {
		desc := joinDesc(root.desc)
		if desc == "" {
			return nil, fmt.Errorf("%s: no @describe", path)
		}
		return []Decl{{
			Name: baseName(path), Description: desc, Command: "main",
			Params: root.params, Env: root.env, Meta: root.meta,
		}}, nil
	}
	for i := range cmds {
		s := scopes[i]
		cmds[i].Description = joinDesc(s.desc)
		cmds[i].Params = s.params
		cmds[i].Env = append(append([]EnvVar(nil), root.env...), s.env...)
		meta := map[string]string{}
		for k, v := range root.meta {
			meta[k] = v
		}
		for k, v := range s.meta {
			meta[k] = v
		}
		cmds[i].Meta = meta
	}
	return cmds, nil
}

// joinDesc joins description lines, without leading or trailing blank
// ones.
func joinDesc(lines []string) string {
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

func isNameChar(c byte) bool {
	return c == '_' || c == '-' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' }

// parseParamSpec reads what follows @option or @flag:
// [-s] --long[modifiers][=default|[choices]] [$ENV] [<NOTATION>…] [description].
func parseParamSpec(s string, isFlag bool) (Param, error) {
	var p Param
	i := 0
	name := func() string {
		j := i
		for i < len(s) && isNameChar(s[i]) {
			i++
		}
		return s[j:i]
	}
	if strings.HasPrefix(s, "-") && !strings.HasPrefix(s, "--") {
		i = 1
		if p.Short = name(); p.Short == "" {
			return p, fmt.Errorf("no option name in %q", s)
		}
		j := i
		for j < len(s) && isSpace(s[j]) {
			j++
		}
		if strings.HasPrefix(s[j:], "--") {
			i = j
		}
	}
	if strings.HasPrefix(s[i:], "--") {
		i += 2
		if p.Long = name(); p.Long == "" {
			return p, fmt.Errorf("no option name in %q", s)
		}
	}
	if p.Long == "" && p.Short == "" {
		return p, fmt.Errorf("no option name in %q (want --name)", s)
	}
	p.Name = p.Long
	if p.Name == "" {
		p.Name = p.Short
	}
	p.Name = strings.ReplaceAll(p.Name, "-", "_")
	if !propRe().MatchString(p.Name) || !propRe().MatchString(strings.ReplaceAll(p.Short, "-", "_")) && p.Short != "" {
		return p, fmt.Errorf("invalid option name in %q (letters, digits, - and _)", s)
	}
	multiple := false
mods:
	for i < len(s) {
		switch s[i] {
		case '!':
			p.Required = true
		case '+':
			p.Required, multiple = true, true
		case '*', ',', '~':
			multiple = true
		default:
			break mods
		}
		i++
	}
	if i < len(s) && s[i] == '=' {
		i++
		switch {
		case i < len(s) && s[i] == '`':
			j := strings.IndexByte(s[i+1:], '`')
			if j < 0 {
				return p, fmt.Errorf("unclosed ` in the default of %s", p.flag())
			}
			p.DefaultFn = s[i+1 : i+1+j]
			i += j + 2
			if !fnNameRe().MatchString(p.DefaultFn) {
				return p, fmt.Errorf("the default of %s, %q, is not a function name", p.flag(), p.DefaultFn)
			}
		case i < len(s) && (s[i] == '"' || s[i] == '\''):
			j := strings.IndexByte(s[i+1:], s[i])
			if j < 0 {
				return p, fmt.Errorf("unclosed quote in the default of %s", p.flag())
			}
			p.Default, p.HasDefault = s[i+1:i+1+j], true
			i += j + 2
		default:
			j := i
			for i < len(s) && !isSpace(s[i]) {
				i++
			}
			p.Default, p.HasDefault = s[j:i], true
		}
	}
	if i < len(s) && s[i] == '[' {
		j := strings.IndexByte(s[i:], ']')
		if j < 0 {
			return p, fmt.Errorf("unclosed [ in the choices of %s", p.flag())
		}
		inner := s[i+1 : i+j]
		i += j + 1
		// [?a|b] are suggestions argc does not check, [`fn`] choices a
		// function prints: neither is an enum.
		unchecked := strings.HasPrefix(inner, "?")
		inner = strings.TrimPrefix(inner, "?")
		first := false
		if strings.HasPrefix(inner, "=") {
			inner, first = inner[1:], true
		}
		if !strings.HasPrefix(inner, "`") {
			var choices []string
			for _, c := range strings.Split(inner, "|") {
				if c = strings.TrimSpace(c); c != "" {
					choices = append(choices, c)
				}
			}
			if first && len(choices) > 0 && !p.HasDefault {
				p.Default, p.HasDefault = choices[0], true
			}
			if !unchecked {
				p.Choices, p.CheckChoices = choices, true
			}
		}
	}
	if i < len(s) && !isSpace(s[i]) {
		return p, fmt.Errorf("unexpected %q after %s", s[i:], p.flag())
	}
	rest := strings.TrimSpace(s[i:])
	for {
		switch {
		case strings.HasPrefix(rest, "$"): // $$ or $NAME: an environment binding
			j := strings.IndexAny(rest, " \t")
			if j < 0 {
				j = len(rest)
			}
			rest = strings.TrimSpace(rest[j:])
			continue
		case strings.HasPrefix(rest, "<"): // <NOTATION>
			if j := strings.IndexByte(rest, '>'); j > 0 {
				rest = strings.TrimSpace(rest[j+1:])
				continue
			}
		}
		break
	}
	p.Description = rest
	switch {
	case isFlag:
		p.Kind, p.Type = KindFlag, "boolean"
		p.Required, p.Choices, p.HasDefault, p.Default, p.DefaultFn = false, nil, false, "", ""
	case multiple:
		p.Kind, p.Type, p.Items = KindOption, "array", "string"
	default:
		p.Kind, p.Type = KindOption, "string"
	}
	return p, nil
}

// parseEnvSpec reads what follows @env: NAME[!][=default|[choices]] [description].
func parseEnvSpec(s string) (EnvVar, error) {
	var e EnvVar
	i := 0
	for i < len(s) && (isNameChar(s[i]) && s[i] != '-' && s[i] != '.') {
		i++
	}
	e.Name = s[:i]
	if !envRe().MatchString(e.Name) {
		return e, fmt.Errorf("invalid variable name in %q", s)
	}
	if i < len(s) && s[i] == '!' {
		e.Required = true
		i++
	}
	switch {
	case i < len(s) && s[i] == '=':
		i++
		if i < len(s) && (s[i] == '"' || s[i] == '\'') {
			j := strings.IndexByte(s[i+1:], s[i])
			if j < 0 {
				return e, fmt.Errorf("unclosed quote in the default of %s", e.Name)
			}
			e.Default, e.HasDefault = s[i+1:i+1+j], true
			i += j + 2
		} else {
			j := i
			for i < len(s) && !isSpace(s[i]) {
				i++
			}
			e.Default, e.HasDefault = s[j:i], true
		}
	case i < len(s) && s[i] == '[':
		j := strings.IndexByte(s[i:], ']')
		if j < 0 {
			return e, fmt.Errorf("unclosed [ in the choices of %s", e.Name)
		}
		inner := s[i+1 : i+j]
		i += j + 1
		first := strings.HasPrefix(inner, "=")
		inner = strings.TrimPrefix(inner, "=")
		for _, c := range strings.Split(inner, "|") {
			if c = strings.TrimSpace(c); c != "" {
				e.Choices = append(e.Choices, c)
			}
		}
		if first && len(e.Choices) > 0 {
			e.Default, e.HasDefault = e.Choices[0], true
		}
	}
	if i < len(s) && !isSpace(s[i]) {
		return e, fmt.Errorf("unexpected %q after %s", s[i:], e.Name)
	}
	e.Description = strings.TrimSpace(s[i:])
	return e, nil
}

// shebang splits a script's #! line into its fields, or nil.
func shebang(src string) []string {
	if !strings.HasPrefix(src, "#!") {
		return nil
	}
	line, _, _ := strings.Cut(src[2:], "\n")
	return strings.Fields(line)
}

// shebangProgram is the program a #! line runs, looking through env and
// its options: "bash" for "#!/usr/bin/env -S bash -e".
func shebangProgram(fields []string) string {
	if len(fields) == 0 {
		return ""
	}
	if filepath.Base(fields[0]) != "env" {
		return fields[0]
	}
	for _, f := range fields[1:] {
		if strings.HasPrefix(f, "-") || strings.Contains(f, "=") {
			continue
		}
		return f
	}
	return ""
}

var pythonRe = lazyRegexp(`^python[0-9.]*$`)

// interpreterFor picks the program that runs a tool's wrapper.
func interpreterFor(lang Lang, src string) string {
	fields := shebang(src)
	prog := shebangProgram(fields)
	switch lang {
	case LangBash:
		if filepath.Base(prog) == "bash" {
			return strings.Join(fields, " ")
		}
		return "/usr/bin/env bash"
	case LangPython:
		if pythonRe().MatchString(filepath.Base(prog)) {
			return prog
		}
		return "python3"
	case LangJavaScript:
		return "node"
	case LangTypeScript:
		return "tsx"
	}
	return ""
}
