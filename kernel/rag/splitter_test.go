package rag

import (
	"math/rand"
	"reflect"
	"strings"
	"testing"
)

func TestSplitterPerLanguage(t *testing.T) {
	tests := []struct {
		name          string
		file          string
		size, overlap int
		text          string
		want          []string
	}{
		{"prose: paragraphs, then lines", "notes.txt", 20, 0,
			"One two three.\n\nFour five six.\nSeven.",
			[]string{"One two three.\n\n", "Four five six.\n", "Seven."}},
		{"prose: words with overlap", "notes.txt", 8, 3,
			"aa bb cc dd ee",
			[]string{"aa bb ", "bb cc ", "cc dd ee"}},
		{"c/c++", "main.cpp", 30, 0,
			"#include <x>\nint main() {\n  return 0;\n}\nvoid f() {}\n",
			[]string{"#include <x>", "\nint main() {\n  return 0;\n}", "\nvoid f() {}\n"}},
		{"go", "x.go", 30, 0,
			"package x\n\nfunc a() {\n\treturn 1\n}\nfunc b() {\n\treturn 2\n}\n",
			[]string{"package x\n", "\nfunc a() {\n\treturn 1\n}", "\nfunc b() {\n\treturn 2\n}\n"}},
		{"java", "A.java", 20, 0,
			"package p;\npublic class A {\n}\nprivate int x;\n",
			[]string{"package p;", "\npublic class A {\n}", "\nprivate int x;\n"}},
		{"javascript", "app.js", 20, 0,
			"const a = 1;\nfunction f() {\n  return a;\n}\n",
			[]string{"const a = 1;", "\nfunction f() {\n", "  return a;\n}\n"}},
		{"php", "index.php", 20, 0,
			"<?php\nfunction a() {}\nclass B {}\n",
			[]string{"<?php", "\nfunction a() {}", "\nclass B {}\n"}},
		{"proto", "api.proto", 20, 0,
			"syntax = \"proto3\";\nmessage A {}\nservice S {}\n",
			[]string{"syntax = \"proto3\";", "\nmessage A {}", "\nservice S {}\n"}},
		{"python", "m.py", 25, 0,
			"import os\n\nclass A:\n    pass\n\ndef f():\n    return 1\n",
			[]string{"import os\n", "\nclass A:\n    pass\n", "\ndef f():\n    return 1\n"}},
		{"restructuredtext", "doc.rst", 15, 0,
			"Title\n=====\n\nText here.\n.. note:: x\n",
			[]string{"Title", "\n=====\n\n", "Text here.", "\n.. note:: x\n"}},
		{"ruby", "a.rb", 15, 0,
			"require 'x'\ndef a\nend\nclass B\nend\n",
			[]string{"require 'x'", "\ndef a\nend", "\nclass B\nend\n"}},
		{"rust", "main.rs", 20, 0,
			"use std::io;\nfn main() {\n    let x = 1;\n}\n",
			[]string{"use std::io;", "\nfn main() {\n", "    let x = 1;\n}\n"}},
		{"scala", "M.scala", 15, 0,
			"object M {\n}\nclass C\ndef f = 1\n",
			[]string{"object M {\n}", "\nclass C", "\ndef f = 1\n"}},
		{"swift", "S.swift", 15, 0,
			"import UIKit\nstruct S {}\nfunc f() {}\n",
			[]string{"import UIKit", "\nstruct S {}", "\nfunc f() {}\n"}},
		{"markdown", "README.md", 20, 0,
			"# Title\nIntro line.\n## Part\nBody text.",
			[]string{"# Title\nIntro line.", "\n## Part\nBody text."}},
		{"latex", "paper.tex", 25, 0,
			"\\documentclass{article}\n\\section{A}\nText $x$ here.\n",
			[]string{"\\documentclass{article}", "\n\\section{A}\nText $x", "$ here.\n"}},
		{"html", "page.html", 20, 0,
			"<body><div>One</div><p>Two</p></body>",
			[]string{"<body>", "<div>One</div>", "<p>Two</p></body>"}},
		{"solidity", "C.sol", 25, 0,
			"pragma solidity ^0.8.0;\ncontract C {\n}\n",
			[]string{"pragma solidity ^0.8.0;", "\ncontract C {\n}\n"}},
		{"go with overlap", "x.go", 40, 12,
			"func a() {}\nfunc b() {}\nfunc c() {}\nfunc d() {}",
			[]string{"func a() {}\nfunc b() {}\nfunc c() {}", "\nfunc c() {}\nfunc d() {}"}},
		{"a text that fits is one chunk", "x.go", 100, 10, "package x\n", []string{"package x\n"}},
		{"characters, never bytes", "a.txt", 7, 0, "日本語テキスト", []string{"日本", "語テ", "キス", "ト"}},
		{"a character bigger than a chunk", "a.txt", 2, 0, "日本", []string{"日", "本"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewSplitter(tt.size, tt.overlap, tt.file)
			got := s.Split(tt.text)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Split =\n%q\nwant\n%q", got, tt.want)
			}
			checkTiling(t, s, tt.text)
		})
	}
}

func TestSeparatorsFor(t *testing.T) {
	tests := []struct {
		name string
		want string // the first separator
	}{
		{"x.GO", "\nfunc "},
		{"/src/a.h", "\nclass "},
		{"https://example.org/x.py?raw=1#top", "\nclass "},
		{"notes/README", "\n\n"},
		{"`git log`", "\n\n"},
		{"slides.htm", "<body"},
		{"paper.tex", "\n\\chapter{"},
		{"lib.mjs", "\nfunction "},
	}
	for _, tt := range tests {
		if got := SeparatorsFor(tt.name)[0]; got != tt.want {
			t.Errorf("SeparatorsFor(%q)[0] = %q, want %q", tt.name, got, tt.want)
		}
	}
	for lang, seps := range languageSeparators {
		if seps[len(seps)-1] != "" {
			t.Errorf("%s: the separators must end with the empty one, so every text can be split", lang)
		}
	}
}

// The property the issue asks for, on many random texts: the chunks,
// minus the bytes each repeats of the one before, give back the text.
func TestSplitChunksMinusOverlapsGiveBackTheText(t *testing.T) {
	r := rand.New(rand.NewSource(8))
	alphabet := []string{"a", "b", "word", " ", " ", "\n", "\n\n", "é", "日本", "\t", ".", "func ", "\nfunc ", "🙂"}
	for i := 0; i < 2000; i++ {
		var b strings.Builder
		for n := r.Intn(200); n > 0; n-- {
			b.WriteString(alphabet[r.Intn(len(alphabet))])
		}
		size := 1 + r.Intn(40)
		overlap := r.Intn(size)
		name := []string{"a.txt", "x.go", "a.md", "p.html"}[r.Intn(4)]
		checkTiling(t, NewSplitter(size, overlap, name), b.String())
		if t.Failed() {
			t.Fatalf("text %q, size %d, overlap %d, file %s", b.String(), size, overlap, name)
		}
	}
}

func TestSplitKeepsChunksOfValidUTF8(t *testing.T) {
	text := strings.Repeat("naïve café ünïcödé 日本語 🙂 ", 50)
	for size := 1; size < 30; size++ {
		for _, c := range NewSplitter(size, size/3, "a.txt").Split(text) {
			if !strings.Contains(text, c) || !validString(c) {
				t.Fatalf("size %d: chunk %q", size, c)
			}
		}
	}
}

func validString(s string) bool { return strings.ToValidUTF8(s, "\x00") == s }
