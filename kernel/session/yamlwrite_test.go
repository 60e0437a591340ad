package session

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// trickyStrings are strings that a careless writer gets wrong.
var trickyStrings = []string{
	"", " ", "  ", "plain", "two words", "trailing ", " leading", "\ttab", "tab\t", "a\tb",
	"true", "True", "TRUE", "false", "yes", "no", "on", "off", "y", "n", "Y", "N", "null", "Null", "~",
	"0", "42", "-1", "+1", "3.14", ".5", "-.5", "1e10", "1_000", "0x1F", "0o17", "0b101", "012", "1:30",
	".inf", "-.inf", "+.inf", ".nan", ".NaN", ".Inf", "2024-01-02", "2024-01-02T10:00:00Z",
	"-", "--", "---", "...", "- item", "-item", "?", "? x", ":", "key:", "key: value", "a:b", "a :b",
	"#", "# comment", "a #b", "a#b", "C#", "&anchor", "*alias", "!tag", "!!str", "|", ">", "|-", "%",
	"@at", "`tick`", "'single'", "it's", `"double"`, `say "hi"`, "[x]", "{x}", "[", "]", "{", "}", ",", "a, b",
	"<<", "=", "back\\slash", `C:\path`, "\\n",
	"line\n", "line", "two\nlines", "two\nlines\n", "two\nlines\n\n", "\nleading break", "\n\nleading breaks",
	" indented\nnext", "\tindented\nnext", "  indented\n    more\n", "trailing space \nnext", "next\ntrailing space ", "tab\t\nnext",
	"\n", "\n\n", "a\n\n\nb", "---\n...\n", "- a\n- b", "key: v\nk2: v2", "# not a comment\nx",
	"crlf\r\nline", "cr\ronly", "nul\x00byte", "bell\x07", "del\x7f", "esc\x1b[0m",
	"nel\u0085x", "ls\u2028x", "ps\u2029x", "bom\ufeffx", "\ufeffbom", "nbsp\u00a0x", "c1\u0080x",
	"émoji 🙂", "日本語", "mixed é\nline 🙂\n", "invalid \xff utf8", "\xc3", "surrogate?\xed\xa0\x80",
	strings.Repeat("long ", 300), strings.Repeat("x", 2000), strings.Repeat("line\n", 100),
}

// TestStringsReadBackUnchanged writes each tricky string in each place a
// session file puts strings and reads it back with yaml.v3.
func TestStringsReadBackUnchanged(t *testing.T) {
	for _, s := range trickyStrings {
		checkStringReadsBack(t, s)
	}
}

func FuzzStringsReadBackUnchanged(f *testing.F) {
	for _, s := range trickyStrings {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkStringReadsBack(t, s)
	})
}

// stringPlaces writes s in each place a session file puts strings: as a
// top-level value, a list item, a value in a list item's mapping and a
// value deep in tool results. It ends with the key of a mapping ("keys:")
// whose entries the caller writes.
func stringPlaces(s string) *writer {
	w := &writer{}
	w.key(0, "top")
	w.str(0, s)
	w.key(0, "list")
	w.b = append(w.b, '\n')
	w.b = append(w.b, '-')
	w.str(0, s)
	w.key(0, "items")
	w.b = append(w.b, '\n')
	w.b = append(w.b, "- role:"...)
	w.str(2, s)
	w.b = append(w.b, "  deep:\n"...)
	w.key(4, "results")
	w.b = append(w.b, '\n')
	w.indent(4)
	w.b = append(w.b, "- call:\n"...)
	w.key(8, "name")
	w.str(8, s)
	w.key(0, "keys")
	w.b = append(w.b, '\n')
	return w
}

func checkStringReadsBack(t *testing.T, s string) {
	t.Helper()
	want := strings.ToValidUTF8(s, "\uFFFD")
	w := stringPlaces(s)
	// And as a key.
	if !strings.ContainsRune(want, '\uFFFD') || want == s {
		w.key(2, want)
		w.str(2, "v")
	}
	var got struct {
		Top   string
		List  []string
		Items []struct {
			Role string
			Deep struct {
				Results []struct{ Call struct{ Name string } }
			}
		}
		Keys map[string]string
	}
	if err := yaml.Unmarshal(w.b, &got); err != nil {
		t.Fatalf("%q: the YAML does not parse: %v\n%s", s, err, w.b)
	}
	if got.Top != want || len(got.List) != 1 || got.List[0] != want || len(got.Items) != 1 ||
		got.Items[0].Role != want || got.Items[0].Deep.Results[0].Call.Name != want {
		t.Fatalf("%q read back as %+v\n%s", s, got, w.b)
	}
	if _, ok := got.Keys[want]; !ok && len(got.Keys) > 0 {
		t.Fatalf("key %q read back as %v\n%s", s, got.Keys, w.b)
	}
}

// TestStringStyles pins the style each kind of string gets, the same
// choice as the original's writer makes for the common cases.
func TestStringStyles(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"hello world", " hello world\n"},
		{"", " ''\n"},
		{"true", " 'true'\n"},
		{"42", " '42'\n"},
		{"key: value", " 'key: value'\n"},
		{"it's", " it's\n"},
		{"'quoted'", " '''quoted'''\n"},
		{" lead", " ' lead'\n"},
		{"a\nb", " |-\n  a\n  b\n"},
		{"a\nb\n", " |\n  a\n  b\n"},
		{"a\nb\n\n", " |+\n  a\n  b\n\n"},
		{" a\nb", " |2-\n   a\n  b\n"},
		{"\ta\nb", " |2-\n  \ta\n  b\n"},
		{"a\n\nb", " |-\n  a\n\n  b\n"},
		{"a \nb", ` "a \nb"` + "\n"},
		{"tab\x01", ` "tab\x01"` + "\n"},
		{"crlf\r\n", ` "crlf\r\n"` + "\n"},
		{"bom\ufeff", ` "bom\uFEFF"` + "\n"},
		{"ls\u2028", ` "ls\L"` + "\n"},
		{"bad\xff", " bad\uFFFD\n"},
		{"... more", " '... more'\n"},
	} {
		w := &writer{}
		w.str(0, tc.in)
		if string(w.b) != tc.want {
			t.Errorf("%q written as %q, want %q", tc.in, w.b, tc.want)
		}
	}
}

// TestJSONValuesReadBack: a tool output or arguments text that is JSON is
// stored as a YAML structure and reads back as the same JSON (compact);
// any other text reads back exactly.
func TestJSONValuesReadBack(t *testing.T) {
	for _, tc := range []struct {
		text, want string
		structured bool
	}{
		{text: `{"a":1,"b":[true,false,null],"c":{"d":"e"}}`, structured: true},
		{text: `{"z":1,"a":2}`, structured: true}, // key order kept
		{text: "{\n  \"a\": 1\n}", want: `{"a":1}`, structured: true},
		{text: `[1, 2.50, -3e5, 1E+2]`, want: `[1,2.50,-3e5,1E+2]`, structured: true},
		{text: `{"s":"true","n":"42","e":"","q":"say \"hi\"\n","u":"é\u0001"}`, want: "{\"s\":\"true\",\"n\":\"42\",\"e\":\"\",\"q\":\"say \\\"hi\\\"\\n\",\"u\":\"é\\u0001\"}", structured: true},
		{text: `{"html":"<a&b>"}`, structured: true},
		{text: `{}`, structured: true},
		{text: `[]`, structured: true},
		{text: `[[],{}]`, structured: true},
		{text: `{"":1," k ":2,"a: b":3,"-":4}`, structured: true},
		{text: `42`, structured: true},
		{text: `-0.5`, structured: true},
		{text: `true`, structured: true},
		{text: `null`, structured: true},
		{text: `12345678901234567890123`, structured: true},
		{text: ` 42`},
		{text: `42 `},
		{text: `"a JSON string"`},
		{text: `plain text`},
		{text: ``},
		{text: `{"a":1,"a":2}`}, // YAML forbids repeated keys
		{text: `{"broken":`},
		{text: `NaN`},
		{text: "multi\nline\n"},
	} {
		want := tc.want
		if want == "" {
			want = tc.text
		}
		n := textValue(tc.text)
		if got := n.ShortTag() != "!!str"; got != tc.structured {
			t.Errorf("%q: structured %v, want %v", tc.text, got, tc.structured)
		}
		w := &writer{}
		w.key(0, "output")
		w.valueAfterKey(0, n)
		var doc yaml.Node
		if err := yaml.Unmarshal(w.b, &doc); err != nil {
			t.Fatalf("%q: %v\n%s", tc.text, err, w.b)
		}
		if got := valueText(doc.Content[0].Content[1]); got != want {
			t.Errorf("%q read back as %q, want %q\n%s", tc.text, got, want, w.b)
		}
	}
}

// TestYAMLValuesBecomeJSON: an output written in YAML's other notations
// (by hand, or by another writer) reaches the model as JSON.
func TestYAMLValuesBecomeJSON(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"0x1F", "31"},
		{"0o17", "15"},
		{"1_000", "1000"},
		{"+7", "7"},
		{".5", "0.5"},
		{"1.0", "1.0"},
		{"-2e3", "-2e3"},
		{".inf", `".inf"`},
		{"True", "true"},
		{"~", "null"},
		{"", "null"},
		{"'quoted 42'", "quoted 42"},
		{"2025-01-02", "2025-01-02"},
		{"[a, 'b', {c: 1}]", `["a","b",{"c":1}]`},
		{"{x: \"tab\\there\"}", `{"x":"tab\there"}`},
		{"{\"<&>\": \"\\u00e9\\u2028\"}", "{\"<&>\":\"é\u2028\"}"},
	} {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte("output: "+tc.yaml+"\n"), &doc); err != nil {
			t.Fatalf("%s: %v", tc.yaml, err)
		}
		if got := valueText(doc.Content[0].Content[1]); got != tc.want {
			t.Errorf("output: %s reads as %q, want %q", tc.yaml, got, tc.want)
		}
	}
}
