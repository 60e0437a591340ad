package repl

import (
	"slices"
	"strconv"

	"github.com/coyote-cli/coyote/kernel/repl/prompt"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// promptVars are the variables of the prompt templates.
func (r *REPL) promptVars() map[string]string {
	c := r.conv
	cfg := c.Config()
	v := map[string]string{}
	if t, err := c.Target(); err == nil {
		v["model"] = t.ID()
		v["client_name"] = t.Client.Name
		v["model_name"] = t.Model.Name
		if t.Model.MaxInputTokens > 0 {
			v["max_input_tokens"] = strconv.FormatInt(t.Model.MaxInputTokens, 10)
		}
	}
	layers := c.Layers()
	for _, k := range []string{"temperature", "top_p", "reasoning_effort"} {
		if val := cfg.Resolve(k, layers); val.V != nil && !val.Null {
			v[k] = val.Format()
		}
	}
	for _, k := range []string{"dry_run", "stream", "save"} {
		if cfg.Bool(k) {
			v[k] = "true"
		}
	}
	v["wrap"] = cfg.String("wrap")
	if c.Role != nil {
		v["role"] = c.Role.Name
	}
	if c.RAG != nil {
		v["rag"] = c.RAG.Name
	}
	if c.Agent != nil {
		v["agent"] = c.Agent.Name
	}
	if s := c.Session; s != nil {
		v["session"] = s.Name()
		if s.Dirty() {
			v["dirty"] = "true"
		}
		// The last reply's own count when the provider reported one (it
		// is what the model saw), else an estimate.
		tokens := s.Tokens()
		if u, ok := s.LastUsage(); ok && u.ContextTokens > 0 {
			tokens = int(u.ContextTokens)
		}
		v["consume_tokens"] = strconv.Itoa(tokens)
		if max, ok := v["max_input_tokens"]; ok {
			if n, _ := strconv.Atoi(max); n > 0 {
				v["consume_percent"] = strconv.Itoa(tokens * 100 / n)
			}
		}
		if r.countUsers { // it converts every message: only for a template that shows it
			users := 0
			for _, m := range s.Messages() {
				if m.Role == provider.RoleUser {
					users++
				}
			}
			v["user_messages_len"] = strconv.Itoa(users)
		}
	}
	if sp, ok := c.SessionSpend(); ok {
		v["cost"] = sp.CostText()
	} else {
		v["cost"] = c.RunSpend().CostText()
	}
	return v
}

// leftPrompt renders the left prompt.
func (r *REPL) leftPrompt() string {
	return r.left.Render(r.promptVars(), r.color)
}

// drawnPrompt is the prompt of the line being read, rendered once when
// the read starts: the painter runs on every key, and the variables walk
// the whole session.
type drawnPrompt struct {
	right             string
	leftWidth, rightW int
}

// renderPrompts renders both prompts for the next read and returns the
// left one.
func (r *REPL) renderPrompts() string {
	vars := r.promptVars()
	left := r.left.Render(vars, r.color)
	right := r.right.Render(vars, r.color)
	r.drawn = drawnPrompt{right: right, leftWidth: prompt.Width(left), rightW: prompt.Width(right)}
	return left
}

// rightPrompt draws the right prompt at the right edge of the input line
// when there is room: after the typed text it saves the cursor, moves to
// the prompt's column, writes it and restores the cursor, so readline's
// idea of the cursor is unchanged.
type rightPrompt struct{ r *REPL }

func (p rightPrompt) Paint(line []rune, _ int) []rune {
	r := p.r
	text, w := r.drawn.right, r.drawn.rightW
	if w == 0 || r.rl == nil || r.asking || !r.o.IO.IsStdoutTTY() || slices.Contains(line, '\n') {
		return line
	}
	width := r.rl.Terminal.GetConfig().FuncGetWidth() // asks the terminal: only when there is something to draw
	if width <= 0 || r.drawn.leftWidth+prompt.Width(string(line))+w+2 > width {
		return line
	}
	out := make([]rune, 0, len(line)+len(text)+16)
	out = append(out, line...)
	out = append(out, []rune("\x1b7\x1b["+strconv.Itoa(width-w+1)+"G"+text+"\x1b8")...)
	return out
}
