package todo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/coyote-cli/coyote/kernel/tools"
)

// Prefix starts the names of the todo functions.
const Prefix = "todo__"

// Instructions tell the model what the todo functions are for and how to
// use them; they are added to the system message when auto_continue is
// on, unless inject_todo_instructions is false.
const Instructions = `## Todo list

For a task that takes several steps, keep a todo list with these functions:

- todo__init(goal): start a new list for the task's goal (this drops any earlier list).
- todo__add(task): add one step; it returns the step's id.
- todo__done(id): mark a step finished, once it really is.
- todo__list(): show the goal and every step with its state.
- todo__clear(): drop the list when the task is abandoned or replaced.

How to use it:
- Plan first: call todo__init, then todo__add once per concrete step, in the order you will do them.
- Work through the steps in order and call todo__done for each as soon as it is finished, not before.
- While steps are open, you will be asked to go on after each reply, with the list attached; continue with the next open step instead of starting over.
- Skip the list for a question you can answer in one reply.`

// ContinuationPrompt is the text sent when a reply leaves open items and
// continuation_prompt is not set; the list follows it.
const ContinuationPrompt = "Some items of your todo list are still open. Carry on with the next open item, " +
	"and mark each one done with todo__done as soon as it is finished. Here is the list:"

// Funcs are the todo functions working on l, as built-ins. They run one
// at a time in call order (a model may start a list and add to it in one
// round), and answer bad arguments with an error the model reads.
func Funcs(l *List) []*tools.Func {
	obj := func(props string, required ...string) json.RawMessage {
		req, _ := json.Marshal(required)
		return json.RawMessage(`{"type":"object","properties":{` + props + `},"required":` + string(req) + `}`)
	}
	mk := func(name, desc string, params json.RawMessage, call func(json.RawMessage) (string, error)) *tools.Func {
		return &tools.Func{
			Name: name, Description: desc, Parameters: params, Source: "builtin", Builtin: true, Serial: true,
			Call: func(_ context.Context, raw json.RawMessage) (string, error) { return call(raw) },
		}
	}
	return []*tools.Func{
		mk("todo__init", "Start a new todo list for a goal, dropping any earlier list.",
			obj(`"goal":{"type":"string","description":"What the whole task must achieve."}`, "goal"),
			func(raw json.RawMessage) (string, error) {
				var a struct{ Goal *string }
				if err := decode(raw, &a); err != nil {
					return "", err
				}
				if a.Goal == nil || strings.TrimSpace(*a.Goal) == "" {
					return "", errors.New("todo__init needs a goal")
				}
				l.Init(strings.TrimSpace(*a.Goal))
				return "Started a new todo list. Add its steps with todo__add.", nil
			}),
		mk("todo__add", "Add a step to the todo list; returns its id.",
			obj(`"task":{"type":"string","description":"The step, in a short sentence."}`, "task"),
			func(raw json.RawMessage) (string, error) {
				var a struct{ Task *string }
				if err := decode(raw, &a); err != nil {
					return "", err
				}
				if a.Task == nil || strings.TrimSpace(*a.Task) == "" {
					return "", errors.New("todo__add needs a task")
				}
				id := l.Add(strings.TrimSpace(*a.Task))
				return fmt.Sprintf(`{"id":%d}`, id), nil
			}),
		mk("todo__done", "Mark a step of the todo list as done.",
			obj(`"id":{"type":"integer","description":"The step's id, as todo__add returned it."}`, "id"),
			func(raw json.RawMessage) (string, error) {
				var a struct{ ID json.RawMessage }
				if err := decode(raw, &a); err != nil {
					return "", err
				}
				id, err := parseID(a.ID)
				if err != nil {
					return "", err
				}
				if err := l.Done(id); err != nil {
					return "", err
				}
				if n := l.Open(); n > 0 {
					return fmt.Sprintf("Marked %d done; %d still open.", id, n), nil
				}
				return fmt.Sprintf("Marked %d done; every item is done.", id), nil
			}),
		mk("todo__list", "Show the todo list: the goal and each step, done or open.", nil,
			func(json.RawMessage) (string, error) {
				if s := l.Render(); s != "" {
					return s, nil
				}
				return "The todo list is empty.", nil
			}),
		mk("todo__clear", "Drop the todo list.", nil,
			func(json.RawMessage) (string, error) {
				l.Clear()
				return "Cleared the todo list.", nil
			}),
	}
}

// decode reads a call's arguments into v. Keys a function does not take
// are ignored; a missing required one is the function's error.
func decode(raw json.RawMessage, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("{}")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("invalid arguments: %v", err)
	}
	return nil
}

// parseID reads an item id: a whole number, or a string holding one (as
// some models send numbers).
func parseID(raw json.RawMessage) (int, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return 0, errors.New("todo__done needs the id of an item")
	}
	if uq, err := strconv.Unquote(s); err == nil {
		s = strings.TrimSpace(uq)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != float64(int(f)) || f < 1 {
		return 0, fmt.Errorf("the id must be a whole number of 1 or more, not %s", raw)
	}
	return int(f), nil
}
