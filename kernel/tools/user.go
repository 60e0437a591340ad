package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/coyote-cli/coyote/kernel/termtext"
)

// Asker puts a question to the person at the terminal.
type Asker interface {
	// Line shows prompt and returns the line typed, without its end.
	Line(prompt string) (string, error)
	// Say shows text.
	Say(text string)
}

// UserFuncs are the built-in functions that ask the user: user__select,
// user__confirm, user__input and user__checkbox. With a nil Asker (no
// terminal) they answer with a "needs a human" result the model can
// pass on.
func UserFuncs(ask Asker) []*Func {
	q := `"question":{"type":"string","description":"The question to ask, in full."}`
	opts := `"options":{"type":"array","items":{"type":"string"},"description":"The choices to offer."}`
	obj := func(props string, required ...string) json.RawMessage {
		req, _ := json.Marshal(required)
		return json.RawMessage(`{"type":"object","properties":{` + props + `},"required":` + string(req) + `}`)
	}
	mk := func(name, desc string, params json.RawMessage, fn func(Asker, userArgs) (any, error)) *Func {
		action := strings.TrimPrefix(name, "user__")
		return &Func{
			Name: name, Description: desc, Parameters: params, Source: "builtin", Builtin: true, Serial: true,
			Call: func(ctx context.Context, raw json.RawMessage) (string, error) {
				var a userArgs
				if err := json.Unmarshal(raw, &a); err != nil {
					return "", fmt.Errorf("invalid arguments: %v", err)
				}
				if strings.TrimSpace(a.Question) == "" {
					return "", errors.New("the question is empty")
				}
				if ask == nil {
					return needsHuman(action, a), nil
				}
				var (
					v   any
					err error
				)
				if q, ok := ask.(Questioner); ok {
					v, err = q.Question(ctx, action, a.Question, a.Options, func(in Asker) (any, error) { return fn(in, a) })
				} else {
					v, err = fn(ask, a)
				}
				var na *NoAnswer
				if errors.As(err, &na) {
					return noAnswer(action, a, na.Guidance), nil
				}
				if err != nil {
					return "", err
				}
				b, err := json.Marshal(map[string]any{"answer": v})
				return string(b), err
			},
		}
	}
	return []*Func{
		mk("user__select", "Ask the user to choose one of several options (they may also type their own answer).", obj(q+","+opts, "question", "options"), askSelect),
		mk("user__confirm", "Ask the user a yes/no question.", obj(q, "question"), askConfirm),
		mk("user__input", "Ask the user for free-form text.", obj(q, "question"), askInput),
		mk("user__checkbox", "Ask the user to choose any number of options.", obj(q+","+opts, "question", "options"), askCheckbox),
	}
}

// Questioner is an Asker that puts each whole question itself: ask runs
// the function's dialogue on the Asker it is given. A sub-agent's
// questions go to the root's user this way (one question at a time, with
// a timeout) or to its parent agent.
type Questioner interface {
	Asker
	Question(ctx context.Context, action, question string, options []string, ask func(Asker) (any, error)) (any, error)
}

// NoAnswer is a question nobody answered (in time); Guidance tells the
// model how to go on.
type NoAnswer struct{ Guidance string }

func (e *NoAnswer) Error() string { return "no answer: " + e.Guidance }

// noAnswer is the result of a question nobody answered in time.
func noAnswer(action string, a userArgs, guidance string) string {
	m := map[string]any{"answered": false, "action": action, "question": a.Question, "guidance": guidance}
	if len(a.Options) > 0 {
		m["options"] = a.Options
	}
	b, _ := json.Marshal(m)
	return string(b)
}

type userArgs struct {
	Question string   `json:"question"`
	Options  []string `json:"options"`
}

// needsHuman is the answer when nobody can be asked.
func needsHuman(action string, a userArgs) string {
	m := map[string]any{
		"needs_human": true,
		"action":      action,
		"question":    a.Question,
		"guidance":    "No one can answer right now (there is no terminal). Say what you need from the user in your reply and stop, or carry on with a reasonable assumption and state it.",
	}
	if len(a.Options) > 0 {
		m["options"] = a.Options
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func listOptions(ask Asker, question string, options []string, extra string) {
	var b strings.Builder
	b.WriteString(question + "\n")
	for i, o := range options {
		fmt.Fprintf(&b, "  %d) %s\n", i+1, o)
	}
	if extra != "" {
		fmt.Fprintf(&b, "  %d) %s\n", len(options)+1, extra)
	}
	ask.Say(b.String())
}

func askSelect(ask Asker, a userArgs) (any, error) {
	if len(a.Options) == 0 {
		return nil, errors.New("user__select needs options")
	}
	listOptions(ask, a.Question, a.Options, "Something else (type it)")
	for {
		line, err := ask.Line("Choose a number: ")
		if err != nil {
			return nil, err
		}
		n, err := strconv.Atoi(strings.TrimSpace(line))
		switch {
		case err == nil && n >= 1 && n <= len(a.Options):
			return a.Options[n-1], nil
		case err == nil && n == len(a.Options)+1:
			return ask.Line("Your answer: ")
		}
		ask.Say(fmt.Sprintf("Type a number from 1 to %d.\n", len(a.Options)+1))
	}
}

func askConfirm(ask Asker, a userArgs) (any, error) {
	for {
		line, err := ask.Line(a.Question + " [y/n] ")
		if err != nil {
			return nil, err
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return true, nil
		case "n", "no":
			return false, nil
		}
	}
}

func askInput(ask Asker, a userArgs) (any, error) {
	return ask.Line(a.Question + "\n> ")
}

func askCheckbox(ask Asker, a userArgs) (any, error) {
	if len(a.Options) == 0 {
		return nil, errors.New("user__checkbox needs options")
	}
	listOptions(ask, a.Question, a.Options, "")
	for {
		line, err := ask.Line("Choose numbers separated by spaces (empty for none): ")
		if err != nil {
			return nil, err
		}
		picked := []string{}
		ok := true
		for _, f := range strings.Fields(strings.ReplaceAll(line, ",", " ")) {
			n, err := strconv.Atoi(f)
			if err != nil || n < 1 || n > len(a.Options) {
				ok = false
				break
			}
			picked = append(picked, a.Options[n-1])
		}
		if ok {
			return picked, nil
		}
		ask.Say(fmt.Sprintf("Type numbers from 1 to %d.\n", len(a.Options)))
	}
}

// TerminalAsker asks on a terminal's input and output. It reads one byte
// at a time, so nothing typed after the answer is taken from the line
// editor that reads next. The model writes the questions and options, so
// their control characters are removed before they reach the terminal
// (termtext.Strip): a question cannot erase or rewrite what is shown.
type TerminalAsker struct {
	In  io.Reader
	Out io.Writer
}

// Line implements Asker.
func (t TerminalAsker) Line(prompt string) (string, error) {
	fmt.Fprint(t.Out, termtext.Strip(prompt))
	var b []byte
	buf := make([]byte, 1)
	for {
		n, err := t.In.Read(buf)
		if n == 1 {
			if buf[0] == '\n' {
				return strings.TrimSuffix(string(b), "\r"), nil
			}
			b = append(b, buf[0])
		}
		if err != nil {
			if errors.Is(err, io.EOF) && len(b) > 0 {
				return string(b), nil
			}
			return "", err
		}
	}
}

// Say implements Asker.
func (t TerminalAsker) Say(text string) { fmt.Fprint(t.Out, termtext.Strip(text)) }
