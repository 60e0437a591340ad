package render

import (
	"bytes"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// goldenCases render the inputs under testdata with various options. Each
// has two golden files: .golden, the exact bytes written when the whole
// reply arrives in one delta (cat it in a terminal to see it), and
// .screen, the text of the final screen, for reviewing diffs.
var goldenCases = []struct {
	name  string
	input string
	opts  Options
}{
	{"reply_dark_hyperlinks", "reply.md", Options{Width: 80, Wrap: "auto", Highlight: true, TrueColor: true, Hyperlinks: true}},
	{"reply_dark_truecolor", "reply.md", Options{Width: 80, Wrap: "auto", Highlight: true, TrueColor: true}},
	{"reply_light_256", "reply.md", Options{Width: 80, Wrap: "auto", Highlight: true, Theme: "light"}},
	{"reply_no_highlight", "reply.md", Options{Width: 80, Wrap: "auto"}},
	{"reply_raw_markdown", "reply.md", Options{Width: 80, Wrap: "no", Highlight: true, RawMarkdown: true, TrueColor: true}},
	{"reply_wrap_50", "reply.md", Options{Width: 100, Wrap: "50", Highlight: true}},
	{"code_dark_truecolor", "code.md", Options{Width: 100, Wrap: "auto", Highlight: true, TrueColor: true}},
	{"code_light_256", "code.md", Options{Width: 100, Wrap: "auto", Highlight: true, Theme: "light"}},
	{"code_wrap_code_40", "code.md", Options{Width: 40, Wrap: "auto", WrapCode: true, Highlight: true}},
	{"tables_80", "tables.md", Options{Width: 80, Wrap: "auto", Highlight: true}},
	{"tables_narrow_40", "tables.md", Options{Width: 40, Wrap: "auto", Highlight: true}},
	{"tables_no_highlight", "tables.md", Options{Width: 80, Wrap: "auto"}},
	{"lists_60", "lists.md", Options{Width: 60, Wrap: "auto", Highlight: true}},
	{"wrap_40", "wrap.md", Options{Width: 80, Wrap: "40", Highlight: true}},
	{"wrap_40_code", "wrap.md", Options{Width: 40, Wrap: "auto", WrapCode: true, Highlight: true}},
	{"wrap_no", "wrap.md", Options{Width: 60, Wrap: "no", Highlight: true}},
}

func readInput(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// render feeds the chunks to a stream and returns the bytes written.
func render(t testing.TB, opts Options, chunks ...string) []byte {
	t.Helper()
	var out bytes.Buffer
	s := New(&out, opts)
	for _, c := range chunks {
		if err := s.Write(c); err != nil {
			t.Fatalf("Write: %v", err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	return out.Bytes()
}

// screenOf is what a terminal of the options' size shows after out.
func screenOf(t testing.TB, opts Options, out []byte, styles bool) string {
	t.Helper()
	vt := newVTerm(opts.Width, opts.Height)
	vt.feed(string(out))
	if vt.err != nil {
		t.Fatalf("terminal: %v", vt.err)
	}
	return vt.screen(styles)
}

func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output:\n%s", path, diffLines(string(want), string(got)))
	}
}

// diffLines shows the first lines that differ, quoted so escapes show.
func diffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < 5; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			b.WriteString("line " + strconv.Itoa(i+1) + ":\n  want " + quote(wl) + "\n  got  " + quote(gl) + "\n")
			shown++
		}
	}
	return b.String()
}

func quote(s string) string { return strings.ReplaceAll(s, "\x1b", `\e`) }

func TestGoldenRendering(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			out := render(t, tc.opts, readInput(t, tc.input))
			checkGolden(t, filepath.Join("testdata", "golden", tc.name+".golden"), out)
			checkGolden(t, filepath.Join("testdata", "golden", tc.name+".screen"), []byte(screenOf(t, tc.opts, out, false)+"\n"))
		})
	}
}

// TestDeltasRenderLikeOneWrite splits each reply into deltas at every byte
// boundary (every split into two, byte by byte, and random chunk sizes);
// the final screen, styles included, must be what the reply gives when it
// arrives at once.
func TestDeltasRenderLikeOneWrite(t *testing.T) {
	splitAll := map[string]bool{} // every two-way split for one case per input
	for _, tc := range goldenCases {
		step := 1
		if splitAll[tc.input] {
			step = 7
		}
		if testing.Short() {
			step *= 13
		}
		splitAll[tc.input] = true
		t.Run(tc.name, func(t *testing.T) {
			in := readInput(t, tc.input)
			want := screenOf(t, tc.opts, render(t, tc.opts, in), true)
			check := func(how string, chunks []string) {
				t.Helper()
				if got := screenOf(t, tc.opts, render(t, tc.opts, chunks...), true); got != want {
					t.Fatalf("%s: final screen differs:\n%s", how, diffLines(want, got))
				}
			}
			bytewise := make([]string, len(in))
			for i := 0; i < len(in); i++ {
				bytewise[i] = in[i : i+1]
			}
			check("byte by byte", bytewise)
			for i := 1; i < len(in); i += step {
				check("split at "+strconv.Itoa(i), []string{in[:i], in[i:]})
			}
			rng := rand.New(rand.NewPCG(1, uint64(len(in))))
			for range 20 {
				var chunks []string
				for rest := in; rest != ""; {
					n := min(len(rest), 1+rng.IntN(12))
					chunks = append(chunks, rest[:n])
					rest = rest[n:]
				}
				check("random chunks", chunks)
			}
		})
	}
}
