package todo

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
)

func TestListKeepsIDsAndProgress(t *testing.T) {
	var l List
	if !l.Empty() || l.Render() != "" || l.Open() != 0 {
		t.Fatal("the zero list is not empty")
	}
	l.Init("Ship the release")
	for i, task := range []string{"write notes", "tag", "publish", "announce"} {
		if id := l.Add(task); id != i+1 {
			t.Fatalf("id of %q = %d, want %d", task, id, i+1)
		}
	}
	if err := l.Done(1); err != nil {
		t.Fatal(err)
	}
	if err := l.Done(2); err != nil {
		t.Fatal(err)
	}
	v := l.Version()
	if err := l.Done(2); err != nil || l.Version() != v {
		t.Fatalf("marking a done item again: %v, version %d → %d", err, v, l.Version())
	}
	want := "Goal: Ship the release\nProgress: 2/4 completed\n✓ 1. write notes\n✓ 2. tag\n○ 3. publish\n○ 4. announce"
	if got := l.Render(); got != want {
		t.Fatalf("Render:\n%s\nwant:\n%s", got, want)
	}
	if got := l.RenderOpen(); got != "Goal: Ship the release\n○ 3. publish\n○ 4. announce" {
		t.Fatalf("RenderOpen: %q", got)
	}
	if l.Open() != 2 || l.Empty() {
		t.Fatalf("open %d", l.Open())
	}
	c := l.Clone()
	c.Add("more")
	if l.Open() != 2 || !l.Equal(l.Clone()) || l.Equal(c) {
		t.Fatal("a clone is not independent, or Equal is wrong")
	}
	l.Init("again")
	if id := l.Add("first"); id != 1 {
		t.Fatalf("Init did not restart the ids: %d", id)
	}
	l.Clear()
	if !l.Empty() || l.Add("x") != 1 {
		t.Fatal("Clear did not empty the list and restart the ids")
	}
	l.Set("loaded", []Item{{ID: 2, Task: "b"}, {ID: 5, Task: "e", Done: true}})
	if id := l.Add("next"); id != 6 {
		t.Fatalf("after Set, the next id is %d, want 6", id)
	}
}

func TestDoneOfAnUnknownIDSaysWhichExist(t *testing.T) {
	tests := []struct {
		name  string
		tasks int
		want  string
	}{
		{"empty", 0, "the list is empty"},
		{"one", 1, "the ids are 1 "},
		{"range", 3, "the ids are 1-3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l List
			for i := range tt.tasks {
				l.Add(fmt.Sprint("t", i))
			}
			err := l.Done(9)
			if err == nil || !strings.Contains(err.Error(), "no todo 9") || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
	var l List
	l.Set("", []Item{{ID: 1}, {ID: 3}, {ID: 7}})
	if err := l.Done(2); err == nil || !strings.Contains(err.Error(), "1, 3, 7") {
		t.Fatalf("err = %v", err)
	}
}

// call runs the function name of fs with args.
func call(t *testing.T, fs map[string]func(string) (string, error), name, args string) (string, error) {
	t.Helper()
	f, ok := fs[name]
	if !ok {
		t.Fatalf("no function %s", name)
	}
	return f(args)
}

func funcsByName(l *List) map[string]func(string) (string, error) {
	out := map[string]func(string) (string, error){}
	for _, f := range Funcs(l) {
		out[f.Name] = func(args string) (string, error) { return f.Call(context.Background(), json.RawMessage(args)) }
	}
	return out
}

func TestFuncsKeepTheList(t *testing.T) {
	var l List
	fs := funcsByName(&l)
	steps := []struct {
		name, args string
		want       string // in the result, or in the error when wantErr
		wantErr    bool
	}{
		{"todo__list", `{}`, "empty", false},
		{"todo__init", `{}`, "needs a goal", true},
		{"todo__init", `{"goal": 3}`, "invalid arguments", true},
		{"todo__init", `{"goal": "  Fix the build "}`, "Started", false},
		{"todo__add", `{"task": ""}`, "needs a task", true},
		{"todo__add", `{"task": "read the log"}`, `{"id":1}`, false},
		{"todo__add", `{"task": "patch"}`, `{"id":2}`, false},
		{"todo__done", `{}`, "needs the id", true},
		{"todo__done", `{"id": 1.5}`, "whole number", true},
		{"todo__done", `{"id": 0}`, "whole number", true},
		{"todo__done", `{"id": 4}`, "no todo 4", true},
		{"todo__done", `{"id": "1"}`, "1 still open", false},
		{"todo__list", ``, "Goal: Fix the build\nProgress: 1/2 completed\n✓ 1. read the log\n○ 2. patch", false},
		{"todo__done", `{"id": 2}`, "every item is done", false},
		{"todo__clear", `{}`, "Cleared", false},
		{"todo__list", `{}`, "empty", false},
	}
	for i, s := range steps {
		got, err := call(t, fs, s.name, s.args)
		switch {
		case s.wantErr && (err == nil || !strings.Contains(err.Error(), s.want)):
			t.Fatalf("step %d %s(%s): err = %v, want one containing %q", i, s.name, s.args, err, s.want)
		case !s.wantErr && (err != nil || !strings.Contains(got, s.want)):
			t.Fatalf("step %d %s(%s) = %q, %v; want %q", i, s.name, s.args, got, err, s.want)
		}
	}
	for _, f := range Funcs(&l) {
		if !f.Builtin || f.Source != "builtin" || !f.Serial || !strings.HasPrefix(f.Name, Prefix) || !json.Valid(f.Tool().Parameters) {
			t.Fatalf("%s: %+v", f.Name, f)
		}
	}
}

// TestListIsSafeForConcurrentUse: the calls of one tool round may change
// the list at once (run with -race).
func TestListIsSafeForConcurrentUse(t *testing.T) {
	var l List
	l.Init("many")
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			id := l.Add("x")
			_ = l.Done(id)
			_ = l.Render()
			_ = l.Clone()
		})
	}
	wg.Wait()
	items := l.Items()
	seen := map[int]bool{}
	for _, it := range items {
		if seen[it.ID] || !it.Done {
			t.Fatalf("items %+v", items)
		}
		seen[it.ID] = true
	}
	if len(items) != 20 || l.Open() != 0 {
		t.Fatalf("%d items, %d open", len(items), l.Open())
	}
}
