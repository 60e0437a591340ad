package plugins

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
)

func TestParseBinaryName(t *testing.T) {
	tests := []struct {
		file, kind, name string
		ok               bool
	}{
		{"coyote-provider-openai", "provider", "openai", true},
		{"coyote-provider-openai-compatible", "provider", "openai-compatible", true},
		{"coyote-rag-duckdb", "rag", "duckdb", true},
		{"coyote-mcp", "mcp", "", true},
		{"coyote-sandbox", "sandbox", "", true},
		{"coyote-provider", "", "", false},
		{"coyote-provider-", "", "", false},
		{"coyote-frobnicator-x", "", "", false},
		{"coyote", "", "", false},
		{"provider-openai", "", "", false},
	}
	for _, tt := range tests {
		kind, name, ok := ParseBinaryName(tt.file)
		if kind != tt.kind || name != tt.name || ok != tt.ok {
			t.Errorf("ParseBinaryName(%q) = %q %q %v, want %q %q %v", tt.file, kind, name, ok, tt.kind, tt.name, tt.ok)
		}
	}
}

func TestSearchPathOrder(t *testing.T) {
	env := map[string]string{"COYOTE_PLUGINS_DIR": "/a" + string(os.PathListSeparator) + "/b"}
	dirs := SearchPath("/cfg", func(k string) string { return env[k] })
	exe, _ := os.Executable()
	exe, _ = filepath.EvalSymlinks(exe)
	want := []string{"/a", "/b", "/cfg/plugins", filepath.Join(filepath.Dir(exe), "plugins"), filepath.Join(filepath.Dir(exe), "..", "lib", "coyote", "plugins")}
	if !reflect.DeepEqual(dirs, want) {
		t.Fatalf("dirs = %q\nwant %q", dirs, want)
	}
	// A directory named twice (here the exe's own plugins dir, with a
	// trailing slash) is searched once, so it cannot shadow itself.
	env["COYOTE_PLUGINS_DIR"] = filepath.Join(filepath.Dir(exe), "plugins") + "/"
	dirs = SearchPath("", func(k string) string { return env[k] })
	if len(dirs) != 2 || dirs[0] != filepath.Join(filepath.Dir(exe), "plugins") {
		t.Fatalf("dirs = %q", dirs)
	}
}

func writeFile(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"), mode); err != nil {
		t.Fatal(err)
	}
}

func TestDiscoverFirstHitWinsAndSkipsWhatIsNotAPlugin(t *testing.T) {
	root := t.TempDir()
	first, second := filepath.Join(root, "first"), filepath.Join(root, "second")
	writeFile(t, filepath.Join(first, "coyote-provider-openai"), 0o755)
	writeFile(t, filepath.Join(second, "coyote-provider-openai"), 0o755)
	writeFile(t, filepath.Join(second, "coyote-rag-duckdb"), 0o755)
	writeFile(t, filepath.Join(second, "coyote-mcp"), 0o755)
	writeFile(t, filepath.Join(second, "coyote-provider-notexec"), 0o644)
	writeFile(t, filepath.Join(second, "README.md"), 0o644)
	if err := os.MkdirAll(filepath.Join(second, "coyote-provider-dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("coyote-provider-openai", filepath.Join(first, "coyote-provider-openai-compatible")); err != nil {
		t.Fatal(err)
	}
	got := Discover([]string{first, filepath.Join(root, "missing"), second})
	want := []Found{
		{Binary: "coyote-mcp", Kind: "mcp", Path: filepath.Join(second, "coyote-mcp")},
		{Binary: "coyote-provider-openai", Kind: "provider", Name: "openai", Path: filepath.Join(first, "coyote-provider-openai"),
			Shadowed: []string{filepath.Join(second, "coyote-provider-openai")}},
		{Binary: "coyote-provider-openai-compatible", Kind: "provider", Name: "openai-compatible",
			Path: filepath.Join(first, "coyote-provider-openai-compatible"), AliasOf: "coyote-provider-openai"},
		{Binary: "coyote-rag-duckdb", Kind: "rag", Name: "duckdb", Path: filepath.Join(second, "coyote-rag-duckdb")},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Discover =\n%+v\nwant\n%+v", got, want)
	}
	f, err := Find([]string{first, second}, "rag", "duckdb")
	if err != nil || f.Path != filepath.Join(second, "coyote-rag-duckdb") {
		t.Fatalf("Find = %+v, %v", f, err)
	}
	if _, err := Find([]string{first}, "provider", "notexec"); err == nil {
		t.Fatal("found a plugin that is not executable")
	}
}

func TestAliasesShareOneProcess(t *testing.T) {
	h := testHost(t, Options{}, "good")
	dir := h.Dirs()[0]
	if err := os.Symlink("coyote-provider-good", filepath.Join(dir, "coyote-provider-good-compatible")); err != nil {
		t.Fatal(err)
	}
	a, b := configured(t, h, "good"), configured(t, h, "good-compatible")
	if a.Plugin() != b.Plugin() {
		t.Fatal("an alias got its own supervisor")
	}
	pa, err := chat(t, a, "pid")
	if err != nil {
		t.Fatal(err)
	}
	pb, err := chat(t, b, "pid")
	if err != nil || pa != pb {
		t.Fatalf("alias answered from pid %s, plugin from %s (%v)", pb, pa, err)
	}
}

func TestCleanPluginExitDoesNotWriteTheLogAtInfo(t *testing.T) {
	var lines []string
	log := hclog.New(&hclog.LoggerOptions{Level: hclog.Info, Output: writerFunc(func(p []byte) (int, error) {
		lines = append(lines, string(p))
		return len(p), nil
	})})
	h := testHost(t, Options{Logger: log}, "good")
	if _, err := chat(t, configured(t, h, "good"), "hi"); err != nil {
		t.Fatal(err)
	}
	h.Close()
	if len(lines) != 0 {
		t.Fatalf("a clean run logged at info:\n%s", strings.Join(lines, ""))
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
