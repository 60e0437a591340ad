package rag

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/kernel/input"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func paths(ss []Source) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Path)
	}
	return out
}

func TestLoadSourcesGivesStablePathsAndHashes(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"docs/a.md":          "alpha",
		"docs/sub/b.go":      "package b",
		"docs/.hidden/x.txt": "secret",
		"docs/img.png":       "\x89PNG\r\n\x1a\n\x00\x00",
		"top.txt":            "top",
		"list.json":          `[{"path": "repo/one.md", "contents": "1"}, {"path": "repo/two.md", "contents": "2"}]`,
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/markdown")
		_, _ = w.Write([]byte("# Page " + r.URL.Path))
	}))
	defer srv.Close()
	opts := input.Options{Dir: dir, Loaders: map[string]string{"jsonlist": "cat $1", "upper": "tr a-z A-Z < $1"}}
	got, err := LoadSources(context.Background(), []string{
		"docs", "top.txt", "docs/a.md", "docs/**/*.go",
		"`printf hi`",
		"jsonlist:" + filepath.Join(dir, "list.json"),
		"upper:docs/a.md",
		srv.URL + "/guide.md",
	}, opts)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		filepath.Join(dir, "docs/a.md"), filepath.Join(dir, "docs/sub/b.go"), filepath.Join(dir, "top.txt"),
		"`printf hi`",
		"repo/one.md", "repo/two.md",
		"upper:docs/a.md",
		srv.URL + "/guide.md",
	}
	if !reflect.DeepEqual(paths(got), want) {
		t.Fatalf("paths\n%q\nwant\n%q", paths(got), want)
	}
	texts := map[string]string{}
	for _, s := range got {
		texts[s.Path] = s.Text
		sum := sha256.Sum256([]byte(s.Text))
		if s.Hash != hex.EncodeToString(sum[:]) {
			t.Errorf("%s: hash %s", s.Path, s.Hash)
		}
	}
	for p, text := range map[string]string{
		"`printf hi`": "hi", "repo/two.md": "2", "upper:docs/a.md": "ALPHA", srv.URL + "/guide.md": "# Page /guide.md",
		filepath.Join(dir, "docs/sub/b.go"): "package b",
	} {
		if texts[p] != text {
			t.Errorf("%s: %q, want %q", p, texts[p], text)
		}
	}
}

func TestLoadSourcesFromAnotherDirectoryFindsTheSamePaths(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"docs/a.md": "alpha"})
	abs := AbsDocumentPaths([]string{"docs"}, dir, nil)
	got, err := LoadSources(context.Background(), abs, input.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(dir, "docs/a.md")}; !reflect.DeepEqual(paths(got), want) {
		t.Errorf("%q", paths(got))
	}
}

func TestLoadSourcesErrors(t *testing.T) {
	dir := t.TempDir()
	_, err := LoadSources(context.Background(), []string{"nope.md"}, input.Options{Dir: dir})
	if err == nil || !strings.HasPrefix(err.Error(), "document nope.md: ") || strings.Contains(err.Error(), "-f") {
		t.Errorf("missing file: %v", err)
	}
}

func TestAbsDocumentPaths(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home directory")
	}
	got := AbsDocumentPaths([]string{"docs", "/abs/x", "https://u.org/a", "`git log`", "git:https://g/r", "~/notes", "../up"},
		"/work/here", map[string]string{"git": "yek $1"})
	want := []string{"/work/here/docs", "/abs/x", "https://u.org/a", "`git log`", "git:https://g/r", filepath.Join(home, "notes"), "/work/up"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	wd, _ := os.Getwd()
	if got := AbsDocumentPaths([]string{"docs"}, "", nil); got[0] != filepath.Join(wd, "docs") {
		t.Errorf("no dir: %q", got)
	}
}

func TestIsLoaderSource(t *testing.T) {
	loaders := map[string]string{"git": "yek $1", "https": "jina $1", "c": "cat $1"}
	for src, want := range map[string]bool{
		"git:https://g/r": true,
		"https://u.org/a": true, // a loader for the URL's scheme
		"http://u.org/a":  false,
		"c:/dir/file":     false, // one letter is a drive, not a loader
		"`git:log`":       false,
		"pdf:x":           false,
		"docs/a.md":       false,
	} {
		if got := isLoaderSource(src, loaders); got != want {
			t.Errorf("isLoaderSource(%q) = %v, want %v", src, got, want)
		}
	}
}
