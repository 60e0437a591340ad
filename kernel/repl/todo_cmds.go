package repl

import (
	"errors"
	"strings"
)

// The todo list's commands: .info todo shows the conversation's list,
// .clear todo empties it. The list is the session's when one is active
// (convo.State.Todos).

func (r *REPL) cmdInfoTodo(*call) error {
	if s := r.conv.Todos().Render(); s != "" {
		r.println(s)
		return nil
	}
	r.println("no todos")
	return nil
}

// cmdClear is .clear todo; .clear messages, a command of other programs,
// is pointed to the one that does it here.
func (r *REPL) cmdClear(c *call) error {
	switch arg := strings.TrimSpace(c.raw); arg {
	case "todo":
		if !r.conv.AutoContinue() {
			return errors.New(".clear todo: auto_continue is off for the active role, session or config, so there is no todo list " +
				"(.set auto_continue true turns it on)")
		}
		r.conv.Todos().Clear()
		r.println("Cleared the todo list.")
		return nil
	case "messages":
		return errors.New(".clear messages is not a command: .empty session clears the session's messages")
	default:
		return errors.New("usage: .clear todo")
	}
}
