package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/coyote-cli/coyote/sdk/provider"
)

func fn(name string, builtin bool) *Func {
	return &Func{Name: name, Builtin: builtin, Call: func(_ context.Context, args json.RawMessage) (string, error) {
		return name + " " + string(args), nil
	}}
}

func names(fs []*Func) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Name)
	}
	return out
}

func TestSelect(t *testing.T) {
	r := NewRegistry()
	for _, f := range []*Func{fn("user__input", true), fn("fs_read", false), fn("fs_ls", false), fn("get_current_time", false)} {
		r.Add(f)
	}
	mapping := map[string]string{"fs": "fs_read, fs_ls"}
	tests := []struct {
		name    string
		enabled any
		want    []string
		unknown []string
	}{
		{"null: built-ins only", nil, []string{"user__input"}, nil},
		{"all", "all", []string{"user__input", "fs_read", "fs_ls", "get_current_time"}, nil},
		{"all in a list", []string{"all"}, []string{"user__input", "fs_read", "fs_ls", "get_current_time"}, nil},
		{"empty list", []string{}, []string{"user__input"}, nil},
		{"list", []string{"get_current_time"}, []string{"user__input", "get_current_time"}, nil},
		{"comma string", "fs_ls,get_current_time", []string{"user__input", "fs_ls", "get_current_time"}, nil},
		{"alias", []string{"fs"}, []string{"user__input", "fs_read", "fs_ls"}, nil},
		{"unknown names", []string{"fs_read", "nope"}, []string{"user__input", "fs_read"}, []string{"nope"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, unknown := r.Select(Selection{Enabled: tt.enabled, Mapping: mapping})
			if !reflect.DeepEqual(names(got), tt.want) || !reflect.DeepEqual(unknown, tt.unknown) {
				t.Fatalf("Select = %v, unknown %v; want %v, %v", names(got), unknown, tt.want, tt.unknown)
			}
		})
	}
}

func TestAddReplacesAndRemoveDropsByPrefix(t *testing.T) {
	r := NewRegistry()
	r.Add(fn("a", false))
	r.Add(fn("mcp__x_1", false))
	r.Add(&Func{Name: "a", Description: "new"})
	if f, _ := r.Get("a"); f.Description != "new" || len(r.All()) != 2 {
		t.Fatalf("replace: %+v", r.All())
	}
	r.Remove("mcp__x_")
	if len(r.All()) != 1 || r.All()[0].Name != "a" {
		t.Fatalf("remove: %v", names(r.All()))
	}
}

func call(id, name, args string) provider.ToolCall {
	return provider.ToolCall{ID: id, Name: name, Arguments: args}
}

func TestRoundKeepsCallOrderAndReportsErrors(t *testing.T) {
	var running, maxRunning atomic.Int32
	release := make(chan struct{})
	slow := &Func{Name: "slow", Call: func(_ context.Context, args json.RawMessage) (string, error) {
		n := running.Add(1)
		for {
			m := maxRunning.Load()
			if n <= m || maxRunning.CompareAndSwap(m, n) {
				break
			}
		}
		if n == 2 {
			close(release) // both parallel calls are in: let them finish
		}
		<-release
		running.Add(-1)
		return "slow " + string(args), nil
	}}
	failing := &Func{Name: "failing", Call: func(context.Context, json.RawMessage) (string, error) {
		return "", errors.New("disk on fire")
	}}
	var shown []string
	r := &Runner{Offered: []*Func{slow, failing}, Show: func(name, args string) { shown = append(shown, name+" "+args) }}
	res := r.Round(context.Background(), []provider.ToolCall{
		call("1", "slow", `{"n":1}`), call("2", "slow", `{"n":2}`), call("3", "failing", ``),
		call("4", "invented", `{}`), call("5", "slow", `not json`),
	})
	want := []provider.ToolResult{
		{CallID: "1", Name: "slow", Content: `slow {"n":1}`},
		{CallID: "2", Name: "slow", Content: `slow {"n":2}`},
		{CallID: "3", Name: "failing", Content: `{"tool_call_error":"disk on fire"}`, IsError: true},
		{CallID: "4", Name: "invented", Content: `{"tool_call_error":"There is no tool named \"invented\". Use only the tools you were given."}`, IsError: true},
		{CallID: "5", Name: "slow", Content: `{"tool_call_error":"The call \"slow\" has invalid arguments: not json"}`, IsError: true},
	}
	if !reflect.DeepEqual(res, want) {
		t.Fatalf("results:\n%+v\nwant\n%+v", res, want)
	}
	if maxRunning.Load() != 2 {
		t.Fatalf("parallel calls ran %d at a time", maxRunning.Load())
	}
	if len(shown) != 3 || shown[0] != `slow {"n":1}` || shown[2] != "failing " {
		t.Fatalf("shown %q", shown)
	}
}

func TestSerialCallsRunInOrderAlone(t *testing.T) {
	var order []string
	mk := func(name string, serial bool) *Func {
		return &Func{Name: name, Serial: serial, Call: func(context.Context, json.RawMessage) (string, error) {
			order = append(order, name) // no other call runs with a serial one
			return "", nil
		}}
	}
	r := &Runner{Offered: []*Func{mk("ask1", true), mk("ask2", true)}}
	r.Round(context.Background(), []provider.ToolCall{call("a", "ask1", "{}"), call("b", "ask2", "{}"), call("c", "ask1", `{"x":1}`)})
	if strings.Join(order, ",") != "ask1,ask2,ask1" {
		t.Fatalf("order %v", order)
	}
}

func TestLoopDetection(t *testing.T) {
	var runs atomic.Int32
	f := &Func{Name: "t", Call: func(context.Context, json.RawMessage) (string, error) { runs.Add(1); return "ok", nil }}
	r := &Runner{Offered: []*Func{f}}
	ctx := context.Background()
	// The same call, one per round: the fourth is refused. Key order and
	// spacing do not make a call different.
	for i, args := range []string{`{"a":1,"b":2}`, `{"b":2,"a":1}`, `{"a": 1, "b": 2}`, `{"a":1,"b":2}`} {
		res := r.Round(ctx, []provider.ToolCall{call(fmt.Sprint(i), "t", args)})
		if loop := strings.Contains(res[0].Content, "Loop detected"); loop != (i == 3) {
			t.Fatalf("round %d: %q", i, res[0].Content)
		}
	}
	if runs.Load() != 3 {
		t.Fatalf("ran %d times", runs.Load())
	}
	// A cycle through five calls: each repeats only three times, but the
	// tenth repeat in a row is refused.
	r = &Runner{Offered: []*Func{f}}
	for i := 0; i < 15; i++ {
		res := r.Round(ctx, []provider.ToolCall{call(fmt.Sprint(i), "t", fmt.Sprintf(`{"k":%d}`, i%5))})
		if loop := strings.Contains(res[0].Content, "all repeated earlier ones"); loop != (i == 14) {
			t.Fatalf("call %d: %q", i, res[0].Content)
		}
	}
}

func TestTruncate(t *testing.T) {
	r := &Runner{MaxResultChars: 5}
	if got := r.truncate("héllo world"); got != "héllo\n[... truncated: 6 more characters]" {
		t.Fatalf("got %q", got)
	}
	if got := r.truncate("short"); got != "short" {
		t.Fatalf("got %q", got)
	}
}

type fakeAsker struct {
	answers []string
	said    strings.Builder
}

func (f *fakeAsker) Line(p string) (string, error) {
	f.said.WriteString(p)
	if len(f.answers) == 0 {
		return "", errors.New("no more answers")
	}
	a := f.answers[0]
	f.answers = f.answers[1:]
	return a, nil
}

func (f *fakeAsker) Say(s string) { f.said.WriteString(s) }

func TestUserFunctions(t *testing.T) {
	get := func(fs []*Func, name string) *Func {
		for _, f := range fs {
			if f.Name == name {
				return f
			}
		}
		t.Fatalf("no %s", name)
		return nil
	}
	tests := []struct {
		fn, args string
		answers  []string
		want     string
	}{
		{"user__select", `{"question":"Which?","options":["red","blue"]}`, []string{"9", "2"}, `{"answer":"blue"}`},
		{"user__select", `{"question":"Which?","options":["red","blue"]}`, []string{"3", "green"}, `{"answer":"green"}`},
		{"user__confirm", `{"question":"Sure?"}`, []string{"maybe", "y"}, `{"answer":true}`},
		{"user__input", `{"question":"Name?"}`, []string{"Ada"}, `{"answer":"Ada"}`},
		{"user__checkbox", `{"question":"Which?","options":["a","b","c"]}`, []string{"1 3"}, `{"answer":["a","c"]}`},
	}
	for _, tt := range tests {
		a := &fakeAsker{answers: tt.answers}
		got, err := get(UserFuncs(a), tt.fn).Call(context.Background(), json.RawMessage(tt.args))
		if err != nil || got != tt.want {
			t.Errorf("%s %v: %q, %v; want %q", tt.fn, tt.answers, got, err, tt.want)
		}
	}
	got, err := get(UserFuncs(nil), "user__select").Call(context.Background(), json.RawMessage(`{"question":"Which?","options":["x"]}`))
	var m map[string]any
	if err != nil || json.Unmarshal([]byte(got), &m) != nil || m["needs_human"] != true || m["action"] != "select" || m["question"] != "Which?" {
		t.Fatalf("no terminal: %q %v", got, err)
	}
	for _, f := range UserFuncs(nil) {
		if !f.Serial || !f.Builtin || !json.Valid(f.Parameters) {
			t.Errorf("%s: serial %v builtin %v", f.Name, f.Serial, f.Builtin)
		}
	}
}

func TestTerminalAskerReadsOneLine(t *testing.T) {
	in := strings.NewReader("yes\r\nrest")
	var out strings.Builder
	a := TerminalAsker{In: in, Out: &out}
	if l, err := a.Line("? "); l != "yes" || err != nil || out.String() != "? " {
		t.Fatalf("%q %v", l, err)
	}
	if l, _ := a.Line(""); l != "rest" {
		t.Fatalf("second line %q", l)
	}
}

func TestTerminalAskerShowsTheModelsQuestionWithoutControls(t *testing.T) {
	var out strings.Builder
	a := TerminalAsker{In: strings.NewReader("n\n"), Out: &out}
	confirm := UserFuncs(a)[1]
	args := `{"question":"Delete the cache?\r\u001b[2KUpdate the docs?\u001b]0;pwned\u0007"}`
	if _, err := confirm.Call(context.Background(), json.RawMessage(args)); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "Delete the cache?[2KUpdate the docs?]0;pwned [y/n] "; got != want {
		t.Fatalf("the terminal got %q, want %q", got, want)
	}
	out.Reset()
	a.Say("1) a\u009b2K\tb\n")
	if got := out.String(); got != "1) a2K\tb\n" {
		t.Fatalf("Say wrote %q", got)
	}
}

func TestLazySourcesLoadOnlyWhenUserFunctionsAreSelected(t *testing.T) {
	r := NewRegistry()
	r.Add(fn("user__input", true))
	loads := 0
	r.AddLazy(func(r *Registry) { loads++; r.Add(fn("fs_read", false)) })
	if got, _ := r.Select(Selection{}); len(got) != 1 || loads != 0 {
		t.Fatalf("null enabled_tools: %v, %d loads", names(got), loads)
	}
	if got, _ := r.Select(Selection{Enabled: []string{"fs_read"}}); len(got) != 2 || loads != 1 {
		t.Fatalf("fs_read: %v, %d loads", names(got), loads)
	}
	r.All()
	if loads != 1 {
		t.Fatalf("loaded %d times", loads)
	}
}
