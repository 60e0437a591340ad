package bundled

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/coyote-cli/coyote/assets"
)

func TestNamesListsTheBundledAgents(t *testing.T) {
	want := []string{"coder", "explore", "reviewer", "sql"}
	if got := Names(); !slices.Equal(got, want) {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
}

// bundledFiles lists the embedded files, slash-separated, in lexical order.
func bundledFiles(t *testing.T) []string {
	t.Helper()
	var names []string
	err := fs.WalkDir(assets.Agents(), ".", func(name string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, name)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return names
}

func TestInstallCopiesEveryAgentWithExecutableScripts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "config", "agents") // does not exist yet
	installed, err := Install(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := bundledFiles(t)
	if !slices.Equal(installed, want) {
		t.Fatalf("installed %v, want %v", installed, want)
	}
	for _, name := range want {
		path := filepath.Join(dir, filepath.FromSlash(name))
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		embedded, _ := fs.ReadFile(assets.Agents(), name)
		if string(got) != string(embedded) {
			t.Errorf("%s differs from the embedded file", name)
		}
		st, _ := os.Stat(path)
		wantPerm := fs.FileMode(0o644)
		if strings.HasSuffix(name, ".sh") {
			wantPerm = 0o755
		}
		if runtime.GOOS != "windows" && st.Mode().Perm() != wantPerm {
			t.Errorf("%s has mode %v, want %v", name, st.Mode().Perm(), wantPerm)
		}
	}
	assertNoTempFiles(t, dir)
}

func TestInstallTwiceInstallsNothing(t *testing.T) {
	dir := t.TempDir()
	if _, err := Install(dir); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir)
	installed, err := Install(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(installed) != 0 {
		t.Fatalf("second Install installed %v, want nothing", installed)
	}
	if after := snapshot(t, dir); !equalMaps(before, after) {
		t.Fatalf("second Install changed the directory:\nbefore %v\nafter  %v", before, after)
	}
}

// A user's agent of a bundled agent's name is the user's whole: nothing
// of ours is added to it, or it would be a mix that neither wrote (a
// config.yaml beside the original's graph.yaml is an error; our tools.sh
// beside their tools.py would shadow it).
func TestInstallNeverTouchesTheUsersAgentOfTheSameName(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string // under agents/coder
	}{
		{"their config and tools", map[string]string{"config.yaml": "name: mine\n", "tools.sh": "# mine\n"}},
		{"their config only", map[string]string{"config.yaml": "name: mine\n"}},
		{"a graph agent", map[string]string{"graph.yaml": "version: \"1.0\"\n"}},
		{"only a tools script", map[string]string{"tools.py": "def run(): pass\n"}},
		{"our config with their python tools", map[string]string{"config.yaml": bundledConfig(t, "coder"), "tools.py": "def run(): pass\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for f, data := range tt.files {
				writeFile(t, filepath.Join(dir, "coder", f), data, 0o600)
			}
			before := snapshot(t, filepath.Join(dir, "coder"))
			installed, err := Install(dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range installed {
				if strings.HasPrefix(f, "coder/") {
					t.Errorf("Install added %s to the user's coder agent", f)
				}
			}
			if !slices.Contains(installed, "explore/config.yaml") {
				t.Errorf("the other agents were not installed: %v", installed)
			}
			if after := snapshot(t, filepath.Join(dir, "coder")); !equalMaps(before, after) {
				t.Errorf("the user's agent changed:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

func TestInstallFillsAnAgentThatHasOnlyData(t *testing.T) {
	dir := t.TempDir()
	// Sessions of an agent whose files were removed, or that ran before
	// the agent was installed.
	session := filepath.Join(dir, "sql", "sessions", "s1.yaml")
	writeFile(t, session, "messages: []\n", 0o600)
	installed, err := Install(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(installed, "sql/config.yaml") || !slices.Contains(installed, "sql/tools.sh") {
		t.Fatalf("installed %v, want the sql agent", installed)
	}
	assertFile(t, session, "messages: []\n")
}

func TestInstallCompletesOurAgentAndKeepsEditedFiles(t *testing.T) {
	dir := t.TempDir()
	if _, err := Install(dir); err != nil {
		t.Fatal(err)
	}
	// An interrupted install, or a deleted script: our config is there,
	// unchanged, and the tools are not.
	if err := os.Remove(filepath.Join(dir, "explore", "tools.sh")); err != nil {
		t.Fatal(err)
	}
	// An edited script of an unchanged config stays as it is.
	edited := filepath.Join(dir, "coder", "tools.sh")
	writeFile(t, edited, "# edited\n", 0o755)
	installed, err := Install(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(installed, []string{"explore/tools.sh"}) {
		t.Fatalf("installed %v, want only explore/tools.sh", installed)
	}
	assertFile(t, edited, "# edited\n")

	// Once the user edits the config, the agent is theirs: a deleted
	// script is not brought back.
	cfg := filepath.Join(dir, "reviewer", "config.yaml")
	writeFile(t, cfg, bundledConfig(t, "reviewer")+"# my note\n", 0o644)
	if err := os.Remove(filepath.Join(dir, "reviewer", "tools.sh")); err != nil {
		t.Fatal(err)
	}
	installed, err = Install(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(installed) != 0 {
		t.Fatalf("installed %v into an agent whose config the user edited", installed)
	}
}

func TestInstallWritesTheConfigLast(t *testing.T) {
	files := fstest.MapFS{
		"a/config.yaml":  {Data: []byte("name: a\n")},
		"a/tools.sh":     {Data: []byte("# tools\n")},
		"a/sub/notes.md": {Data: []byte("notes\n")},
	}
	dir := t.TempDir()
	// a/sub is a file, so a/sub/notes.md cannot be written. The config
	// must not be written either: it would make the directory look like
	// an installed agent of the user's, never completed.
	writeFile(t, filepath.Join(dir, "a", "sub"), "in the way\n", 0o644)
	installed, err := install(files, dir)
	if err == nil {
		t.Fatal("no error")
	}
	if _, err := os.Stat(filepath.Join(dir, "a", "config.yaml")); err == nil {
		t.Fatalf("config.yaml was written although a/sub/notes.md failed (installed %v)", installed)
	}
	// Once the obstacle is gone, the next Install completes the agent.
	if err := os.Remove(filepath.Join(dir, "a", "sub")); err != nil {
		t.Fatal(err)
	}
	installed, err = install(files, dir)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(installed, []string{"a/config.yaml", "a/sub/notes.md"}) {
		t.Fatalf("installed %v, want a/config.yaml and a/sub/notes.md", installed)
	}
}

func TestInstallFailsWhenAnAgentPathIsAFile(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "sql"), "not a directory\n", 0o644)
	_, err := Install(dir)
	if err == nil || !strings.Contains(err.Error(), "install agent sql") || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("err = %v, want one naming the sql agent and saying it is not a directory", err)
	}
	assertFile(t, filepath.Join(dir, "sql"), "not a directory\n")
}

func bundledConfig(t *testing.T, name string) string {
	t.Helper()
	data, err := fs.ReadFile(assets.Agents(), name+"/config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// snapshot maps every file under dir (slash-separated, relative) to its
// mode and content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		st, err := os.Lstat(path)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = st.Mode().String() + " " + string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func writeFile(t *testing.T, path, data string, perm fs.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), perm); err != nil {
		t.Fatal(err)
	}
}

func assertFile(t *testing.T, path, want string) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("%s = %q, want %q", path, got, want)
	}
}

func assertNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".") {
			t.Errorf("temporary file left behind: %s", path)
		}
		return nil
	})
}

// BenchmarkInstallWhenInstalled is the cost at every start once the
// agents are there: a few stats and reads per agent, nothing written.
func BenchmarkInstallWhenInstalled(b *testing.B) {
	dir := b.TempDir()
	if _, err := Install(dir); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if got, err := Install(dir); err != nil || len(got) != 0 {
			b.Fatalf("Install = %v, %v", got, err)
		}
	}
}
