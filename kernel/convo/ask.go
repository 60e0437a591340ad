package convo

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/coyote-cli/coyote/kernel/chat"
	"github.com/coyote-cli/coyote/kernel/llm"
	"github.com/coyote-cli/coyote/kernel/redact"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// Ask is one turn of a conversation, whoever asks for it: the one-shot
// command line, the REPL, a macro step (and next the headless mode, the
// ACP server and agents). Its callers gather the input and say how the
// reply is shown; Run does the rest, in the same order for all of them.
type Ask struct {
	// Parts are the input: the text and the documents read for it.
	Parts []provider.Part
	// Text is the input as typed, recorded in messages.md when save is on
	// and there is no session ("" records nothing).
	Text string
	// Stream asks for the reply as it is written.
	Stream bool
	// Prefix is an assistant reply the model continues (.continue): it is
	// sent as the last message, and the new reply is appended to it. The
	// session must not hold the exchange being continued (undo it first):
	// Run records the input with the whole reply.
	Prefix *chat.Reply
	// Display shows the reply; it is called once per model call (a turn
	// with tool calls makes several).
	Display func() chat.Display
	// DryRun, when set, receives the messages that would be sent, and
	// nothing is sent (no plugin starts, no RAG is searched).
	DryRun io.Writer
	// Connect, when set, is a connection the caller started early (a
	// one-shot starts the plugin while it reads its input); else Run
	// connects.
	Connect func(context.Context) (llm.Bound, error)
	// Continuing, when set, is told before each continuation of the todo
	// loop (todo.go): the continuation's number, max_auto_continues and
	// how many items are open.
	Continuing func(n, limit, open int)
}

// Run runs a turn: the active RAG adds its passages, the request is built
// from the role, session and settings, the model answers (tool calls are
// run and answered until it stops calling), and the exchange is recorded
// (Finish: the session, compressed and named as needed, or the last
// exchange for .continue and .regenerate; messages.md with save on). With
// auto_continue on, the todo loop then goes on while todos are open
// (todo.go). It returns the last reply, also the part that arrived when
// the turn failed or was cancelled (nil on a dry run). Saving a session's
// file is the caller's: a one-shot saves at its end, the REPL at .exit.
func (s *State) Run(ctx context.Context, a Ask) (*chat.Reply, error) {
	defer s.endSkillTurn() // skill.go: auto_unload skills end with the turn
	req, added, parts, err := s.Prepare(ctx, a)
	if err != nil {
		return nil, err
	}
	if a.DryRun != nil {
		return nil, chat.PrintMessages(redact.Writer(a.DryRun), req.Messages)
	}
	connect := a.Connect
	if connect == nil {
		connect = s.Connect
	}
	bound, err := connect(ctx)
	if err != nil {
		return nil, err
	}
	reply, added, err := s.Turn(ctx, bound, bound.Model, req, added, a.Display)
	if a.Prefix != nil && reply != nil {
		reply.Text = a.Prefix.Text + reply.Text
	}
	err = s.Finish(ctx, bound, parts, added, reply, err)
	if err == nil && a.Text != "" && s.Session == nil && s.d.Config.Bool("save") {
		s.appendMessages(a.Text, reply)
	}
	reply, err = s.continueTodos(ctx, a, bound, bound.Model, req, reply, err) // todo.go: while todos are open, with auto_continue on
	return s.superviseEnd(ctx, a, bound, bound.Model, req, reply, err)        // subagents.go: collect or cancel the children
}

// Prepare is the first half of Run, for a caller that sends the request
// its own way (-e, whose menu may ask again): the active RAG adds its
// passages to the input (not for .continue, whose input was augmented
// already, nor for a dry run, which searches nothing), and the request is
// built from the role, session and settings, with a's Prefix last. It
// returns the request, the messages it adds to the conversation (Turn and
// Finish take them) and the input as augmented.
func (s *State) Prepare(ctx context.Context, a Ask) (req *provider.ChatRequest, added []provider.Message, parts []provider.Part, err error) {
	parts = a.Parts
	if err := s.checkSkills(); err != nil { // skill.go: enabled_skills naming a skill that is not there
		return nil, nil, nil, err
	}
	if a.Prefix == nil && s.RAG != nil && a.DryRun == nil {
		if parts, err = s.Augment(ctx, parts); err != nil {
			return nil, nil, nil, err
		}
	}
	req, added = s.Request(parts, a.Stream)
	if a.Prefix != nil {
		req.Messages = append(req.Messages, provider.TextMessage(provider.RoleAssistant, a.Prefix.Text))
	}
	return req, added, parts, nil
}

// appendMessages records an exchange in messages.md (save: true, no
// session); a failure is a warning, never the turn's error.
func (s *State) appendMessages(text string, reply *chat.Reply) {
	scope, file := "", s.Paths().MessagesFile
	switch {
	case s.Agent != nil:
		// An agent's exchanges go to its own file in the cache.
		scope, file = "agent:"+s.Agent.Name, filepath.Join(s.Paths().CacheDir, "agents", s.Agent.Name, "messages.md")
	case s.Role != nil:
		scope = "role:" + s.Role.Name
	}
	if err := chat.AppendExchange(file, time.Now(), scope, text, reply); err != nil {
		s.d.Warn(fmt.Sprintf("messages.md: %v", err))
	}
}
