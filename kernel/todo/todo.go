// Package todo owns the todo list of a conversation: the goal and the
// numbered items a model plans a long task with, the built-in functions
// it keeps the list with (todo__init, todo__add, todo__done, todo__list,
// todo__clear), the instructions that tell it how, and the prompt that
// sends it back to work while items are open.
//
// It does not decide when the list is offered or when a conversation
// goes on (kernel/convo does, from auto_continue and max_auto_continues),
// and it does not read or write files: a session keeps its list in its
// own file (kernel/session).
package todo

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Item is one entry of a list.
type Item struct {
	// ID numbers the item; ids start at 1 and grow, and are not reused
	// until the list starts again (Init, Clear).
	ID   int
	Task string
	Done bool
}

// List is a goal and its items. The zero value is an empty list ready to
// use. A List is safe for concurrent use: the calls of one tool round may
// change it at once. Its content is read through its methods (or a
// Clone), never by copying the value.
type List struct {
	mu      sync.Mutex
	goal    string
	items   []Item
	next    int    // the next id; 0 means 1
	version uint64 // counts the changes, so an owner can tell it changed
}

// Init starts the list again for goal: the items are dropped and ids
// start at 1.
func (l *List) Init(goal string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.goal, l.items, l.next = goal, nil, 1
	l.version++
}

// Add appends an open item and returns its id.
func (l *List) Add(task string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.next < 1 {
		l.next = 1
	}
	id := l.next
	l.next++
	l.items = append(l.items, Item{ID: id, Task: task})
	l.version++
	return id
}

// Done marks the item id as done. Marking a done item again changes
// nothing; an id the list does not hold is an error that says which ids
// it holds.
func (l *List) Done(id int) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	i := slices.IndexFunc(l.items, func(it Item) bool { return it.ID == id })
	if i < 0 {
		if len(l.items) == 0 {
			return fmt.Errorf("there is no todo %d: the list is empty (add items with todo__add)", id)
		}
		return fmt.Errorf("there is no todo %d: the ids are %s (todo__list shows them)", id, idRange(l.items))
	}
	if !l.items[i].Done {
		l.items[i].Done = true
		l.version++
	}
	return nil
}

// idRange describes the ids of items: "1-4", or "1, 3, 7" when they are
// not consecutive.
func idRange(items []Item) string {
	consecutive := true
	for i := 1; i < len(items); i++ {
		if items[i].ID != items[i-1].ID+1 {
			consecutive = false
		}
	}
	if consecutive && len(items) > 1 {
		return fmt.Sprintf("%d-%d", items[0].ID, items[len(items)-1].ID)
	}
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = fmt.Sprint(it.ID)
	}
	return strings.Join(ids, ", ")
}

// Clear empties the list: no goal, no items, ids start at 1 again.
func (l *List) Clear() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.goal == "" && len(l.items) == 0 && l.next <= 1 {
		return
	}
	l.goal, l.items, l.next = "", nil, 1
	l.version++
}

// Set replaces the content (a session file's list being read, or merged
// with another process's). The next id follows the largest one.
func (l *List) Set(goal string, items []Item) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.goal, l.items = goal, slices.Clone(items)
	l.next = 1
	for _, it := range items {
		l.next = max(l.next, it.ID+1)
	}
	l.version++
}

// Goal is the goal the list was started for ("" when none).
func (l *List) Goal() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.goal
}

// Items returns a copy of the items, in the order added.
func (l *List) Items() []Item {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.items)
}

// Open counts the items not done.
func (l *List) Open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, it := range l.items {
		if !it.Done {
			n++
		}
	}
	return n
}

// Empty reports whether the list has neither a goal nor items.
func (l *List) Empty() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.goal == "" && len(l.items) == 0
}

// Version changes whenever the list does; an owner compares it with the
// one it saw last (a session, to know it must be saved).
func (l *List) Version() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.version
}

// Equal reports whether two lists hold the same goal and items.
func (l *List) Equal(o *List) bool {
	if l == o {
		return true
	}
	g1, i1 := l.snapshot()
	g2, i2 := o.snapshot()
	return g1 == g2 && slices.Equal(i1, i2)
}

func (l *List) snapshot() (string, []Item) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.goal, slices.Clone(l.items)
}

// Clone returns a list with the same content that changes on its own (a
// forked conversation's, a session file's base).
func (l *List) Clone() *List {
	l.mu.Lock()
	defer l.mu.Unlock()
	return &List{goal: l.goal, items: slices.Clone(l.items), next: l.next}
}

// Render shows the list: the goal, the progress, then each item, done
// ones with ✓ and open ones with ○. An empty list renders as "".
func (l *List) Render() string {
	goal, items := l.snapshot()
	return render(goal, items, true)
}

// RenderOpen shows the goal and the open items only, "" when none is
// open: what a compressed session's new system message keeps.
func (l *List) RenderOpen() string {
	goal, items := l.snapshot()
	open := slices.DeleteFunc(items, func(it Item) bool { return it.Done })
	if len(open) == 0 {
		return ""
	}
	return render(goal, open, false)
}

func render(goal string, items []Item, progress bool) string {
	if goal == "" && len(items) == 0 {
		return ""
	}
	var b strings.Builder
	if goal != "" {
		fmt.Fprintf(&b, "Goal: %s\n", goal)
	}
	if progress {
		done := 0
		for _, it := range items {
			if it.Done {
				done++
			}
		}
		fmt.Fprintf(&b, "Progress: %d/%d completed\n", done, len(items))
	}
	for _, it := range items {
		mark := "○"
		if it.Done {
			mark = "✓"
		}
		fmt.Fprintf(&b, "%s %d. %s\n", mark, it.ID, it.Task)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
