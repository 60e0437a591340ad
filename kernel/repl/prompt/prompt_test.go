package prompt

import (
	"strings"
	"testing"
	"unicode/utf8"
)

const (
	esc    = "\x1b["
	red    = esc + "31m"
	green  = esc + "32m"
	cyan   = esc + "36m"
	purple = esc + "35m"
	reset  = esc + "0m"
)

// vars builds the variables of a test from "name=value" pairs, over the
// model every REPL prompt has.
func vars(pairs ...string) map[string]string {
	m := map[string]string{"model": "openai:gpt-4o"}
	for _, p := range pairs {
		k, v, _ := strings.Cut(p, "=")
		m[k] = v
	}
	return m
}

func TestDefaultLeftShowsTheStateOfTheREPL(t *testing.T) {
	tests := []struct {
		name string
		vars map[string]string
		want string
	}{
		{"model only", vars(), "openai:gpt-4o)> "},
		{"role", vars("role=coder"), "openai:gpt-4o)coder> "},
		{"rag", vars("rag=docs"), "openai:gpt-4o)@docs> "},
		{"role and rag", vars("role=coder", "rag=docs"), "openai:gpt-4o)coder@docs> "},
		{"agent", vars("agent=todo"), "openai:gpt-4o)todo>> "},
		{"agent and role", vars("agent=todo", "role=coder"), "openai:gpt-4o)todo>coder> "},
		{"session", vars("session=work"), "openai:gpt-4o)work) "},
		{"session and role", vars("session=work", "role=coder"), "openai:gpt-4o)work/coder) "},
		{"session and agent", vars("session=work", "agent=todo"), "openai:gpt-4o)todo>work) "},
		{"session, agent, role, rag", vars("session=work", "agent=todo", "role=coder", "rag=docs"),
			"openai:gpt-4o)todo>work/coder@docs) "},
		{"empty values count as unset", vars("session=", "agent=", "role="), "openai:gpt-4o)> "},
		{"reasoning effort is not shown", vars("reasoning_effort=high"), "openai:gpt-4o)> "},
		{"no variables at all", nil, ")> "},
	}
	left := Left("")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := left.Render(tt.vars, false); got != tt.want {
				t.Errorf("Render = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDefaultRightShowsEffortAndSessionTokens(t *testing.T) {
	tests := []struct {
		name string
		vars map[string]string
		want string
	}{
		{"nothing", vars(), ""},
		{"reasoning effort", vars("reasoning_effort=high"), "[high] "},
		{"tokens outside a session are not shown", vars("consume_tokens=1200", "consume_percent=10"), ""},
		{"session without tokens", vars("session=work"), ""},
		{"session with tokens", vars("session=work", "consume_tokens=1200", "consume_percent=10"), "1200(10%)"},
		{"effort and session", vars("reasoning_effort=low", "session=work", "consume_tokens=5", "consume_percent=0"),
			"[low] 5(0%)"},
	}
	right := Right("")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := right.Render(tt.vars, false); got != tt.want {
				t.Errorf("Render = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestColorOnEmitsEscapesAndOffEmitsNone(t *testing.T) {
	v := vars("session=work", "role=coder", "reasoning_effort=high", "consume_tokens=1200", "consume_percent=10")
	tests := []struct {
		name  string
		tmpl  *Template
		color bool
		want  string
	}{
		{"left on", Left(""), true, red + "openai:gpt-4o)" + green + "work/coder" + cyan + ")" + reset + " "},
		{"left off", Left(""), false, "openai:gpt-4o)work/coder) "},
		{"right on", Right(""), true, cyan + "[high] " + purple + "1200(10%)" + reset},
		{"right off", Right(""), false, "[high] 1200(10%)"},
		{"light variant", Parse("{color.light_red}x{color.reset}"), true, esc + "91mx" + reset},
		{"light black", Parse("{color.light_black}"), true, esc + "90m"},
		{"every colour off", Parse("{color.black}{color.yellow}{color.blue}{color.white}{color.light_white}x"), false, "x"},
		{"colour inside a conditional", Parse("{?role {color.blue}{role}}"), true, esc + "34mcoder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.tmpl.Render(v, tt.color); got != tt.want {
				t.Errorf("Render = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTemplates(t *testing.T) {
	v := vars("session=work", "role=coder", "dirty=true", "custom=42")
	tests := []struct {
		name, src, want string
	}{
		{"empty", "", ""},
		{"plain text", "hello > ", "hello > "},
		{"variable", "[{role}]", "[coder]"},
		{"unset known variable", "[{agent}]", "[]"},
		{"variable the caller passes but the REPL does not", "{custom}", "42"},
		{"if set", "{?session in {session}}", "in work"},
		{"if set, not set", "{?agent in {agent}}", ""},
		{"if unset", "{!agent no agent}", "no agent"},
		{"if unset, set", "{!session no session}", ""},
		{"dirty marker", "{session}{?dirty *}", "work*"},
		{"empty body", "a{?session}b{!session}c", "abc"},
		{"body keeps its spaces", "{?role  x }", " x "},
		{"nested", "{?session {?role {session}/{role}}{!role {session}}}", "work/coder"},
		{"nested, inner unset", "{?session {?agent {agent}>}{session}}", "work"},
		{"nested three deep", "{?session {?role {?dirty <{role}!>}}}", "<coder!>"},
		{"negation inside condition", "{?session {!agent solo}}", "solo"},
		{"unknown variable shown as written", "{unknown}", "{unknown}"},
		{"condition on unknown variable", "{?unknown x}{!unknown y}", "y"},
		{"brace in text", "a } b", "a } b"},

		// Broken templates render literally, with any valid forms inside
		// still filled in.
		{"lone open", "{", "{"},
		{"open question", "{?", "{?"},
		{"unclosed condition", "{?x", "{?x"},
		{"unclosed condition with body", "{?session {role}", "{?session coder"},
		{"close then open", "}{", "}{"},
		{"unknown colour", "{color.nope}", "{color.nope}"},
		{"colour without a name", "{color.}", "{color.}"},
		{"empty braces", "{}", "{}"},
		{"doubled braces", "{{role}}", "{coder}"},
		{"space in name", "{ role}", "{ role}"},
		{"condition without a name", "{? x}", "{? x}"},
		{"condition name with a dash", "{?a-b x}", "{?a-b x}"},
		{"condition without a space", "{?role:x}", "{?role:x}"},
		{"unknown sigil", "{#role}", "{#role}"},
		{"broken pair around a valid form", "{x {role} y}", "{x coder y}"},
		{"stray close inside body ends it", "{?role a}b}", "ab}"},
		{"unbalanced inside body", "{?role a{b}", "{?role a{b}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, color := range []bool{false, true} {
				if got := Parse(tt.src).Render(v, color); got != tt.want {
					t.Errorf("Parse(%q).Render(color=%v) = %q, want %q", tt.src, color, got, tt.want)
				}
			}
		})
	}
}

func TestEmptySettingMeansTheDefault(t *testing.T) {
	v := vars("session=work", "reasoning_effort=high")
	if got, want := Left("").Render(v, true), Parse(DefaultLeft).Render(v, true); got != want {
		t.Errorf("Left(\"\") = %q, want the default %q", got, want)
	}
	if got, want := Right("").Render(v, true), Parse(DefaultRight).Render(v, true); got != want {
		t.Errorf("Right(\"\") = %q, want the default %q", got, want)
	}
	if got := Left("{model}$ ").Render(v, true); got != "openai:gpt-4o$ " {
		t.Errorf("Left(custom) = %q", got)
	}
	if got := Right("{session}").Render(v, true); got != "work" {
		t.Errorf("Right(custom) = %q", got)
	}
}

func TestUses(t *testing.T) {
	tests := []struct {
		tmpl *Template
		name string
		want bool
	}{
		{Parse("{user_messages_len}"), "user_messages_len", true},
		{Parse("{?session {?dirty *}}"), "dirty", true},
		{Parse("{!rag none}"), "rag", true},
		{Parse("{model} {session}"), "user_messages_len", false},
		{Parse("user_messages_len {color.red}"), "user_messages_len", false}, // literal text
		{Parse("{user_messages_len"), "user_messages_len", false},            // not a form
		{Right(""), "consume_tokens", true},
		{nil, "model", false},
	}
	for _, tt := range tests {
		if got := tt.tmpl.Uses(tt.name); got != tt.want {
			t.Errorf("Uses(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestNilTemplateRendersNothing(t *testing.T) {
	var tmpl *Template
	if got := tmpl.Render(vars(), true); got != "" {
		t.Errorf("nil Render = %q", got)
	}
	if got := (&Template{}).Render(vars(), true); got != "" {
		t.Errorf("zero Render = %q", got)
	}
}

func TestRenderDoesNotChangeTheTemplate(t *testing.T) {
	tmpl := Left("")
	a := tmpl.Render(vars("session=a"), true)
	tmpl.Render(vars("agent=b", "rag=c"), false)
	if b := tmpl.Render(vars("session=a"), true); a != b {
		t.Errorf("second render = %q, first %q", b, a)
	}
}

// FuzzParseRender checks that no template, however broken, makes Parse or
// Render panic; that text without braces renders unchanged; that colour
// off emits no escape the template or a value did not contain; and that
// Width can measure the result.
func FuzzParseRender(f *testing.F) {
	for _, s := range []string{
		DefaultLeft, DefaultRight, "", "{", "}", "{?", "{?x", "}{", "{color.nope}", "{unknown}",
		"{?session {?agent {agent}>}", "{{{}}}", "{!a {?b {c}}}}", "{?a }", "日本{model}語\x1b[31m",
		"{color.light_cyan}{?dirty *}", "{?a\x00 b}", "\xff{\xfe}",
	} {
		f.Add(s, "work")
	}
	f.Fuzz(func(t *testing.T, src, value string) {
		v := map[string]string{"model": "c:m", "session": value, "role": value, "unknown": value}
		tmpl := Parse(src)
		plain := tmpl.Render(v, false)
		colored := tmpl.Render(v, true)
		if tmpl.Render(v, false) != plain {
			t.Fatal("rendering twice gave different results")
		}
		if !strings.ContainsAny(src, "{}") && plain != src {
			t.Fatalf("text without braces rendered as %q", plain)
		}
		if !strings.Contains(src, "\x1b") && !strings.Contains(value, "\x1b") && strings.Contains(plain, "\x1b") {
			t.Fatalf("colour off emitted an escape: %q", plain)
		}
		if len(colored) < len(plain) {
			t.Fatalf("colour on is shorter (%q) than off (%q)", colored, plain)
		}
		if w := Width(colored); w < 0 || w > 2*utf8.RuneCountInString(colored) {
			t.Fatalf("Width(%q) = %d", colored, w)
		}
		if Width(colored) != Width(plain) && !strings.Contains(src+value, "\x1b") {
			t.Fatalf("colour changed the width: %q vs %q", colored, plain)
		}
	})
}
