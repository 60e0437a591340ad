package bundled

import (
	"errors"
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

// bundledFiles lists the embedded files, slash-separated, in lexical order.
func bundledFiles(t *testing.T) []string {
	t.Helper()
	var names []string
	err := fs.WalkDir(assets.Functions(), ".", func(name string, d fs.DirEntry, err error) error {
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

func TestBundleHasTheStarterToolsAndTheGuards(t *testing.T) {
	files := bundledFiles(t)
	for _, want := range []string{
		"tools/execute_command.sh", "tools/fetch_url_as_text.sh", "tools/fs_cat.sh",
		"tools/fs_glob.sh", "tools/fs_grep.sh", "tools/fs_ls.sh", "tools/fs_mkdir.sh",
		"tools/fs_patch.sh", "tools/fs_read.sh", "tools/fs_write.sh",
		"tools/get_current_time.sh", "utils/guard_operation.sh", "utils/workspace.sh",
		// The rest of the original's breadth.
		"tools/fs_rm.sh", "tools/fs_mv.sh", "tools/fs_copy.sh",
		"tools/git_status.sh", "tools/git_diff.sh", "tools/git_log.sh", "tools/git_show.sh",
		"tools/web_search.sh", "tools/search_wikipedia.sh", "tools/get_current_weather.sh",
		"tools/sqlite_query.sh", "tools/duckdb_query.sh", "tools/calculate.sh", "tools/execute_py_code.sh",
		"tools/execute_js_code.sh", "tools/fs_info.sh", "tools/fs_diff.sh", "tools/convert_time.sh",
	} {
		if !slices.Contains(files, want) {
			t.Errorf("the bundle lacks %s (it has %v)", want, files)
		}
	}
}

func TestInstallCopiesEveryBundledFileAsAnExecutableScript(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "config", "functions") // does not exist yet
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
		embedded, _ := fs.ReadFile(assets.Functions(), name)
		if string(got) != string(embedded) {
			t.Errorf("%s differs from the embedded file", name)
		}
		st, _ := os.Stat(path)
		if runtime.GOOS != "windows" && st.Mode().Perm() != 0o755 {
			t.Errorf("%s has mode %v, want 0755", name, st.Mode().Perm())
		}
	}
	assertNoTempFiles(t, dir)
}

func TestInstallTwiceInstallsNothing(t *testing.T) {
	dir := t.TempDir()
	if _, err := Install(dir); err != nil {
		t.Fatal(err)
	}
	installed, err := Install(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(installed) != 0 {
		t.Fatalf("second Install installed %v, want nothing", installed)
	}
}

func TestInstallKeepsTheUsersFiles(t *testing.T) {
	dir := t.TempDir()
	// A file of the user's (or the original's) before the first run.
	mine := filepath.Join(dir, "tools", "fs_read.sh")
	writeFile(t, mine, "#!/usr/bin/env bash\n# my own fs_read\n", 0o700)

	installed, err := Install(dir)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(installed, "tools/fs_read.sh") {
		t.Errorf("Install replaced the user's tools/fs_read.sh")
	}
	assertFile(t, mine, "#!/usr/bin/env bash\n# my own fs_read\n")

	// The user edits one bundled tool and deletes another.
	edited := filepath.Join(dir, "tools", "fs_patch.sh")
	writeFile(t, edited, "# edited\n", 0o755)
	if err := os.Remove(filepath.Join(dir, "tools", "fs_ls.sh")); err != nil {
		t.Fatal(err)
	}
	installed, err = Install(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(installed, []string{"tools/fs_ls.sh"}) {
		t.Errorf("Install installed %v, want only the missing tools/fs_ls.sh", installed)
	}
	assertFile(t, edited, "# edited\n")
	assertFile(t, mine, "#!/usr/bin/env bash\n# my own fs_read\n")
}

func TestInstallKeepsASymlinkEvenADanglingOne(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	dir := t.TempDir()
	link := filepath.Join(dir, "utils", "guard_operation.sh")
	if err := os.MkdirAll(filepath.Dir(link), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "elsewhere.sh"), link); err != nil {
		t.Fatal(err)
	}
	installed, err := Install(dir)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(installed, "utils/guard_operation.sh") {
		t.Fatal("Install replaced the user's symlink")
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the symlink is gone: %v %v", st, err)
	}
}

func TestInstallFailsWhenTheToolsDirectoryIsAFile(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "tools"), "not a directory", 0o600)
	installed, err := Install(dir)
	if err == nil {
		t.Fatal("Install succeeded with tools being a file")
	}
	if !strings.Contains(err.Error(), "install ") {
		t.Errorf("error %q does not say what it was installing", err)
	}
	for _, name := range installed {
		if strings.HasPrefix(name, "tools/") {
			t.Errorf("Install reports %s as installed", name)
		}
	}
}

func TestInstallWalksAnyFileSystem(t *testing.T) {
	files := fstest.MapFS{
		"tools/b.sh": {Data: []byte("b")},
		"tools/a.sh": {Data: []byte("a")},
		"utils/u.sh": {Data: []byte("u")},
	}
	dir := t.TempDir()
	installed, err := install(files, dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"tools/a.sh", "tools/b.sh", "utils/u.sh"}; !slices.Equal(installed, want) {
		t.Fatalf("installed %v, want %v", installed, want)
	}
	assertFile(t, filepath.Join(dir, "utils", "u.sh"), "u")
}

func writeFile(t *testing.T, path, data string, perm fs.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
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
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.Contains(d.Name(), ".tmp-") {
			return errors.New("temporary file left behind: " + path)
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
}
