package script

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// compactJSON normalises a schema written in a test for comparison.
func compactJSON(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		t.Fatalf("bad JSON in test: %v\n%s", err, s)
	}
	return b.String()
}

const briefTool = `#!/usr/bin/env bash
set -e
# @describe Read a text file and return its lines.
# @option --path! The file to read.
# @option --offset=1 The first line to return (1-based).
# @flag --numbered Prefix each line with its number.
# @env LLM_OUTPUT=/dev/stdout The file to write the result to.
main() {
    echo "result" >> "$LLM_OUTPUT"
}
eval "$(argc --argc-eval "$0" "$@")"
`

func TestParseBashTags(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		src     string
		schema  string // the Parameters of the only declaration
		desc    string
		check   func(t *testing.T, d Decl)
		wantErr string
	}{
		{
			name: "the original's tool",
			file: "fs_cat.sh",
			src:  briefTool,
			desc: "Read a text file and return its lines.",
			schema: `{"type":"object","properties":{
				"path":{"type":"string","description":"The file to read."},
				"offset":{"type":"string","description":"The first line to return (1-based)."},
				"numbered":{"type":"boolean","description":"Prefix each line with its number."}},
				"required":["path"]}`,
			check: func(t *testing.T, d Decl) {
				if d.Name != "fs_cat" || d.Command != "main" || d.Lang != LangBash || d.Interpreter != "/usr/bin/env bash" {
					t.Errorf("name %q command %q lang %q interpreter %q", d.Name, d.Command, d.Lang, d.Interpreter)
				}
				want := []EnvVar{{Name: "LLM_OUTPUT", Default: "/dev/stdout", HasDefault: true, Description: "The file to write the result to."}}
				if !reflect.DeepEqual(d.Env, want) {
					t.Errorf("env %+v", d.Env)
				}
				if p := d.Params[1]; p.Default != "1" || !p.HasDefault || p.Required {
					t.Errorf("offset %+v", p)
				}
			},
		},
		{
			name: "every modifier",
			file: "mods.sh",
			src: `# @describe Modifiers.
# @option --req! required
# @option --many* repeated
# @option --some+ required and repeated
# @option --list*, comma list
# @option --rest~ the rest
# @option --pick[a|b|c] choice
# @option --pick-def[=x|y] choice with default
# @option --loose[?u|v] unchecked choice
# @option --from-fn[` + "`_choices`" + `] choice from a function
# @option --dflt=abc default
# @option --quoted="a b" quoted default
# @option --by-fn=` + "`_default_fn`" + ` default from a function
# @option --multi-pick*[a|b] repeated choice
# @option --file <PATH> value notation
# @option --two <A> <B> two notations
# @option --bound $$ <X> bound to the environment
# @option -s --short-long short and long
# @option -c short only
# @flag -v --verbose* verbose
main() { :; }
`,
			schema: `{"type":"object","properties":{
				"req":{"type":"string","description":"required"},
				"many":{"type":"array","description":"repeated","items":{"type":"string"}},
				"some":{"type":"array","description":"required and repeated","items":{"type":"string"}},
				"list":{"type":"array","description":"comma list","items":{"type":"string"}},
				"rest":{"type":"array","description":"the rest","items":{"type":"string"}},
				"pick":{"type":"string","description":"choice","enum":["a","b","c"]},
				"pick_def":{"type":"string","description":"choice with default","enum":["x","y"]},
				"loose":{"type":"string","description":"unchecked choice"},
				"from_fn":{"type":"string","description":"choice from a function"},
				"dflt":{"type":"string","description":"default"},
				"quoted":{"type":"string","description":"quoted default"},
				"by_fn":{"type":"string","description":"default from a function"},
				"multi_pick":{"type":"array","description":"repeated choice","items":{"type":"string","enum":["a","b"]}},
				"file":{"type":"string","description":"value notation"},
				"two":{"type":"string","description":"two notations"},
				"bound":{"type":"string","description":"bound to the environment"},
				"short_long":{"type":"string","description":"short and long"},
				"c":{"type":"string","description":"short only"},
				"verbose":{"type":"boolean","description":"verbose"}},
				"required":["req","some"]}`,
			check: func(t *testing.T, d Decl) {
				by := map[string]Param{}
				for _, p := range d.Params {
					by[p.Name] = p
				}
				if p := by["pick_def"]; p.Default != "x" || !p.HasDefault || !p.CheckChoices {
					t.Errorf("pick_def %+v", p)
				}
				if p := by["loose"]; p.CheckChoices || len(p.Choices) != 0 {
					t.Errorf("loose %+v", p)
				}
				if p := by["quoted"]; p.Default != "a b" {
					t.Errorf("quoted %+v", p)
				}
				if p := by["by_fn"]; p.DefaultFn != "_default_fn" || p.HasDefault {
					t.Errorf("by_fn %+v", p)
				}
				if p := by["short_long"]; p.Short != "s" || p.Long != "short-long" {
					t.Errorf("short_long %+v", p)
				}
				if p := by["c"]; p.Short != "c" || p.Long != "" || p.flag() != "-c" {
					t.Errorf("c %+v", p)
				}
				if p := by["verbose"]; p.Kind != KindFlag || p.Short != "v" {
					t.Errorf("verbose %+v", p)
				}
			},
		},
		{
			name: "extra spaces, no descriptions, unknown tags",
			file: "spaces.sh",
			src: "#!/bin/bash -e\n" +
				"#   @describe    Spaced   out.   \n" +
				"#@option    --path!     The   file.   \n" +
				"# @option --bare\n" +
				"# @flag --quiet\n" +
				"# @version 1.2.3\n" +
				"# @arg positional\n" +
				"# @alias sp\n" +
				"#   @meta   require-tools   jq \n" +
				"main() { :; }\n",
			desc: "Spaced   out.",
			schema: `{"type":"object","properties":{
				"path":{"type":"string","description":"The   file."},
				"bare":{"type":"string"},
				"quiet":{"type":"boolean"}},"required":["path"]}`,
			check: func(t *testing.T, d Decl) {
				if d.Interpreter != "/bin/bash -e" {
					t.Errorf("interpreter %q", d.Interpreter)
				}
				if d.Meta["require-tools"] != "jq" {
					t.Errorf("meta %v", d.Meta)
				}
			},
		},
		{
			name:   "no parameters",
			file:   "now.sh",
			src:    "#!/bin/sh\n# @describe The time.\nmain() { date; }\n",
			schema: `{"type":"object","properties":{}}`,
			check: func(t *testing.T, d Decl) {
				if d.Interpreter != "/usr/bin/env bash" {
					t.Errorf("a sh shebang is not bash: interpreter %q", d.Interpreter)
				}
			},
		},
		{
			name: "a long description",
			file: "long.sh",
			src: "# @describe First line.\n#\n# More about it.\n# @option --x[=a|b] The x\n#  * a: first\n#  * b: second\n" +
				"# @arg target An ignored tag\n# with a long description.\n# @flag --y The y\n\n# A comment.\nmain() { :; }\n",
			desc: "First line.\n\nMore about it.",
			schema: `{"type":"object","properties":{
				"x":{"type":"string","description":"The x\n* a: first\n* b: second","enum":["a","b"]},
				"y":{"type":"boolean","description":"The y"}}}`,
		},
		{
			name: "env and meta",
			file: "envs.sh",
			src: `# @describe Env.
# @env API_TOKEN! The token.
# @env BASE_URL=https://example.com The base URL.
# @env MODE[=fast|slow] The mode.
# @env PLAIN
# @meta require-tools jq
# @meta require-tools curl,git
# @meta version 1.0
main() { :; }
`,
			schema: `{"type":"object","properties":{}}`,
			check: func(t *testing.T, d Decl) {
				want := []EnvVar{
					{Name: "API_TOKEN", Required: true, Description: "The token."},
					{Name: "BASE_URL", Default: "https://example.com", HasDefault: true, Description: "The base URL."},
					{Name: "MODE", Default: "fast", HasDefault: true, Choices: []string{"fast", "slow"}, Description: "The mode."},
					{Name: "PLAIN"},
				}
				if !reflect.DeepEqual(d.Env, want) {
					t.Errorf("env\n got %+v\nwant %+v", d.Env, want)
				}
				if !reflect.DeepEqual(d.Meta, map[string]string{"require-tools": "jq curl,git", "version": "1.0"}) {
					t.Errorf("meta %v", d.Meta)
				}
				if got := requiredTools(d); !reflect.DeepEqual(got, []string{"jq", "curl", "git"}) {
					t.Errorf("required tools %v", got)
				}
			},
		},
		{
			name:    "no @describe",
			file:    "nodesc.sh",
			src:     "# @option --x\nmain() { :; }\n",
			wantErr: "nodesc.sh: no @describe",
		},
		{
			name:    "duplicate option",
			file:    "dup.sh",
			src:     "# @describe Dup.\n# @option --path\n# @flag --other\n# @option --path! again\nmain() { :; }\n",
			wantErr: "dup.sh:4: duplicate option --path (first declared on line 2)",
		},
		{
			name:    "duplicate through dashes and underscores",
			file:    "dup2.sh",
			src:     "# @describe Dup.\n# @option --a-b\n# @flag --a_b\nmain() { :; }\n",
			wantErr: "dup2.sh:3: duplicate option --a_b",
		},
		{
			name:    "an option without a name",
			file:    "noname.sh",
			src:     "# @describe Bad.\n# @option The path\nmain() { :; }\n",
			wantErr: "noname.sh:2: @option: no option name",
		},
		{
			name:    "an unclosed choice",
			file:    "unclosed.sh",
			src:     "# @describe Bad.\n# @option --x[a|b The x\nmain() { :; }\n",
			wantErr: "unclosed.sh:2: @option: unclosed [",
		},
		{
			name:    "a file name models refuse",
			file:    "my tool.sh",
			src:     "# @describe Bad name.\nmain() { :; }\n",
			wantErr: `"my tool" is not a valid function name`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			decls, err := ParseSource("/cfg/functions/tools/"+tt.file, []byte(tt.src))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(decls) != 1 {
				t.Fatalf("%d declarations", len(decls))
			}
			d := decls[0]
			if d.File != "/cfg/functions/tools/"+tt.file {
				t.Errorf("file %q", d.File)
			}
			if tt.desc != "" && d.Description != tt.desc {
				t.Errorf("description %q, want %q", d.Description, tt.desc)
			}
			if tt.schema != "" && string(d.Parameters) != compactJSON(t, tt.schema) {
				t.Errorf("schema\n got %s\nwant %s", d.Parameters, compactJSON(t, tt.schema))
			}
			if !json.Valid(d.Parameters) {
				t.Errorf("invalid schema JSON %s", d.Parameters)
			}
			if tt.check != nil {
				tt.check(t, d)
			}
		})
	}
}

func TestParseBashCommandsDeclareOneFunctionEach(t *testing.T) {
	src := `#!/usr/bin/env bash
set -e
# @env LLM_OUTPUT=/dev/stdout The output.
# @meta require-tools jq

# @cmd Add a todo.
# @option --desc! The description.
add_todo() {
    echo "added $argc_desc" >> "$LLM_OUTPUT"
}

# @cmd Delete a todo.
#
# Gone for good.
# @option --id! <NUM> The id.
# @flag --force Even when open.
# @env TODO_DB The database.
function del_todo {
    :
}

# @cmd List the todos.
list-todos () {
    :
}
eval "$(argc --argc-eval "$0" "$@")"
`
	decls, err := ParseSource("/a/agents/todo/tools.sh", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		Name, Command, Desc, Schema string
		Env                         []string
	}
	var gots []got
	for _, d := range decls {
		var env []string
		for _, e := range d.Env {
			env = append(env, e.Name)
		}
		if d.Meta["require-tools"] != "jq" {
			t.Errorf("%s: meta %v", d.Name, d.Meta)
		}
		gots = append(gots, got{d.Name, d.Command, d.Description, string(d.Parameters), env})
	}
	want := []got{
		{"add_todo", "add_todo", "Add a todo.",
			`{"type":"object","properties":{"desc":{"type":"string","description":"The description."}},"required":["desc"]}`,
			[]string{"LLM_OUTPUT"}},
		{"del_todo", "del_todo", "Delete a todo.\n\nGone for good.",
			`{"type":"object","properties":{"id":{"type":"string","description":"The id."},"force":{"type":"boolean","description":"Even when open."}},"required":["id"]}`,
			[]string{"LLM_OUTPUT", "TODO_DB"}},
		{"list-todos", "list-todos", "List the todos.", `{"type":"object","properties":{}}`, []string{"LLM_OUTPUT"}},
	}
	if !reflect.DeepEqual(gots, want) {
		t.Errorf("declarations\n got %+v\nwant %+v", gots, want)
	}
}

func TestParseBashCommandErrors(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"no function after @cmd", "# @cmd Lost.\n# @option --x\n", "t.sh:1: @cmd is not followed by a function"},
		{"@cmd after @cmd", "# @cmd One.\n# @cmd Two.\ntwo() { :; }\n", "t.sh:1: @cmd is not followed by a function before the next @cmd on line 2"},
		{"duplicate in a command", "# @cmd One.\n# @option --x\n# @option --x\none() { :; }\n", "t.sh:3: duplicate option --x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseSource("/f/t.sh", []byte(tt.src))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
}

func TestParseRejectsOtherFiles(t *testing.T) {
	if _, err := ParseSource("/f/tool.rb", []byte("")); err == nil || !strings.Contains(err.Error(), "not a tool script") {
		t.Fatalf("error %v", err)
	}
}

// demoSchema is the schema of the original's demo tool, which the Python
// and the JavaScript versions both declare.
const demoSchema = `{"type":"object","properties":{
	"string":{"type":"string","description":"A required string"},
	"string_enum":{"type":"string","description":"A required enum","enum":["foo","bar"]},
	"boolean":{"type":"boolean","description":"A required boolean"},
	"integer":{"type":"integer","description":"A required integer"},
	"number":{"type":"number","description":"A required number"},
	"array":{"type":"array","description":"A required array","items":{"type":"string"}},
	"string_optional":{"type":"string","description":"An optional string that goes on."},
	"array_optional":{"type":"array","description":"An optional array","items":{"type":"string"}}},
	"required":["string","string_enum","boolean","integer","number","array"]}`

func TestParsePython(t *testing.T) {
	tests := []struct {
		name, src, desc, schema, wantErr string
	}{
		{
			name: "the original's demo",
			src: `from typing import List, Literal, Optional


def run(
    string: str,
    string_enum: Literal["foo", "bar"],
    boolean: bool,
    integer: int,
    number: float,
    array: List[str],
    string_optional: Optional[str] = None,
    array_optional: Optional[List[str]] = None,
) -> str:
    """Demonstrates a Python tool.
    Args:
        string: A required string
        string_enum: A required enum
        boolean: A required boolean
        integer: A required integer
        number: A required number
        array: A required array
        string_optional: An optional string
            that goes on.
        array_optional: An optional array
    """
    return "ok"
`,
			desc:   "Demonstrates a Python tool.",
			schema: demoSchema,
		},
		{
			name: "modern hints, defaults, typed docstring entries, sections",
			src: `import os

def helper(x):
    pass

async def run(path: str, tags: list[str] | None = None, level: "int" = 2, mode: Literal[1, 2] = 1, extra: dict = {}, *, flag: bool = False, **kwargs) -> dict[str, str]:
    '''Read a file.

    Longer text.

    Args:
        path (str): Where it is.
        tags (list[str], optional): Labels.

    Returns:
        The content.
    '''
`,
			desc: "Read a file.\n\nLonger text.",
			schema: `{"type":"object","properties":{
				"path":{"type":"string","description":"Where it is."},
				"tags":{"type":"array","description":"Labels.","items":{"type":"string"}},
				"level":{"type":"integer"},
				"mode":{"type":"integer","enum":[1,2]},
				"extra":{"type":"object"},
				"flag":{"type":"boolean"}},"required":["path"]}`,
		},
		{
			name:   "no parameters, one-line docstring",
			src:    "def run():\n    \"Say hi.\"\n    return 'hi'\n",
			desc:   "Say hi.",
			schema: `{"type":"object","properties":{}}`,
		},
		{name: "no run", src: "def main():\n    '''x'''\n", wantErr: "no top-level def run"},
		{name: "run in a class is not top-level", src: "class A:\n    def run(self):\n        '''x'''\n", wantErr: "no top-level def run"},
		{name: "no docstring", src: "def run(a: str):\n    return a\n", wantErr: "run has no docstring"},
		{name: "unbalanced", src: "def run(a: list[str):\n    '''x'''\n", wantErr: "unbalanced"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			decls, err := ParseSource("/f/tools/demo_py.py", []byte(tt.src))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			d := decls[0]
			if d.Name != "demo_py" || d.Command != "run" || d.Lang != LangPython || d.Interpreter != "python3" {
				t.Errorf("name %q command %q lang %q interpreter %q", d.Name, d.Command, d.Lang, d.Interpreter)
			}
			if d.Description != tt.desc {
				t.Errorf("description %q, want %q", d.Description, tt.desc)
			}
			if string(d.Parameters) != compactJSON(t, tt.schema) {
				t.Errorf("schema\n got %s\nwant %s", d.Parameters, compactJSON(t, tt.schema))
			}
		})
	}
}

func TestPythonShebangPicksTheInterpreter(t *testing.T) {
	for shebang, want := range map[string]string{
		"#!/usr/bin/env python3.12\n": "python3.12",
		"#!/opt/venv/bin/python\n":    "/opt/venv/bin/python",
		"#!/usr/bin/env bash\n":       "python3",
		"":                            "python3",
	} {
		d, err := ParseSource("/f/x.py", []byte(shebang+"def run():\n    '''X.'''\n"))
		if err != nil {
			t.Fatal(err)
		}
		if d[0].Interpreter != want {
			t.Errorf("%q: interpreter %q, want %q", shebang, d[0].Interpreter, want)
		}
	}
}

func TestParseJavaScript(t *testing.T) {
	tests := []struct {
		name, file, src, desc, schema, wantErr string
	}{
		{
			name: "the original's typedef and properties",
			file: "demo_js.js",
			src: `/**
 * Demonstrates a JavaScript tool.
 * @typedef {Object} Args
 * @property {string} string - A required string
 * @property {'foo'|'bar'} string_enum - A required enum
 * @property {boolean} boolean - A required boolean
 * @property {Integer} integer - A required integer
 * @property {number} number - A required number
 * @property {string[]} array - A required array
 * @property {string} [string_optional] - An optional string
 *   that goes on.
 * @property {string[]} [array_optional] - An optional array
 * @param {Args} args
 */
exports.run = function (args) {
  return args;
};
`,
			desc:   "Demonstrates a JavaScript tool.",
			schema: demoSchema,
		},
		{
			name: "params of an ES module, optional forms",
			file: "fetch.mjs",
			src: `import fs from "fs";

/** Not this one. */
const x = 1;

/**
 * Fetch a page.
 *
 * Returns markdown.
 * @param {string} url - The URL.
 * @param {number=} timeout - Seconds.
 * @param {string} [format=markdown] The format.
 * @param {?boolean} raw Raw HTML.
 * @param {Array<string>} headers Extra headers.
 * @returns {Promise<string>}
 */
export async function run({ url, timeout, format, raw, headers }) {
  return url;
}
`,
			desc: "Fetch a page.\n\nReturns markdown.",
			schema: `{"type":"object","properties":{
				"url":{"type":"string","description":"The URL."},
				"timeout":{"type":"number","description":"Seconds."},
				"format":{"type":"string","description":"The format."},
				"raw":{"type":"boolean","description":"Raw HTML."},
				"headers":{"type":"array","description":"Extra headers.","items":{"type":"string"}}},
				"required":["url","headers"]}`,
		},
		{
			name: "dotted params of a TypeScript tool",
			file: "ts_tool.ts",
			src: `/**
 * Count words.
 * @param {object} args
 * @param {string} args.text - The text.
 * @param {("words"|"chars")[]} [args.units] - What to count.
 */
export function run(args: { text: string; units?: string[] }): number {
  return 0;
}
`,
			desc: "Count words.",
			schema: `{"type":"object","properties":{
				"text":{"type":"string","description":"The text."},
				"units":{"type":"array","description":"What to count.","items":{"type":"string","enum":["words","chars"]}}},
				"required":["text"]}`,
		},
		{
			name: "a plain function exported later, no parameters",
			file: "now.js",
			src:  "/**\n * The time.\n */\nfunction run() {\n  return new Date().toISOString();\n}\nmodule.exports = { run };\n",
			desc: "The time.", schema: `{"type":"object","properties":{}}`,
		},
		{name: "no run", file: "a.js", src: "/** X. */\nexports.main = () => 1;\n", wantErr: "no run function"},
		{name: "not exported", file: "b.js", src: "/** X. */\nfunction run() {}\n", wantErr: "run is not exported"},
		{name: "no JSDoc", file: "c.js", src: "// X.\nexports.run = () => 1;\n", wantErr: "no JSDoc comment"},
		{name: "a JSDoc with no description", file: "d.js", src: "/**\n * @param {string} a\n */\nexports.run = () => 1;\n", wantErr: "has no description"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			decls, err := ParseSource("/f/tools/"+tt.file, []byte(tt.src))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			d := decls[0]
			if d.Command != "run" || d.Name != baseName(tt.file) {
				t.Errorf("name %q command %q", d.Name, d.Command)
			}
			if d.Description != tt.desc {
				t.Errorf("description %q, want %q", d.Description, tt.desc)
			}
			if string(d.Parameters) != compactJSON(t, tt.schema) {
				t.Errorf("schema\n got %s\nwant %s", d.Parameters, compactJSON(t, tt.schema))
			}
		})
	}
}
