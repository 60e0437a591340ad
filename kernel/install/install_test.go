package install

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/coyote-cli/coyote/assets"
	"github.com/coyote-cli/coyote/kernel/mcpconf"
)

func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, p)
		got[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	return got
}

// TestPlanAndApplyResolveEachConflict runs every answer to two changed
// files and checks what ends up on disk.
func TestPlanAndApplyResolveEachConflict(t *testing.T) {
	bundle := fstest.MapFS{
		"a.md":        {Data: []byte("theirs a")},
		"b.md":        {Data: []byte("theirs b")},
		"new/c.md":    {Data: []byte("theirs c")},
		"same.md":     {Data: []byte("same")},
		"tools/x.sh":  {Data: []byte("#!/bin/sh\n")},
		".git/config": {Data: []byte("never copied")},
	}
	mine := map[string]string{"a.md": "mine a", "b.md": "mine b", "same.md": "same"}
	tests := []struct {
		name    string
		answers []Choice
		want    map[string]string
		aborted bool
	}{
		{"keep both", []Choice{Keep, Keep}, map[string]string{"a.md": "mine a", "b.md": "mine b"}, false},
		{"replace one", []Choice{Replace, Keep}, map[string]string{"a.md": "theirs a", "b.md": "mine b"}, false},
		{"keep all", []Choice{KeepAll}, map[string]string{"a.md": "mine a", "b.md": "mine b"}, false},
		{"replace all", []Choice{ReplaceAll}, map[string]string{"a.md": "theirs a", "b.md": "theirs b"}, false},
		{"abort after a replace", []Choice{Replace, Abort}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, mine)
			asked := 0
			plan, err := MakePlan([]Part{{Kind: "roles", FS: bundle, Label: "roles", Dir: dir}}, func(f File) (Choice, error) {
				if !f.Replaces {
					t.Errorf("asked about %s, which is new", f.Shown())
				}
				asked++
				return tt.answers[asked-1], nil
			})
			if tt.aborted {
				if !errors.Is(err, ErrAborted) {
					t.Fatalf("err = %v, want ErrAborted", err)
				}
				if got := readTree(t, dir); len(got) != len(mine) || got["a.md"] != "mine a" {
					t.Fatalf("an aborted install changed files: %v", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if asked != len(tt.answers) {
				t.Errorf("asked %d times, want %d", asked, len(tt.answers))
			}
			if plan.Same != 1 {
				t.Errorf("Same = %d, want 1", plan.Same)
			}
			if _, err := Apply(plan); err != nil {
				t.Fatal(err)
			}
			got := readTree(t, dir)
			for name, text := range tt.want {
				if got[name] != text {
					t.Errorf("%s = %q, want %q", name, got[name], text)
				}
			}
			if got["new/c.md"] != "theirs c" {
				t.Errorf("new file not installed: %v", got)
			}
			if _, ok := got[".git/config"]; ok {
				t.Error(".git was copied")
			}
			st, err := os.Stat(filepath.Join(dir, "tools", "x.sh"))
			if err != nil || st.Mode().Perm() != 0o755 {
				t.Errorf("script mode: %v %v", st, err)
			}
			for name := range got {
				if filepath.Base(name)[0] == '.' {
					t.Errorf("staging file left behind: %s", name)
				}
			}
		})
	}
}

// TestApplyFailureLeavesDestinationsAsTheyWere makes the last move fail
// (its destination turned into a folder after planning) and checks that
// the replaced file is back and the new ones are gone.
func TestApplyFailureLeavesDestinationsAsTheyWere(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.md": "mine a"})
	bundle := fstest.MapFS{"a.md": {Data: []byte("theirs a")}, "b.md": {Data: []byte("b")}, "z/z.md": {Data: []byte("z")}}
	plan, err := MakePlan([]Part{{FS: bundle, Label: "roles", Dir: dir}}, func(File) (Choice, error) { return Replace, nil })
	if err != nil {
		t.Fatal(err)
	}
	// Something appears where the last file goes: a non-empty folder,
	// which a rename cannot replace.
	writeTree(t, dir, map[string]string{"z/z.md/inside": "x"})
	if _, err := Apply(plan); err == nil {
		t.Fatal("Apply succeeded over a folder")
	}
	got := readTree(t, dir)
	want := map[string]string{"a.md": "mine a", "z/z.md/inside": "x"}
	if len(got) != len(want) || got["a.md"] != "mine a" || got["z/z.md/inside"] != "x" {
		t.Fatalf("after a failed install: %v, want %v", got, want)
	}
}

func TestPlanSkipsLinksAndMissingParts(t *testing.T) {
	src := t.TempDir()
	writeTree(t, src, map[string]string{"roles/r.md": "r"})
	if err := os.Symlink("/etc/passwd", filepath.Join(src, "roles", "link.md")); err != nil {
		t.Skip("no symlinks here")
	}
	if err := os.Symlink("/etc", filepath.Join(src, "agents")); err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	parts := []Part{
		{Kind: "roles", FS: os.DirFS(filepath.Join(src, "roles")), Label: "roles", Dir: filepath.Join(dst, "roles")},
		{Kind: "skills", FS: os.DirFS(filepath.Join(src, "skills")), Label: "skills", Dir: filepath.Join(dst, "skills")},
	}
	plan, err := MakePlan(parts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Files) != 1 || plan.Files[0].Shown() != "roles/r.md" {
		t.Fatalf("files = %v", plan.Files)
	}
	if !slices.Equal(plan.Skipped, []string{"roles/link.md"}) {
		t.Fatalf("skipped = %v", plan.Skipped)
	}
	if !realDir(src, "roles") || realDir(src, "agents") || realDir(src, "skills") {
		t.Fatal("realDir: a link or a missing folder taken for a folder")
	}
}

func TestMergeMCP(t *testing.T) {
	parse := func(s string) *mcpconf.File {
		t.Helper()
		f, err := mcpconf.Parse("x.json", []byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	mine := `{"mcpServers":{"a":{"type":"stdio","command":"a"},"b":{"command":"mine"},"b-remote":{"command":"old"}}}`
	theirs := `{"mcpServers":{"a":{"command":"a"},"b":{"command":"theirs"},"c":{"url":"https://c.example/mcp"}}}`
	tests := []struct {
		choice ServerChoice
		want   map[string]string // name -> command or url
	}{
		{KeepServer, map[string]string{"a": "a", "b": "mine", "b-remote": "old", "c": "https://c.example/mcp"}},
		{TakeServer, map[string]string{"a": "a", "b": "theirs", "b-remote": "old", "c": "https://c.example/mcp"}},
		{RenameServer, map[string]string{"a": "a", "b": "mine", "b-remote": "old", "b-remote-2": "theirs", "c": "https://c.example/mcp"}},
	}
	for _, tt := range tests {
		dst := parse(mine)
		asked := 0
		_, _, err := MergeMCP(dst, parse(theirs), func(m, th *mcpconf.Server) (ServerChoice, error) {
			asked++
			if m.Name != "b" {
				t.Errorf("asked about %s (the same server, or a new one)", m.Name)
			}
			return tt.choice, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if asked != 1 {
			t.Errorf("asked %d times", asked)
		}
		got := map[string]string{}
		for _, s := range dst.Servers {
			got[s.Name] = s.Target()
		}
		if len(got) != len(tt.want) {
			t.Errorf("choice %d: servers %v, want %v", tt.choice, got, tt.want)
		}
		for n, w := range tt.want {
			if got[n] == "" || !strings.Contains(got[n], w) {
				t.Errorf("choice %d: %s = %q, want %q", tt.choice, n, got[n], w)
			}
		}
	}
	if _, _, err := MergeMCP(parse(mine), parse(theirs), func(*mcpconf.Server, *mcpconf.Server) (ServerChoice, error) { return AbortServers, nil }); !errors.Is(err, ErrAborted) {
		t.Fatalf("abort: %v", err)
	}
}

func TestBundledMCPConfigParses(t *testing.T) {
	f, err := mcpconf.Parse("bundled", assets.MCPConfig())
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Servers) < 5 {
		t.Fatalf("%d servers", len(f.Servers))
	}
}

func TestSplitRefAndFilter(t *testing.T) {
	for in, want := range map[string][2]string{
		"https://h/x.git":        {"https://h/x.git", ""},
		"https://h/x.git#v1":     {"https://h/x.git", "v1"},
		"git@h:x/y.git#feat/a-b": {"git@h:x/y.git", "feat/a-b"},
	} {
		if u, r := SplitRef(in); u != want[0] || r != want[1] {
			t.Errorf("SplitRef(%q) = %q, %q", in, u, r)
		}
	}
	if got, err := ParseFilter([]string{"roles,agents", "mcp_config"}); err != nil || len(got) != 3 || !got["mcp_config"] {
		t.Errorf("ParseFilter = %v, %v", got, err)
	}
	if got, _ := ParseFilter(nil); len(got) != len(Kinds) {
		t.Errorf("no filter keeps %v", got)
	}
	if _, err := ParseFilter([]string{"tools"}); err == nil {
		t.Error("an unknown kind is accepted")
	}
}
