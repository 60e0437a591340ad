package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

var day = time.Date(2025, 6, 15, 12, 0, 0, 0, time.Local)

// newStore is a set-up store (a MEMORY.md) in a temporary directory,
// holding files (name → text).
func newStore(t testing.TB, scope Scope, index string, files map[string]string) Store {
	t.Helper()
	s := Store{Scope: scope, Dir: filepath.Join(t.TempDir(), "memory")}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	files = maps(files, IndexName, index)
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(s.Dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func maps(m map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for a, b := range m {
		out[a] = b
	}
	return out
}

func drill(name, extra, body string) string {
	return "---\nname: " + name + "\ndescription: about " + name + "\ntype: project\n" + extra + "---\n" + body + "\n"
}

func TestCheckNameRefusesPathsAndOddNames(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"tests.md", "tests.md", true},
		{"tests", "tests.md", true},
		{" Build_Notes-2.md ", "Build_Notes-2.md", true},
		{"", "", false},
		{"../x.md", "", false},
		{"a/b.md", "", false},
		{`a\b.md`, "", false},
		{"..md", "", false},
		{".hidden.md", "", false},
		{"MEMORY.md", "", false},
		{"memory", "", false}, // memory.md is fine, but case-folded MEMORY.md is the index
		{"sp ace.md", "", false},
		{"é.md", "", false},
		{strings.Repeat("a", 101) + ".md", "", false},
	} {
		got, err := CheckName(tc.in)
		if tc.ok != (err == nil) || got != tc.want {
			t.Errorf("CheckName(%q) = %q, %v; want %q ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrBadName) {
			t.Errorf("CheckName(%q): %v is not ErrBadName", tc.in, err)
		}
	}
}

func TestParseDateFormats(t *testing.T) {
	for _, tc := range []struct {
		in   string
		end  bool
		want time.Time
		ok   bool
	}{
		{"2025-06-30", false, time.Date(2025, 6, 30, 0, 0, 0, 0, time.Local), true},
		{"2025-06-30", true, time.Date(2025, 6, 30, 23, 59, 59, 999999999, time.Local), true},
		{"2025-06-30 14:05", true, time.Date(2025, 6, 30, 14, 5, 0, 0, time.Local), true},
		{"2025-06-30T14:05", false, time.Date(2025, 6, 30, 14, 5, 0, 0, time.Local), true},
		{"2025-06-30 14:05:06", false, time.Date(2025, 6, 30, 14, 5, 6, 0, time.Local), true},
		{"2025-06-30T14:05:06Z", false, time.Date(2025, 6, 30, 14, 5, 6, 0, time.UTC), true},
		{"2025-06-30T14:05:06+02:00", false, time.Date(2025, 6, 30, 12, 5, 6, 0, time.UTC), true},
		{"2025-13-01", false, time.Time{}, false},
		{"30/06/2025", false, time.Time{}, false},
		{"tomorrow", false, time.Time{}, false},
	} {
		got, err := ParseDate(tc.in, tc.end)
		if tc.ok != (err == nil) || !got.Equal(tc.want) {
			t.Errorf("ParseDate(%q, %v) = %v, %v; want %v ok=%v", tc.in, tc.end, got, err, tc.want, tc.ok)
		}
	}
}

func TestParseEntryProblemsNameTheFile(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		problem    string // "" when the entry is usable
		status     Status
	}{
		{"plain", drill("a", "", "body"), "", Active},
		{"no front matter", "just text\n", "", Active},
		{"quoted dates", drill("a", "created: \"2025-01-02\"\nexpires: '2025-12-31'\n", "b"), "", Active},
		{"expired", drill("a", "expires: 2025-06-14\n", "b"), "", Expired},
		{"expires today", drill("a", "expires: 2025-06-15\n", "b"), "", Active},
		{"superseded", drill("a", "superseded_by: b.md\n", "b"), "", Superseded},
		{"bad expires", drill("a", "expires: 2025-02-30\n", "b"), `expires: "2025-02-30" is not a date`, Invalid},
		{"bad created", drill("a", "created: soon\n", "b"), `created: "soon" is not a date`, Invalid},
		{"broken yaml", "---\nname: [unclosed\n---\nbody\n", "broken front matter", Invalid},
		{"unclosed", "---\nname: a\nbody\n", "not closed", Invalid},
		{"not utf-8", "---\nname: \xff\n---\n", "not UTF-8", Invalid},
	} {
		e := parseEntry("x.md", "/m/x.md", []byte(tc.text))
		if !strings.Contains(e.Problem, tc.problem) || (tc.problem == "") != (e.Problem == "") {
			t.Errorf("%s: problem %q, want %q", tc.name, e.Problem, tc.problem)
		}
		if e.Problem != "" && (!strings.HasPrefix(e.Problem, "/m/x.md") || strings.Contains(e.Problem, "\n")) {
			t.Errorf("%s: problem %q is not one line naming the file", tc.name, e.Problem)
		}
		if st := e.Status(day); st != tc.status {
			t.Errorf("%s: status %s, want %s", tc.name, st, tc.status)
		}
	}
}

// The prompt shows the index without its comments and without the lines
// of expired, superseded, unusable and missing entries; each unusable
// entry is one warning.
func TestRenderLeavesOutEntriesNotInUse(t *testing.T) {
	s := newStore(t, Global, "# Mine\n<!-- a comment\n- [Example](example.md): not an entry -->\n"+
		"- [Good](good.md): keep\n- [Old](old.md): expired\n- [Replaced](replaced.md): superseded\n"+
		"- [Bad](bad.md): bad date\n- [Gone](gone.md): missing\n- [Escape](../x.md): outside\n- [Site](https://example.com): a web link\n",
		map[string]string{
			"good.md":     drill("Good", "", "Good body."),
			"old.md":      drill("Old", "expires: 2024-01-01\n", "Old body."),
			"replaced.md": drill("Replaced", "superseded_by: good.md\n", "Replaced body."),
			"bad.md":      drill("Bad", "expires: someday\n", "Bad body."),
		})
	m, err := Read(s)
	if err != nil {
		t.Fatal(err)
	}
	r := Render([]*Memory{m}, RenderOptions{Cap: 10000, CapKey: "memory_cap_with_tools", Now: day})
	for _, want := range []string{"## Global memory: " + s.Index(), "# Mine", "- [Good](good.md): keep", "[Site](https://example.com)"} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("prompt lacks %q:\n%s", want, r.Text)
		}
	}
	for _, not := range []string{"comment", "example.md", "old.md", "replaced.md", "bad.md", "gone.md", "../x.md", "Good body."} {
		if strings.Contains(r.Text, not) {
			t.Errorf("prompt has %q:\n%s", not, r.Text)
		}
	}
	w := m.Warnings()
	if len(w) != 2 || !strings.Contains(w[0], "bad.md: expires: \"someday\" is not a date") || !strings.Contains(w[1], "gone.md (linked from") {
		t.Errorf("warnings %q", w)
	}

	inline := Render([]*Memory{m}, RenderOptions{Cap: 10000, CapKey: "memory_cap_without_tools", Now: day, Inline: true})
	if !strings.Contains(inline.Text, "### Good (global memory, good.md)\n\nGood body.") || strings.Contains(inline.Text, "Old body.") ||
		strings.Contains(inline.Text, "Replaced body.") {
		t.Errorf("inlined:\n%s", inline.Text)
	}
}

// Past the cap the text is cut, on a line, and a note says so with the
// setting's name; under it nothing is cut and there is no note.
func TestRenderCapsWithAVisibleNote(t *testing.T) {
	var index strings.Builder
	files := map[string]string{}
	for i := range 40 {
		f := fmt.Sprintf("e%02d.md", i)
		fmt.Fprintf(&index, "- [Entry %02d](%s): what entry %d holds\n", i, f, i)
		files[f] = drill(f, "", strings.Repeat(fmt.Sprintf("Body line of entry %d.\n", i), 10))
	}
	s := newStore(t, Workspace, index.String(), files)
	m, err := Read(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cap    int
		inline bool
		key    string
		cut    bool
	}{
		{6000, false, "memory_cap_with_tools", false},
		{1000, false, "memory_cap_with_tools", true},
		{12000, true, "memory_cap_without_tools", true},
		{100000, true, "memory_cap_without_tools", false},
		{0, false, "memory_cap_with_tools", true},
	} {
		r := Render([]*Memory{m}, RenderOptions{Cap: tc.cap, CapKey: tc.key, Inline: tc.inline, Now: day})
		if r.Cut != tc.cut {
			t.Errorf("cap %d inline %v: cut %v (full %d)", tc.cap, tc.inline, r.Cut, r.Full)
		}
		note := fmt.Sprintf("[Memory cut here: it has %d characters, more than the %d of %s;", r.Full, tc.cap, tc.key)
		if tc.cut != strings.Contains(r.Text, note) {
			t.Errorf("cap %d: note %v in\n%s", tc.cap, !tc.cut, r.Text)
		}
		if tc.cut {
			body, _, _ := strings.Cut(r.Text, "\n[Memory cut here")
			if n := len([]rune(body)); n > tc.cap || (tc.cap > 0 && !strings.HasSuffix(body, "\n")) {
				t.Errorf("cap %d: %d characters before the note, or cut inside a line: %q", tc.cap, n, body[max(0, len(body)-40):])
			}
		}
	}
}

func TestLintReportsEachProblemOnce(t *testing.T) {
	s := newStore(t, Global, "- [Good](good.md): ok\n- [Good again](good.md): twice\n- [Old](old.md): x\n- [Rep](rep.md): x\n"+
		"- [Bad](bad.md): x\n- [Gone](gone.md): x\n- [Out](../etc/passwd): x\n- [Nodesc](nodesc.md): x\n",
		map[string]string{
			"good.md":   drill("Good", "", "b"),
			"old.md":    drill("Old", "expires: 2024-01-01\n", "b"),
			"rep.md":    drill("Rep", "superseded_by: newer.md\n", "b"),
			"bad.md":    drill("Bad", "updated: 2025-99-99\n", "b"),
			"nodesc.md": "---\nname: n\n---\nb\n",
			"stray.md":  drill("Stray", "", "b"),
		})
	got, err := LintStore(s, day)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"links good.md more than once",
		"line 7 links \"../etc/passwd\", which is not a file of the memory directory",
		"old.md expired on 2024-01-01",
		"rep.md is superseded by newer.md",
		"rep.md: superseded_by names newer.md, which does not exist",
		"bad.md: updated: \"2025-99-99\" is not a date",
		"gone.md (linked from " + s.Index() + "): the file does not exist",
		"nodesc.md has no description",
		"stray.md is not linked from",
	}
	if len(got) != len(want) {
		t.Fatalf("%d problems, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Errorf("problem %d = %q, want it to say %q", i, got[i], w)
		}
	}
	clean := newStore(t, Global, "- [Good](good.md): ok\n", map[string]string{"good.md": drill("Good", "", "b")})
	if got, _ := LintStore(clean, day); len(got) != 0 {
		t.Errorf("a clean store: %q", got)
	}
}

func TestWriteCreatesReplacesAndKeepsCreated(t *testing.T) {
	s := newStore(t, Global, "# Index\n\nFree text stays.\n", nil)
	file, created, err := Write(s, "tests", Draft{Name: "Tests [unit]", Description: "how to run\nthe tests", Body: "make test"}, day)
	if err != nil || !created || file != "tests.md" {
		t.Fatalf("%q %v %v", file, created, err)
	}
	later := day.AddDate(0, 1, 0)
	if _, created, err = Write(s, "tests.md", Draft{Description: "how to run them now", Body: "make check", Expires: "2030-01-01"}, later); err != nil || created {
		t.Fatalf("replace: %v %v", created, err)
	}
	index, _ := os.ReadFile(s.Index())
	if want := "# Index\n\nFree text stays.\n- [tests](tests.md): how to run them now\n"; string(index) != want {
		t.Fatalf("index %q, want %q", index, want)
	}
	m, err := Read(s)
	if err != nil {
		t.Fatal(err)
	}
	e := m.Entries["tests.md"]
	if e.Problem != "" || e.Body != "make check" || e.Type != "note" || !e.Created.Equal(time.Date(2025, 6, 15, 0, 0, 0, 0, time.Local)) ||
		e.Updated.Format(time.DateOnly) != "2025-07-15" || e.Expires.Format(time.DateOnly) != "2030-01-01" {
		t.Fatalf("entry %+v", e)
	}
	for _, tc := range []struct {
		name string
		d    Draft
		want string
	}{
		{"../up", Draft{Description: "d", Body: "b"}, "not a path"},
		{"x", Draft{Body: "b"}, "description is needed"},
		{"x", Draft{Description: "d"}, "content is empty"},
		{"x", Draft{Description: "d", Body: "b", Expires: "next week"}, "not a date"},
		{"x", Draft{Description: "d", Body: "b", SupersededBy: "../y"}, "superseded_by"},
		{"x", Draft{Description: "d", Body: strings.Repeat("x", MaxFile)}, "more than the 64 KiB"},
	} {
		if _, _, err := Write(s, tc.name, tc.d, day); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Write(%q, %+v): %v, want %q", tc.name, tc.d.Expires, err, tc.want)
		}
	}
	none := Store{Scope: Workspace, Dir: t.TempDir()}
	if _, _, err := Write(none, "x", Draft{Description: "d", Body: "b"}, day); !errors.Is(err, ErrNotSetUp) ||
		!strings.Contains(err.Error(), "coyote --init-memory workspace") {
		t.Errorf("a store without MEMORY.md: %v", err)
	}
	if _, err := os.Stat(filepath.Join(none.Dir, "x.md")); err == nil {
		t.Error("a write to a store that is not set up left a file")
	}
}

func TestDeleteRenameAndEditIndex(t *testing.T) {
	s := newStore(t, Global, "- [A](a.md): a\n- [B](./b.md \"title\"): b\n", map[string]string{
		"a.md": drill("A", "", "a"), "b.md": drill("B", "", "b"), "old.md": drill("Old", "superseded_by: b.md\n", "o"),
	})
	if err := Rename(s, "b.md", "c"); err != nil {
		t.Fatal(err)
	}
	index, _ := os.ReadFile(s.Index())
	if string(index) != "- [A](a.md): a\n- [B](c.md \"title\"): b\n" {
		t.Fatalf("index after rename %q", index)
	}
	if old, _ := os.ReadFile(filepath.Join(s.Dir, "old.md")); !strings.Contains(string(old), "superseded_by: c.md\n") {
		t.Fatalf("old.md after rename:\n%s", old)
	}
	if err := Rename(s, "a.md", "c.md"); err == nil || !strings.Contains(err.Error(), "has a file c.md already") {
		t.Fatalf("rename over a file: %v", err)
	}
	if err := Rename(s, "zz.md", "y.md"); err == nil || !strings.Contains(err.Error(), "no file zz.md") {
		t.Fatalf("rename of nothing: %v", err)
	}
	if err := Delete(s, "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(s.Dir, "a.md")); err == nil {
		t.Fatal("a.md is still there")
	}
	if err := Delete(s, "a"); err == nil || !strings.Contains(err.Error(), "no file a.md") {
		t.Fatalf("second delete: %v", err)
	}
	if err := EditIndex(s, "- [B]", "- [Bee]"); err != nil {
		t.Fatal(err)
	}
	if err := EditIndex(s, "nowhere", "x"); err == nil || !strings.Contains(err.Error(), "not in the index") {
		t.Fatalf("edit of absent text: %v", err)
	}
	if err := AppendIndex(s, "- [D](d.md): d"); err != nil {
		t.Fatal(err)
	}
	if err := EditIndex(s, "](", "]["); err == nil || !strings.Contains(err.Error(), "appears 2 times") {
		t.Fatalf("ambiguous edit: %v", err)
	}
	index, _ = os.ReadFile(s.Index())
	if string(index) != "- [Bee](c.md \"title\"): b\n- [D](d.md): d\n" {
		t.Fatalf("index %q", index)
	}
	if err := ReplaceIndex(s, "  \n"); err == nil {
		t.Fatal("an empty index was accepted")
	}
}

func TestInitWritesOnceAndKeepsTheWorkspaceOutOfGit(t *testing.T) {
	repo := t.TempDir()
	sub := filepath.Join(repo, "a", "b")
	for _, d := range []string{filepath.Join(repo, ".git"), sub} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s := WorkspaceStore(sub)
	if s.Dir != filepath.Join(repo, ".coyote", "memory") {
		t.Fatalf("workspace memory at %s", s.Dir)
	}
	p, created, err := Init(s)
	if err != nil || !created || p != s.Index() || !s.Exists() {
		t.Fatalf("%s %v %v", p, created, err)
	}
	if ig, _ := os.ReadFile(filepath.Join(s.Dir, ".gitignore")); !strings.Contains(string(ig), "\n*\n") {
		t.Fatalf(".gitignore %q", ig)
	}
	if err := os.WriteFile(p, []byte("mine\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, created, err = Init(s); err != nil || created {
		t.Fatalf("second init: %v %v", created, err)
	}
	if b, _ := os.ReadFile(p); string(b) != "mine\n" {
		t.Fatalf("Init replaced MEMORY.md: %q", b)
	}
	m, err := Read(s)
	if err != nil || len(m.Links) != 0 {
		t.Fatalf("%v %+v", err, m)
	}
	// A new index has no entries: its example line is in a comment.
	g := GlobalStore(t.TempDir())
	if _, _, err := Init(g); err != nil {
		t.Fatal(err)
	}
	if m, _ := Read(g); len(m.Links) != 0 || strings.TrimSpace(m.promptIndex(day)) != "(empty)" {
		t.Fatalf("a new index: %+v %q", m.Links, m.promptIndex(day))
	}
	if _, err := os.Stat(filepath.Join(g.Dir, ".gitignore")); err == nil {
		t.Error("the global memory got a .gitignore")
	}
	if got := InForce(filepath.Dir(g.Dir), sub); len(got) != 2 || got[0].Scope != Global || got[1].Scope != Workspace {
		t.Errorf("in force: %+v", got)
	}
}

// A symbolic link among the drill files is never followed.
func TestLinkedSymlinkIsNotFollowed(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret.md")
	if err := os.WriteFile(secret, []byte("TOP SECRET"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := newStore(t, Workspace, "- [S](s.md): s\n", nil)
	if err := os.Symlink(secret, filepath.Join(s.Dir, "s.md")); err != nil {
		t.Skip(err)
	}
	m, err := Read(s)
	if err != nil {
		t.Fatal(err)
	}
	r := Render([]*Memory{m}, RenderOptions{Cap: 1000, Inline: true, Now: day})
	if strings.Contains(r.Text, "TOP SECRET") || len(m.Warnings()) != 1 || !strings.Contains(m.Warnings()[0], "not a regular file") {
		t.Fatalf("%q %q", r.Text, m.Warnings())
	}
	if _, err := ReadFile(s, "s.md"); err == nil {
		t.Fatal("memory__read followed the link")
	}
}

// The functions: the workspace memory is the default, scope picks one,
// list and lint see both, and calls on a memory that is not set up say
// how to set it up.
func TestFuncsPickTheMemory(t *testing.T) {
	g := newStore(t, Global, "", nil)
	w := newStore(t, Workspace, "", nil)
	stores := []Store{g, w}
	funcs := map[string]func(string) (string, error){}
	for _, f := range Funcs(func() []Store { return stores }, func() time.Time { return day }) {
		if !f.Builtin || f.Source != "builtin" || !strings.HasPrefix(f.Name, Prefix) || !json.Valid(f.Parameters) {
			t.Errorf("%s: %+v", f.Name, f)
		}
		funcs[f.Name] = func(args string) (string, error) { return f.Call(context.Background(), json.RawMessage(args)) }
	}
	names := make([]string, 0, len(funcs))
	for n := range funcs {
		names = append(names, n)
	}
	slices.Sort(names)
	if want := []string{"memory__delete", "memory__edit_index", "memory__lint", "memory__list", "memory__read", "memory__rename", "memory__write"}; !slices.Equal(names, want) {
		t.Fatalf("functions %v", names)
	}
	call := func(name, args string) string {
		t.Helper()
		out, err := funcs[name](args)
		if err != nil {
			t.Fatalf("%s(%s): %v", name, args, err)
		}
		return out
	}
	call("memory__write", `{"file":"w.md","description":"workspace fact","content":"W"}`)
	call("memory__write", `{"file":"g.md","description":"global fact","content":"G","scope":"global"}`)
	if _, err := os.Stat(filepath.Join(w.Dir, "w.md")); err != nil {
		t.Fatal("the default write did not go to the workspace memory")
	}
	if _, err := os.Stat(filepath.Join(g.Dir, "g.md")); err != nil {
		t.Fatal("scope global did not go to the global memory")
	}
	if out := call("memory__list", `{}`); !strings.Contains(out, "- g.md [active] g (note; updated 2025-06-15): global fact") || !strings.Contains(out, "- w.md [active]") {
		t.Fatalf("list:\n%s", out)
	}
	if out := call("memory__read", `{"file":"w"}`); !strings.Contains(out, "\nW\n") {
		t.Fatalf("read %q", out)
	}
	if out := call("memory__read", `{"file":"MEMORY.md","scope":"global"}`); out != "- [g](g.md): global fact\n" {
		t.Fatalf("read index %q", out)
	}
	call("memory__edit_index", `{"append":"- [x](x.md): dangling"}`)
	if out := call("memory__lint", `{}`); !strings.Contains(out, "x.md (linked from") {
		t.Fatalf("lint %q", out)
	}
	call("memory__edit_index", `{"old_text":"- [x](x.md): dangling\n","new_text":""}`)
	if out := call("memory__lint", `{}`); out != "No problems found." {
		t.Fatalf("lint %q", out)
	}
	call("memory__rename", `{"file":"w.md","new_file":"w2.md"}`)
	call("memory__delete", `{"file":"w2.md"}`)
	for _, tc := range []struct{ name, args, want string }{
		{"memory__read", `{"file":"../../etc/passwd"}`, "not a path"},
		{"memory__read", `{"file":"nope.md"}`, "has no file nope.md"},
		{"memory__write", `{"file":"a.md","description":"d","content":"c","scope":"team"}`, `unknown memory "team"`},
		{"memory__edit_index", `{"append":"x","content":"y"}`, "exactly one of"},
		{"memory__write", `{"file": 3}`, "invalid arguments"},
	} {
		if _, err := funcs[tc.name](tc.args); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s(%s): %v, want %q", tc.name, tc.args, err, tc.want)
		}
	}
	stores = []Store{g}
	if _, err := funcs["memory__write"](`{"file":"a.md","description":"d","content":"c","scope":"workspace"}`); err == nil ||
		!strings.Contains(err.Error(), "coyote --init-memory workspace") {
		t.Errorf("write to a memory not set up: %v", err)
	}
}

// The quick reader of front matter agrees with the YAML parser on every
// input it takes, and leaves the others to it.
func TestSimpleFrontAgreesWithYAML(t *testing.T) {
	for _, tc := range []struct {
		fm     string
		simple bool
	}{
		{"name: Tests\ndescription: how to run the tests\ntype: project\n", true},
		{"created: 2025-01-02\nupdated: 2025-01-02T10:00:00Z\nexpires: 2025-06-30 14:05\n", true},
		{"name: \"quoted: yes\"\ndescription: 'single'\n", true},
		{"name: true\ndescription: 12\ntype: ~\nexpires: null\n", true},
		{"name: x\n\n\ndescription:\n", true},
		{"name: a # comment\n", false},
		{"name: a: b\n", false},
		{"name: [a, b]\n", false},
		{"name: |\n  block\n", false},
		{"name: \"esc\\\"aped\"\n", false},
		{"other: x\n", false},
		{"name:x\n", false},
		{"  name: indented\n", false},
		{"name: -5\n", false},
	} {
		got, ok := simpleFront(tc.fm)
		if ok != tc.simple {
			t.Errorf("%q: simple %v, want %v", tc.fm, ok, tc.simple)
		}
		if !ok {
			continue
		}
		var want front
		if err := yaml.Unmarshal([]byte(tc.fm), &want); err != nil {
			t.Fatalf("%q: %v", tc.fm, err)
		}
		if got != want {
			t.Errorf("%q: quick %+v, YAML %+v", tc.fm, got, want)
		}
	}
}
