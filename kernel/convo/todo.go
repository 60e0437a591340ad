package convo

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/coyote-cli/coyote/kernel/chat"
	"github.com/coyote-cli/coyote/kernel/models"
	"github.com/coyote-cli/coyote/kernel/todo"
	"github.com/coyote-cli/coyote/kernel/tools"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// The todo loop. When auto_continue is on for the role-like in force
// (session, agent, role, global; see config.Resolve), the model is given
// the todo functions and told how to use them, and after a turn that
// leaves items open the conversation sends the continuation prompt with
// the list as the next input, as a turn of its own, until every item is
// done, max_auto_continues continuations were sent, a continuation
// repeats the previous reply without changing the list, or the user
// cancels (Ctrl-C keeps the turns already recorded).

// Todos is the conversation's todo list: the session's when one is
// active, else the conversation's own, which lasts across the turns of a
// REPL.
func (s *State) Todos() *todo.List {
	if s.Session != nil {
		return s.Session.Todos()
	}
	if s.todos == nil {
		s.todos = new(todo.List)
	}
	return s.todos
}

// AutoContinue reports whether auto_continue resolves true: the todo
// functions are offered and the todo loop runs.
func (s *State) AutoContinue() bool {
	if s.d.Config == nil {
		return false
	}
	on, _ := s.d.Config.Resolve("auto_continue", s.Layers()).V.(bool)
	return on
}

// todoFuncs are the todo functions to offer: none unless auto_continue
// is on.
func (s *State) todoFuncs() []*tools.Func {
	if !s.AutoContinue() {
		return nil
	}
	return todo.Funcs(s.Todos())
}

// todoInstructions are the todo instructions for the system prompt when
// auto_continue is on, function calling is on and inject_todo_instructions
// is not false; "" otherwise.
func (s *State) todoInstructions() string {
	cfg := s.d.Config
	if !s.AutoContinue() || !cfg.Bool("function_calling_support") {
		return ""
	}
	if inject, ok := cfg.Resolve("inject_todo_instructions", s.Layers()).V.(bool); ok && !inject {
		return ""
	}
	return todo.Instructions
}

// continueTodos is the todo loop, after the turn Run made (its request
// req, sent in full, and its reply and error) with the model m on p. It
// returns the last reply.
func (s *State) continueTodos(ctx context.Context, a Ask, p chat.Chatter, m models.Model, req *provider.ChatRequest, reply *chat.Reply,
	err error) (*chat.Reply, error) {
	if err != nil || a.DryRun != nil || !s.AutoContinue() || s.Todos().Open() == 0 {
		return reply, err
	}
	cfg := s.d.Config
	limit := int64(10)
	if n, ok := cfg.Resolve("max_auto_continues", s.Layers()).V.(int64); ok {
		limit = n
	}
	prompt, _ := cfg.Resolve("continuation_prompt", s.Layers()).V.(string)
	if strings.TrimSpace(prompt) == "" {
		prompt = todo.ContinuationPrompt
	}
	// Without a session nothing keeps the conversation between turns, so
	// the loop does: each continuation is sent after the turns before it.
	var history []provider.Message
	if s.Session == nil {
		history = turnHistory(req.Messages, a.Prefix, reply)
	}
	for n := int64(1); ; n++ {
		list := s.Todos()
		open := list.Open()
		switch {
		case open == 0:
			return reply, nil
		case n > limit:
			still := fmt.Sprintf("%d todos are", open)
			if open == 1 {
				still = "1 todo is"
			}
			s.d.Warn(fmt.Sprintf("auto-continue stopped after max_auto_continues (%d) continuations; %s still open", limit, still))
			return reply, nil
		case ctx.Err() != nil:
			return reply, ctx.Err()
		}
		if a.Continuing != nil {
			a.Continuing(int(n), int(limit), open)
		}
		before := list.Version()
		text := prompt + "\n\n" + list.Render()
		next, hist, err := s.continuation(ctx, a, p, m, history, text)
		if err != nil {
			return next, err
		}
		history = hist
		if strings.TrimSpace(next.Text) == strings.TrimSpace(reply.Text) && list.Version() == before {
			s.d.Warn("auto-continue stopped: the reply repeated the previous one and the todo list did not change")
			return next, nil
		}
		reply = next
	}
}

// continuation sends one continuation as a turn: recorded in the session
// like any turn (or, without one, sent after history and remembered for
// .continue and messages.md). It returns the reply and, without a
// session, the history with this turn added.
func (s *State) continuation(ctx context.Context, a Ask, p chat.Chatter, m models.Model, history []provider.Message,
	text string) (*chat.Reply, []provider.Message, error) {
	parts := []provider.Part{{Text: text}}
	req, added := s.Request(parts, a.Stream)
	if s.Session == nil {
		added = []provider.Message{{Role: provider.RoleUser, Parts: parts}}
		req.Messages = append(slices.Clip(history), added...)
	}
	reply, added, err := s.Turn(ctx, p, m, req, added, a.Display)
	if err = s.Finish(ctx, p, parts, added, reply, err); err != nil {
		return reply, nil, err
	}
	if s.Session != nil {
		return reply, nil, nil
	}
	if s.d.Config.Bool("save") {
		s.appendMessages(text, reply)
	}
	return reply, append(req.Messages, reply.Message()), nil
}

// turnHistory is the conversation a turn leaves when no session keeps
// it: what was sent (with the tool rounds) and the reply. The .continue
// prefix, sent as the last message, is left out: the reply starts with
// it.
func turnHistory(sent []provider.Message, prefix *chat.Reply, reply *chat.Reply) []provider.Message {
	sent = slices.Clone(sent)
	if n := len(sent); prefix != nil && n > 0 && sent[n-1].Role == provider.RoleAssistant && sent[n-1].Text() == prefix.Text {
		sent = sent[:n-1]
	}
	return append(sent, reply.Message())
}

// openTodos says how many todos are open: "1 open todo", "3 open todos".
func openTodos(n int) string {
	if n == 1 {
		return "1 open todo"
	}
	return fmt.Sprintf("%d open todos", n)
}

// ContinuingLine is an Ask.Continuing that writes one line to w (the
// standard error of the CLI and the REPL) before each continuation:
// "auto-continuing (3/10): 2 open todos".
func ContinuingLine(w io.Writer) func(n, limit, open int) {
	return func(n, limit, open int) {
		fmt.Fprintf(w, "auto-continuing (%d/%d): %s\n", n, limit, openTodos(open))
	}
}
