package script

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/coyote-cli/coyote/kernel/textutil"
)

// Lang is the language of a tool script, from its file name.
type Lang string

// The languages of tool scripts.
const (
	LangBash       Lang = "bash"
	LangPython     Lang = "python"
	LangJavaScript Lang = "javascript"
	LangTypeScript Lang = "typescript"
)

// LangOf returns the language of a tool file by its extension, or "" for a
// file that is not a tool script.
func LangOf(path string) Lang {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".sh":
		return LangBash
	case ".py":
		return LangPython
	case ".js", ".mjs", ".cjs":
		return LangJavaScript
	case ".ts", ".mts":
		return LangTypeScript
	}
	return ""
}

// Decl is one function a tool script declares.
type Decl struct {
	// Name is the function's name for the model: the file name without
	// its extension, or the shell function of an @cmd.
	Name        string
	Description string
	// Parameters is the JSON Schema of the arguments, an object schema
	// whose properties keep the declaration order; a tool without
	// parameters has {"type":"object","properties":{}}.
	Parameters json.RawMessage
	// File is the absolute path of the script.
	File string
	Lang Lang
	// Command is the function the wrapper calls: main, the @cmd function,
	// or run for Python and JavaScript.
	Command string
	// Interpreter runs the wrapper: for bash the wrapper's #! line without
	// "#!" (the tool's own when it names bash), for the others the program
	// (python3 or the tool's python shebang, node, tsx).
	Interpreter string
	// Params are the parameters in declaration order, as the wrapper and
	// the call need them.
	Params []Param
	// Env are the @env declarations, in order.
	Env []EnvVar
	// Meta holds the @meta tags: key → value (repeated keys are joined
	// with a space, so "require-tools" lists every tool required).
	Meta map[string]string
}

// ParamKind says how a parameter is passed to a bash tool.
type ParamKind int

// Kinds of parameters.
const (
	KindOption ParamKind = iota // --name value
	KindFlag                    // --name, or nothing
)

// Param is one parameter of a declaration.
type Param struct {
	// Name is the JSON property and, for bash, the argc_<Name> variable:
	// the option's long name (else its short one) with dashes as
	// underscores.
	Name string
	// Long and Short are the bash option's names without dashes ("" when
	// absent); empty for Python and JavaScript parameters.
	Long, Short string
	Kind        ParamKind
	// Type is the JSON Schema type: string, integer, number, boolean,
	// array or object.
	Type string
	// Items is the element type of an array.
	Items       string
	Required    bool
	Description string
	// Choices are the allowed values (an enum, checked by the bash
	// wrapper); for an array they apply to its elements.
	Choices []string
	// Default is the default value, DefaultFn a function of the script
	// that prints it (bash `fn` defaults); neither goes into the schema.
	Default    string
	HasDefault bool
	DefaultFn  string
	// CheckChoices makes the bash wrapper refuse other values.
	CheckChoices bool
}

// flag spellings of the option for messages: "--path" or "-p".
func (p Param) flag() string {
	if p.Long != "" {
		return "--" + p.Long
	}
	if p.Short != "" {
		return "-" + p.Short
	}
	return "--" + p.Name
}

// EnvVar is one @env declaration.
type EnvVar struct {
	Name        string
	Required    bool
	Default     string
	HasDefault  bool
	Choices     []string
	Description string
}

// nameRe is what model APIs accept as a function name.
var nameRe = lazyRegexp(`^[A-Za-z0-9_-]{1,64}$`)

// Parse reads the tool script at path and returns the functions it
// declares: one, or one per @cmd of a bash script. The error names the
// file (and line) of a declaration that cannot be read.
func Parse(path string) ([]Decl, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	src, err := os.ReadFile(abs)
	if err != nil {
		return nil, fmt.Errorf("read tool: %w", err)
	}
	return ParseSource(abs, src)
}

// ParseSource is Parse of src, the text of the script at path.
func ParseSource(path string, src []byte) ([]Decl, error) {
	if line := textutil.BadLine(src); line > 0 {
		return nil, fmt.Errorf("%s:%d: not UTF-8 text, so its declarations cannot be read; save the file as UTF-8", path, line)
	}
	src = bytes.ReplaceAll(src, []byte("\r\n"), []byte("\n"))
	var (
		decls []Decl
		err   error
	)
	lang := LangOf(path)
	switch lang {
	case LangBash:
		decls, err = parseBash(path, string(src))
	case LangPython:
		decls, err = parsePython(path, string(src))
	case LangJavaScript, LangTypeScript:
		decls, err = parseJS(path, string(src))
	default:
		return nil, fmt.Errorf("%s: not a tool script (.sh, .py, .js, .mjs or .ts)", path)
	}
	if err != nil {
		return nil, err
	}
	for i := range decls {
		d := &decls[i]
		if !nameRe().MatchString(d.Name) {
			return nil, fmt.Errorf("%s: %q is not a valid function name (letters, digits, _ and -, at most 64)", path, d.Name)
		}
		d.File, d.Lang = path, lang
		if lang != LangBash && declaresNetwork(string(src)) {
			if d.Meta == nil {
				d.Meta = map[string]string{}
			}
			d.Meta["network"] = ""
		}
		if d.Interpreter == "" {
			d.Interpreter = interpreterFor(lang, string(src))
		}
		d.Parameters = schema(d.Params)
	}
	return decls, nil
}

// declaresNetwork reports whether a Python or JavaScript tool has a
// "# @meta network" (or "// @meta network") line, the one @meta tag they
// read: bash tools have all of argc's.
func declaresNetwork(src string) bool {
	for _, line := range strings.Split(src, "\n") {
		line = strings.TrimSpace(line)
		for _, lead := range []string{"#", "//"} {
			if rest, ok := strings.CutPrefix(line, lead); ok {
				if f := strings.Fields(rest); len(f) >= 2 && f[0] == "@meta" && f[1] == "network" {
					return true
				}
			}
		}
	}
	return false
}

// baseName is the function name of a single-function script.
func baseName(path string) string {
	b := filepath.Base(path)
	return strings.TrimSuffix(b, filepath.Ext(b))
}

// schema builds the JSON Schema object of params, in order.
func schema(params []Param) json.RawMessage {
	var b bytes.Buffer
	b.WriteString(`{"type":"object","properties":{`)
	var required []string
	for i, p := range params {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(mustJSON(p.Name))
		b.WriteByte(':')
		b.Write(propertySchema(p))
		if p.Required {
			required = append(required, p.Name)
		}
	}
	b.WriteByte('}')
	if len(required) > 0 {
		b.WriteString(`,"required":`)
		b.Write(mustJSON(required))
	}
	b.WriteByte('}')
	return json.RawMessage(b.Bytes())
}

func propertySchema(p Param) []byte {
	var b bytes.Buffer
	b.WriteString(`{"type":`)
	b.Write(mustJSON(p.Type))
	if p.Description != "" {
		b.WriteString(`,"description":`)
		b.Write(mustJSON(p.Description))
	}
	enum := func(typ string) {
		if len(p.Choices) == 0 {
			return
		}
		b.WriteString(`,"enum":`)
		if typ != "integer" && typ != "number" {
			b.Write(mustJSON(p.Choices))
			return
		}
		b.WriteByte('[') // numeric choices were checked to be JSON numbers
		b.WriteString(strings.Join(p.Choices, ","))
		b.WriteByte(']')
	}
	if p.Type == "array" {
		b.WriteString(`,"items":{"type":`)
		items := p.Items
		if items == "" {
			items = "string"
		}
		b.Write(mustJSON(items))
		enum(items)
		b.WriteByte('}')
	} else {
		enum(p.Type)
	}
	b.WriteByte('}')
	return b.Bytes()
}

func mustJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // only strings and string slices get here
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// checkDuplicate records a parameter name and fails on a second one.
func checkDuplicate(seen map[string]int, path string, line int, p Param) error {
	if first, ok := seen[p.Name]; ok {
		return fmt.Errorf("%s:%d: duplicate option %s (first declared on line %d)", path, line, p.flag(), first)
	}
	seen[p.Name] = line
	return nil
}

// lazyRegexp compiles expr on first use: tool scripts are parsed only by
// commands that offer tools, and compiling every pattern in package init
// would cost every run (coyote --version included) most of a millisecond.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
