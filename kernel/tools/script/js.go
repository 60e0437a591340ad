package script

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// The JavaScript/TypeScript declaration is the JSDoc block just before
// the exported run function. Its parameters are @param lines, or (as in
// the original's tools) @property lines of an @typedef that run takes:
//
//	/**
//	 * Read a text file.
//	 * @typedef {Object} Args
//	 * @property {string} path - The file to read.
//	 * @property {number} [offset] - The first line.
//	 * @param {Args} args
//	 */
//	exports.run = function (args) { … }

var (
	jsRunRes = sync.OnceValue(func() []*regexp.Regexp {
		return []*regexp.Regexp{
			regexp.MustCompile(`(?m)^[ \t]*export[ \t]+(?:default[ \t]+)?(?:async[ \t]+)?function[ \t]*\*?[ \t]*run[ \t]*[(<]`),
			regexp.MustCompile(`(?m)^[ \t]*export[ \t]+(?:const|let|var)[ \t]+run\b`),
			regexp.MustCompile(`(?m)^[ \t]*(?:module\.)?exports\.run[ \t]*=`),
			regexp.MustCompile(`(?m)^[ \t]*(?:async[ \t]+)?function[ \t]+run[ \t]*[(<]`),
			regexp.MustCompile(`(?m)^[ \t]*(?:const|let|var)[ \t]+run\b`),
		}
	})
	// jsExportRe finds an export of a run defined without one.
	jsExportRe = lazyRegexp(`(?:module\.)?exports\.run\s*=|module\.exports\s*=\s*\{[^}]*\brun\b|export\s*\{[^}]*\brun\b`)
	jsTagRe    = lazyRegexp(`^@([A-Za-z]+)\s*(.*)$`)
)

func parseJS(path, src string) ([]Decl, error) {
	at, plain := -1, false
	for i, re := range jsRunRes() {
		if loc := re.FindStringIndex(src); loc != nil && (at < 0 || loc[0] < at) {
			at, plain = loc[0], i >= 3
		}
	}
	if at < 0 {
		return nil, fmt.Errorf("%s: no run function", path)
	}
	if plain && !jsExportRe().MatchString(src) {
		return nil, fmt.Errorf("%s: run is not exported", path)
	}
	before := strings.TrimRight(src[:at], " \t\r\n")
	if !strings.HasSuffix(before, "*/") {
		return nil, fmt.Errorf("%s:%d: no JSDoc comment (/** … */) just before run", path, lineOf(src, at))
	}
	start := strings.LastIndex(before, "/**")
	if start < 0 || start+3 > len(before)-2 { // "/**/" is an empty comment, not JSDoc
		return nil, fmt.Errorf("%s:%d: no JSDoc comment (/** … */) just before run", path, lineOf(src, at))
	}
	desc, tags := jsdocLines(before[start+3 : len(before)-2])
	if desc == "" {
		return nil, fmt.Errorf("%s: the JSDoc comment of run has no description", path)
	}
	type entry struct {
		tag string
		p   Param
		raw string
	}
	var (
		typedefs      = map[string]bool{}
		props, params []entry
	)
	for _, t := range tags {
		switch t.name {
		case "typedef":
			if _, rest := jsBraced(t.text); rest != "" {
				typedefs[strings.Fields(rest)[0]] = true
			}
		case "property", "prop", "param", "arg", "argument":
			p, typ, err := jsParam(t.text)
			if err != nil {
				return nil, fmt.Errorf("%s: @%s %s: %w", path, t.name, t.text, err)
			}
			e := entry{tag: t.name, p: p, raw: typ}
			if t.name == "property" || t.name == "prop" {
				props = append(props, e)
			} else {
				params = append(params, e)
			}
		}
	}
	chosen := props
	if len(chosen) == 0 {
		dotted := false
		for _, e := range params {
			dotted = dotted || strings.Contains(e.p.Name, ".")
		}
		for _, e := range params {
			bare := strings.TrimSuffix(e.raw, "=")
			switch {
			case dotted && !strings.Contains(e.p.Name, "."):
				// the object holding args.x, args.y
			case !dotted && (typedefs[bare] || bare == "Object" || bare == "object"):
				// run(args) with its fields elsewhere
			default:
				chosen = append(chosen, e)
			}
		}
	}
	var out []Param
	seen := map[string]int{}
	for _, e := range chosen {
		p := e.p
		p.Name = p.Name[strings.LastIndexByte(p.Name, '.')+1:]
		if !propRe().MatchString(p.Name) {
			return nil, fmt.Errorf("%s: invalid parameter name %q", path, p.Name)
		}
		if err := checkDuplicate(seen, path, lineOf(src, start), p); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return []Decl{{Name: baseName(path), Description: desc, Command: "run", Params: out}}, nil
}

type jsTag struct{ name, text string }

// jsdocLines splits the inside of a /** */ block into its description
// and its tags, each with its continuation lines.
func jsdocLines(block string) (string, []jsTag) {
	var desc []string
	var tags []jsTag
	for _, l := range strings.Split(block, "\n") {
		l = strings.TrimSpace(l)
		l = strings.TrimPrefix(l, "*")
		if strings.HasPrefix(l, " ") {
			l = l[1:]
		}
		t := strings.TrimSpace(l)
		if m := jsTagRe().FindStringSubmatch(t); m != nil {
			tags = append(tags, jsTag{name: m[1], text: strings.TrimSpace(m[2])})
			continue
		}
		if len(tags) > 0 {
			if t != "" {
				last := &tags[len(tags)-1]
				last.text = strings.TrimSpace(last.text + " " + t)
			}
			continue
		}
		desc = append(desc, strings.TrimRight(l, " "))
	}
	return joinDesc(desc), tags
}

// jsBraced splits "{type} rest" into the type (nested braces allowed)
// and the rest.
func jsBraced(s string) (string, string) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "{") {
		return "", s
	}
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			if depth--; depth == 0 {
				return strings.TrimSpace(s[1:i]), strings.TrimSpace(s[i+1:])
			}
		}
	}
	return strings.TrimSpace(s[1:]), ""
}

// jsParam reads "{type} name - description" or "{type} [name=default]
// description"; it also returns the type as written.
func jsParam(s string) (Param, string, error) {
	typ, rest := jsBraced(s)
	var p Param
	p.Kind, p.CheckChoices = KindOption, true
	optional := false
	var name string
	if strings.HasPrefix(rest, "[") {
		j := strings.IndexByte(rest, ']')
		if j < 0 {
			return p, typ, fmt.Errorf("unclosed [")
		}
		name, rest, optional = rest[1:j], rest[j+1:], true
		if n, def, ok := strings.Cut(name, "="); ok {
			name = n
			p.Default, p.HasDefault = strings.Trim(strings.TrimSpace(def), `"'`), true
		}
	} else {
		name, rest, _ = strings.Cut(rest, " ")
	}
	p.Name = strings.TrimSpace(name)
	if p.Name == "" {
		return p, typ, fmt.Errorf("no parameter name")
	}
	rest = strings.TrimSpace(rest)
	rest = strings.TrimSpace(strings.TrimPrefix(rest, "-"))
	p.Description = rest
	t := jsType(typ)
	p.Type, p.Items, p.Choices = t.typ, t.items, t.choices
	p.Required = !optional && !t.optional
	return p, typ, nil
}

// jsType maps a JSDoc type to a JSON Schema type; unknown types are
// strings.
func jsType(typ string) pyTypeInfo {
	t := strings.TrimSpace(typ)
	optional := false
	if strings.HasSuffix(t, "=") {
		t, optional = strings.TrimSpace(strings.TrimSuffix(t, "=")), true
	}
	if strings.HasPrefix(t, "?") {
		t, optional = strings.TrimSpace(t[1:]), true
	}
	t = strings.TrimPrefix(t, "!")
	if strings.HasPrefix(t, "(") && strings.HasSuffix(t, ")") {
		t = strings.TrimSpace(t[1 : len(t)-1])
	}
	out := pyTypeInfo{typ: "string"}
	if parts := splitTopLevel(t, '|'); len(parts) > 1 {
		var kept []string
		for _, p := range parts {
			switch p = strings.TrimSpace(p); p {
			case "null", "undefined":
				optional = true
			default:
				kept = append(kept, p)
			}
		}
		literals := len(kept) > 0
		for _, k := range kept {
			if len(k) < 2 || !strings.ContainsRune(`"'`, rune(k[0])) || k[len(k)-1] != k[0] {
				literals = false
			}
		}
		switch {
		case literals:
			for _, k := range kept {
				out.choices = append(out.choices, k[1:len(k)-1])
			}
		case len(kept) == 1:
			out = jsType(kept[0])
		}
		out.optional = out.optional || optional
		return out
	}
	if len(t) >= 2 && strings.ContainsRune(`"'`, rune(t[0])) && t[len(t)-1] == t[0] {
		out.choices = []string{t[1 : len(t)-1]}
		out.optional = optional
		return out
	}
	elem := ""
	switch {
	case strings.HasSuffix(t, "[]"):
		elem = strings.TrimSuffix(t, "[]")
	case strings.HasPrefix(t, "Array.<") && strings.HasSuffix(t, ">"):
		elem = t[len("Array.<") : len(t)-1]
	case strings.HasPrefix(t, "Array<") && strings.HasSuffix(t, ">"):
		elem = t[len("Array<") : len(t)-1]
	case t == "Array" || t == "array":
		elem = "string"
	}
	if elem != "" {
		it := jsType(elem)
		out.typ, out.items, out.choices = "array", it.typ, it.choices
		if it.typ == "array" || it.typ == "object" {
			out.items, out.choices = "string", nil
		}
		out.optional = optional
		return out
	}
	switch t {
	case "number", "Number":
		out.typ = "number"
	case "integer", "Integer", "int":
		out.typ = "integer"
	case "boolean", "Boolean", "bool":
		out.typ = "boolean"
	case "object", "Object":
		out.typ = "object"
	default:
		if strings.HasPrefix(t, "{") || strings.HasPrefix(t, "Record<") || strings.HasPrefix(t, "Object.<") {
			out.typ = "object"
		}
	}
	out.optional = optional
	return out
}
