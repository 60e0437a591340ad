package render

import (
	"bytes"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var colour = Options{Width: 80, Wrap: "auto", Highlight: true, TrueColor: true}

func TestPartialLineIsEchoedAsItArrivesThenRewrittenRendered(t *testing.T) {
	var out bytes.Buffer
	s := New(&out, colour)
	if err := s.Write("Hello **wor"); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "Hello **wor" {
		t.Fatalf("echo = %q, want the raw delta", got)
	}
	out.Reset()
	if err := s.Write("ld**\n"); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if !strings.HasPrefix(got, "\r\x1b[2K") {
		t.Fatalf("the completed line does not start by erasing the echo: %q", got)
	}
	vt := newVTerm(80, 0)
	vt.feed("Hello **wor" + got)
	if want := "Hello ‹0;1›world"; vt.screen(true) != want {
		t.Fatalf("screen = %q, want %q", vt.screen(true), want)
	}
}

func TestEchoWrappedByTheTerminalIsErasedRowByRow(t *testing.T) {
	opts := Options{Width: 10, Highlight: true}
	var out bytes.Buffer
	s := New(&out, opts)
	line := strings.Repeat("a", 25)
	_ = s.Write(line)
	out.Reset()
	_ = s.Write(" **b**\n")
	if !strings.HasPrefix(out.String(), "\r\x1b[2A\x1b[J") {
		t.Fatalf("a 25-column echo on a 10-column terminal takes 3 rows; got %q", out.String())
	}
	got := screenOf(t, opts, render(t, opts, line, " **b**\n"), true)
	if want := "aaaaaaaaaa\naaaaaaaaaa\naaaaa ‹0;1›b"; got != want {
		t.Fatalf("screen:\n%s\nwant:\n%s", got, want)
	}
}

func TestEchoStopsBeforeItsRowsWouldScrollOffTheScreen(t *testing.T) {
	opts := Options{Width: 10, Height: 4, Highlight: true}
	var out bytes.Buffer
	s := New(&out, opts)
	line := strings.Repeat("word ", 20)
	for i := 0; i < len(line); i++ {
		_ = s.Write(line[i : i+1])
	}
	// 4 rows: the echo may use 3, so that its first row is still on the
	// screen when it is erased.
	if n := out.Len(); n != 30 {
		t.Fatalf("echoed %d columns on a 10x4 terminal, want 30", n)
	}
	_ = s.Write("\n")
	_ = s.Close()
	vt := newVTerm(opts.Width, opts.Height)
	vt.feed(out.String())
	if vt.err != nil {
		t.Fatal(vt.err)
	}
	want := strings.TrimSpace(strings.Repeat("word word\n", 10))
	if got := vt.screen(false); got != want {
		t.Fatalf("screen:\n%s\nwant:\n%s", got, want)
	}
}

func TestTableTallerThanTheScreenIsPrintedInPlaceOfItsRawRows(t *testing.T) {
	opts := Options{Width: 30, Height: 6, Wrap: "auto", Highlight: true}
	in := "| n | name |\n|---|---|\n"
	for i := 1; i <= 12; i++ {
		in += "| " + strconv.Itoa(i) + " | row " + strconv.Itoa(i) + " |\n"
	}
	in += "after\n"
	// The rows so far are printed once holding them would let the first
	// scroll away; the columns then fill the width, for the rows to come.
	want := "┌──────┬─────────────────────┐\n│ n    │ name                │\n├──────┼─────────────────────┤\n"
	for i := 1; i <= 12; i++ {
		n := strconv.Itoa(i)
		want += "│ " + n + spaces(4-len(n)) + " │ row " + n + spaces(15-len(n)) + " │\n"
	}
	want += "└──────┴─────────────────────┘\nafter"
	for _, chunks := range [][]string{{in}, strings.SplitAfter(in, "\n"), strings.Split(in, "")} {
		out := render(t, opts, chunks...)
		vt := newVTerm(opts.Width, opts.Height)
		vt.feed(string(out))
		if vt.err != nil {
			t.Fatal(vt.err)
		}
		if got := vt.screen(false); got != want {
			t.Fatalf("%d chunks: screen:\n%s\nwant:\n%s", len(chunks), got, want)
		}
	}
}

func TestTableIsBufferedUntilItEndsThenAligned(t *testing.T) {
	opts := Options{Width: 40, Wrap: "auto", Highlight: true}
	var out bytes.Buffer
	s := New(&out, opts)
	_ = s.Write("| a | bb |\n|---|---|\n| ccc | d |\n")
	if strings.Contains(out.String(), "┌") {
		t.Fatalf("table printed before it ended: %q", out.String())
	}
	_ = s.Write("| e") // the reply ends without a newline
	_ = s.Close()
	vt := newVTerm(opts.Width, 0)
	vt.feed(out.String())
	want := "┌─────┬────┐\n│ a   │ bb │\n├─────┼────┤\n│ ccc │ d  │\n│ e   │    │\n└─────┴────┘"
	if got := vt.screen(false); got != want {
		t.Fatalf("screen:\n%s\nwant:\n%s", got, want)
	}
}

func TestLineThatRendersAsEchoedIsOnlyEnded(t *testing.T) {
	out := render(t, Options{Width: 80, Wrap: "auto"}, "plain ", "text", "\n", "more\n")
	if got := string(out); got != "plain text\nmore\n" {
		t.Fatalf("output = %q, want the text unchanged and never erased", got)
	}
}

// cursorOnly matches the escape sequences a stream writes without colours.
var cursorOnly = regexp.MustCompile(`\r\x1b\[(2K|\d+A\x1b\[J)`)

func TestNoHighlightWritesNoStyleOrHyperlink(t *testing.T) {
	opts := Options{Width: 80, Wrap: "auto", Hyperlinks: true, TrueColor: true}
	out := string(render(t, opts, chunk(readInput(t, "reply.md"), 300)...))
	if rest := cursorOnly.ReplaceAllString(out, ""); strings.Contains(rest, "\x1b") {
		i := strings.Index(rest, "\x1b")
		t.Fatalf("escape sequence left: %q", rest[max(0, i-20):min(len(rest), i+20)])
	}
	if !strings.Contains(out, "**Go 1.22**") {
		t.Fatal("emphasis markers were removed although they cannot be shown")
	}
}

func TestRawMarkdownKeepsTheTextAndHighlightsCode(t *testing.T) {
	opts := Options{Wrap: "no", Highlight: true, RawMarkdown: true, TrueColor: true}
	in := readInput(t, "reply.md")
	out := render(t, opts, chunk(in, 200)...)
	if got := screenOf(t, opts, out, false); got != strings.TrimRight(in, "\n") {
		t.Fatalf("raw markdown changed the text:\n%s", diffLines(strings.TrimRight(in, "\n"), got))
	}
	if !strings.Contains(string(out), "\x1b[0;38;2;245;49;127mdef") {
		t.Fatal("the python keyword def is not coloured")
	}
}

func TestLinksAreHyperlinksOrFollowedByTheirURL(t *testing.T) {
	in := "See [the guide](https://go.dev/doc) now.\n"
	withLinks := string(render(t, Options{Highlight: true, Hyperlinks: true}, in))
	if !strings.Contains(withLinks, "\x1b]8;;https://go.dev/doc\x1b\\") || !strings.Contains(withLinks, "\x1b]8;;\x1b\\") {
		t.Fatalf("no OSC 8 hyperlink: %q", withLinks)
	}
	if strings.Contains(withLinks, "(https://go.dev/doc)") {
		t.Fatal("the URL is shown although the text is a hyperlink")
	}
	without := string(render(t, Options{Highlight: true}, in))
	if strings.Contains(without, "\x1b]8") || !strings.Contains(without, " (https://go.dev/doc)") {
		t.Fatalf("without hyperlinks the URL should follow the text: %q", without)
	}
}

func TestColourDepthAndTheme(t *testing.T) {
	in := "```go\nfunc\n```\n"
	kw := func(opts Options) string {
		out := string(render(t, opts, in))
		m := regexp.MustCompile(`\x1b\[([0-9;]*)mfunc`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("keyword not coloured: %q", out)
		}
		return m[1]
	}
	if got := kw(Options{Highlight: true, TrueColor: true}); got != "0;38;2;245;49;127" {
		t.Errorf("dark truecolor keyword = %q", got)
	}
	if got := kw(Options{Highlight: true}); got != "0;38;5;204" {
		t.Errorf("dark 256-colour keyword = %q", got)
	}
	if got := kw(Options{Highlight: true, Theme: "light", TrueColor: true}); got != "0;38;2;208;23;94" {
		t.Errorf("light truecolor keyword = %q", got)
	}
}

func TestXterm256PicksTheNearestColour(t *testing.T) {
	tests := []struct {
		r, g, b, want int
	}{
		{0, 0, 0, 16}, {255, 255, 255, 231}, {255, 0, 0, 196}, {128, 128, 128, 244}, {0x5f, 0x87, 0xaf, 67},
	}
	for _, tc := range tests {
		if got := xterm256(tc.r, tc.g, tc.b); got != tc.want {
			t.Errorf("xterm256(%d,%d,%d) = %d, want %d", tc.r, tc.g, tc.b, got, tc.want)
		}
	}
}

// styled describes spans as text with markers for their styles.
func styled(spans []span) string {
	var b strings.Builder
	for _, sp := range spans {
		var tags []string
		if sp.st.attr&aBold != 0 {
			tags = append(tags, "b")
		}
		if sp.st.attr&aItalic != 0 {
			tags = append(tags, "i")
		}
		if sp.st.attr&aStrike != 0 {
			tags = append(tags, "s")
		}
		if sp.st.attr&aUnderline != 0 {
			tags = append(tags, "u")
		}
		switch sp.st.fg {
		case rInlineCode:
			tags = append(tags, "code")
		case rURL:
			tags = append(tags, "url")
		}
		if sp.url != "" {
			tags = append(tags, "href="+sp.url)
		}
		if len(tags) == 0 {
			b.WriteString(sp.text)
		} else {
			b.WriteString("<" + strings.Join(tags, ",") + ">" + sp.text + "</>")
		}
	}
	return b.String()
}

func TestInlineMarkup(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"strong", "a **b** c", "a <b>b</> c"},
		{"emphasis with stars and underscores", "*a* _b_", "<i>a</> <i>b</>"},
		{"strong emphasis", "***x***", "<b,i>x</>"},
		{"nested", "*a **b** c*", "<i>a </><b,i>b</><i> c</>"},
		{"strikethrough", "~~gone~~ ~approx~", "<s>gone</> ~approx~"},
		{"intraword underscores stay", "snake_case_name", "snake_case_name"},
		{"intraword stars emphasise", "2*3*4", "2<i>3</>4"},
		{"spaced stars stay", "2 * 3 * 4", "2 * 3 * 4"},
		{"unclosed stays literal", "**open", "**open"},
		{"leftover delimiter", "**a*", "*<i>a</>"},
		{"escapes", `\*not\* \_x\_`, "*not* _x_"},
		{"code span", "use `a*b*c` here", "use <code>a*b*c</> here"},
		{"code span with backticks", "`` a`b ``", "<code>a`b</>"},
		{"unmatched backtick", "it`s", "it`s"},
		{"code in strong", "**`x`**", "<b,code>x</>"},
		{"link", "[go](https://go.dev)", "<u>go</><url> (https://go.dev)</>"},
		{"link with title and emphasis", `[*a*](u "t")`, "<i,u>a</><url> (u)</>"},
		{"link to itself", "[https://a.b](https://a.b)", "<u>https://a.b</>"},
		{"image shows its alt text", "![logo](l.png)", "<u>logo</><url> (l.png)</>"},
		{"autolink", "<https://a.b/c>", "<u>https://a.b/c</>"},
		{"email autolink shows the address only", "<me@a.b>", "<u>me@a.b</>"},
		{"bare URL without trailing punctuation", "see https://a.b/c.", "see <u>https://a.b/c</>."},
		{"bare URL in parentheses", "(https://a.b/x_(y))", "(<u>https://a.b/x_(y)</>)"},
		{"not a link", "[a] (b) [c](", "[a] (b) [c]("},
	}
	s := New(nil, colour)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := styled(s.inline(nil, tc.in, style{})); got != tc.want {
				t.Errorf("inline(%q)\n got  %s\n want %s", tc.in, got, tc.want)
			}
		})
	}
	s = New(nil, Options{Highlight: true, Hyperlinks: true})
	if got := styled(s.inline(nil, "[go](https://go.dev)", style{})); got != "<u,href=https://go.dev>go</>" {
		t.Errorf("hyperlinked link = %s", got)
	}
}

func TestBlocks(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"heading keeps its level marks", "## Title ##\n", "## Title"},
		{"rule spans the width", "***\n", strings.Repeat("─", 20)},
		{"not a rule", "-- x\n", "-- x"},
		{"bullets by level", "- a\n  - b\n    - c\n      - d\n        - e\n", "• a\n  ◦ b\n    ▪ c\n      ▫ d\n        • e"},
		{"numbers follow the first", "3. a\n1. b\n1. c\n", "3. a\n4. b\n5. c"},
		{"nested numbering restarts", "1. a\n   1. x\n   1. y\n2. b\n   1. z\n", "1. a\n   1. x\n   2. y\n2. b\n   1. z"},
		{"task boxes", "- [ ] a\n- [x] b\n- [X] c\n", "☐ a\n☑ b\n☑ c"},
		{"hanging indent", "- one two three four five six\n", "• one two three four\n  five six"},
		{"quote", "> a\n>\n> > b\n", "│ a\n│\n│ │ b"},
		{"fence in a quote", "> ```go\n> x := 1\n> ```\nafter\n", "│ ```go\n│ x := 1\n│ ```\nafter"},
		{"quote ends an unclosed fence", "> ```\n> code\nafter *x*\n", "│ ```\n│ code\nafter x"},
		{"unclosed fence at the end", "```py\ndef f", "```py\ndef f"},
		{"indented fence in a list", "1. run:\n   ```sh\n   ls\n   ```\n2. done\n", "1. run:\n   ```sh\n   ls\n   ```\n2. done"},
		{"longer closing fence", "````\n```\n````\n", "````\n```\n````"},
		{"tilde fence", "~~~\n*x*\n~~~\n", "~~~\n*x*\n~~~"},
		{"pipe in a list item is not a table", "- a | b\n- c\n", "• a | b\n• c"},
		{"table needs a delimiter row", "a | b\nc | d\n", "a | b\nc | d"},
		{"CRLF line endings", "a\r\nb\r\n", "a\nb"},
		{"tabs expand to 4 columns", "\tx\ty\n", "    x   y"},
	}
	opts := Options{Width: 20, Wrap: "auto", Highlight: true}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := screenOf(t, opts, render(t, opts, tc.in), false); got != tc.want {
				t.Errorf("screen:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestModelEscapeSequencesAreDropped(t *testing.T) {
	out := string(render(t, Options{Width: 80}, "a\x1b[31mb\x07c\u009bd\n"))
	if got := screenOf(t, Options{Width: 80}, []byte(out), true); got != "a[31mbcd" {
		t.Fatalf("screen = %q", got)
	}
}

// TestModelCannotActOnTheTerminal feeds escape sequences that would set
// the window title, erase a line, move the cursor or hide text behind a
// carriage return, in every kind of block and with every option, split
// across deltas; the terminal (vterm, which fails on any sequence Coyote
// does not write itself) must show them as inert text.
func TestModelCannotActOnTheTerminal(t *testing.T) {
	const hostile = "A\x1b]0;TITLE\x07B\x1b[2KC\x1b[5AD\rE\u009b2KF\x1bP+q\x1b\\G"
	const shown = "A]0;TITLEB[2KC[5ADE2KFP+q\\G"
	inputs := []struct{ name, in, want string }{
		{"prose", hostile + "\n", shown},
		{"heading", "# " + hostile + "\n", shown},
		{"list", "- " + hostile + "\n", shown},
		{"quote", "> " + hostile + "\n", shown},
		{"emphasis", "**" + hostile + "**\n", shown},
		{"code span", "`" + hostile + "`\n", shown},
		{"link", "see [" + hostile + "](https://x.test/)\n", "see "},
		{"link target", "see [the docs](https://x.test/" + hostile + ")\n", "the docs"},
		{"code block", "```sh\n" + hostile + "\n```\n", shown},
		{"table", "| h |\n|---|\n| " + hostile + " |\n\n", shown},
		{"unfinished line", hostile, shown},
	}
	options := []struct {
		name string
		opts Options
	}{
		{"plain", Options{Width: 200}},
		{"highlight and hyperlinks", Options{Width: 200, Highlight: true, TrueColor: true, Hyperlinks: true}},
		{"raw markdown", Options{Width: 200, Highlight: true, RawMarkdown: true}},
		{"wrapped", Options{Width: 200, Wrap: "auto", Highlight: true}},
	}
	for _, o := range options {
		for _, in := range inputs {
			t.Run(o.name+"/"+in.name, func(t *testing.T) {
				out := render(t, o.opts, chunk(in.in, 3)...)
				for _, raw := range []string{"\x1b]0;", "\x07", "\x1b[5A", "\x1bP", "\u009b"} {
					if strings.Contains(string(out), raw) {
						t.Fatalf("%q reached the terminal: %q", raw, out)
					}
				}
				// A carriage return or erase from the model that acted
				// would leave the screen without the text in one piece.
				if screen := screenOf(t, o.opts, out, false); !strings.Contains(screen, in.want) {
					t.Fatalf("screen %q\nlacks %q", screen, in.want)
				}
			})
		}
	}
}

func TestInvalidUTF8BecomesReplacementCharacters(t *testing.T) {
	tests := []struct {
		name   string
		chunks []string
		want   string
	}{
		{"invalid byte", []string{"a\xffb\n"}, "a\uFFFDb"},
		{"rune split across deltas", []string{"x\xe5", "\x85", "\xa8y\n"}, "x全y"},
		{"incomplete rune at the end", []string{"z\xe5\x85"}, "z\uFFFD"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := screenOf(t, Options{}, render(t, Options{}, tc.chunks...), false); got != tc.want {
				t.Errorf("screen = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCloseEndsTheLastLine(t *testing.T) {
	if got := string(render(t, Options{}, "abc")); got != "abc\n" {
		t.Errorf("output = %q, want the line ended", got)
	}
	if got := string(render(t, Options{}, "abc\n")); got != "abc\n" {
		t.Errorf("output = %q, want no extra newline", got)
	}
	if got := string(render(t, Options{})); got != "" {
		t.Errorf("empty reply wrote %q", got)
	}
}

func TestWriteAndCloseAfterCloseFail(t *testing.T) {
	s := New(&bytes.Buffer{}, Options{})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Write("x"); !errors.Is(err, ErrClosed) {
		t.Errorf("Write after Close = %v", err)
	}
	if err := s.Close(); !errors.Is(err, ErrClosed) {
		t.Errorf("second Close = %v", err)
	}
}

type failWriter struct{ n int }

var errDisk = errors.New("disk full")

func (w *failWriter) Write(p []byte) (int, error) {
	w.n++
	return 0, errDisk
}

func TestWriterErrorIsReturnedAndSticks(t *testing.T) {
	w := &failWriter{}
	s := New(w, Options{})
	err := s.Write("hello")
	if !errors.Is(err, errDisk) || !strings.Contains(err.Error(), "render: write reply") {
		t.Fatalf("Write = %v", err)
	}
	if err := s.Write(" more\n"); !errors.Is(err, errDisk) {
		t.Fatalf("second Write = %v", err)
	}
	if err := s.Close(); !errors.Is(err, errDisk) {
		t.Fatalf("Close = %v", err)
	}
	if w.n != 1 {
		t.Fatalf("wrote %d times after the writer failed", w.n)
	}
}

func TestWrapSetting(t *testing.T) {
	tests := []struct {
		wrap  string
		width int
		want  int
	}{
		{"auto", 80, 80}, {"auto", 0, 0}, {"no", 80, 0}, {"", 80, 0},
		{"40", 80, 40}, {"120", 80, 80}, {"40", 0, 40}, {" 40 ", 80, 40},
		{"0", 80, 0}, {"-5", 80, 0}, {"wide", 80, 0},
	}
	for _, tc := range tests {
		if got := wrapWidth(tc.wrap, tc.width); got != tc.want {
			t.Errorf("wrapWidth(%q, %d) = %d, want %d", tc.wrap, tc.width, got, tc.want)
		}
	}
}

func TestRuneWidth(t *testing.T) {
	tests := []struct {
		r    rune
		want int
	}{
		{'a', 1}, {'é', 1}, {'\u0301', 0}, {'\u200d', 0}, {'全', 2}, {'ア', 2}, {'ｱ', 1},
		{'한', 2}, {'😀', 2}, {'•', 1}, {'─', 1}, {'☐', 1}, {'\U00020000', 2}, {'Ａ', 2},
	}
	for _, tc := range tests {
		if got := runeWidth(tc.r); got != tc.want {
			t.Errorf("runeWidth(%U) = %d, want %d", tc.r, got, tc.want)
		}
	}
	if got := strWidth("a全😀\u0301"); got != 5 {
		t.Errorf("strWidth = %d, want 5", got)
	}
}

// TestStyledRowsNeverExceedTheWrapWidth checks every rendered row of the
// test replies against the wrap width, counting columns without the
// escape sequences, and that no row ends with a style or link left open.
func TestStyledRowsNeverExceedTheWrapWidth(t *testing.T) {
	for _, width := range []int{20, 33, 50} {
		opts := Options{Width: 100, Wrap: strconv.Itoa(width), WrapCode: true, Highlight: true, Hyperlinks: true, TrueColor: true}
		for _, f := range []string{"reply.md", "lists.md", "wrap.md", "code.md"} {
			vt := newVTerm(opts.Width, 0)
			vt.feed(string(render(t, opts, readInput(t, f))))
			for i, row := range strings.Split(vt.screen(false), "\n") {
				if w := strWidth(row); w > width {
					t.Errorf("%s at %d: row %d is %d columns: %q", f, width, i+1, w, row)
				}
			}
			if vt.sgr != "" || vt.url != "" {
				t.Errorf("%s at %d: style %q / link %q left open", f, width, vt.sgr, vt.url)
			}
		}
	}
}

// FuzzDeltas checks that any reply, split anywhere, renders to the same
// screen as when it arrives at once, and never writes a sequence the
// terminal would not understand.
func FuzzDeltas(f *testing.F) {
	for _, s := range []string{
		"# h\n**b** *i* `c` [l](u)\n", "| a | b |\n|---|---|\n| 1 | 2 |\n", "```go\nfunc x() {}\n```\n",
		"- [ ] t\n  1. n\n> q\n", "日本語 " + strings.Repeat("x", 30) + "\n", "a\tb\r\n\x1b[0m\xff", "***\n___\n",
		"| a |\n", "> ```\n> x\ny\n",
	} {
		f.Add(s, uint(3))
	}
	f.Fuzz(func(t *testing.T, in string, cut uint) {
		for _, opts := range []Options{
			{Width: 24, Height: 8, Wrap: "auto", WrapCode: true, Highlight: true, Hyperlinks: true},
			{Width: 24, Wrap: "no"},
		} {
			want := screenOf(t, opts, render(t, opts, in), true)
			i := int(cut % uint(len(in)+1))
			if got := screenOf(t, opts, render(t, opts, in[:i], in[i:]), true); got != want {
				t.Fatalf("split at %d:\n%s\nwant:\n%s", i, got, want)
			}
		}
	})
}
