package session

import (
	"bytes"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/coyote-cli/coyote/kernel/yamlerr"
)

// The fast reader (fastyaml.go) must build exactly yaml.v3's tree for any
// input it takes, and must decline what it cannot read.

// checkFastParse compares fastParse with yaml.v3 on data and reports
// whether fastParse took it.
func checkFastParse(t *testing.T, data []byte) bool {
	t.Helper()
	got, ok := fastParse(data)
	if !ok {
		return false
	}
	var want yaml.Node
	if err := yamlerr.Unmarshal(data, &want); err != nil {
		t.Fatalf("the fast reader takes what yaml.v3 refuses (%v):\n%q", err, data)
	}
	if d := nodeDiff(got, &want, "document"); d != "" {
		t.Fatalf("the fast reader's tree differs from yaml.v3's at %s\n%q", d, data)
	}
	return true
}

// nodeDiff describes the first difference between two trees, or is "".
// Every field counts.
func nodeDiff(got, want *yaml.Node, path string) string {
	g, w := *got, *want
	g.Content, w.Content = nil, nil
	if !reflect.DeepEqual(g, w) || (got.Content == nil) != (want.Content == nil) {
		return fmt.Sprintf("%s:\nfast:    %+v\nyaml.v3: %+v", path, g, w)
	}
	if len(got.Content) != len(want.Content) {
		return fmt.Sprintf("%s: %d children, yaml.v3 %d", path, len(got.Content), len(want.Content))
	}
	for i := range got.Content {
		if d := nodeDiff(got.Content[i], want.Content[i], fmt.Sprintf("%s/%d", path, i)); d != "" {
			return d
		}
	}
	return ""
}

// TestFastParseTestdata runs every file under testdata through both
// readers, the inputs in fuzz corpus files included. The files in this
// package's own form must be taken.
func TestFastParseTestdata(t *testing.T) {
	ours := map[string]bool{"every-form.yaml": true, "minimal.yaml": true, "original-style.golden.yaml": true}
	n := 0
	err := filepath.WalkDir("testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, in := range corpusInputs(t, data) {
			n++
			if !checkFastParse(t, in) && ours[d.Name()] {
				t.Errorf("%s: the fast reader declines a file in this package's form", path)
			}
		}
		return nil
	})
	if err != nil || n == 0 {
		t.Fatalf("reading testdata: %v (%d inputs)", err, n)
	}
}

// corpusInputs returns the values of a fuzz corpus file ("go test fuzz
// v1"), or the file itself.
func corpusInputs(t *testing.T, data []byte) [][]byte {
	rest, ok := bytes.CutPrefix(data, []byte("go test fuzz v1\n"))
	if !ok {
		return [][]byte{data}
	}
	var out [][]byte
	for line := range strings.SplitSeq(strings.TrimSpace(string(rest)), "\n") {
		_, lit, ok := strings.Cut(line, "(")
		if !ok || !strings.HasSuffix(lit, ")") {
			t.Fatalf("unexpected corpus line %q", line)
		}
		s, err := strconv.Unquote(strings.TrimSuffix(lit, ")"))
		if err != nil {
			t.Fatalf("corpus line %q: %v", line, err)
		}
		out = append(out, []byte(s))
	}
	return out
}

// TestFastParseWriterOutput writes random sessions, every form the writer
// has, and reads them with both readers. The fast reader must take all of
// them but those with what it leaves to yaml.v3 on purpose.
func TestFastParseWriterOutput(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	declined := 0
	for i := range 1000 {
		g := &fileGen{r: r, easy: i%2 == 0}
		data := encode(g.file())
		if !checkFastParse(t, data) {
			declined++
			if g.easy {
				t.Fatalf("the fast reader declines a file with nothing it leaves to yaml.v3:\n%s", data)
			}
		}
	}
	t.Logf("%d of 1000 files left to yaml.v3", declined)
}

// TestFastParseLongSession: the benchmark's session is read by the fast
// reader.
func TestFastParseLongSession(t *testing.T) {
	st := &Store{Dir: t.TempDir()}
	s, err := st.New("long", Settings{Model: "openai:gpt-4o"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Append(benchMessages(1000)...); err != nil {
		t.Fatal(err)
	}
	if !checkFastParse(t, s.Encode()) {
		t.Fatal("the fast reader declines the benchmark's session")
	}
}

// TestFastParseDeclines pins inputs outside the subset, each next to a
// near twin the reader takes.
func TestFastParseDeclines(t *testing.T) {
	for _, tc := range []struct{ take, decline string }{
		{"a: b\n", "a: b # comment\n"},
		{"a: b\n", "# comment\na: b\n"},
		{"a: []\n", "a: [b]\n"},
		{"a: {}\n", "a: {b: c}\n"},
		{"a: b\n", "a: &x b\n"},
		{"a: b\n", "a: !!str b\n"},
		{"a: |\n  b\n", "a: >\n  b\n"},
		{"a: 'b c'\n", "a: 'b\n  c'\n"},
		{"a: b c\n", "a: b\n  c\n"},
		{"a: b\n", "---\na: b\n"},
		{"'... b': c\n", "... b: c\n"},
		{"a: b\n", "a: b\r\n"},
		{"a: 42\n", "a: 0x2A\n"},
		{"a: b\n", "a: 2025-01-02\n"},
		{"a:\n- b\n", "a:\n-\n  b\n"},
		{"a: b\n", "- a: b\n"},
		{"a:\n  b: c\n", "a:\n\tb: c\n"},
	} {
		if !checkFastParse(t, []byte(tc.take)) {
			t.Errorf("%q declined", tc.take)
		}
		if checkFastParse(t, []byte(tc.decline)) {
			t.Errorf("%q taken", tc.decline)
		}
	}
}

// TestYAMLTextChecksEveryByte puts each byte value, and characters on
// the edges of what YAML allows, among printable text.
func TestYAMLTextChecksEveryByte(t *testing.T) {
	var ins []string
	for c := range 256 {
		ins = append(ins, string([]byte{byte(c)}))
	}
	for _, r := range []rune{0x80, 0x85, 0x9f, 0xa0, 'é', 0x2027, 0x2028, 0x2029, 0xd7ff, 0xe000, 0xfeff, 0xfffd, 0xfffe, 0xffff, 0x10000, 0x10ffff} {
		ins = append(ins, string(r))
	}
	for _, in := range ins {
		r, size := utf8.DecodeRuneInString(in)
		want := size == len(in) && !(r == utf8.RuneError && size == 1) && printableRune(r) && r != '\r' &&
			r != 0x85 && r != 0x2028 && r != 0x2029 && r != 0xfeff
		for pos := range 3 {
			data := []byte(strings.Repeat("x", pos) + in + strings.Repeat("y", 2-pos))
			if got := yamlText(data); got != want {
				t.Fatalf("yamlText(%q) = %v, want %v", data, got, want)
			}
		}
	}
}

// FuzzFastParse compares the two readers on arbitrary input, and on the
// writer's output for the input taken as a string.
func FuzzFastParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.yaml")
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	r := rand.New(rand.NewPCG(3, 5))
	for i := range 20 {
		f.Add(encode((&fileGen{r: r, easy: i%2 == 0}).file()))
	}
	for _, s := range fastSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFastParse(t, data)
		checkFastParse(t, stringFile(string(data)))
	})
}

// fastSeeds are small inputs on the edges of the subset.
var fastSeeds = []string{
	"a: b\n", "a:\n", "a:", "a: |\n", "a: |", "\n\n  \na: b\n  \n", "a: b\nc: d", "é: x\n'é': \"é\"\n",
	"a:\n- b\n- c\nd: e\n", "a:\n  - b\n  - c\n", "a:\n- b: c\n  d: e\n- - f\n  - g\n", "a:\n  b:\n    c: d\n  e: f\n",
	"a: |\n  b\n\n  c\n\n", "a: |-\n  b\n", "a: |+\n  b\n\n\n", "a: |2\n   b\n  c\n", "a: |-2\n  b\n", "a: |\n\n   \n  b\n",
	"a:\n- |\n  b\n- |2-\n   c\n", "a: |\n  b\n   \n  \t\n  c", "a: |\n  b\nc: d\n", "a: |1\n b\n",
	"a: 'it''s'\n", "a: \"\\x41\\u00e9\\U0001F642\\t\\\\\\\"\\0\\N\\_\\L\\P\\e\\ \"\n", "a: \"\\ud800\"\n", "a: \"\\/\"\n",
	"a: null\nb: ~\nc: true\nd: False\ne: 0\nf: -1\ng: 1.5e3\nh: .5\ni: -.inf\nj: .nan\nk: 12345678901234567890\n",
	"a: -x\nb: +\nc: -_1\nd: .x\ne: 1.\nf: 01\ng: 1e400\n", "1: a\ntrue: b\nnull: c\n'': d\n",
	"a: -...\nb: 1e999\nc: 18446744073709551615\nd: -9223372036854775809\ne: -.x\nf: +_1\n", "a: 1\na: 2\n",
	"a: b:c\nd: http://e:f\n", "a: [] \n", "a: {}\n", "a:\n  []\n", "? a\n: b\n", "a: b\n...\n", "...: a\n",
}

// stringFile writes s in each place a session file puts strings: as a
// value, a list item, values in nested mappings and lists, and a key.
func stringFile(s string) []byte {
	w := stringPlaces(s)
	w.key(2, s)
	w.str(2, s)
	return w.b
}

// fileGen makes random session files' contents. With easy, it leaves out
// what the fast reader leaves to yaml.v3: keys too long to be written as
// plain keys (the writer makes them explicit, "? key").
type fileGen struct {
	r    *rand.Rand
	easy bool
}

var genFragments = []string{
	"a", "word", "Zz", " ", "  ", "\n", "\n\n", "\t", ":", ": ", "#", " #", "-", "- ", "'", `"`, `\`, "|", ">",
	"[", "]", "{", "}", ",", "?", "&", "*", "!", "%", "@", "`", "é", "日本", "🙂", "0", "42", "3.5", "1e3",
	"true", "null", "~", "---", "...", "\r", "\x00", "\x7f", "\u0085", "\u2028", "\ufeff", "\u00a0", "\xff",
}

func (g *fileGen) str() string {
	switch g.r.IntN(5) {
	case 0:
		for {
			s := trickyStrings[g.r.IntN(len(trickyStrings))]
			if !g.easy || len(s) < 300 {
				return s
			}
		}
	case 1:
		return genFragments[g.r.IntN(len(genFragments))]
	}
	var b strings.Builder
	for range g.r.IntN(12) {
		b.WriteString(genFragments[g.r.IntN(len(genFragments))])
	}
	return b.String()
}

func (g *fileGen) optStr() *string {
	if g.r.IntN(2) == 0 {
		return nil
	}
	s := g.str()
	return &s
}

func (g *fileGen) list() []string {
	if g.r.IntN(3) == 0 {
		return nil
	}
	l := []string{}
	for range g.r.IntN(3) {
		l = append(l, g.str())
	}
	return l
}

func (g *fileGen) optBool() *bool {
	if g.r.IntN(2) == 0 {
		return nil
	}
	b := g.r.IntN(2) == 0
	return &b
}

func (g *fileGen) optFloat() *float64 {
	fs := []float64{0, 1, 0.2, -3.5, 1e-7, 1e300, math.Inf(1), math.Inf(-1), math.NaN()}
	if g.r.IntN(2) == 0 {
		return nil
	}
	return &fs[g.r.IntN(len(fs))]
}

func (g *fileGen) optInt() *int64 {
	if g.r.IntN(2) == 0 {
		return nil
	}
	i := g.r.Int64N(math.MaxInt64)
	return &i
}

// value is a JSON-like value as a tree, as tool arguments and outputs and
// unknown fields hold.
func (g *fileGen) value(depth int) *yaml.Node {
	switch k := g.r.IntN(10); {
	case k < 2 && depth < 4:
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for range g.r.IntN(4) {
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: g.str()}, g.value(depth+1))
		}
		return n
	case k < 4 && depth < 4:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for range g.r.IntN(4) {
			n.Content = append(n.Content, g.value(depth+1))
		}
		return n
	case k < 6:
		lits := []string{"0", "-0", "42", "-7", "3.25", "-1e5", "2E-3", "1e999", "12345678901234567890123", "null", "true", "false"}
		return textValue(lits[g.r.IntN(len(lits))])
	}
	return textValue(g.str())
}

func (g *fileGen) fields() []field {
	var fs []field
	for range g.r.IntN(3) {
		fs = append(fs, field{key: g.str(), val: g.value(0)})
	}
	return fs
}

func (g *fileGen) thinking() []thinkingBlock {
	var bs []thinkingBlock
	for range g.r.IntN(3) {
		switch g.r.IntN(3) {
		case 0:
			bs = append(bs, thinkingBlock{typ: typeThinking, thinking: g.str(), signature: g.str(), extra: g.fields()})
		case 1:
			bs = append(bs, thinkingBlock{typ: typeRedacted, data: g.str()})
		default:
			bs = append(bs, thinkingBlock{raw: g.value(0)})
		}
	}
	return bs
}

func (g *fileGen) entries() []entry {
	var es []entry
	for range g.r.IntN(6) {
		e := entry{role: []string{"system", "user", "assistant", "tool"}[g.r.IntN(4)], kind: contentKind(g.r.IntN(3))}
		switch e.kind {
		case textContent:
			e.text = g.str()
		case partsContent:
			e.parts = []part{}
			for range g.r.IntN(3) {
				switch g.r.IntN(3) {
				case 0:
					e.parts = append(e.parts, part{typ: "text", text: g.str(), extra: g.fields()})
				case 1:
					e.parts = append(e.parts, part{typ: "image_url", url: g.str(), urlExtra: g.fields()})
				default:
					e.parts = append(e.parts, part{raw: g.value(0)})
				}
			}
		case callsContent:
			tc := &toolCalls{text: g.str(), sequence: g.r.IntN(2) == 0, extra: g.fields()}
			for range g.r.IntN(3) {
				tc.results = append(tc.results, toolResult{
					call:     toolCall{name: g.str(), args: g.value(0), id: g.str(), signature: g.str(), extra: g.fields()},
					output:   g.value(0),
					text:     g.optStr(),
					thinking: g.thinking(),
					isError:  g.r.IntN(2) == 0,
					extra:    g.fields(),
				})
			}
			e.calls = tc
		}
		e.thinking = g.thinking()
		e.extra = g.fields()
		es = append(es, e)
	}
	return es
}

func (g *fileGen) file() *fileData {
	fd := &fileData{settings: Settings{
		Model: g.str(), Temperature: g.optFloat(), TopP: g.optFloat(), ReasoningEffort: g.optStr(),
		EnabledTools: g.list(), EnabledMCPServers: g.list(), SkillsEnabled: g.optBool(), EnabledSkills: g.list(),
		EnabledMacros: g.list(), SaveSession: g.optBool(), CompressionThreshold: g.optInt(), AutoContinue: g.optBool(),
		MaxAutoContinues: g.optInt(), InjectTodoInstructions: g.optBool(), ContinuationPrompt: g.optStr(),
		InjectSkillInstructions: g.optBool(), SkillInstructions: g.optStr(), Memory: g.optBool(), RoleName: g.optStr(),
		AgentInstructions: g.str(),
	}}
	for range g.r.IntN(3) {
		fd.settings.AgentVariables = append(fd.settings.AgentVariables, Variable{Name: g.str(), Value: g.str()})
	}
	fd.extra = g.fields()
	fd.compressed = g.entries()
	fd.messages = g.entries()
	for range g.r.IntN(3) {
		fd.dataURLs = append(fd.dataURLs, dataURL{sha: g.str(), path: g.str()})
	}
	return fd
}
