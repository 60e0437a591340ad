package macro

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"testing/fstest"

	"github.com/coyote-cli/coyote/assets"
)

func TestInstallCopiesTheBuiltinMacrosOnce(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "macros")
	want, err := fs.Glob(assets.Macros(), "*.yaml")
	if err != nil || len(want) == 0 {
		t.Fatalf("no built-in macros: %v", err)
	}
	got, err := Install(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Install = %q, want %q", got, want)
	}
	list, warnings := NewCatalog().Discover(Dirs{Global: dir})
	if len(list) != len(want) || len(warnings) != 0 {
		t.Errorf("installed macros do not load: %d macros, %q", len(list), warnings)
	}
	again, err := Install(dir)
	if err != nil || len(again) != 0 {
		t.Errorf("second Install = %q, %v; want nothing", again, err)
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(leftovers) != 0 {
		t.Errorf("temporary files left: %q", leftovers)
	}
}

func TestInstallNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	files := fstest.MapFS{
		"a.yaml":    {Data: []byte("steps: [bundled a]")},
		"b.yaml":    {Data: []byte("steps: [bundled b]")},
		"notes.txt": {Data: []byte("not a macro")},
	}
	mine := []byte("steps: [my own a]")
	if err := os.WriteFile(filepath.Join(dir, "a.yaml"), mine, 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := install(files, dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, []string{"b.yaml"}) {
		t.Errorf("install = %q, want only b.yaml", got)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "a.yaml")); string(data) != string(mine) {
		t.Errorf("the user's a.yaml was replaced: %q", data)
	}
	st, err := os.Stat(filepath.Join(dir, "b.yaml"))
	if err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("b.yaml: %v %v", st, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "notes.txt")); err == nil {
		t.Error("a non-macro file was installed")
	}
}
