package rag

import (
	"reflect"
	"strings"
	"testing"
)

func TestRenderFillsTheTemplate(t *testing.T) {
	chunks := []ContextChunk{
		{Source: "/docs/a.md", Text: "Oaks grow slowly.\n"},
		{Source: "https://x.org/b", Text: "Birches have white bark."},
		{Source: "/docs/a.md", Text: "Oaks live long."},
	}
	got := Render("C:\n__CONTEXT__\nS:\n__SOURCES__\nQ: __INPUT__", chunks, "Which trees?")
	want := "C:\n" +
		"[Source: /docs/a.md]\nOaks grow slowly.\n\n" +
		"[Source: https://x.org/b]\nBirches have white bark.\n\n" +
		"[Source: /docs/a.md]\nOaks live long.\n" +
		"S:\n/docs/a.md\nhttps://x.org/b\n" +
		"Q: Which trees?"
	if got != want {
		t.Errorf("Render =\n%s\nwant\n%s", got, want)
	}
}

func TestRenderLeavesPlaceholdersInChunksAndInputAlone(t *testing.T) {
	chunks := []ContextChunk{{Source: "s", Text: "a chunk that says __INPUT__ and __SOURCES__"}}
	got := Render("__CONTEXT__|__INPUT__", chunks, "the input says __CONTEXT__")
	want := "[Source: s]\na chunk that says __INPUT__ and __SOURCES__|the input says __CONTEXT__"
	if got != want {
		t.Errorf("got %q", got)
	}
}

func TestRenderWithoutATemplateUsesTheDefault(t *testing.T) {
	got := Render("", []ContextChunk{{Source: "/a", Text: "alpha"}}, "what is alpha?")
	for _, s := range []string{"<context>\n[Source: /a]\nalpha\n</context>", "<sources>\n/a\n</sources>", "what is alpha?\n</question>"} {
		if !strings.Contains(got, s) {
			t.Errorf("no %q in\n%s", s, got)
		}
	}
	for _, p := range []string{PlaceholderContext, PlaceholderSources, PlaceholderInput} {
		if !strings.Contains(DefaultTemplate, p) {
			t.Errorf("the default template lacks %s", p)
		}
		if strings.Contains(got, p) {
			t.Errorf("%s left in the rendered default", p)
		}
	}
}

func TestSourcesAreListedOnceInOrder(t *testing.T) {
	got := Sources([]ContextChunk{{Source: "b"}, {Source: "a"}, {Source: "b"}, {Source: "c"}})
	if !reflect.DeepEqual(got, []string{"b", "a", "c"}) {
		t.Errorf("%v", got)
	}
	if Sources(nil) != nil || ContextBlocks(nil) != "" {
		t.Error("no chunks, no text")
	}
}
