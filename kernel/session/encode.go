package session

import (
	"math"
	"strconv"
	"strings"
)

// encode writes a session file: the settings that are set, in the
// original's order, the todo list unless it is empty, then the keys this
// package does not know, then compressed_messages, messages and
// data_urls.
func encode(fd *fileData) []byte {
	w := &writer{b: make([]byte, 0, estimateSize(fd))}
	s := &fd.settings
	w.key(0, "model")
	w.str(0, s.Model)
	w.optFloat("temperature", s.Temperature)
	w.optFloat("top_p", s.TopP)
	w.optStr("reasoning_effort", s.ReasoningEffort)
	w.list("enabled_tools", s.EnabledTools)
	w.list("enabled_mcp_servers", s.EnabledMCPServers)
	w.optBool("skills_enabled", s.SkillsEnabled)
	w.list("enabled_skills", s.EnabledSkills)
	w.list("enabled_macros", s.EnabledMacros)
	w.optBool("save_session", s.SaveSession)
	w.optInt("compression_threshold", s.CompressionThreshold)
	w.optBool("auto_continue", s.AutoContinue)
	w.optInt("max_auto_continues", s.MaxAutoContinues)
	w.optBool("inject_todo_instructions", s.InjectTodoInstructions)
	w.optStr("continuation_prompt", s.ContinuationPrompt)
	w.optBool("inject_skill_instructions", s.InjectSkillInstructions)
	w.optStr("skill_instructions", s.SkillInstructions)
	w.optBool("memory", s.Memory)
	w.optStr("role_name", s.RoleName)
	if len(s.AgentVariables) > 0 {
		w.key(0, "agent_variables")
		w.b = append(w.b, '\n')
		for _, v := range s.AgentVariables {
			w.key(2, v.Name)
			w.str(2, v.Value)
		}
	}
	if s.AgentInstructions != "" {
		w.key(0, "agent_instructions")
		w.str(0, s.AgentInstructions)
	}
	w.todoList(fd.todos, &fd.todoExtra)
	w.fields(0, fd.extra)
	if len(fd.compressed) > 0 {
		w.key(0, "compressed_messages")
		w.entries(fd.compressed)
	}
	w.key(0, "messages")
	w.entries(fd.messages)
	if len(fd.dataURLs) > 0 {
		w.key(0, "data_urls")
		w.b = append(w.b, '\n')
		for _, u := range fd.dataURLs {
			w.key(2, u.sha)
			w.str(2, u.path)
		}
	}
	return w.b
}

// estimateSize guesses the file's size, to allocate the buffer once.
func estimateSize(fd *fileData) int {
	n := 1024
	for _, list := range [][]entry{fd.compressed, fd.messages} {
		for i := range list {
			e := &list[i]
			n += 40 + len(e.text) + len(e.text)/16
			for _, p := range e.parts {
				n += 40 + len(p.text) + len(p.url)
			}
			if e.calls != nil {
				n += len(e.calls.text)
				for _, r := range e.calls.results {
					n += 120 + len(r.outputText)*9/8 + len(r.call.argsText)*9/8
				}
			}
		}
	}
	return n
}

func (w *writer) optFloat(k string, f *float64) {
	if f == nil {
		return
	}
	w.key(0, k)
	w.b = append(w.b, ' ')
	w.b = appendFloat(w.b, *f)
	w.b = append(w.b, '\n')
}

// appendFloat writes a float so that it reads back as a float: 1 is
// written 1.0, as the original writes it.
func appendFloat(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, ".nan"...)
	case math.IsInf(f, 1):
		return append(b, ".inf"...)
	case math.IsInf(f, -1):
		return append(b, "-.inf"...)
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, 'g', -1, 64)
	if !strings.ContainsAny(string(b[start:]), ".e") {
		b = append(b, ".0"...)
	}
	return b
}

func (w *writer) optInt(k string, i *int64) {
	if i == nil {
		return
	}
	w.key(0, k)
	w.b = append(w.b, ' ')
	w.b = strconv.AppendInt(w.b, *i, 10)
	w.b = append(w.b, '\n')
}

func (w *writer) optBool(k string, v *bool) {
	if v == nil {
		return
	}
	w.key(0, k)
	w.b = append(w.b, ' ')
	w.b = strconv.AppendBool(w.b, *v)
	w.b = append(w.b, '\n')
}

func (w *writer) optStr(k string, s *string) {
	if s == nil {
		return
	}
	w.key(0, k)
	w.str(0, *s)
}

func (w *writer) list(k string, l []string) {
	if l == nil {
		return
	}
	w.key(0, k)
	if len(l) == 0 {
		w.b = append(w.b, " []\n"...)
		return
	}
	w.b = append(w.b, '\n')
	for _, s := range l {
		w.b = append(w.b, '-')
		w.str(0, s)
	}
}

// fields writes unknown keys at column col.
func (w *writer) fields(col int, fs []field) {
	for _, f := range fs {
		w.key(col, f.key)
		w.valueAfterKey(col, f.val)
	}
}

// entries writes a list of messages under a top-level key.
func (w *writer) entries(list []entry) {
	if len(list) == 0 {
		w.b = append(w.b, " []\n"...)
		return
	}
	w.b = append(w.b, '\n')
	for i := range list {
		e := &list[i]
		w.b = append(w.b, "- role:"...)
		w.str(2, e.role)
		w.b = append(w.b, "  content:"...)
		switch e.kind {
		case textContent:
			w.str(2, e.text)
		case partsContent:
			w.parts(e.parts)
		case callsContent:
			w.toolCalls(e.calls)
		}
		if len(e.thinking) > 0 {
			w.key(2, "thinking")
			w.thinking(2, e.thinking)
		}
		w.fields(2, e.extra)
	}
}

// parts writes a list content under "  content:".
func (w *writer) parts(ps []part) {
	if len(ps) == 0 {
		w.b = append(w.b, " []\n"...)
		return
	}
	w.b = append(w.b, '\n')
	for i := range ps {
		p := &ps[i]
		w.indent(2)
		if p.raw != nil {
			w.b = append(w.b, '-')
			w.valueAfterDash(2, p.raw)
			continue
		}
		w.b = append(w.b, "- type:"...)
		w.str(4, p.typ)
		switch p.typ {
		case "text":
			w.key(4, "text")
			w.str(4, p.text)
		case "image_url":
			w.key(4, "image_url")
			w.b = append(w.b, '\n')
			w.key(6, "url")
			w.str(6, p.url)
			w.fields(6, p.urlExtra)
		}
		w.fields(4, p.extra)
	}
}

// toolCalls writes a tool-calls content under "  content:".
func (w *writer) toolCalls(tc *toolCalls) {
	w.b = append(w.b, '\n')
	w.key(4, "tool_results")
	if len(tc.results) == 0 {
		w.b = append(w.b, " []\n"...)
	} else {
		w.b = append(w.b, '\n')
	}
	for i := range tc.results {
		r := &tc.results[i]
		w.indent(4)
		w.b = append(w.b, "- call:\n"...)
		c := &r.call
		w.key(8, "name")
		w.str(8, c.name)
		w.key(8, "arguments")
		w.valueAfterKey(8, c.args)
		w.key(8, "id")
		if c.id == "" {
			w.b = append(w.b, " null\n"...)
		} else {
			w.str(8, c.id)
		}
		if c.signature != "" {
			w.key(8, "thought_signature")
			w.str(8, c.signature)
		}
		w.fields(8, c.extra)
		w.key(6, "output")
		w.valueAfterKey(6, r.output)
		if r.text != nil {
			w.key(6, "text")
			w.str(6, *r.text)
		}
		if len(r.thinking) > 0 {
			w.key(6, "thinking")
			w.thinking(6, r.thinking)
		}
		if r.isError {
			w.key(6, "is_error")
			w.b = append(w.b, " true\n"...)
		}
		w.fields(6, r.extra)
	}
	w.key(4, "text")
	w.str(4, tc.text)
	w.key(4, "sequence")
	w.b = append(w.b, ' ')
	w.b = strconv.AppendBool(w.b, tc.sequence)
	w.b = append(w.b, '\n')
	w.fields(4, tc.extra)
}

// thinking writes thinking blocks after "key:" at column col.
func (w *writer) thinking(col int, blocks []thinkingBlock) {
	w.b = append(w.b, '\n')
	for i := range blocks {
		b := &blocks[i]
		w.indent(col)
		w.b = append(w.b, '-')
		if b.raw != nil {
			w.valueAfterDash(col, b.raw)
			continue
		}
		w.b = append(w.b, " type:"...)
		w.str(col+2, b.typ)
		if b.typ == typeRedacted {
			w.key(col+2, "data")
			w.str(col+2, b.data)
		} else {
			w.key(col+2, "thinking")
			w.str(col+2, b.thinking)
			w.key(col+2, "signature")
			w.str(col+2, b.signature)
		}
		w.fields(col+2, b.extra)
	}
}
