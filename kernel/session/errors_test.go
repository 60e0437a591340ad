package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMalformedFileNamesFileLineAndColumn: loading a bad file fails with
// the file, the line and the column of the problem, and what is wrong.
func TestMalformedFileNamesFileLineAndColumn(t *testing.T) {
	for _, tc := range []struct {
		name       string
		file       string
		line, col  int
		wantInText string
	}{
		{"empty file", "", 1, 1, "the file is empty"},
		{"not a mapping", "- a\n- b\n", 1, 1, "want a mapping, not a list"},
		{"tab indentation", "model: x\nmessages:\n- role: user\n\tcontent: hi\n", 4, 1, "found a tab character that violates indentation"},
		{"tab after spaces", "model: x\nmessages:\n- role: user\n  content:\n  \t- a\n", 5, 3, "indent with spaces"},
		{"unclosed quote", "model: x\nmessages:\n- role: user\n  content: \"hi\n", 4, 3, "found unexpected end of stream"},
		{"bad indentation", "model: x\nmessages:\n- role: user\n   content: hi\n  extra: 1\n", 4, 4, "mapping values are not allowed"},
		{"unknown role", "model: x\nmessages:\n- role: user\n  content: hi\n- role: robot\n  content: beep\n", 5, 9, `messages[1].role: want system, user, assistant or tool, not "robot"`},
		{"temperature not a number", "model: x\ntemperature: hot\nmessages: []\n", 2, 14, `temperature: want a number, not "hot"`},
		{"temperature not finite", "model: x\ntemperature: .nan\nmessages: []\n", 2, 14, `temperature must be a finite number between 0 and 2, not NaN`},
		{"top_p out of range", "model: x\ntop_p: 3\nmessages: []\n", 2, 8, `top_p must be a number between 0 and 1, not 3`},
		{"messages not a list", "model: x\nmessages: 5\n", 2, 11, `messages: want a list of messages, not "5"`},
		{"repeated key", "model: x\nmodel: y\nmessages: []\n", 2, 1, `"model" appears twice`},
		{"tool call without a name", "model: x\nmessages:\n- role: tool\n  content:\n    tool_results:\n    - call:\n        arguments: {}\n      output: 1\n    text: ''\n    sequence: true\n", 7, 9, "messages[0].content.tool_results[0].call: the tool call has no name"},
		{"alias as content", "model: x\nx: &a [1]\nmessages:\n- role: user\n  content: *a\n", 5, 12, "messages[0].content: want a text, a list of parts or tool calls, not an alias"},
		{"alias in a field kept as read", "model: x\nx: &a [1]\ny: [*a, 2]\nmessages: []\n", 3, 5, "y: aliases (*a) are not supported"},
		{"content of the wrong shape", "model: x\nmessages:\n- role: user\n  content:\n  - just text\n", 5, 5, "messages[0].content[0]: want a part"},
		{"list of numbers", "model: x\nenabled_tools:\n- [a]\nmessages: []\n", 3, 3, "enabled_tools[0]: want a string, not a list"},
		{"no role", "model: x\nmessages:\n- content: hi\n", 3, 3, "messages[0]: the message has no role"},
		{"todo_list not a mapping", "model: x\ntodo_list: [a]\nmessages: []\n", 2, 12, "todo_list: want a mapping, not a list"},
		{"todos not a list", "model: x\ntodo_list:\n  goal: g\n  todos: 3\nmessages: []\n", 4, 10, `todo_list.todos: want a list of todos`},
		{"todo without an id", "model: x\ntodo_list:\n  todos:\n  - task: t\nmessages: []\n", 4, 5, "todo_list.todos[0]: the todo has no id"},
		{"todo id zero", "model: x\ntodo_list:\n  todos:\n  - id: 0\nmessages: []\n", 4, 9, "todo_list.todos[0].id: want an id of 1 or more"},
		{"todo id not a number", "model: x\ntodo_list:\n  todos:\n  - id: one\nmessages: []\n", 4, 9, `todo_list.todos[0].id: want a whole number, not "one"`},
		{"todo id twice", "model: x\ntodo_list:\n  todos:\n  - id: 1\n  - id: 1\nmessages: []\n", 5, 9, "todo_list.todos[1].id: todo 1 appears twice"},
		{"todo done not a bool", "model: x\ntodo_list:\n  todos:\n  - id: 1\n    done: yes please\nmessages: []\n", 5, 11, `todo_list.todos[0].done: want true or false`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "bad.yaml")
			if err := os.WriteFile(path, []byte(tc.file), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := (&Store{Dir: dir}).Load("bad")
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is not a *FileError", err)
			}
			if fe.Path != path || fe.Line != tc.line || fe.Column != tc.col || !strings.Contains(fe.Msg, tc.wantInText) {
				t.Errorf("got %s:%d:%d: %s\nwant %s:%d:%d: …%s…", fe.Path, fe.Line, fe.Column, fe.Msg, path, tc.line, tc.col, tc.wantInText)
			}
			if want := fmt.Sprintf(`load session "bad": %s:%d:%d: `, path, fe.Line, fe.Column); !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("message %q is not one line starting %q", err, want)
			}
		})
	}
}
