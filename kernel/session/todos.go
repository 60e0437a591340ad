package session

import (
	"fmt"
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/coyote-cli/coyote/kernel/todo"
	"github.com/coyote-cli/coyote/kernel/yamlerr"
)

// A session file keeps the conversation's todo list under todo_list, as
// the original does, and leaves the key out when the list is empty:
//
//	todo_list:
//	  goal: Ship the release
//	  todos:
//	  - id: 1
//	    task: write the notes
//	    done: true
//
// Keys this package does not know, in todo_list or in an item, are kept
// and written back (an item's with the item of the same id and task).

// todoExtra is what a file's todo_list holds that this package does not
// know.
type todoExtra struct {
	extra []field     // unknown keys of todo_list
	items []itemExtra // unknown keys of its items
}

// itemExtra is the unknown keys of the item with that id and task.
type itemExtra struct {
	id    int
	task  string
	extra []field
}

// Todos is the session's todo list. It is the same list for the life of
// the Session (a save that merges another process's list changes its
// content, not the list), and a change to it makes the session dirty.
func (s *Session) Todos() *todo.List { return s.todos }

// openTodosPrompt introduces the open items that a compressed session's
// system message keeps.
const openTodosPrompt = "The todo list of this conversation still has open items:\n"

func (d *decoder) todoList(n *yaml.Node, where string, fd *fileData) error {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return nil
	}
	var goal string
	var items []todo.Item
	err := d.keys(n, where, func(k string, v *yaml.Node) error {
		var err error
		switch k {
		case "goal":
			goal, err = d.str(v, join(where, k))
		case "todos":
			items, err = d.todoItems(v, join(where, k), &fd.todoExtra)
		default:
			var r *yaml.Node
			r, err = d.raw(v, join(where, k))
			fd.todoExtra.extra = append(fd.todoExtra.extra, field{k, r})
		}
		return err
	})
	if err != nil {
		return err
	}
	fd.todos.Set(goal, items)
	return nil
}

func (d *decoder) todoItems(n *yaml.Node, where string, x *todoExtra) ([]todo.Item, error) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, d.fail(n, where, "want a list of todos ({id, task, done}), not %s", yamlerr.Describe(n))
	}
	items := make([]todo.Item, 0, len(n.Content))
	seen := map[int]bool{}
	for i, c := range n.Content {
		w := fmt.Sprintf("%s[%d]", where, i)
		var it todo.Item
		var idNode *yaml.Node
		var extra []field
		err := d.keys(c, w, func(k string, v *yaml.Node) error {
			var err error
			switch k {
			case "id":
				idNode = v
				var id *int64
				if id, err = d.integer(v, join(w, k)); err == nil && (id == nil || *id < 1 || *id > 1<<31-1) {
					err = d.fail(v, join(w, k), "want an id of 1 or more, not %s", yamlerr.Describe(v))
				}
				if err == nil {
					it.ID = int(*id)
				}
			case "task":
				it.Task, err = d.str(v, join(w, k))
			case "done":
				var b *bool
				b, err = d.boolean(v, join(w, k))
				it.Done = b != nil && *b
			default:
				var r *yaml.Node
				r, err = d.raw(v, join(w, k))
				extra = append(extra, field{k, r})
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		if idNode == nil {
			return nil, d.fail(c, w, "the todo has no id")
		}
		if seen[it.ID] {
			return nil, d.fail(idNode, join(w, "id"), "todo %d appears twice", it.ID)
		}
		seen[it.ID] = true
		items = append(items, it)
		if len(extra) > 0 {
			x.items = append(x.items, itemExtra{id: it.ID, task: it.Task, extra: extra})
		}
	}
	return items, nil
}

// todoList writes the todo_list key, unless the list is empty.
func (w *writer) todoList(l *todo.List, x *todoExtra) {
	if l == nil {
		return
	}
	goal, items := l.Goal(), l.Items()
	if goal == "" && len(items) == 0 {
		return
	}
	w.key(0, "todo_list")
	w.b = append(w.b, '\n')
	w.key(2, "goal")
	w.str(2, goal)
	w.key(2, "todos")
	if len(items) == 0 {
		w.b = append(w.b, " []\n"...)
	} else {
		w.b = append(w.b, '\n')
	}
	for _, it := range items {
		w.indent(2)
		w.b = append(w.b, "- id: "...)
		w.b = strconv.AppendInt(w.b, int64(it.ID), 10)
		w.b = append(w.b, '\n')
		w.key(4, "task")
		w.str(4, it.Task)
		w.key(4, "done")
		w.b = append(w.b, ' ')
		w.b = strconv.AppendBool(w.b, it.Done)
		w.b = append(w.b, '\n')
		for _, ie := range x.items {
			if ie.id == it.ID && ie.task == it.Task {
				w.fields(4, ie.extra)
			}
		}
	}
	w.fields(2, x.extra)
}
