package bundlemark

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/sdk/fsx"
)

// parts makes two parts over dir whose Install copies the missing files
// (fsx.InstallMissing) and counts its calls.
func parts(dir string, calls *int, a, b fstest.MapFS) []Part {
	mk := func(name string, files fstest.MapFS) Part {
		d := filepath.Join(dir, name)
		return Part{Name: name, Files: files, Dir: d, Install: func() error {
			*calls++
			_, err := fsx.InstallMissing(files, d, 0o644, nil)
			return err
		}}
	}
	return []Part{mk("tools", a), mk("macros", b)}
}

func bundle() (fstest.MapFS, fstest.MapFS) {
	return fstest.MapFS{"tools/x.sh": {Data: []byte("x")}, "utils/u.sh": {Data: []byte("uu")}},
		fstest.MapFS{"m.yaml": {Data: []byte("m")}}
}

func TestEnsureInstallsOnceThenOnlyWhenSomethingChanged(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, ".bundled")
	a, b := bundle()
	calls := 0
	ps := parts(dir, &calls, a, b)

	for i, want := range []bool{true, false, false} {
		installed, err := Ensure(marker, ps)
		if err != nil || installed != want {
			t.Fatalf("run %d: installed %v, %v; want %v", i, installed, err, want)
		}
	}
	if calls != 2 {
		t.Fatalf("Install ran %d times, want 2 (each part once)", calls)
	}
	if _, err := os.Stat(filepath.Join(dir, "tools", "utils", "u.sh")); err != nil {
		t.Fatal(err)
	}

	// A deleted file is not noticed (that is the point: no scan)...
	os.Remove(filepath.Join(dir, "tools", "tools", "x.sh"))
	if installed, _ := Ensure(marker, ps); installed {
		t.Error("a deleted file made it scan")
	}
	// ...a deleted directory is.
	if err := os.RemoveAll(filepath.Join(dir, "macros")); err != nil {
		t.Fatal(err)
	}
	if installed, err := Ensure(marker, ps); !installed || err != nil {
		t.Fatalf("a missing directory: installed %v, %v", installed, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "macros", "m.yaml")); err != nil {
		t.Fatal(err)
	}

	// A new bundle (a file added, or one that changed size) installs again.
	for _, change := range []func(){
		func() { a["tools/new.sh"] = &fstest.MapFile{Data: []byte("n")} },
		func() { b["m.yaml"] = &fstest.MapFile{Data: []byte("longer")} },
	} {
		change()
		if installed, err := Ensure(marker, ps); !installed || err != nil {
			t.Fatalf("a changed bundle: installed %v, %v", installed, err)
		}
		if installed, _ := Ensure(marker, ps); installed {
			t.Fatal("installed twice for one bundle")
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "tools", "tools", "new.sh")); err != nil {
		t.Fatal(err)
	}
}

func TestEnsureMovedDirectoryInstallsThere(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, ".bundled")
	a, b := bundle()
	calls := 0
	if _, err := Ensure(marker, parts(filepath.Join(dir, "one"), &calls, a, b)); err != nil {
		t.Fatal(err)
	}
	// COYOTE_FUNCTIONS_DIR pointing elsewhere: the old directories exist,
	// the marker is current for them, but not for the new ones.
	other := parts(filepath.Join(dir, "two"), &calls, a, b)
	if err := os.MkdirAll(other[0].Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(other[1].Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if installed, err := Ensure(marker, other); !installed || err != nil {
		t.Fatalf("installed %v, %v", installed, err)
	}
}

func TestEnsureFailureKeepsTryingAndSaysWhat(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, ".bundled")
	a, b := bundle()
	calls := 0
	ps := parts(dir, &calls, a, b)
	boom := errors.New("disk full")
	ps[0].Install = func() error { calls++; return boom }
	_, err := Ensure(marker, ps)
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "install the bundled tools in ") {
		t.Fatalf("error %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "macros", "m.yaml")); err != nil {
		t.Error("the part that works was not installed")
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the marker was written after a failure")
	}
	if installed, _ := Ensure(marker, ps); !installed {
		t.Error("the next run did not try again")
	}
}

func TestFingerprintDependsOnNamesSizesAndDirs(t *testing.T) {
	a, b := bundle()
	calls := 0
	base, err := Fingerprint(parts("/x", &calls, a, b))
	if err != nil {
		t.Fatal(err)
	}
	same, _ := Fingerprint(parts("/x", &calls, a, b))
	if base != same {
		t.Fatal("the fingerprint is not stable")
	}
	for name, ps := range map[string][]Part{
		"dir":    parts("/y", &calls, a, b),
		"rename": parts("/x", &calls, fstest.MapFS{"tools/y.sh": {Data: []byte("x")}, "utils/u.sh": {Data: []byte("uu")}}, b),
		"size":   parts("/x", &calls, fstest.MapFS{"tools/x.sh": {Data: []byte("xy")}, "utils/u.sh": {Data: []byte("uu")}}, b),
	} {
		if fp, _ := Fingerprint(ps); fp == base {
			t.Errorf("%s: same fingerprint", name)
		}
	}
}

func BenchmarkCurrent(b *testing.B) {
	dir := b.TempDir()
	marker := filepath.Join(dir, ".bundled")
	x, y := bundle()
	calls := 0
	ps := parts(dir, &calls, x, y)
	if _, err := Ensure(marker, ps); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if installed, err := Ensure(marker, ps); installed || err != nil {
			b.Fatal(installed, err)
		}
	}
}

// TestCoyoteInstallsEveryKindThenReadsOnlyTheMarker runs the real bundle.
func TestCoyoteInstallsEveryKindThenReadsOnlyTheMarker(t *testing.T) {
	dir := t.TempDir()
	p := config.Paths{ConfigDir: dir, FunctionsDir: filepath.Join(dir, "functions"), AgentsDir: filepath.Join(dir, "agents"),
		MacrosDir: filepath.Join(dir, "macros"), SkillsDir: filepath.Join(dir, "skills")}
	if installed, err := Ensure(Marker(p), Coyote(p)); !installed || err != nil {
		t.Fatalf("installed %v, %v", installed, err)
	}
	for _, f := range []string{"functions/tools/web_search.sh", "functions/utils/guard_operation.sh", "agents/coder/config.yaml",
		"macros/generate-commit-message.yaml", "skills/code-review/SKILL.md"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	if installed, err := Ensure(Marker(p), Coyote(p)); installed || err != nil {
		t.Fatalf("second run: installed %v, %v", installed, err)
	}
}

// BenchmarkCoyoteCurrent is the cost of every run once installed: the
// fingerprint of the real bundle, the marker's read and the directories'
// stats.
func BenchmarkCoyoteCurrent(b *testing.B) {
	dir := b.TempDir()
	p := config.Paths{ConfigDir: dir, FunctionsDir: filepath.Join(dir, "functions"), AgentsDir: filepath.Join(dir, "agents"),
		MacrosDir: filepath.Join(dir, "macros"), SkillsDir: filepath.Join(dir, "skills")}
	if _, err := Ensure(Marker(p), Coyote(p)); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if installed, err := Ensure(Marker(p), Coyote(p)); installed || err != nil {
			b.Fatal(installed, err)
		}
	}
}
