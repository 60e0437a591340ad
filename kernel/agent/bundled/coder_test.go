//go:build unix

package bundled

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCoderReadsListsAndSearches(t *testing.T) {
	e := newAgentEnv(t, "coder")
	e.write(t, "main.go", "package main\n\nfunc main() {\n\thello()\n}\n")
	e.write(t, "lib/hello.go", "package main\n\n// Hello says hello.\nfunc hello() {}\n")
	e.write(t, ".git/config", "[core]\n")
	e.write(t, "node_modules/x/index.js", "function hello() {}\n")

	tests := []struct {
		name, tool, args string
		want             []string
		absent           []string
	}{
		{"read numbers lines", "read_file", `{"path":"main.go","offset":3,"limit":2}`,
			[]string{"main.go, lines 3-4 of 5:", "     3\tfunc main() {", "     4\t\thello()", "[... 1 more lines; read on with offset 5]"}, []string{"package"}},
		{"list skips .git and node_modules", "list_files", `{}`,
			[]string{"./ (3 entries", "lib/\n", "lib/hello.go\n", "main.go\n"}, []string{".git", "node_modules"}},
		{"list depth 1", "list_files", `{"path":"lib","depth":1}`, []string{"lib/ (1 entries", "hello.go\n"}, nil},
		{"search", "search", `{"pattern":"hello\\(\\)"}`, []string{"main.go:4:\thello()", "lib/hello.go:4:func hello() {}"}, []string{"node_modules"}},
		{"search ignoring case with a glob", "search", `{"pattern":"HELLO SAYS","ignore_case":true,"glob":"*.go"}`, []string{"lib/hello.go:3:// Hello says hello."}, nil},
		{"search without a match", "search", `{"pattern":"nowhere"}`, []string{"No match for nowhere in ."}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := ok(t, e.call(t, tt.tool, tt.args))
			for _, a := range tt.absent {
				if strings.Contains(out, a) {
					t.Errorf("output has %q:\n%s", a, out)
				}
			}
		})
	}
}

func TestCoderEditsAFileWhenConfirmed(t *testing.T) {
	e := newAgentEnv(t, "coder")
	e.write(t, "a.txt", "one\ntwo\nthree\n")
	if err := os.Chmod(filepath.Join(e.ws, "a.txt"), 0o600); err != nil {
		t.Fatal(err)
	}
	ok(t, e.call(t, "edit_file", `{"path":"a.txt","old":"two\nthree","new":"2\n3\n4"}`, "AUTO_CONFIRM"),
		"Changed a.txt at line 2: replaced 2 line(s) with 3.")
	if got := e.read(t, "a.txt"); got != "one\n2\n3\n4\n" {
		t.Fatalf("a.txt = %q", got)
	}
	if st, _ := os.Stat(filepath.Join(e.ws, "a.txt")); st.Mode().Perm() != 0o600 {
		t.Errorf("the edit changed the mode to %v", st.Mode().Perm())
	}
	// A snippet inside a line, in a file without a last line break.
	e.write(t, "c.go", "x := f(1)\ny := 2")
	ok(t, e.call(t, "edit_file", `{"path":"c.go","old":"f(1)","new":"g(1, 3)"}`, "AUTO_CONFIRM"), "Changed c.go at line 1")
	if got := e.read(t, "c.go"); got != "x := g(1, 3)\ny := 2" {
		t.Fatalf("c.go = %q", got)
	}
	ok(t, e.call(t, "write_file", `{"path":"new/dir/b.txt","contents":"hi\nthere"}`, "AUTO_CONFIRM"),
		"Created new/dir/b.txt (2 lines).")
	if got := e.read(t, "new/dir/b.txt"); got != "hi\nthere" {
		t.Fatalf("b.txt = %q", got)
	}
	ok(t, e.call(t, "write_file", `{"path":"new/dir/b.txt","contents":""}`, "AUTO_CONFIRM"), "Replaced new/dir/b.txt (0 lines).")
	entries, _ := os.ReadDir(filepath.Join(e.ws, "new", "dir"))
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
}

func TestCoderRefusesBadEdits(t *testing.T) {
	e := newAgentEnv(t, "coder")
	const text = "a = 1\nb = 1\nc = 2\n"
	e.write(t, "f.txt", text)
	outside := filepath.Join(filepath.Dir(e.ws), "outside.txt")
	writeFile(t, outside, "secret\n", 0o644)
	if err := os.Symlink(filepath.Dir(e.ws), filepath.Join(e.ws, "up")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, tool, args string
		want             []string
	}{
		{"a snippet that does not occur", "edit_file", `{"path":"f.txt","old":"d = 3","new":"d = 4"}`,
			[]string{"the old text does not occur in f.txt"}},
		{"a snippet that occurs twice", "edit_file", `{"path":"f.txt","old":" = 1","new":" = 9"}`,
			[]string{"the old text occurs more than once in f.txt (at line 1 and at line 2)"}},
		{"overlapping occurrences", "edit_file", `{"path":"f.txt","old":"\n","new":"\r\n"}`,
			[]string{"occurs more than once"}},
		{"an absolute path outside", "read_file", `{"path":"` + outside + `"}`, []string{"is outside the workspace"}},
		{"a relative path outside", "write_file", `{"path":"../outside.txt","contents":"x"}`, []string{"is outside the workspace"}},
		{"a link leading outside", "edit_file", `{"path":"up/outside.txt","old":"secret","new":"x"}`, []string{"is outside the workspace"}},
		{"a directory outside", "list_files", `{"path":"/"}`, []string{"is outside the workspace"}},
		{"a search outside", "search", `{"pattern":"secret","path":".."}`, []string{"is outside the workspace"}},
		{"a missing file", "edit_file", `{"path":"nope.txt","old":"a","new":"b"}`, []string{"no such file: nope.txt"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fails(t, e.call(t, tt.tool, tt.args, "AUTO_CONFIRM"), tt.want...)
			if got := e.read(t, "f.txt"); got != text {
				t.Fatalf("f.txt changed to %q", got)
			}
			if data, _ := os.ReadFile(outside); string(data) != "secret\n" {
				t.Fatalf("the file outside changed to %q", data)
			}
		})
	}
}

func TestCoderChangesNothingWithoutConfirmation(t *testing.T) {
	e := newAgentEnv(t, "coder")
	e.write(t, "f.txt", "old\n")
	marker := filepath.Join(e.ws, "ran")
	tests := []struct{ tool, args string }{
		{"edit_file", `{"path":"f.txt","old":"old","new":"new"}`},
		{"write_file", `{"path":"f.txt","contents":"new"}`},
		{"write_file", `{"path":"g.txt","contents":"new"}`},
		{"run_command", `{"command":"touch ` + marker + `"}`},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			fails(t, e.call(t, tt.tool, tt.args), "this needs the user's confirmation, and there is no terminal")
		})
	}
	if got := e.read(t, "f.txt"); got != "old\n" {
		t.Errorf("f.txt = %q", got)
	}
	for _, p := range []string{filepath.Join(e.ws, "g.txt"), marker} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s exists", p)
		}
	}
}

func TestCoderRunsACommandInTheWorkspace(t *testing.T) {
	e := newAgentEnv(t, "coder")
	ok(t, e.call(t, "run_command", `{"command":"pwd -P; echo oops >&2; exit 3"}`, "AUTO_CONFIRM"),
		resolved(t, e.ws)+"\n", "oops\n", "[exit status: 3]")
}

func resolved(t *testing.T, dir string) string {
	t.Helper()
	p, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
