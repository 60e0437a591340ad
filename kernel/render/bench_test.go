package render

import (
	"io"
	"slices"
	"strings"
	"testing"
	"time"
)

// longReply is a long markdown reply: every test input, twice.
func longReply(b *testing.B) string {
	var sb strings.Builder
	for range 2 {
		for _, f := range []string{"reply.md", "lists.md", "code.md", "tables.md", "wrap.md"} {
			sb.WriteString(readInput(b, f))
			sb.WriteString("\n")
		}
	}
	return sb.String()
}

// chunk splits s into n deltas of about the same size (as a provider
// streams tokens), never inside a UTF-8 sequence.
func chunk(s string, n int) []string {
	size := max(1, len(s)/n)
	var out []string
	for len(s) > 0 {
		k := min(size, len(s))
		for k < len(s) && s[k]&0xC0 == 0x80 {
			k++
		}
		out = append(out, s[:k])
		s = s[k:]
	}
	return out
}

func benchStream(b *testing.B, opts Options) {
	chunks := chunk(longReply(b), 2000)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		s := New(io.Discard, opts)
		for _, c := range chunks {
			if err := s.Write(c); err != nil {
				b.Fatal(err)
			}
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(chunks)), "ns/chunk")
}

// BenchmarkStreamReply streams a long reply (about 2,000 deltas) end to
// end; the budget is 40 µs per delta for everything.
func BenchmarkStreamReply(b *testing.B) {
	benchStream(b, Options{Width: 100, Wrap: "auto", Highlight: true, TrueColor: true, Hyperlinks: true})
}

func BenchmarkStreamReply256Colours(b *testing.B) {
	benchStream(b, Options{Width: 100, Wrap: "auto", Highlight: true})
}

func BenchmarkStreamReplyNoHighlight(b *testing.B) {
	benchStream(b, Options{Width: 100, Wrap: "auto"})
}

func BenchmarkStreamReplyRawMarkdown(b *testing.B) {
	benchStream(b, Options{Width: 100, Wrap: "no", Highlight: true, RawMarkdown: true})
}

// BenchmarkStreamTinyDeltas streams the same reply a few bytes at a time,
// the worst case for the per-delta work.
func BenchmarkStreamTinyDeltas(b *testing.B) {
	reply := longReply(b)
	chunks := chunk(reply, len(reply)/3)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		s := New(io.Discard, Options{Width: 100, Wrap: "auto", Highlight: true, TrueColor: true})
		for _, c := range chunks {
			_ = s.Write(c)
		}
		_ = s.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(chunks)), "ns/chunk")
}

func BenchmarkHighlightGoLine(b *testing.B) {
	lang := lookupLang("go")
	var h highlighter
	var spans []span
	line := `	fmt.Println("moved\t", p.X+dx, 0x1F, 3.5e-2, 'c', s) // comment`
	b.ReportAllocs()
	for range b.N {
		st := 0
		spans = h.line(spans[:0], lang, line, &st)
	}
}

func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	for range b.N {
		_ = New(io.Discard, Options{Width: 80, Wrap: "auto", Highlight: true, TrueColor: true})
	}
}

// BenchmarkBuildLanguageTables measures what the first code block of each
// language pays once: building its table.
func BenchmarkBuildLanguageTables(b *testing.B) {
	builders := []func() *langDef{langGo, langPython, langJS, langTS, langRust, langC, langCPP, langJava, langKotlin,
		langCSharp, langRuby, langPHP, langShell, langPowerShell, langSQL, langLua, langSwift}
	b.ReportAllocs()
	for range b.N {
		for _, build := range builders {
			_ = build()
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(builders)), "ns/language")
}

// BenchmarkStreamReplyLatency reports the median and 99th percentile time
// of a single Write of the reply (the maximum is left out: it measures the
// scheduler and the garbage collector more than the stream).
func BenchmarkStreamReplyLatency(b *testing.B) {
	chunks := chunk(longReply(b), 2000)
	var times []time.Duration
	for range b.N {
		s := New(io.Discard, Options{Width: 100, Wrap: "auto", Highlight: true, TrueColor: true, Hyperlinks: true})
		for _, c := range chunks {
			start := time.Now()
			_ = s.Write(c)
			times = append(times, time.Since(start))
		}
		_ = s.Close()
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Nanoseconds()), "p50-ns/write")
	b.ReportMetric(float64(times[len(times)*99/100].Nanoseconds()), "p99-ns/write")
}
