package render

import (
	"strings"
	"testing"
)

var roleNames = map[role]string{
	rKeyword: "kw", rOperator: "op", rTag: "tag", rType: "type", rBuiltin: "bi", rNumber: "num",
	rEscape: "esc", rString: "str", rComment: "cmt", rFunction: "fn", rAttr: "attr", rVariable: "var",
	rMeta: "meta", rInserted: "ins", rDeleted: "del",
}

// describe highlights lines in lang, carrying the state from line to
// line, and writes each coloured token as [role text].
func describe(t *testing.T, lang string, lines ...string) []string {
	t.Helper()
	l := lookupLang(lang)
	if l == nil {
		t.Fatalf("language %q unknown", lang)
	}
	var h highlighter
	st := 0
	var out []string
	for _, line := range lines {
		var b strings.Builder
		for _, sp := range h.line(nil, l, line, &st) {
			if sp.st.fg == rCode {
				b.WriteString(sp.text)
				continue
			}
			b.WriteString("[" + roleNames[sp.st.fg] + " " + sp.text + "]")
		}
		out = append(out, b.String())
	}
	return out
}

func TestHighlightColoursEveryLanguage(t *testing.T) {
	tests := []struct {
		lang  string
		lines []string
		want  []string
	}{
		{"go", []string{"func main() { x := 0x1F // hi", `	s := "a\tb" + 'c'`},
			[]string{"[kw func] [fn main]() { x [op :=] [num 0x1F] [cmt // hi]", `	s [op :=] [str "a][esc \t][str b"] [op +] [str 'c']`}},
		{"golang", []string{"var s = `raw", "still raw` /* c", "*/ type T struct{}"},
			[]string{"[kw var] s [op =] [str `raw]", "[str still raw`] [cmt /* c]", "[cmt */] [kw type] [type T] [kw struct]{}"}},
		{"python", []string{"@cache", "def f(self, n=None):", `    return rb"x" if n else """doc`, `end"""  # done`},
			[]string{"[meta @cache]", "[kw def] [fn f]([var self], n[op =][bi None])[op :]", `    [kw return] [str rb"x"] [kw if] n [kw else] [str """doc]`, `[str end"""]  [cmt # done]`}},
		{"js", []string{"const a = `x ${y}", "z`; fetch(u)"},
			[]string{"[kw const] a [op =] [str `x ${y}]", "[str z`]; [bi fetch](u)"}},
		{"tsx", []string{"let n: number = 1_000;"},
			[]string{"[kw let] n[op :] [type number] [op =] [num 1_000];"}},
		{"rust", []string{"#[derive(Debug)]", "fn f<'a>(s: &'a str) -> char { println!(\"{}\", s); 'x' }"},
			[]string{"[meta #[derive(Debug)]]", "[kw fn] [fn f][op <][kw 'a][op >](s[op :] [op &][kw 'a] [type str]) [op ->] [type char] { [fn println!]([str \"{}\"], s); [str 'x'] }"}},
		{"c", []string{"#include <stdio.h>", "int main(void) { return NULL; }"},
			[]string{"[meta #include][str  <stdio.h>]", "[type int] [fn main]([type void]) { [kw return] [bi NULL]; }"}},
		{"cpp", []string{`auto s = R"(a\b)"; // x`},
			[]string{`[kw auto] s [op =] [str R"(a\b)"]; [cmt // x]`}},
		{"java", []string{"@Override public String f() { return null; }"},
			[]string{"[meta @Override] [kw public] [type String] [fn f]() { [kw return] [bi null]; }"}},
		{"kotlin", []string{"fun main() = println(\"hi\")"},
			[]string{"[kw fun] [fn main]() [op =] [bi println]([str \"hi\"])"}},
		{"c#", []string{`var p = @"C:\dir"; Console.WriteLine(p);`},
			[]string{`[kw var] p [op =] [str @"C:\dir"]; [type Console].[fn WriteLine](p);`}},
		{"ruby", []string{"def bark; @n += 1; :done end # x"},
			[]string{"[kw def] [fn bark]; [var @n] [op +=] [num 1]; [bi :done] [kw end] [cmt # x]"}},
		{"php", []string{"<?php echo $name; // hi"},
			[]string{"[meta <?php] [kw echo] [var $name]; [cmt // hi]"}},
		{"bash", []string{`if [ -f "$f" ]; then echo ${#a} $1; fi # c`, "echo a#b"},
			[]string{`[kw if] [ [var -f] [str "$f"] ][op ;] [kw then] [bi echo] [var ${#a}] [var $1][op ;] [kw fi] [cmt # c]`, "[bi echo] a#b"}},
		{"zsh", []string{"echo 'multi", "line'"},
			[]string{"[bi echo] [str 'multi]", "[str line']"}},
		{"powershell", []string{"<# c", "#> Get-Item -Path $HOME -eq $TRUE"},
			[]string{"[cmt <# c]", "[cmt #>] [fn Get-Item] [var -Path] [var $HOME] [op -eq] [bi $TRUE]"}},
		{"sql", []string{"select count(*) from t where s = 'it''s' -- c"},
			[]string{"[kw select] [bi count]([op *]) [kw from] t [kw where] s [op =] [str 'it''s'] [cmt -- c]"}},
		{"json", []string{`{"k": "v", "n": -1.5e3, "b": true}`},
			[]string{`{[tag "k"]: [str "v"], [tag "n"]: [num -1.5e3], [tag "b"]: [bi true]}`}},
		{"yaml", []string{"- name: x # c", "  run: |", "    echo hi", "  ok: true"},
			[]string{"[op -] [tag name][op :] x [cmt # c]", "  [tag run][op :] [op |]", "[str     echo hi]", "  [tag ok][op :] [bi true]"}},
		{"toml", []string{"[server]", `port = 8080 # c`, `s = """`, `x"""`},
			[]string{"[type [server]]", `[tag port] [op =] [num 8080] [cmt # c]`, `[tag s] [op =] [str """]`, `[str x"""]`}},
		{"html", []string{`<a href="x">hi &amp; <!-- c`, `--></a>`},
			[]string{`<[tag a] [attr href][op =][str "x"]>hi [bi &amp;] [cmt <!-- c]`, `[cmt -->]</[tag a]>`}},
		{"xml", []string{`<?xml version="1.0"?><r/>`},
			[]string{`[meta <?xml version="1.0"?>]<[tag r]/>`}},
		{"css", []string{".a:hover { color: #fff; margin: 1.5em; }"},
			[]string{"[fn .a][attr :hover] { [type color]: [num #fff]; [type margin]: [num 1.5][kw em]; }"}},
		{"markdown", []string{"# Title", "- item `code`"},
			[]string{"[kw # Title]", "[op - ]item [str `code`]"}},
		{"dockerfile", []string{"FROM go:1 AS build", "RUN make \\", "  && echo $X"},
			[]string{"[kw FROM] go:[num 1] [kw AS] [type build]", "[kw RUN] make \\", "  [op &&] [bi echo] [var $X]"}},
		{"lua", []string{"local function f() --[[ c ]] return nil end"},
			[]string{"[kw local] [kw function] [fn f]() [cmt --[[ c ]]] [kw return] [bi nil] [kw end]"}},
		{"swift", []string{`@State var s = "a\(b)"`},
			[]string{`[meta @State] [kw var] s [op =] [str "a][esc \(][str b)"]`}},
		{"make", []string{"CC := gcc", "all: $(OBJ)", "\t$(CC) -o $@ $^", "X = $(wildcard *.c)"},
			[]string{"[var CC] [op :=] gcc", "[fn all][op :] [var $(OBJ)]", "\t[var $(CC)] [var -o] [var $@] [var $^]", "[var X] [op =] [var $(][bi wildcard] *.c[var )]"}},
		{"diff", []string{"@@ -1 +1 @@", "-a", "+b"},
			[]string{"[type @@ -1 +1 @@]", "[del -a]", "[ins +b]"}},
	}
	for _, tc := range tests {
		t.Run(tc.lang, func(t *testing.T) {
			got := describe(t, tc.lang, tc.lines...)
			for i := range tc.want {
				if got[i] != tc.want[i] {
					t.Errorf("line %d:\n got  %s\n want %s", i+1, got[i], tc.want[i])
				}
			}
		})
	}
}

func TestUnknownLanguageIsPlainCode(t *testing.T) {
	if l := lookupLang("brainfuck"); l != nil {
		t.Fatalf("unknown language resolved to %+v", l)
	}
	var h highlighter
	st := 0
	got := h.line(nil, nil, "if x then y", &st)
	if len(got) != 1 || got[0].st.fg != rCode || got[0].text != "if x then y" {
		t.Fatalf("got %+v", got)
	}
}

func TestFenceInfoNamesTheLanguage(t *testing.T) {
	tests := map[string]string{
		"python":             "python",
		"Python title=\"x\"": "python",
		"{.rust}":            "rust",
		"language-go":        "go",
		"js,linenos":         "js",
		"":                   "",
	}
	for info, want := range tests {
		if got := infoLang(info); got != want {
			t.Errorf("infoLang(%q) = %q, want %q", info, got, want)
		}
	}
}

// TestHighlighterSurvivesAnyLine lexes awkward lines in every language:
// nothing may panic, and the spans must cover the line exactly.
func TestHighlighterSurvivesAnyLine(t *testing.T) {
	lines := []string{
		"", " ", "\"", "'", "`", "/*", "*/", "#", "$", "${", "$(", "@", "<", "</", "<!--", "&", "0x", "1e", "1e+",
		"'a", "r#\"", "\\", "key:", "- ", "[", "[[", "--[[", "<#", "=begin", "| a |", "日本語 \"文字\"", "\xff\xfe",
		"a = \"unterminated", "x: |", "@@", "#[", "'\\", ":", "-", ".5", "$$", "$(a", "FROM", "ifeq",
	}
	for _, name := range []string{"go", "python", "js", "ts", "rust", "c", "cpp", "java", "kotlin", "cs", "ruby", "php", "sh",
		"ps1", "sql", "json", "yaml", "toml", "html", "css", "md", "dockerfile", "lua", "swift", "make", "diff"} {
		l := lookupLang(name)
		var h highlighter
		st := 0
		for _, line := range lines {
			var b strings.Builder
			for _, sp := range h.line(nil, l, line, &st) {
				b.WriteString(sp.text)
			}
			if b.String() != line {
				t.Errorf("%s: spans of %q join to %q", name, line, b.String())
			}
		}
	}
}
