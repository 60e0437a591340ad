package rag

import (
	"slices"
	"strings"
)

// Placeholders of a rag_template.
const (
	// PlaceholderContext becomes the chunks found, each under a
	// "[Source: path]" line.
	PlaceholderContext = "__CONTEXT__"
	// PlaceholderSources becomes the list of their sources, one a line.
	PlaceholderSources = "__SOURCES__"
	// PlaceholderInput becomes the user's input.
	PlaceholderInput = "__INPUT__"
)

// DefaultTemplate is the rag_template used when the config sets none.
const DefaultTemplate = `Use the excerpts below to answer the question at the end. The excerpts, their sources and the question are each enclosed in tags.

<context>
__CONTEXT__
</context>

<sources>
__SOURCES__
</sources>

Guidelines:
- Base the answer on the excerpts. Where they do not hold the answer, say so; you may then answer from your own knowledge, saying that you do.
- If the question is unclear, ask what is meant.
- If the excerpts look garbled or incomplete, mention it and give the best answer you can.
- Answer in the language of the question, without the tags used here.
- Name the source of each piece of information you take from the excerpts, as listed under <sources>.

<question>
__INPUT__
</question>`

// ContextChunk is a chunk put in front of the model: its text and where
// it came from.
type ContextChunk struct {
	Source string
	Text   string
	// Legs are the searches that found it: LegVector, LegKeyword,
	// LegGraph.
	Legs []string
}

// ContextBlocks is the text of __CONTEXT__: each chunk under a
// "[Source: path]" line, separated by blank lines.
func ContextBlocks(chunks []ContextChunk) string {
	var b strings.Builder
	for i, c := range chunks {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString("[Source: ")
		b.WriteString(c.Source)
		b.WriteString("]\n")
		b.WriteString(strings.TrimRight(c.Text, "\n"))
	}
	return b.String()
}

// Sources lists the chunks' sources once each, in the order they first
// appear: the text of __SOURCES__ (one a line) and of `.sources rag`.
func Sources(chunks []ContextChunk) []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range chunks {
		if !seen[c.Source] {
			seen[c.Source] = true
			out = append(out, c.Source)
		}
	}
	return out
}

// SourceLines are the sources of chunks as `.sources rag` lists them:
// each once, in order, with the legs that found its passages ("notes.md
// (vector, graph)").
func SourceLines(chunks []ContextChunk) []string {
	legs := map[string][]string{}
	var order []string
	for _, c := range chunks {
		if _, ok := legs[c.Source]; !ok {
			order = append(order, c.Source)
			legs[c.Source] = []string{}
		}
		for _, l := range c.Legs {
			if !slices.Contains(legs[c.Source], l) {
				legs[c.Source] = append(legs[c.Source], l)
			}
		}
	}
	out := make([]string, len(order))
	for i, src := range order {
		out[i] = src
		if ls := legs[src]; len(ls) > 0 {
			slices.SortFunc(ls, func(a, b string) int { return legOrder(a) - legOrder(b) })
			out[i] += " (" + strings.Join(ls, ", ") + ")"
		}
	}
	return out
}

func legOrder(l string) int {
	switch l {
	case LegVector:
		return 0
	case LegKeyword:
		return 1
	}
	return 2
}

// Render fills a rag_template (DefaultTemplate when empty) with the chunks
// and the user's input. The template is read once: a placeholder inside a
// chunk or the input is left as it is.
func Render(template string, chunks []ContextChunk, input string) string {
	if template == "" {
		template = DefaultTemplate
	}
	return strings.NewReplacer(
		PlaceholderContext, ContextBlocks(chunks),
		PlaceholderSources, strings.Join(Sources(chunks), "\n"),
		PlaceholderInput, input,
	).Replace(template)
}
