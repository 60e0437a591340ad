package session

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/coyote-cli/coyote/sdk/provider"
)

// Converting between the file's messages and the kernel's.
//
// The original records a turn that called tools as one entry holding every
// round: each tool result with its call, the first round's narration in the
// entry's text, and each later round's narration and thinking on the
// round's first result. The kernel sees it as one assistant message whose
// parts are, round by round, the thinking blocks, the narration and the
// calls, followed by one tool message holding every result. A round starts
// at a result that carries narration or thinking; going back, a round
// starts where narration or thinking follows a call. The Claude plugin
// splits rounds by the same rule, and also where a call repeats an id of
// its round: such a round carries nothing, so the file needs no mark for
// it, and the repeated id is found again on the way out.

// toMessages converts entries to the kernel's messages.
func toMessages(entries []entry, out []provider.Message) []provider.Message {
	for i := range entries {
		out = appendMessages(out, &entries[i])
	}
	return out
}

func appendMessages(out []provider.Message, e *entry) []provider.Message {
	switch e.kind {
	case callsContent:
		return appendCalls(out, e)
	case partsContent:
		m := provider.Message{Role: e.role, Parts: make([]provider.Part, 0, len(e.thinking)+len(e.parts))}
		m.Parts = appendReasoning(m.Parts, e.thinking)
		for _, p := range e.parts {
			switch {
			case p.raw != nil:
				// A part of a type this package does not know stays in the
				// file but cannot be sent.
			case p.typ == "text":
				m.Parts = append(m.Parts, provider.Part{Text: p.text})
			case p.typ == "image_url":
				m.Parts = append(m.Parts, provider.Part{ImageURL: p.url})
			}
		}
		return append(out, m)
	default:
		m := provider.Message{Role: e.role, Parts: make([]provider.Part, 0, len(e.thinking)+1)}
		m.Parts = appendReasoning(m.Parts, e.thinking)
		m.Parts = append(m.Parts, provider.Part{Text: e.text})
		return append(out, m)
	}
}

func appendReasoning(parts []provider.Part, blocks []thinkingBlock) []provider.Part {
	for _, b := range blocks {
		switch b.typ {
		case typeThinking:
			parts = append(parts, provider.Part{Reasoning: &provider.Reasoning{Text: b.thinking, Signature: b.signature}})
		case typeRedacted:
			parts = append(parts, provider.Part{Reasoning: &provider.Reasoning{Redacted: b.data}})
		}
	}
	return parts
}

func appendCalls(out []provider.Message, e *entry) []provider.Message {
	tc := e.calls
	asst := provider.Message{Role: provider.RoleAssistant}
	tool := provider.Message{Role: provider.RoleTool, Parts: make([]provider.Part, 0, len(tc.results))}
	for i := range tc.results {
		r := &tc.results[i]
		if i == 0 || r.text != nil || len(r.thinking) > 0 {
			asst.Parts = appendReasoning(asst.Parts, r.thinking)
			if i == 0 && tc.text != "" {
				asst.Parts = append(asst.Parts, provider.Part{Text: tc.text})
			}
			if r.text != nil {
				asst.Parts = append(asst.Parts, provider.Part{Text: *r.text})
			}
		}
		asst.Parts = append(asst.Parts, provider.Part{ToolCall: &provider.ToolCall{
			ID: r.call.id, Name: r.call.name, Arguments: r.call.argsText, Signature: r.call.signature,
		}})
		tool.Parts = append(tool.Parts, provider.Part{ToolResult: &provider.ToolResult{
			CallID: r.call.id, Name: r.call.name, Content: r.outputText, IsError: r.isError,
		}})
	}
	if len(tc.results) == 0 {
		asst.Parts = append(asst.Parts, provider.Part{Text: tc.text})
		return append(out, asst)
	}
	return append(out, asst, tool)
}

// fromMessages converts the kernel's messages to entries. An assistant
// message with tool calls must come with the tool messages that answer it.
func fromMessages(msgs []provider.Message) ([]entry, error) {
	var out []entry
	for i := 0; i < len(msgs); {
		m := &msgs[i]
		bad := func(format string, args ...any) error {
			return fmt.Errorf("message %d (%s) %s", i+1, m.Role, fmt.Sprintf(format, args...))
		}
		switch {
		case m.Role == provider.RoleAssistant && hasToolCall(m):
			j := i + 1
			for j < len(msgs) && msgs[j].Role == provider.RoleTool {
				j++
			}
			entries, err := callsEntries(m, msgs[i+1:j])
			if err != nil {
				return nil, bad("%v", err)
			}
			out = append(out, entries...)
			i = j
			continue
		case m.Role == provider.RoleTool:
			return nil, bad("answers tool calls, but no assistant message with tool calls comes before it")
		case !knownRole(m.Role):
			return nil, bad("has a role a session cannot hold")
		}
		e, err := plainEntry(m)
		if err != nil {
			return nil, bad("%v", err)
		}
		out = append(out, e)
		i++
	}
	return out, nil
}

func hasToolCall(m *provider.Message) bool {
	for _, p := range m.Parts {
		if p.ToolCall != nil {
			return true
		}
	}
	return false
}

// plainEntry converts a message without tool calls: one text part is a
// text content, anything else a list of parts; reasoning goes to the
// message's thinking.
func plainEntry(m *provider.Message) (entry, error) {
	e := entry{role: m.Role}
	texts, images := 0, 0
	for _, p := range m.Parts {
		switch {
		case p.ToolResult != nil:
			return e, fmt.Errorf("holds a tool result; only tool messages can")
		case p.Reasoning != nil:
			e.thinking = append(e.thinking, blockOf(p.Reasoning))
		case p.ImageURL != "":
			images++
		default:
			texts++
		}
	}
	if images == 0 && texts <= 1 {
		for _, p := range m.Parts {
			if p.Reasoning == nil {
				e.text = p.Text
			}
		}
		return e, nil
	}
	e.kind = partsContent
	e.parts = make([]part, 0, texts+images)
	for _, p := range m.Parts {
		switch {
		case p.Reasoning != nil:
		case p.ImageURL != "":
			e.parts = append(e.parts, part{typ: "image_url", url: p.ImageURL})
		default:
			e.parts = append(e.parts, part{typ: "text", text: p.Text})
		}
	}
	return e, nil
}

func blockOf(r *provider.Reasoning) thinkingBlock {
	if r.Redacted != "" {
		return thinkingBlock{typ: typeRedacted, data: r.Redacted}
	}
	return thinkingBlock{typ: typeThinking, thinking: r.Text, signature: r.Signature}
}

// pooledResult is a tool result waiting for its call.
type pooledResult struct {
	r    *provider.ToolResult
	used bool
}

// callsEntries converts an assistant message with tool calls and the tool
// messages after it into one tool-calls entry, followed by an assistant
// entry when narration or thinking follows the last call.
func callsEntries(m *provider.Message, toolMsgs []provider.Message) ([]entry, error) {
	var pool []pooledResult
	for k := range toolMsgs {
		for _, p := range toolMsgs[k].Parts {
			switch {
			case p.ToolResult != nil:
				pool = append(pool, pooledResult{r: p.ToolResult})
			case p.ImageURL != "" || p.ToolCall != nil || p.Reasoning != nil || strings.TrimSpace(p.Text) != "":
				return nil, fmt.Errorf("is followed by a tool message that holds more than tool results")
			}
		}
	}
	tc := &toolCalls{sequence: true}
	var (
		texts    []string
		thinking []thinkingBlock
		inRound  bool // the current round has a call
	)
	for _, p := range m.Parts {
		switch {
		case p.ToolCall != nil:
			c := p.ToolCall
			if c.Name == "" {
				return nil, fmt.Errorf("holds a tool call without a name")
			}
			r := toolResult{call: toolCall{name: c.Name, id: c.ID, signature: c.Signature}}
			if strings.TrimSpace(c.Arguments) == "" {
				r.call.args = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
				r.call.argsText = "{}"
			} else {
				r.call.args = textValue(c.Arguments)
				r.call.argsText = valueText(r.call.args)
			}
			if !inRound {
				// The first call of a round carries the round's narration
				// and thinking.
				r.thinking = thinking
				if len(tc.results) == 0 {
					if len(texts) > 0 && texts[0] != "" {
						tc.text, texts = texts[0], texts[1:]
					}
				}
				if len(texts) > 0 {
					t := strings.Join(texts, "")
					r.text = &t
				}
				texts, thinking = nil, nil
			}
			res := takeResult(pool, c.ID)
			if res == nil {
				return nil, fmt.Errorf("holds tool call %q (%s), which no tool message answers", c.ID, c.Name)
			}
			r.output = textValue(res.Content)
			r.outputText = valueText(r.output)
			r.isError = res.IsError
			tc.results = append(tc.results, r)
			inRound = true
		case p.ToolResult != nil:
			return nil, fmt.Errorf("holds a tool result; only tool messages can")
		case p.ImageURL != "":
			return nil, fmt.Errorf("holds an image; only user messages can")
		case p.Reasoning != nil:
			inRound = false
			thinking = append(thinking, blockOf(p.Reasoning))
		default:
			inRound = false
			texts = append(texts, p.Text)
		}
	}
	for _, p := range pool {
		if !p.used {
			return nil, fmt.Errorf("is answered by a result for tool call %q, which it did not make", p.r.CallID)
		}
	}
	out := []entry{{role: provider.RoleTool, kind: callsContent, calls: tc}}
	if len(texts) > 0 || len(thinking) > 0 {
		out = append(out, entry{role: provider.RoleAssistant, text: strings.Join(texts, ""), thinking: thinking})
	}
	return out, nil
}

// takeResult returns the first unused result answering call id.
func takeResult(pool []pooledResult, id string) *provider.ToolResult {
	for k := range pool {
		if !pool[k].used && pool[k].r.CallID == id {
			pool[k].used = true
			return pool[k].r
		}
	}
	return nil
}
