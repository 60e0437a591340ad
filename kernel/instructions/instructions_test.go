package instructions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func paths(files []File) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.Path)
	}
	return out
}

func TestFindWalksFromTheRepositoryRootToTheWorkingDirectory(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	cwd := filepath.Join(repo, "a", "b")
	cfg := filepath.Join(root, "config")
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	os.MkdirAll(cwd, 0o755)
	write(t, filepath.Join(root, "AGENTS.md"), "outside the repository")
	write(t, filepath.Join(repo, "AGENTS.md"), "root rule")
	write(t, filepath.Join(repo, "CLAUDE.md"), "second choice at the root")
	write(t, filepath.Join(repo, "a", "COYOTE.md"), "   \n") // empty: the next name counts
	write(t, filepath.Join(repo, "a", "GEMINI.md"), "a rule")
	write(t, filepath.Join(cwd, "COYOTE.md"), "b rule")
	write(t, filepath.Join(cfg, "COYOTE.md"), "global rule")

	files, warns := Find(cwd, cfg, nil)
	want := []string{filepath.Join(cfg, "COYOTE.md"), filepath.Join(repo, "AGENTS.md"), filepath.Join(repo, "a", "GEMINI.md"), filepath.Join(cwd, "COYOTE.md")}
	if strings.Join(paths(files), ",") != strings.Join(want, ",") || len(warns) != 0 {
		t.Fatalf("files %v (warnings %v), want %v", paths(files), warns, want)
	}
	text := Text(files)
	for _, w := range []string{"global rule", "root rule", "a rule", "b rule", "## " + filepath.Join(repo, "AGENTS.md")} {
		if !strings.Contains(text, w) {
			t.Errorf("text lacks %q:\n%s", w, text)
		}
	}
	if strings.Contains(text, "outside the repository") || strings.Contains(text, "second choice") {
		t.Errorf("text has a file it should not:\n%s", text)
	}
	// Names given: only those, in their order.
	files, _ = Find(cwd, "", []string{"CLAUDE.md"})
	if strings.Join(paths(files), ",") != filepath.Join(repo, "CLAUDE.md") {
		t.Errorf("with names: %v", paths(files))
	}
	// Outside a repository: the working directory alone.
	files, _ = Find(filepath.Join(root, "config"), "", nil)
	if strings.Join(paths(files), ",") != filepath.Join(cfg, "COYOTE.md") {
		t.Errorf("outside a repository: %v", paths(files))
	}
}

func TestBadAndLargeFilesAreSaid(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".git"), 0o755)
	write(t, filepath.Join(dir, "COYOTE.md"), "bad \xff\xfe bytes")
	files, warns := Find(dir, "", nil)
	if len(files) != 0 || len(warns) != 1 || !strings.Contains(warns[0], "COYOTE.md is not UTF-8 text") {
		t.Fatalf("files %v warnings %v", paths(files), warns)
	}
	big := strings.Repeat("a rule that goes on\n", MaxFile/10)
	write(t, filepath.Join(dir, "COYOTE.md"), big)
	files, warns = Find(dir, "", nil)
	if len(files) != 1 || !files[0].Cut || len(files[0].Text) > MaxFile || len(warns) != 1 || !strings.Contains(warns[0], "only its first 32 KiB") {
		t.Fatalf("cut: %d bytes, cut %v, warnings %v", len(files[0].Text), files[0].Cut, warns)
	}
	if !strings.Contains(Text(files), "left out: it is too long") {
		t.Error("the model is not told the file was cut")
	}
}

func TestTotalLimit(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	dir := root
	for i := range 5 {
		dir = filepath.Join(dir, "d")
		write(t, filepath.Join(dir, "AGENTS.md"), strings.Repeat("x", MaxFile-100)+"\nlevel"+string(rune('0'+i)))
	}
	files, warns := Find(dir, "", nil)
	total := 0
	for _, f := range files {
		total += len(f.Text)
	}
	if total > MaxTotal || len(files) >= 5 || len(warns) == 0 || !strings.Contains(warns[len(warns)-1], "pass 96 KiB") {
		t.Fatalf("total %d in %d files, warnings %v", total, len(files), warns)
	}
}

func TestInitRefusesToOverwrite(t *testing.T) {
	dir := t.TempDir()
	p, err := Init(dir)
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(p); string(data) != Scaffold {
		t.Fatalf("wrote %q", data)
	}
	os.WriteFile(p, []byte("mine"), 0o644)
	if _, err := Init(dir); err == nil || !strings.Contains(err.Error(), "exists already") {
		t.Fatalf("second init: %v", err)
	}
	if data, _ := os.ReadFile(p); string(data) != "mine" {
		t.Fatal("the user's file was replaced")
	}
}

func BenchmarkFindTenLevels(b *testing.B) {
	root := b.TempDir()
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	dir := root
	for range 10 {
		dir = filepath.Join(dir, "level")
	}
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(root, "AGENTS.md"), []byte("Use tabs."), 0o644)
	os.WriteFile(filepath.Join(dir, "COYOTE.md"), []byte("Run make test."), 0o644)
	for b.Loop() {
		Find(dir, root, nil)
	}
}
