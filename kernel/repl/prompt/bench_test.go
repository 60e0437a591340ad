package prompt

import "testing"

var sink string

func benchVars() map[string]string {
	return map[string]string{
		"model": "openai:gpt-4o", "client_name": "openai", "model_name": "gpt-4o",
		"max_input_tokens": "128000", "temperature": "0.2", "top_p": "", "dry_run": "",
		"stream": "true", "save": "true", "wrap": "auto", "role": "coder", "session": "work",
		"dirty": "true", "agent": "", "rag": "docs", "reasoning_effort": "high",
		"consume_tokens": "1200", "consume_percent": "1", "user_messages_len": "4",
	}
}

func BenchmarkRenderDefaultLeft(b *testing.B) {
	tmpl, v := Left(""), benchVars()
	b.ReportAllocs()
	for b.Loop() {
		sink = tmpl.Render(v, true)
	}
}

func BenchmarkRenderDefaultRight(b *testing.B) {
	tmpl, v := Right(""), benchVars()
	b.ReportAllocs()
	for b.Loop() {
		sink = tmpl.Render(v, true)
	}
}

func BenchmarkParseDefaultLeft(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = Parse(DefaultLeft)
	}
}

func BenchmarkWidthDefaultLeft(b *testing.B) {
	s := Left("").Render(benchVars(), true)
	b.ReportAllocs()
	var n int
	for b.Loop() {
		n += Width(s)
	}
	_ = n
}
