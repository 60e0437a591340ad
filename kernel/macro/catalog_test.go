package macro

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// write puts files (name → content) into dir.
func write(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func testDirs(t *testing.T) Dirs {
	root := t.TempDir()
	return Dirs{Global: filepath.Join(root, "global"), Workspace: filepath.Join(root, "ws")}
}

// rows renders a discovered list compactly: name/source[/shadowed][!invalid].
func rows(list []*Macro) string {
	var out []string
	for _, m := range list {
		s := m.Name + "/" + m.Source
		if m.ShadowedBy != "" {
			s += "/shadowed-by-" + m.ShadowedBy
		}
		if m.Err != nil {
			s += "!"
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

func TestDiscoverWorkspaceShadowsGlobal(t *testing.T) {
	d := testDirs(t)
	write(t, d.Global, map[string]string{
		"review.yaml": "description: global review\nsteps: [g]",
		"commit.yaml": "steps: [c]",
	})
	write(t, d.Workspace, map[string]string{
		"review.yaml": "description: workspace review\nsteps: [w]",
		"deploy.yaml": "steps: [d]",
	})
	list, warnings := NewCatalog().Discover(d)
	if len(warnings) != 0 {
		t.Errorf("warnings: %q", warnings)
	}
	want := "commit/global deploy/workspace review/workspace review/global/shadowed-by-workspace"
	if got := rows(list); got != want {
		t.Errorf("Discover = %s\nwant       %s", got, want)
	}
	for _, m := range list {
		if m.Path != filepath.Join(map[string]string{SourceGlobal: d.Global, SourceWorkspace: d.Workspace}[m.Source], m.Name+".yaml") {
			t.Errorf("%s: Path = %s", m.Name, m.Path)
		}
	}
}

func TestDiscoverListsInvalidFilesWithOneWarningEach(t *testing.T) {
	d := testDirs(t)
	write(t, d.Global, map[string]string{
		"enable.yaml":  "steps: [a]",
		"broken.yaml":  "steps: [a\n",
		"typo.yaml":    "stpes: [a]",
		"good.yaml":    "steps: [a]",
		"nosteps.yaml": "description: nothing to do",
	})
	list, warnings := NewCatalog().Discover(d)
	if got, want := rows(list), "broken/global! enable/global! good/global nosteps/global! typo/global!"; got != want {
		t.Errorf("Discover = %s, want %s", got, want)
	}
	if len(warnings) != 4 {
		t.Fatalf("want 4 warnings, got %q", warnings)
	}
	for _, w := range warnings {
		if strings.Contains(w, "\n") || !strings.Contains(w, d.Global+string(filepath.Separator)) {
			t.Errorf("warning is not one line naming the file: %q", w)
		}
	}
	if !strings.Contains(strings.Join(warnings, "|"), `enable.yaml: "enable" is reserved`) {
		t.Errorf("no reserved-name warning: %q", warnings)
	}
	if !strings.Contains(strings.Join(warnings, "|"), `typo.yaml line 1: unknown key "stpes"`) {
		t.Errorf("no unknown-key warning with its line: %q", warnings)
	}
}

func TestDiscoverSkipsWhatIsNotAMacroFile(t *testing.T) {
	d := testDirs(t)
	write(t, d.Global, map[string]string{
		"ok.yaml":                   "steps: [a]",
		".hidden.yaml":              "steps: [a]",
		".ok.yaml.new-123":          "steps: [a]",
		"notes.txt":                 "steps: [a]",
		"other.yml":                 "steps: [a]",
		"README.md":                 "hi",
		"ok.yaml~":                  "steps: [a]",
		"trailing-space.yaml.bak":   "steps: [a]",
		"ok-with-dash_and.dot.yaml": "steps: [a]",
	})
	if err := os.Mkdir(filepath.Join(d.Global, "dir.yaml"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(d.Global, "ok.yaml"), filepath.Join(d.Global, "linked.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(d.Global, "nowhere"), filepath.Join(d.Global, "dangling.yaml")); err != nil {
		t.Fatal(err)
	}
	list, warnings := NewCatalog().Discover(d)
	if got, want := rows(list), "linked/global ok/global ok-with-dash_and.dot/global"; got != want || len(warnings) != 0 {
		t.Errorf("Discover = %s %q, want %s", got, warnings, want)
	}
}

func TestDiscoverMissingDirsAndWorkspaceOff(t *testing.T) {
	d := testDirs(t)
	if list, warnings := NewCatalog().Discover(d); len(list) != 0 || len(warnings) != 0 {
		t.Errorf("missing dirs: %v %q", rows(list), warnings)
	}
	write(t, d.Workspace, map[string]string{"w.yaml": "steps: [a]"})
	write(t, d.Global, map[string]string{"g.yaml": "steps: [a]"})
	off := Dirs{Global: d.Global}
	if list, _ := NewCatalog().Discover(off); rows(list) != "g/global" {
		t.Errorf("workspace off: %s", rows(list))
	}
	if m, ok := NewCatalog().Find(off, "w"); ok {
		t.Errorf("Find found a workspace macro with workspace macros off: %+v", m)
	}
}

func TestDiscoverWarnsWhenADirCannotBeRead(t *testing.T) {
	d := testDirs(t)
	write(t, filepath.Dir(d.Global), map[string]string{"global": "a file, not a directory"})
	_, warnings := NewCatalog().Discover(d)
	if len(warnings) != 1 || !strings.Contains(warnings[0], "global macros directory") {
		t.Errorf("warnings = %q", warnings)
	}
}

func TestDiscoverRereadsAChangedFileOnly(t *testing.T) {
	d := testDirs(t)
	write(t, d.Global, map[string]string{"a.yaml": "steps: [one]", "b.yaml": "steps: [bee]"})
	c := NewCatalog()
	first, _ := c.Discover(d)
	second, _ := c.Discover(d)
	if &first[0].Steps[0] != &second[0].Steps[0] {
		t.Error("an unchanged file was parsed again")
	}
	if first[0] == second[0] {
		t.Error("Discover returned the cached macro itself, not a copy")
	}

	// Same size, new content and mtime.
	path := filepath.Join(d.Global, "a.yaml")
	write(t, d.Global, map[string]string{"a.yaml": "steps: [two]"})
	later := time.Now().Add(2 * time.Second)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
	third, _ := c.Discover(d)
	if third[0].Steps[0] != "two" {
		t.Errorf("changed file not re-read: %q", third[0].Steps)
	}
	if &third[1].Steps[0] != &first[1].Steps[0] {
		t.Error("the unchanged file was parsed again")
	}

	// A size change alone is enough.
	write(t, d.Global, map[string]string{"a.yaml": "steps: [three]"})
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
	if list, _ := c.Discover(d); list[0].Steps[0] != "three" {
		t.Errorf("resized file not re-read: %q", list[0].Steps)
	}

	// A file turning invalid, then valid again.
	write(t, d.Global, map[string]string{"a.yaml": "steps: []"})
	if err := os.Chtimes(path, later.Add(time.Second), later.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if list, w := c.Discover(d); list[0].Err == nil || len(w) != 1 {
		t.Errorf("invalid edit not seen: %+v %q", list[0], w)
	}

	// A removed file is forgotten, by the listing and by the cache.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if list, _ := c.Discover(d); rows(list) != "b/global" {
		t.Errorf("after removal: %s", rows(list))
	}
	if _, ok := c.files[path]; ok {
		t.Error("the cache still holds a removed file")
	}
}

func TestDiscoverMarksShadowingPerCall(t *testing.T) {
	d := testDirs(t)
	write(t, d.Global, map[string]string{"x.yaml": "steps: [g]"})
	c := NewCatalog()
	write(t, d.Workspace, map[string]string{"x.yaml": "steps: [w]"})
	if list, _ := c.Discover(d); rows(list) != "x/workspace x/global/shadowed-by-workspace" {
		t.Errorf("with workspace: %s", rows(list))
	}
	if err := os.Remove(filepath.Join(d.Workspace, "x.yaml")); err != nil {
		t.Fatal(err)
	}
	if list, _ := c.Discover(d); rows(list) != "x/global" {
		t.Errorf("the global macro stayed shadowed: %s", rows(list))
	}
}

func TestFindPrefersTheWorkspaceAndReturnsInvalidMacros(t *testing.T) {
	d := testDirs(t)
	write(t, d.Global, map[string]string{"both.yaml": "steps: [g]", "only-global.yaml": "steps: [g]", "bad.yaml": "nope: 1"})
	write(t, d.Workspace, map[string]string{"both.yaml": "steps: [w]", "shadow-bad.yaml": "steps: []"})
	write(t, d.Global, map[string]string{"shadow-bad.yaml": "steps: [fine]"})
	c := NewCatalog()
	tests := []struct {
		name, source, step string
		invalid, ok        bool
	}{
		{"both", SourceWorkspace, "w", false, true},
		{"only-global", SourceGlobal, "g", false, true},
		{"bad", SourceGlobal, "", true, true},
		{"shadow-bad", SourceWorkspace, "", true, true},
		{"absent", "", "", false, false},
		{"../global/both", "", "", false, false},
		{".hidden", "", "", false, false},
		{"", "", "", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, ok := c.Find(d, tt.name)
			if ok != tt.ok {
				t.Fatalf("Find ok = %v", ok)
			}
			if !ok {
				return
			}
			if m.Source != tt.source || (m.Err != nil) != tt.invalid || m.ShadowedBy != "" {
				t.Errorf("Find = %+v", m)
			}
			if !tt.invalid && m.Steps[0] != tt.step {
				t.Errorf("step = %q", m.Steps[0])
			}
		})
	}
}

func TestFindAndDiscoverShareTheCache(t *testing.T) {
	d := testDirs(t)
	write(t, d.Global, map[string]string{"a.yaml": "steps: [one]"})
	c := NewCatalog()
	list, _ := c.Discover(d)
	m, _ := c.Find(d, "a")
	if &m.Steps[0] != &list[0].Steps[0] {
		t.Error("Find parsed a file Discover had cached")
	}
}

func TestCatalogIsSafeForConcurrentUse(t *testing.T) {
	d := testDirs(t)
	files := map[string]string{}
	for i := range 20 {
		files[fmt.Sprintf("m%02d.yaml", i)] = "steps: [a]"
	}
	write(t, d.Global, files)
	write(t, d.Workspace, map[string]string{"m00.yaml": "steps: [w]"})
	c := NewCatalog()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 20 {
				if i%2 == 0 {
					list, _ := c.Discover(d)
					if len(list) != 21 {
						t.Errorf("len = %d", len(list))
					}
				} else if _, ok := c.Find(d, fmt.Sprintf("m%02d", j)); !ok {
					t.Errorf("Find m%02d failed", j)
				}
				if j == 10 && i == 1 {
					if err := os.WriteFile(filepath.Join(d.Global, "m05.yaml"), []byte("steps: [changed, size]"), 0o644); err != nil {
						t.Error(err)
					}
				}
			}
		}()
	}
	wg.Wait()
}
