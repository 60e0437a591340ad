// Package chat owns one conversation turn as the kernel sees it: it sends a
// request to a provider and renders the reply as it streams in. It does not
// know which provider it talks to, and it does not decide what the request
// contains.
package chat

import (
	"context"
	"io"
	"strings"

	"github.com/coyote-cli/coyote/sdk/provider"
)

// Reply is what the model answered, with everything needed to send it back
// in a later request exactly (thinking signatures, redacted thinking, tool
// call signatures).
type Reply struct {
	Text string
	// Reasoning is all the thinking text, for display.
	Reasoning string
	// Thinking is the thinking as blocks, each with its signature (or a
	// redacted block), in order.
	Thinking     []provider.Reasoning
	ToolCalls    []provider.ToolCall
	Usage        *provider.Usage
	FinishReason string
}

// Message is the reply as an assistant message: thinking blocks, then the
// text, then the tool calls.
func (r *Reply) Message() provider.Message {
	m := provider.Message{Role: provider.RoleAssistant}
	for i := range r.Thinking {
		m.Parts = append(m.Parts, provider.Part{Reasoning: &r.Thinking[i]})
	}
	if r.Text != "" {
		m.Parts = append(m.Parts, provider.Part{Text: r.Text})
	}
	for i := range r.ToolCalls {
		m.Parts = append(m.Parts, provider.Part{ToolCall: &r.ToolCalls[i]})
	}
	return m
}

// addReasoning folds one reasoning event into the thinking blocks: text
// extends the open block, a signature closes it, redacted data is a block
// of its own.
func (r *Reply) addReasoning(ev *provider.Reasoning) {
	open := len(r.Thinking) > 0 && r.Thinking[len(r.Thinking)-1].Signature == "" && r.Thinking[len(r.Thinking)-1].Redacted == ""
	switch {
	case ev.Redacted != "":
		r.Thinking = append(r.Thinking, provider.Reasoning{Redacted: ev.Redacted})
		return
	case !open:
		r.Thinking = append(r.Thinking, provider.Reasoning{})
	}
	last := &r.Thinking[len(r.Thinking)-1]
	last.Text += ev.Text
	last.Signature = ev.Signature
}

// Chatter sends a chat request; llm.Bound and provider.Provider are
// chatters.
type Chatter interface {
	Chat(ctx context.Context, req *provider.ChatRequest, send func(*provider.ChatEvent) error) error
}

// Display shows a reply as it streams in. render.Stream (terminal
// markdown) is one; Plain is the other.
type Display interface {
	Write(delta string) error
	Close() error
}

// ThoughtDisplay is a Display that shows the reasoning apart from the
// text (the ACP server sends it as thought chunks) instead of framed in
// <think> tags.
type ThoughtDisplay interface {
	Display
	Thought(delta string) error
}

// Plain shows a reply as plain text on w, ending with a newline: what pipes
// and files get.
func Plain(w io.Writer) Display { return &plain{w: w} }

// Stream sends req and writes the reply to w as plain text as it arrives.
func Stream(ctx context.Context, p Chatter, req *provider.ChatRequest, w io.Writer) (*Reply, error) {
	return StreamTo(ctx, p, req, Plain(w))
}

// StreamTo sends req and shows the reply on d as it arrives: reasoning
// inside <think>…</think>, then the text. It returns what was received,
// including on error (the part that arrived).
func StreamTo(ctx context.Context, p Chatter, req *provider.ChatRequest, d Display) (*Reply, error) {
	r := &renderer{d: d}
	reply := &Reply{}
	var text, reasoning strings.Builder
	err := p.Chat(ctx, req, func(ev *provider.ChatEvent) error {
		switch {
		case ev.Reasoning != nil:
			reasoning.WriteString(ev.Reasoning.Text)
			reply.addReasoning(ev.Reasoning)
			if ev.Reasoning.Text == "" {
				return nil // a signature alone: nothing to show
			}
			return r.reasoning(ev.Reasoning.Text)
		case ev.ToolCall != nil:
			reply.ToolCalls = append(reply.ToolCalls, *ev.ToolCall)
		case ev.Usage != nil:
			reply.Usage = ev.Usage
		case ev.FinishReason != "":
			reply.FinishReason = ev.FinishReason
		case ev.Text != "":
			text.WriteString(ev.Text)
			return r.text(ev.Text)
		}
		return nil
	})
	reply.Text, reply.Reasoning = text.String(), reasoning.String()
	if ferr := r.finish(); err == nil {
		err = ferr
	}
	return reply, err
}

// renderer frames the reasoning of a reply in <think> tags.
type renderer struct {
	d        Display
	thinking bool
	lastNL   bool
}

func (r *renderer) write(s string) error {
	if s == "" {
		return nil
	}
	r.lastNL = s[len(s)-1] == '\n'
	return r.d.Write(s)
}

func (r *renderer) reasoning(s string) error {
	if t, ok := r.d.(ThoughtDisplay); ok {
		return t.Thought(s) // shown apart: no <think> frame
	}
	if !r.thinking {
		r.thinking = true
		if err := r.write("<think>\n"); err != nil {
			return err
		}
	}
	return r.write(s)
}

func (r *renderer) closeThinking() error {
	if !r.thinking {
		return nil
	}
	r.thinking = false
	end := "\n</think>\n\n"
	if r.lastNL {
		end = "</think>\n\n"
	}
	return r.write(end)
}

func (r *renderer) text(s string) error {
	if err := r.closeThinking(); err != nil {
		return err
	}
	return r.write(s)
}

// finish closes an open think block and the display.
func (r *renderer) finish() error {
	if err := r.closeThinking(); err != nil {
		return err
	}
	return r.d.Close()
}

// plain writes a reply as it comes, ending it with a newline.
type plain struct {
	w      io.Writer
	wrote  bool
	lastNL bool
}

func (p *plain) Write(s string) error {
	if s == "" {
		return nil
	}
	p.wrote, p.lastNL = true, s[len(s)-1] == '\n'
	_, err := io.WriteString(p.w, s)
	return err
}

func (p *plain) Close() error {
	if p.wrote && !p.lastNL {
		return p.Write("\n")
	}
	return nil
}
