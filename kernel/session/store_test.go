package session

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestValidateName(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"work", true},
		{"my session", true},
		{"projects/api", true},
		{"a/b/c", true},
		{"_/20250314T150926-cats", true},
		{"temp", true},
		{"café", true},
		{"", false},
		{"/etc/passwd", false},
		{"..", false},
		{"../x", false},
		{"a/../../x", false},
		{"a/./b", false},
		{"a//b", false},
		{"a/", false},
		{".hidden", false},
		{"a/.hidden", false},
		{`a\b`, false},
		{"c:x", false},
		{"new\nline", false},
	} {
		err := ValidateName(tc.name)
		if (err == nil) != tc.ok {
			t.Errorf("ValidateName(%q) = %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
}

func TestPathStaysInTheDirectory(t *testing.T) {
	st := &Store{Dir: "/cfg/sessions"}
	for _, tc := range []struct{ name, want string }{
		{"work", "/cfg/sessions/work.yaml"},
		{"projects/api", "/cfg/sessions/projects/api.yaml"},
		{"_/20250314T150926", "/cfg/sessions/_/20250314T150926.yaml"},
	} {
		got, err := st.Path(tc.name)
		if err != nil || got != filepath.FromSlash(tc.want) {
			t.Errorf("Path(%q) = %q, %v", tc.name, got, err)
		}
	}
	if _, err := st.Path("../outside"); err == nil {
		t.Errorf("Path(../outside) succeeded")
	}
	if got, want := AgentDir("/cfg", "coder"), filepath.FromSlash("/cfg/agents/coder/sessions"); got != want {
		t.Errorf("AgentDir = %q", got)
	}
	if got, want := Dir("/cfg"), filepath.FromSlash("/cfg/sessions"); got != want {
		t.Errorf("Dir = %q", got)
	}
}

func TestList(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{
		"zeta.yaml", "alpha.yaml", "projects/api.yaml", "projects/deep/x.yaml",
		"_/20250314T150926-cats.yaml", "_/20250101T000000.yaml",
		"notes.txt", ".hidden.yaml", ".alpha.yaml.tmp-123", ".git/config.yaml", "dir.yaml/inner.yaml",
	} {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("model: x\nmessages: []\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got, err := List(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"alpha", "zeta", "dir.yaml/inner", "projects/api", "projects/deep/x", "_/20250101T000000", "_/20250314T150926-cats"}
	if !slices.Equal(got, want) {
		t.Errorf("List = %q\nwant   %q", got, want)
	}
	st := &Store{Dir: dir}
	for _, name := range got {
		if _, err := st.Load(name); err != nil {
			t.Errorf("a listed session does not load: %v", err)
		}
	}
	if got, err := List(filepath.Join(dir, "missing")); err != nil || len(got) != 0 {
		t.Errorf("List of a missing directory = %q, %v", got, err)
	}
}

func TestSlug(t *testing.T) {
	for _, tc := range []struct{ title, want string }{
		{"Cats: Care & Feeding!", "cats-care-feeding"},
		{"  Rust → Go port  ", "rust-go-port"},
		{"Crème brûlée recipe", "creme-brulee-recipe"},
		{"日本語のタイトル", ""},
		{"Fix bug #42 in parser.go", "fix-bug-42-in-parser-go"},
		{"---", ""},
		{"", ""},
		{`"Quoted Title"`, "quoted-title"},
		{"a_b", "a-b"},
		{"How to configure the reverse proxy for the staging environment quickly", "how-to-configure-the-reverse-proxy-for"},
		{strings.Repeat("x", 60), strings.Repeat("x", 40)},
	} {
		got := Slug(tc.title)
		if got != tc.want {
			t.Errorf("Slug(%q) = %q, want %q", tc.title, got, tc.want)
		}
		if len(got) > 40 || strings.HasPrefix(got, "-") || strings.HasSuffix(got, "-") || strings.Contains(got, "--") {
			t.Errorf("Slug(%q) = %q is not a clean slug", tc.title, got)
		}
		if got != "" && ValidateName("_/x-"+got) != nil {
			t.Errorf("Slug(%q) = %q is not a valid name", tc.title, got)
		}
	}
}
