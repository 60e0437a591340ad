package rag

import (
	"path"
	"strings"
	"unicode/utf8"
)

// DefaultSeparators split prose: paragraphs, then lines, then words, then
// characters.
var DefaultSeparators = []string{"\n\n", "\n", " ", ""}

// languageSeparators are tried in order before falling back to smaller
// pieces; each list ends with the default ones (HTML splits on tags only,
// then characters). Most begin with a newline: a declaration at the start
// of a line is where a chunk of code is best cut.
var languageSeparators = map[string][]string{
	"cpp": withDefault("\nclass ", "\nvoid ", "\nint ", "\nfloat ", "\ndouble ", "\nif ", "\nfor ", "\nwhile ", "\nswitch ", "\ncase "),
	"go":  withDefault("\nfunc ", "\nvar ", "\nconst ", "\ntype ", "\nif ", "\nfor ", "\nswitch ", "\ncase "),
	"java": withDefault("\nclass ", "\npublic ", "\nprotected ", "\nprivate ", "\nstatic ", "\nif ", "\nfor ", "\nwhile ",
		"\nswitch ", "\ncase "),
	"js": withDefault("\nfunction ", "\nconst ", "\nlet ", "\nvar ", "\nclass ", "\nif ", "\nfor ", "\nwhile ", "\nswitch ",
		"\ncase ", "\ndefault "),
	"php":   withDefault("\nfunction ", "\nclass ", "\nif ", "\nforeach ", "\nwhile ", "\ndo ", "\nswitch ", "\ncase "),
	"proto": withDefault("\nmessage ", "\nservice ", "\nenum ", "\noption ", "\nimport ", "\nsyntax "),
	"py":    withDefault("\nclass ", "\ndef ", "\n\tdef "),
	"rst":   withDefault("\n===", "\n---", "\n***", "\n.. "),
	"rb": withDefault("\ndef ", "\nclass ", "\nif ", "\nunless ", "\nwhile ", "\nfor ", "\ndo ", "\nbegin ",
		"\nrescue "),
	"rs":    withDefault("\nfn ", "\nconst ", "\nlet ", "\nif ", "\nwhile ", "\nfor ", "\nloop ", "\nmatch "),
	"scala": withDefault("\nclass ", "\nobject ", "\ndef ", "\nval ", "\nvar ", "\nif ", "\nfor ", "\nwhile ", "\nmatch ", "\ncase "),
	"swift": withDefault("\nfunc ", "\nclass ", "\nstruct ", "\nenum ", "\nif ", "\nfor ", "\nwhile ", "\ndo ", "\nswitch ",
		"\ncase "),
	"md": withDefault("\n# ", "\n## ", "\n### ", "\n#### ", "\n##### ", "\n###### ", "```\n", "\n***", "\n---", "\n___"),
	"tex": {"\n\\chapter{", "\n\\section{", "\n\\subsection{", "\n\\subsubsection{", "\n\\begin{enumerate}",
		"\n\\begin{itemize}", "\n\\begin{description}", "\n\\begin{list}", "\n\\begin{quote}", "\n\\begin{quotation}",
		"\n\\begin{verse}", "\n\\begin{verbatim}", "\n\\begin{align}", "$$", "$", " ", ""},
	"html": {"<body", "<div", "<p", "<br", "<li", "<h1", "<h2", "<h3", "<h4", "<h5", "<h6", "<span", "<table", "<tr",
		"<td", "<th", "<ul", "<ol", "<header", "<footer", "<nav", "<head", "<style", "<script", "<meta", "<title", ""},
	"sol": withDefault("\npragma ", "\nusing ", "\ncontract ", "\ninterface ", "\nlibrary ", "\nconstructor ", "\ntype ",
		"\nfunction ", "\nevent ", "\nmodifier ", "\nerror ", "\nstruct ", "\nenum ", "\nif ", "\nfor ", "\nwhile ",
		"\ndo while ", "\nassembly "),
}

// extensionLanguages maps file extensions to languageSeparators.
var extensionLanguages = map[string]string{
	"c": "cpp", "h": "cpp", "cc": "cpp", "cpp": "cpp", "cxx": "cpp", "hpp": "cpp",
	"go": "go", "java": "java", "js": "js", "mjs": "js", "cjs": "js", "php": "php", "proto": "proto", "py": "py",
	"rst": "rst", "rb": "rb", "rs": "rs", "scala": "scala", "swift": "swift", "md": "md", "mkd": "md",
	"markdown": "md", "tex": "tex", "html": "html", "htm": "html", "sol": "sol",
}

func withDefault(seps ...string) []string {
	return append(seps, DefaultSeparators...)
}

// SeparatorsFor returns the separators for a file by its extension (of a
// path or a URL), the default ones for any other.
func SeparatorsFor(name string) []string {
	if i := strings.IndexAny(name, "?#"); i >= 0 && strings.Contains(name, "://") {
		name = name[:i]
	}
	ext := strings.ToLower(strings.TrimPrefix(path.Ext(name), "."))
	if lang, ok := extensionLanguages[ext]; ok {
		return languageSeparators[lang]
	}
	return DefaultSeparators
}

// Span is a chunk of a text: text[Start:End].
type Span struct {
	Start, End int
}

// Splitter is a recursive character splitter: it cuts a text at the first
// of its separators that occurs in it, packs the pieces into chunks of at
// most ChunkSize bytes, each starting with up to ChunkOverlap bytes of the
// one before (whole pieces), and splits a piece too big for a chunk again
// with the separators after that one. The empty separator cuts between
// characters, so a chunk never ends inside a UTF-8 sequence; a chunk is
// longer than ChunkSize only when one character is.
//
// A separator made of white space stays at the end of the piece before it
// (chunks start at a paragraph, line or word); any other separator starts
// the piece after it (a chunk of Go code starts at "\nfunc "). The chunks
// tile the text: each starts where the one before ends, or earlier by the
// overlap, so nothing is lost.
type Splitter struct {
	ChunkSize    int
	ChunkOverlap int
	Separators   []string
}

// NewSplitter returns a splitter for a file named name (its extension
// picks the separators).
func NewSplitter(chunkSize, chunkOverlap int, name string) Splitter {
	return Splitter{ChunkSize: chunkSize, ChunkOverlap: chunkOverlap, Separators: SeparatorsFor(name)}
}

// Split returns the chunks of text, exactly as they are in it.
func (s Splitter) Split(text string) []string {
	spans := s.Spans(text)
	out := make([]string, len(spans))
	for i, sp := range spans {
		out[i] = text[sp.Start:sp.End]
	}
	return out
}

// Spans returns where the chunks of text are, in order.
func (s Splitter) Spans(text string) []Span {
	if text == "" {
		return nil
	}
	seps := s.Separators
	if len(seps) == 0 {
		seps = DefaultSeparators
	}
	m := merger{size: max(s.ChunkSize, 1), overlap: max(s.ChunkOverlap, 0)}
	m.split(text, 0, seps)
	m.flush()
	return m.out
}

type merger struct {
	size, overlap int
	out           []Span
	cur           []Span // pieces of the chunk being filled
	total         int
}

// split cuts text (at offset base of the whole) with the first separator
// of seps found in it and feeds the pieces to the merger; pieces too big
// for a chunk are split with the separators after that one.
func (m *merger) split(text string, base int, seps []string) {
	sep, rest := "", []string(nil)
	for i, s := range seps {
		if s == "" || strings.Contains(text, s) {
			sep, rest = s, seps[i+1:]
			break
		}
	}
	piece := func(start, end int) {
		if start == end {
			return
		}
		if end-start <= m.size {
			m.add(Span{base + start, base + end})
			return
		}
		m.flush()
		if len(rest) == 0 {
			m.out = append(m.out, Span{base + start, base + end})
			return
		}
		m.split(text[start:end], base+start, rest)
		m.flush()
	}
	if sep == "" {
		for i := 0; i < len(text); {
			_, n := utf8.DecodeRuneInString(text[i:])
			piece(i, i+n)
			i += n
		}
		return
	}
	atEnd := strings.TrimSpace(sep) == "" // white space stays with the piece before
	start := 0
	for i := 0; ; {
		j := strings.Index(text[i:], sep)
		if j < 0 {
			break
		}
		cut := i + j
		if atEnd {
			cut += len(sep)
		}
		piece(start, cut)
		start = cut
		i += j + len(sep)
	}
	piece(start, len(text))
}

// add appends a piece to the chunk being filled, emitting the chunk first
// when the piece does not fit, and keeping of it only the last pieces that
// fit in the overlap.
func (m *merger) add(p Span) {
	n := p.End - p.Start
	if m.total+n > m.size && len(m.cur) > 0 {
		m.emit()
		for len(m.cur) > 0 && (m.total > m.overlap || m.total+n > m.size) {
			m.total -= m.cur[0].End - m.cur[0].Start
			m.cur = m.cur[1:]
		}
	}
	m.cur = append(m.cur, p)
	m.total += n
}

func (m *merger) emit() {
	m.out = append(m.out, Span{m.cur[0].Start, m.cur[len(m.cur)-1].End})
}

// flush emits the chunk being filled and starts afresh (no overlap across
// a piece that had to be split again).
func (m *merger) flush() {
	if len(m.cur) > 0 {
		m.emit()
	}
	m.cur, m.total = m.cur[:0], 0
}
