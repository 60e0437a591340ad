package session

import (
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/sdk/provider"
)

func msg(role string, parts ...provider.Part) provider.Message {
	return provider.Message{Role: role, Parts: parts}
}

func text(s string) provider.Part { return provider.Part{Text: s} }

func image(url string) provider.Part { return provider.Part{ImageURL: url} }

func think(s, sig string) provider.Part {
	return provider.Part{Reasoning: &provider.Reasoning{Text: s, Signature: sig}}
}

func redacted(data string) provider.Part {
	return provider.Part{Reasoning: &provider.Reasoning{Redacted: data}}
}

func call(id, name, args string) provider.Part {
	return provider.Part{ToolCall: &provider.ToolCall{ID: id, Name: name, Arguments: args}}
}

func signedCall(id, name, args, sig string) provider.Part {
	return provider.Part{ToolCall: &provider.ToolCall{ID: id, Name: name, Arguments: args, Signature: sig}}
}

func result(id, name, content string) provider.Part {
	return provider.Part{ToolResult: &provider.ToolResult{CallID: id, Name: name, Content: content}}
}

func failed(id, name, content string) provider.Part {
	return provider.Part{ToolResult: &provider.ToolResult{CallID: id, Name: name, Content: content, IsError: true}}
}

const (
	user = provider.RoleUser
	asst = provider.RoleAssistant
	tool = provider.RoleTool
	sys  = provider.RoleSystem
)

// TestKernelMessagesSurviveTheFile: messages recorded in a session, written,
// read back and converted again are the messages recorded (or, where the
// file cannot tell two forms apart, the equivalent form in want).
func TestKernelMessagesSurviveTheFile(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []provider.Message
		want []provider.Message // nil: the same as in
	}{
		{
			name: "plain exchange",
			in:   []provider.Message{msg(sys, text("be brief")), msg(user, text("hi")), msg(asst, text("hello"))},
		},
		{
			name: "user parts with images",
			in:   []provider.Message{msg(user, text("what is this?"), image("data:image/png;base64,AAAA"), text("and this?"), image("https://x/y.png"))},
		},
		{
			name: "empty messages",
			in:   []provider.Message{msg(user, text("")), msg(asst, text(""))},
		},
		{
			name: "answer with thinking",
			in:   []provider.Message{msg(user, text("2+2?")), msg(asst, think("add them", "sig"), redacted("R=="), text("4"))},
		},
		{
			name: "one round of parallel calls",
			in: []provider.Message{
				msg(user, text("read both")),
				msg(asst, think("both files", "s1"), text("Reading."), call("c1", "cat", `{"p":"a"}`), call("c2", "cat", `{"p":"b"}`)),
				msg(tool, result("c1", "cat", "A"), result("c2", "cat", "B")),
				msg(asst, text("Done.")),
			},
		},
		{
			name: "rounds with thinking, narration and repeated ids",
			in: []provider.Message{
				msg(user, text("go")),
				msg(asst,
					think("first", "s1"), text("Round one."), call("toolu_1", "ls", `{}`),
					think("second", "s2"), redacted("RED"), text("Round two."), call("toolu_1", "cat", `{"p":"x"}`), call("toolu_2", "cat", `{"p":"y"}`),
					think("third", "s3"), call("toolu_1", "rm", `{"p":"x"}`),
					text("Round four."), call("toolu_3", "ls", `{"all":true}`),
				),
				msg(tool,
					result("toolu_1", "ls", "x\ny"), result("toolu_1", "cat", "X"), result("toolu_2", "cat", "Y"),
					failed("toolu_1", "rm", `{"tool_call_error":"denied"}`), result("toolu_3", "ls", "x\ny"),
				),
				msg(asst, text("All done.")),
			},
		},
		{
			name: "rounds split by a repeated id alone",
			in: []provider.Message{
				msg(asst, call("a", "t", `{"n":1}`), call("a", "t", `{"n":2}`), call("a", "t", `{"n":3}`)),
				msg(tool, result("a", "t", "1"), result("a", "t", "2"), result("a", "t", "3")),
			},
		},
		{
			name: "calls without ids and with signatures",
			in: []provider.Message{
				msg(asst, signedCall("", "now", `{}`, "gem-sig-1"), signedCall("", "now", `{"tz":"UTC"}`, "gem-sig-2")),
				msg(tool, result("", "now", "12:00"), result("", "now", "11:00")),
			},
		},
		{
			name: "outputs of every kind",
			in: []provider.Message{
				msg(asst, call("1", "t", `{}`), call("2", "t", `{}`), call("3", "t", `{}`), call("4", "t", `{}`), call("5", "t", `{}`),
					call("6", "t", `{}`), call("7", "t", `{}`), call("8", "t", `{}`), call("9", "t", `{}`)),
				msg(tool, result("1", "t", `{"a":[1,2.50,null,true],"b":{"c":"d: e"}}`), result("2", "t", `"a JSON string"`),
					result("3", "t", "42"), result("4", "t", " 42 "), result("5", "t", ""), result("6", "t", "{not json"),
					result("7", "t", "true"), result("8", "t", "multi\nline\n"), result("9", "t", `{"a":1,"a":2}`)),
			},
		},
		{
			name: "arguments of every kind",
			in: []provider.Message{
				msg(asst, call("1", "t", `{"a":{"b":[]}}`), call("2", "t", `"just a string"`), call("3", "t", `{"broken"`), call("4", "t", `[1,2]`)),
				msg(tool, result("1", "t", "ok"), result("2", "t", "ok"), result("3", "t", "ok"), result("4", "t", "ok")),
			},
		},
		{
			name: "results in another order than the calls",
			in: []provider.Message{
				msg(asst, call("c1", "t", `{}`), call("c2", "t", `{}`)),
				msg(tool, result("c2", "t", "two")),
				msg(tool, result("c1", "t", "one")),
			},
			want: []provider.Message{
				msg(asst, call("c1", "t", `{}`), call("c2", "t", `{}`)),
				msg(tool, result("c1", "t", "one"), result("c2", "t", "two")),
			},
		},
		{
			name: "blank arguments and pretty JSON",
			in: []provider.Message{
				msg(asst, call("c1", "t", ""), call("c2", "t", "{\n  \"a\": 1\n}")),
				msg(tool, result("c1", "t", "[\n  1,\n  2\n]"), result("c2", "t", "ok")),
			},
			want: []provider.Message{
				msg(asst, call("c1", "t", `{}`), call("c2", "t", `{"a":1}`)),
				msg(tool, result("c1", "t", "[1,2]"), result("c2", "t", "ok")),
			},
		},
		{
			name: "narration after the last call",
			in: []provider.Message{
				msg(asst, text("Calling."), call("c1", "t", `{}`), think("done", "s"), text("That was it.")),
				msg(tool, result("c1", "t", "ok")),
			},
			want: []provider.Message{
				msg(asst, text("Calling."), call("c1", "t", `{}`)),
				msg(tool, result("c1", "t", "ok")),
				msg(asst, think("done", "s"), text("That was it.")),
			},
		},
		{
			name: "two narrations before the first call",
			in: []provider.Message{
				msg(asst, text("One."), text("Two."), call("c1", "t", `{}`), text("Three."), text("Four."), call("c2", "t", `{}`)),
				msg(tool, result("c1", "t", "ok"), result("c2", "t", "ok")),
			},
			want: []provider.Message{
				msg(asst, text("One."), text("Two."), call("c1", "t", `{}`), text("Three.Four."), call("c2", "t", `{}`)),
				msg(tool, result("c1", "t", "ok"), result("c2", "t", "ok")),
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := &Store{Dir: t.TempDir()}
			s, err := st.New("x", Settings{})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Append(tc.in...); err != nil {
				t.Fatal(err)
			}
			if err := s.Save(); err != nil {
				t.Fatal(err)
			}
			loaded, err := st.Load("x")
			if err != nil {
				t.Fatal(err)
			}
			want := tc.want
			if want == nil {
				want = tc.in
			}
			if got, w := dump(loaded.Messages()), dump(want); got != w {
				t.Errorf("read back as\n%s\nwant\n%s\nfile:\n%s", got, w, s.Encode())
			}
		})
	}
}

// TestAppendRefusesWhatAFileCannotHold: a malformed conversation is an
// error naming the message, and nothing is recorded.
func TestAppendRefusesWhatAFileCannotHold(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []provider.Message
		want string
	}{
		{"tool message first", []provider.Message{msg(tool, result("c", "t", "x"))}, "message 1 (tool) answers tool calls, but no assistant message"},
		{"call without result", []provider.Message{msg(asst, call("c", "t", `{}`))}, `holds tool call "c" (t), which no tool message answers`},
		{"result without call", []provider.Message{msg(asst, call("c", "t", `{}`)), msg(tool, result("c", "t", "x"), result("d", "t", "y"))}, `result for tool call "d", which it did not make`},
		{"result in a user message", []provider.Message{msg(user, result("c", "t", "x"))}, "holds a tool result; only tool messages can"},
		{"image next to calls", []provider.Message{msg(asst, image("https://x"), call("c", "t", `{}`)), msg(tool, result("c", "t", "x"))}, "holds an image"},
		{"text in a tool message", []provider.Message{msg(asst, call("c", "t", `{}`)), msg(tool, result("c", "t", "x"), text("hm"))}, "holds more than tool results"},
		{"call without name", []provider.Message{msg(asst, call("c", "", `{}`)), msg(tool, result("c", "", "x"))}, "without a name"},
		{"unknown role", []provider.Message{msg("developer", text("x"))}, "has a role a session cannot hold"},
		{"error after good messages", []provider.Message{msg(user, text("ok")), msg(tool, result("c", "t", "x"))}, "message 2 (tool)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := (&Store{Dir: t.TempDir()}).New("x", Settings{})
			err := s.Append(tc.in...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if !s.IsEmpty() || s.Dirty() {
				t.Errorf("a refused Append recorded something")
			}
		})
	}
}
