package repl

// Commands about the last exchange: .file asks with documents; .continue,
// .regenerate, .recover and .copy act on the last reply.

import (
	"errors"
	"strings"

	"github.com/coyote-cli/coyote/kernel/input"
	"github.com/coyote-cli/coyote/sdk/provider"
)

func (r *REPL) cmdFile(c *call) error {
	srcs, text := c.args, ""
	for i, a := range c.args {
		if a == "--" {
			srcs = c.args[:i]
			_, text, _ = strings.Cut(c.raw, " -- ")
			if strings.HasSuffix(c.raw, " --") {
				text = ""
			}
			break
		}
	}
	if len(srcs) == 0 {
		return errors.New("usage: .file <path>... [-- text]")
	}
	var docs []input.Document
	var rest []string
	for _, s := range srcs {
		if s == "%%" {
			if r.conv.LastReply == nil {
				return errors.New("%% is the last reply, and there is none yet")
			}
			docs = append(docs, input.Document{Name: "last reply", Text: r.conv.LastReply.Text})
			continue
		}
		rest = append(rest, s)
	}
	if len(rest) > 0 {
		loaded, err := input.Load(c.ctx, rest, r.conv.InputOptions())
		if err != nil {
			return err
		}
		docs = append(docs, loaded...)
	}
	return r.ask(c.ctx, input.Parts(docs, text), text)
}

func (r *REPL) cmdContinue(c *call) error {
	if r.conv.LastReply == nil {
		return errors.New("nothing to continue: there is no reply yet")
	}
	last := *r.conv.LastReply
	parts := r.conv.LastInput
	if s := r.conv.Session; s != nil {
		// The session holds the exchange: send it without its reply, and
		// the reply to continue as the assistant's start.
		if _, err := s.Undo(); err != nil {
			return err
		}
		err := r.send(c.ctx, parts, "", &last)
		if err != nil && !s.Interrupted() {
			_ = s.Append(provider.Message{Role: provider.RoleUser, Parts: parts}, last.Message())
		}
		return err
	}
	return r.send(c.ctx, parts, "", &last)
}

func (r *REPL) cmdRegenerate(c *call) error {
	if r.conv.LastInput == nil {
		return errors.New("nothing to regenerate: there is no reply yet")
	}
	if s := r.conv.Session; s != nil {
		if _, err := s.Undo(); err != nil {
			return err
		}
	}
	return r.ask(c.ctx, r.conv.LastInput, "")
}

func (r *REPL) cmdRecover(c *call) error {
	s := r.conv.Session
	if !s.Interrupted() {
		return errors.New("nothing to recover: the last turn of the session finished")
	}
	text, err := s.Undo()
	if err != nil {
		return err
	}
	if c.raw != "" {
		text += "\n\n" + c.raw
	}
	return r.ask(c.ctx, []provider.Part{{Text: text}}, text)
}

func (r *REPL) cmdCopy(*call) error {
	text := ""
	switch {
	case r.conv.LastReply != nil:
		text = r.conv.LastReply.Text
	case r.conv.Session != nil:
		msgs := r.conv.Session.Messages()
		for i := len(msgs) - 1; i >= 0; i-- {
			if msgs[i].Role == provider.RoleAssistant {
				text = messageText(msgs[i])
				break
			}
		}
	}
	if text == "" {
		return errors.New("nothing to copy: there is no reply yet")
	}
	return copyToClipboard(r.out, r.o.Env, text)
}
