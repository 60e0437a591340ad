package repl

import (
	"context"
	"fmt"
	"strings"
)

// State is what is active in the REPL, as flags: commands are offered,
// and allowed, by it.
type State uint

const (
	StRole         State = 1 << iota // a role is active
	StSession                        // a session is active (empty or not)
	StNonEmpty                       // the active session has messages
	StAgent                          // an agent is active
	StRAG                            // a RAG is active
	StFunctionCall                   // the model may call functions
	StReasoning                      // the model has reasoning levels
)

// names of the states, for "needs" messages.
var stateNames = []struct {
	s    State
	need string
	not  string
}{
	{StRole, "an active role (.role NAME)", "no active role (.exit role first)"},
	{StSession, "an active session (.session NAME)", "no active session (.exit session first)"},
	{StNonEmpty, "a session with messages", "an empty session"},
	{StAgent, "an active agent", "no active agent (.exit agent first)"},
	{StRAG, "an active RAG (.rag NAME)", "no active RAG (.exit rag first)"},
	{StFunctionCall, "a model with function calling (function_calling_support: true)", "function calling off"},
	{StReasoning, "a model with reasoning levels", "a model without reasoning levels"},
}

// call is one use of a command.
type call struct {
	ctx  context.Context
	args []string // the arguments, split with the original's quoting rules
	raw  string   // the arguments as typed, for commands that take text
}

// Command is a built-in REPL command.
type Command struct {
	// Name is the command as typed: ".model", or two words as in
	// ".info role".
	Name string
	// Args is the usage of the arguments, as in "<name> [text]".
	Args string
	Help string
	// Need are the states that must all hold; Not those that must not.
	// They decide both where the command is offered (completion, .help)
	// and where it runs.
	Need, Not State
	// Complete offers the argument after the completed ones (done); nil
	// offers nothing.
	Complete func(r *REPL, done []string) []Candidate
	run      func(r *REPL, c *call) error
}

// offered reports whether the command applies in state s.
func (c *Command) offered(s State) bool { return s&c.Need == c.Need && s&c.Not == 0 }

// guard returns the one-line error for using c in state s, or nil.
func (c *Command) guard(s State) error {
	for _, n := range stateNames {
		if c.Need&n.s != 0 && s&n.s == 0 {
			return fmt.Errorf("%s needs %s", c.Name, n.need)
		}
		if c.Not&n.s != 0 && s&n.s != 0 {
			return fmt.Errorf("%s needs %s", c.Name, n.not)
		}
	}
	return nil
}

// Registry is the one list of built-in commands, used by dispatch, .help
// and completion.
type Registry struct {
	cmds   []*Command
	byName map[string]*Command
}

// newRegistry indexes commands.
func newRegistry(cmds []*Command) *Registry {
	r := &Registry{cmds: cmds, byName: make(map[string]*Command, len(cmds))}
	for _, c := range cmds {
		if _, dup := r.byName[c.Name]; dup {
			panic("repl: command registered twice: " + c.Name) // a programming error, caught by tests
		}
		r.byName[c.Name] = c
	}
	return r
}

// Lookup finds the command a line starts with: two words (".info role")
// before one (".info"). It returns the command and the rest of the line.
func (r *Registry) Lookup(line string) (*Command, string, bool) {
	first, rest := splitCommand(line)
	if second, after := splitCommand(rest); second != "" {
		if c, ok := r.byName[first+" "+second]; ok {
			return c, after, true
		}
	}
	c, ok := r.byName[first]
	return c, rest, ok
}

// Offered lists the commands that apply in state s, in registry order.
func (r *Registry) Offered(s State) []*Command {
	var out []*Command
	for _, c := range r.cmds {
		if c.offered(s) {
			out = append(out, c)
		}
	}
	return out
}

// help writes the commands offered in state s, one per line, with their
// arguments and description.
func (r *Registry) help(s State) string {
	var b strings.Builder
	cmds := r.Offered(s)
	const maxWidth = 30 // longer usages get their description on the next line
	width := 0
	for _, c := range cmds {
		if u := len(usage(c)); u <= maxWidth {
			width = max(width, u)
		}
	}
	for _, c := range cmds {
		if u := usage(c); len(u) > width {
			fmt.Fprintf(&b, "%s\n%-*s  %s\n", u, width, "", c.Help)
		} else {
			fmt.Fprintf(&b, "%-*s  %s\n", width, u, c.Help)
		}
	}
	b.WriteString("\nType ::: to begin multi-line editing, type ::: to end it.\n")
	b.WriteString("Press Ctrl+O to edit the input in $EDITOR, Ctrl+C to cancel a reply, Ctrl+D to exit.\n")
	b.WriteString("Start a line with ! to run a shell command.\n")
	return b.String()
}

func usage(c *Command) string {
	if c.Args == "" {
		return c.Name
	}
	return c.Name + " " + c.Args
}

// unknownCommand is what an unknown dot-command prints, word for word.
const unknownCommand = `Unknown command. Type ".help" for additional help.`

// IsCommand reports whether name (without its dot) is the first word of a
// built-in command: a macro of that name runs only as .macro NAME.
func IsCommand(name string) bool {
	for _, c := range commands() {
		if first, _, _ := strings.Cut(c.Name, " "); first == "."+name {
			return true
		}
	}
	return false
}
