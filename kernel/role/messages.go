package role

import (
	"strings"

	"github.com/coyote-cli/coyote/sdk/provider"
)

// The markers of few-shot examples in a prompt.
const (
	exampleInput  = "### INPUT:"
	exampleOutput = "### OUTPUT:"
)

// Example is one few-shot pair of a prompt.
type Example struct {
	Input, Output string
}

// Messages returns the messages that send input with this role, with the
// system variables of the running system (see Build).
func (r *Role) Messages(input string) []provider.Message {
	return r.Build([]provider.Part{{Text: input}}, nil)
}

// Build returns the messages that send the user's parts (text, images)
// with this role. The prompt's system variables are expanded first, with
// vars (nil: SystemVars); then:
//   - an empty prompt adds nothing: one user message;
//   - a prompt holding __INPUT__ becomes the user message, the input text
//     put in place of every __INPUT__ (the first text part is used; the
//     other parts follow);
//   - otherwise the prompt is the system message and the input the user
//     message, and "### INPUT:"/"### OUTPUT:" pairs in the prompt become
//     user/assistant messages between the two, the text before the first
//     pair being the system message (none if empty).
func (r *Role) Build(user []provider.Part, vars Vars) []provider.Message {
	prompt := Expand(r.Prompt, vars)
	if prompt == "" {
		return []provider.Message{{Role: provider.RoleUser, Parts: user}}
	}
	if strings.Contains(prompt, InputPlaceholder) {
		parts := make([]provider.Part, 0, len(user)+1)
		done := false
		for _, p := range user {
			if !done && isText(p) {
				p.Text = strings.ReplaceAll(prompt, InputPlaceholder, p.Text)
				done = true
			}
			parts = append(parts, p)
		}
		if !done {
			parts = append([]provider.Part{{Text: strings.ReplaceAll(prompt, InputPlaceholder, "")}}, parts...)
		}
		return []provider.Message{{Role: provider.RoleUser, Parts: parts}}
	}
	system, examples := SplitExamples(prompt)
	msgs := make([]provider.Message, 0, 2+2*len(examples))
	if system != "" {
		msgs = append(msgs, provider.TextMessage(provider.RoleSystem, system))
	}
	for _, e := range examples {
		msgs = append(msgs,
			provider.TextMessage(provider.RoleUser, e.Input),
			provider.TextMessage(provider.RoleAssistant, e.Output))
	}
	return append(msgs, provider.Message{Role: provider.RoleUser, Parts: user})
}

func isText(p provider.Part) bool {
	return p.ImageURL == "" && p.ToolCall == nil && p.ToolResult == nil && p.Reasoning == nil
}

// SplitExamples splits a prompt into the text before its first
// "### INPUT:" (the system prompt, trimmed) and the input/output pairs
// that follow, each trimmed. A prompt whose markers do not pair up (an
// input without an output) is all system prompt, with no examples.
func SplitExamples(prompt string) (string, []Example) {
	i := strings.Index(prompt, exampleInput)
	if i < 0 {
		return strings.TrimSpace(prompt), nil
	}
	system := prompt[:i]
	rest := prompt[i+len(exampleInput):]
	var examples []Example
	for {
		o := strings.Index(rest, exampleOutput)
		if o < 0 {
			return strings.TrimSpace(prompt), nil
		}
		in := rest[:o]
		rest = rest[o+len(exampleOutput):]
		out := rest
		next := strings.Index(rest, exampleInput)
		if next >= 0 {
			out, rest = rest[:next], rest[next+len(exampleInput):]
		}
		examples = append(examples, Example{strings.TrimSpace(in), strings.TrimSpace(out)})
		if next < 0 {
			return strings.TrimSpace(system), examples
		}
	}
}
