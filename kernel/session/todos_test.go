package session

import (
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/kernel/todo"
)

// TestTodoListIsReadFromTheFile: todo_list's goal and items are the
// session's list, and new items follow the largest id.
func TestTodoListIsReadFromTheFile(t *testing.T) {
	fd, _ := decodeFile(t, "testdata/every-form.yaml")
	want := []todo.Item{{ID: 1, Task: "write the package", Done: true}, {ID: 3, Task: "wire it: the CLI and the REPL"}, {ID: 4, Task: "document it\nin the README"}}
	if got := fd.todos.Items(); fd.todos.Goal() != "Port the todo loop" || len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("goal %q, items %+v", fd.todos.Goal(), got)
	}
	if id := fd.todos.Add("next"); id != 5 {
		t.Fatalf("next id %d", id)
	}
}

// TestEmptyTodoListIsLeftOut: a session without todos writes no
// todo_list, also after its list was used and cleared.
func TestEmptyTodoListIsLeftOut(t *testing.T) {
	_, s := newSession(t, "x", exchange("q", "a")...)
	if strings.Contains(string(s.Encode()), "todo_list") {
		t.Fatal("a session without todos wrote todo_list")
	}
	s.Todos().Init("goal")
	s.Todos().Add("step")
	if !strings.Contains(string(s.Encode()), "todo_list:\n  goal: goal\n  todos:\n  - id: 1\n    task: step\n    done: false\n") {
		t.Fatalf("written:\n%s", s.Encode())
	}
	s.Todos().Clear()
	if strings.Contains(string(s.Encode()), "todo_list") {
		t.Fatal("a cleared list is still written")
	}
}

// TestTodoChangesMakeTheSessionDirtyAndAreSaved: a change to the list
// (made by a tool call, say) is saved like any other, and a loaded list
// goes on where it was.
func TestTodoChangesMakeTheSessionDirtyAndAreSaved(t *testing.T) {
	st, s := newSession(t, "x")
	mustSave(t, s)
	if s.Dirty() {
		t.Fatal("dirty after saving")
	}
	s.Todos().Init("ship")
	s.Todos().Add("build")
	s.Todos().Add("test")
	if !s.Dirty() || s.OnExit(false) == ExitKeep {
		t.Fatal("a todo change did not make the session dirty")
	}
	mustSave(t, s)
	if s.Dirty() {
		t.Fatal("dirty after saving the todos")
	}
	loaded, err := st.Load("x")
	if err != nil {
		t.Fatal(err)
	}
	if loaded.Dirty() || loaded.Todos().Render() != s.Todos().Render() {
		t.Fatalf("loaded (dirty %v):\n%s", loaded.Dirty(), loaded.Todos().Render())
	}
	if err := loaded.Todos().Done(2); err != nil || !loaded.Dirty() {
		t.Fatalf("Done: %v, dirty %v", err, loaded.Dirty())
	}
}

// TestCompressKeepsTheTodosAndNamesTheOpenOnes: compression keeps the
// list, and the new system message ends with its open items, so the
// model still knows what is left.
func TestCompressKeepsTheTodosAndNamesTheOpenOnes(t *testing.T) {
	_, s := newSession(t, "x", exchange("one", "1")...)
	s.Todos().Init("migrate")
	s.Todos().Add("copy the data")
	s.Todos().Add("switch over")
	if err := s.Todos().Done(1); err != nil {
		t.Fatal(err)
	}
	before := s.Todos().Render()
	s.Compress("SUMMARY", 0, "Earlier: ")
	system := s.Messages()[0].Text()
	if want := "Earlier: SUMMARY\n\n" + openTodosPrompt + "Goal: migrate\n○ 2. switch over"; system != want {
		t.Fatalf("system message:\n%q\nwant\n%q", system, want)
	}
	if s.Todos().Render() != before {
		t.Fatalf("the list changed: %s", s.Todos().Render())
	}
	// Nothing open: nothing added.
	_ = s.Todos().Done(2)
	s.Compress("AGAIN", 0, "Earlier: ")
	if system := s.Messages()[0].Text(); !strings.HasSuffix(system, "\n\nEarlier: AGAIN") {
		t.Fatalf("system message after all done: %q", system)
	}
}

// TestEmptySessionClearsTheTodos: .empty session starts the work over.
func TestEmptySessionClearsTheTodos(t *testing.T) {
	_, s := newSession(t, "x", exchange("one", "1")...)
	s.Todos().Add("left over")
	s.Empty()
	if !s.Todos().Empty() {
		t.Fatal(".empty session kept the todos")
	}
}

// TestTodosOfTwoProcessesMerge: the list one process changed survives
// another's save that did not touch it, and the other way round.
func TestTodosOfTwoProcessesMerge(t *testing.T) {
	st, a, b := twoProcesses(t)
	list := a.Todos()
	list.Init("from A")
	list.Add("a's step")
	mustSave(t, a)
	mustAppend(t, b, exchange("B", "b")...)
	mustSave(t, b) // B did not touch the list: A's stays
	got, err := st.Load("s")
	if err != nil {
		t.Fatal(err)
	}
	if got.Todos().Goal() != "from A" || len(got.Messages()) != 4 {
		t.Fatalf("goal %q, %d messages", got.Todos().Goal(), len(got.Messages()))
	}
	if b.Todos().Goal() != "from A" {
		t.Fatal("B's list was not brought up to date by its merge")
	}
	// A changes its list again; B, now up to date, changes its own after.
	_ = list.Done(1)
	mustSave(t, a)
	b.Todos().Clear()
	mustSave(t, b)
	if got, _ := st.Load("s"); !got.Todos().Empty() {
		t.Fatalf("B's clear was lost: %s", got.Todos().Render())
	}
	if a.Todos() != list {
		t.Fatal("the session's list was replaced")
	}
}

// TestUnknownItemFieldsStayWithTheirItem: a field of a later version in
// an item is written back with that item, and dropped when the list
// starts again.
func TestUnknownItemFieldsStayWithTheirItem(t *testing.T) {
	fd, _ := decodeFile(t, "testdata/unknown-fields.yaml")
	if !strings.Contains(string(encode(fd)), "    priority: high\n") {
		t.Fatal("the item's unknown field was not written back")
	}
	fd.todos.Init("")
	fd.todos.Add("an item with a field of a later version")
	fd.todos.Add("x")
	if strings.Contains(string(encode(fd)), "priority") {
		t.Fatal("an unknown field moved to a new item")
	}
}
