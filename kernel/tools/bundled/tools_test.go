//go:build unix

package bundled

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coyote-cli/coyote/assets"
)

// These tests run the bundled tools with the real bash, as the kernel will:
// the tool is sourced (its last line, eval "$(argc --argc-eval ...)", does
// nothing because argc is a function that prints nothing), its argc_<name>
// variables are set, and main is called, with LLM_OUTPUT naming the result
// file and LLM_ROOT_DIR the installed functions directory. Every run is in
// a new session (setsid), so it has no controlling terminal and /dev/tty
// cannot be opened: a guard cannot ask anybody.

// toolEnv is an installed functions directory and a working directory.
type toolEnv struct {
	functions, work string
}

func newToolEnv(t *testing.T) *toolEnv {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	e := &toolEnv{functions: filepath.Join(t.TempDir(), "functions"), work: t.TempDir()}
	if _, err := Install(e.functions); err != nil {
		t.Fatal(err)
	}
	return e
}

type toolResult struct {
	output         string // what the tool wrote to LLM_OUTPUT
	stdout, stderr string
	code           int
}

// bash runs script with bash -c in a new session, in the working
// directory, with a small environment: PATH, a private HOME and TMPDIR,
// LLM_ROOT_DIR and LLM_OUTPUT, plus env.
func (e *toolEnv) bash(t *testing.T, script string, args []string, env ...string) toolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	output := filepath.Join(t.TempDir(), "llm-output")
	if err := os.WriteFile(output, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, "bash", append([]string{"-c", script, "bash"}, args...)...)
	cmd.Dir = e.work
	cmd.Env = append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + t.TempDir(),
		"TMPDIR=" + t.TempDir(),
		"LLM_ROOT_DIR=" + e.functions,
		"LLM_OUTPUT=" + output,
	}, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := toolResult{stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		res.code = exit.ExitCode()
	default:
		t.Fatalf("run bash: %v", err)
	}
	if ctx.Err() != nil {
		t.Fatalf("bash did not finish in time; stderr: %s", res.stderr)
	}
	data, err := os.ReadFile(output)
	if err != nil {
		t.Fatal(err)
	}
	res.output = string(data)
	return res
}

// run calls the tool name with the given argc_ variables (name → value)
// and extra environment.
func (e *toolEnv) run(t *testing.T, name string, vars map[string]string, env ...string) toolResult {
	t.Helper()
	env = append([]string{"LLM_TOOL_NAME=" + name}, env...)
	for k, v := range vars {
		env = append(env, "argc_"+k+"="+v)
	}
	const script = `set -eu; argc() { :; }; source "$1"; main`
	return e.bash(t, script, []string{filepath.Join(e.functions, "tools", name+".sh")}, env...)
}

// ok fails the test unless the tool succeeded, and returns its output.
func (r toolResult) ok(t *testing.T) string {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("exit status %d; stderr: %s; output: %s", r.code, r.stderr, r.output)
	}
	return r.output
}

// fails fails the test unless the tool failed with a message on stderr
// that contains want.
func (r toolResult) fails(t *testing.T, want string) {
	t.Helper()
	if r.code == 0 {
		t.Fatalf("the tool succeeded; output: %s", r.output)
	}
	if !strings.Contains(r.stderr, want) {
		t.Fatalf("stderr %q does not contain %q", r.stderr, want)
	}
}

func (e *toolEnv) write(t *testing.T, rel, data string) string {
	t.Helper()
	path := filepath.Join(e.work, filepath.FromSlash(rel))
	writeFile(t, path, data, 0o644)
	return path
}

func (e *toolEnv) read(t *testing.T, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(e.work, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

var (
	tagLine  = regexp.MustCompile(`(?m)^# @(describe|option|flag|env|meta|cmd)\b.*$`)
	paramTag = regexp.MustCompile(`(?m)^# @(?:option|flag) --([a-z][a-z0-9-]*)`)
	lastLine = `eval "$(argc --argc-eval "$0" "$@")"`
)

func TestBundledScriptsFollowTheToolContract(t *testing.T) {
	e := newToolEnv(t)
	err := fs.WalkDir(assets.Functions(), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		t.Run(name, func(t *testing.T) {
			data, _ := fs.ReadFile(assets.Functions(), name)
			src := string(data)
			if !strings.HasPrefix(src, "#!/usr/bin/env bash\n") {
				t.Error("does not start with #!/usr/bin/env bash")
			}
			if r := e.bash(t, `bash -n "$1"`, []string{filepath.Join(e.functions, filepath.FromSlash(name))}); r.code != 0 {
				t.Errorf("bash -n: %s", r.stderr)
			}
			if !strings.HasPrefix(name, "tools/") {
				return
			}
			if !strings.Contains(src, "\n# @describe ") {
				t.Error("no @describe tag")
			}
			if !strings.Contains(src, "\nmain() {\n") {
				t.Error("no main function")
			}
			if !strings.Contains(src, "\n# @env LLM_OUTPUT=/dev/stdout ") || !strings.Contains(src, `"$LLM_OUTPUT"`) && !strings.Contains(src, `${LLM_OUTPUT:-/dev/stdout}`) {
				t.Error("does not declare and use LLM_OUTPUT")
			}
			lines := strings.Split(strings.TrimRight(src, "\n"), "\n")
			if got := lines[len(lines)-1]; got != lastLine {
				t.Errorf("last line %q, want %q", got, lastLine)
			}
			// Every option and flag is read through its argc_ variable.
			for _, m := range paramTag.FindAllStringSubmatch(src, -1) {
				v := "argc_" + strings.ReplaceAll(m[1], "-", "_")
				if !strings.Contains(src, v) {
					t.Errorf("--%s is declared but %s is never read", m[1], v)
				}
			}
			if len(tagLine.FindAllString(src, -1)) == 0 {
				t.Error("no tags")
			}
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestChildrenHaveNoTerminal(t *testing.T) {
	e := newToolEnv(t)
	r := e.bash(t, `exec 3<>/dev/tty`, nil)
	if r.code == 0 {
		t.Fatal("the tool process can open /dev/tty: the refusal tests below would not show anything")
	}
}

func TestGuardsRefuseWithoutConfirmationOrTerminal(t *testing.T) {
	e := newToolEnv(t)
	const script = `set -eu; source "$LLM_ROOT_DIR/utils/guard_operation.sh"; "$@"; echo went ahead`
	for _, call := range [][]string{
		{"guard_operation", "Delete everything?"},
		{"guard_operation"},
		{"guard_path", "notes.txt", "Overwrite notes.txt?"},
	} {
		t.Run(strings.Join(call, " "), func(t *testing.T) {
			for _, env := range [][]string{nil, {"AUTO_CONFIRM="}} {
				r := e.bash(t, script, call, env...)
				if r.code != 1 || strings.Contains(r.stdout, "went ahead") {
					t.Fatalf("env %v: went ahead (status %d, stdout %q)", env, r.code, r.stdout)
				}
				if !strings.Contains(r.stderr, "no terminal to ask on") {
					t.Errorf("stderr %q does not say why", r.stderr)
				}
			}
			r := e.bash(t, script, call, "AUTO_CONFIRM=1")
			if r.code != 0 || r.stdout != "went ahead\n" {
				t.Fatalf("AUTO_CONFIRM=1: status %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
			}
		})
	}
	t.Run("guard_path shows the absolute path", func(t *testing.T) {
		r := e.bash(t, script, []string{"guard_path", "sub/notes.txt", "Overwrite it?"})
		want := "Overwrite it? (" + filepath.Join(resolved(t, e.work), "sub", "notes.txt") + ")"
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr %q does not contain %q", r.stderr, want)
		}
	})
	t.Run("control characters are not shown", func(t *testing.T) {
		r := e.bash(t, script, []string{"guard_operation", "Run rm -rf ~ \x1b[2K\rls?"})
		if strings.ContainsAny(r.stderr, "\x1b\r") || !strings.Contains(r.stderr, "Run rm -rf ~ ?[2K?ls?") {
			t.Errorf("stderr %q", r.stderr)
		}
	})
	t.Run("run as a command", func(t *testing.T) {
		guard := filepath.Join(e.functions, "utils", "guard_operation.sh")
		if r := e.bash(t, `"$@"`, []string{guard, "Delete it?"}); r.code != 1 {
			t.Errorf("without confirmation: status %d, want 1", r.code)
		}
		if r := e.bash(t, `"$@"`, []string{guard, "Delete it?"}, "AUTO_CONFIRM=yes"); r.code != 0 {
			t.Errorf("with AUTO_CONFIRM: status %d, want 0; stderr %s", r.code, r.stderr)
		}
	})
}

// TestGuardedToolsRefuseWithoutTheirGuard runs each tool that changes
// things with AUTO_CONFIRM=1 and a guard file that is missing or defines
// nothing: it must refuse rather than act unguarded. Without LLM_ROOT_DIR
// (a tool run by hand) it finds the guard next to its own directory.
func TestGuardedToolsRefuseWithoutTheirGuard(t *testing.T) {
	for _, c := range []struct {
		tool, guard string
		vars        map[string]string
	}{
		{"execute_command", "guard_operation", map[string]string{"command": "echo changed >f.txt"}},
		{"fs_write", "guard_path", map[string]string{"path": "f.txt", "contents": "changed\n"}},
		{"fs_patch", "guard_path", map[string]string{"path": "f.txt", "old": "old", "new": "changed"}},
	} {
		t.Run(c.tool, func(t *testing.T) {
			for _, broken := range []struct {
				name string
				edit func(path string) error
			}{
				{"missing", os.Remove},
				{"defines nothing", func(path string) error { return os.WriteFile(path, []byte("true\n"), 0o755) }},
			} {
				e := newToolEnv(t)
				e.write(t, "f.txt", "old\n")
				if err := broken.edit(filepath.Join(e.functions, "utils", "guard_operation.sh")); err != nil {
					t.Fatal(err)
				}
				e.run(t, c.tool, c.vars, "AUTO_CONFIRM=1").fails(t, c.tool+": cannot load "+c.guard+" from ")
				if got := e.read(t, "f.txt"); got != "old\n" {
					t.Errorf("guard %s: the tool acted unguarded: f.txt is %q", broken.name, got)
				}
			}
			e := newToolEnv(t)
			e.write(t, "f.txt", "old\n")
			e.run(t, c.tool, c.vars, "AUTO_CONFIRM=1", "LLM_ROOT_DIR=").ok(t)
			if got := e.read(t, "f.txt"); got != "changed\n" {
				t.Errorf("without LLM_ROOT_DIR: f.txt is %q", got)
			}
		})
	}
}

func resolved(t *testing.T, dir string) string {
	t.Helper()
	p, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFsReadNumbersLinesFromOffset(t *testing.T) {
	e := newToolEnv(t)
	e.write(t, "f.txt", "a\nb\nc\nd\ne") // no final newline

	out := e.run(t, "fs_read", map[string]string{"path": "f.txt"}).ok(t)
	if want := "     1\ta\n     2\tb\n     3\tc\n     4\td\n     5\te\n"; out != want {
		t.Errorf("whole file:\n%q\nwant\n%q", out, want)
	}
	out = e.run(t, "fs_read", map[string]string{"path": "f.txt", "offset": "2", "limit": "2"}).ok(t)
	if want := "     2\tb\n     3\tc\n(more lines follow: continue with offset=4)\n"; out != want {
		t.Errorf("offset 2 limit 2:\n%q\nwant\n%q", out, want)
	}
	out = e.run(t, "fs_read", map[string]string{"path": "f.txt", "offset": "4"}).ok(t)
	if want := "     4\td\n     5\te\n"; out != want {
		t.Errorf("offset 4:\n%q\nwant\n%q", out, want)
	}
	out = e.run(t, "fs_read", map[string]string{"path": "f.txt", "offset": "9"}).ok(t)
	if want := "(the file has 5 lines: nothing at offset 9)\n"; out != want {
		t.Errorf("offset past the end: %q, want %q", out, want)
	}
	e.write(t, "empty.txt", "")
	if out := e.run(t, "fs_read", map[string]string{"path": "empty.txt"}).ok(t); out != "(the file is empty)\n" {
		t.Errorf("empty file: %q", out)
	}
	e.write(t, "long.txt", strings.Repeat("x", 2500)+"\n")
	out = e.run(t, "fs_read", map[string]string{"path": "long.txt"}).ok(t)
	if want := "     1\t" + strings.Repeat("x", 2000) + " [line cut at 2000 characters]\n"; out != want {
		t.Errorf("long line not cut at 2000 characters: %d bytes", len(out))
	}
}

func TestFsReadRefusesWhatItCannotRead(t *testing.T) {
	e := newToolEnv(t)
	e.write(t, "f.txt", "a\n")
	e.write(t, "bin.dat", "a\x00b")
	for _, c := range []struct {
		vars map[string]string
		want string
	}{
		{map[string]string{"path": "missing.txt"}, "no such file: missing.txt"},
		{map[string]string{"path": "."}, ". is a directory"},
		{map[string]string{"path": "bin.dat"}, "bin.dat looks like a binary file"},
		{map[string]string{"path": "f.txt", "offset": "0"}, "offset must be a whole number"},
		{map[string]string{"path": "f.txt", "limit": "ten"}, "limit must be a whole number"},
		{map[string]string{}, "path is required"},
	} {
		e.run(t, "fs_read", c.vars).fails(t, "fs_read: "+c.want)
	}
}

func TestFsCatReturnsTheFileUnchanged(t *testing.T) {
	e := newToolEnv(t)
	e.write(t, "f.txt", "one\n\ttwo  \nthree")
	if out := e.run(t, "fs_cat", map[string]string{"path": "f.txt"}).ok(t); out != "one\n\ttwo  \nthree" {
		t.Errorf("got %q", out)
	}
	e.run(t, "fs_cat", map[string]string{"path": "nope"}).fails(t, "no such file")
}

func TestFsLsMarksDirectoriesAndShowsHiddenEntries(t *testing.T) {
	e := newToolEnv(t)
	e.write(t, "b.txt", "")
	e.write(t, "a/x.txt", "")
	e.write(t, ".hidden", "")
	e.write(t, "with space.txt", "")
	out := e.run(t, "fs_ls", nil).ok(t)
	if want := ".hidden\na/\nb.txt\nwith space.txt\n"; out != want {
		t.Errorf("got %q, want %q", out, want)
	}
	if out := e.run(t, "fs_ls", map[string]string{"path": "a/"}).ok(t); out != "x.txt\n" {
		t.Errorf("a/: got %q", out)
	}
	if err := os.Mkdir(filepath.Join(e.work, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if out := e.run(t, "fs_ls", map[string]string{"path": "empty"}).ok(t); out != "(the directory is empty)\n" {
		t.Errorf("empty: got %q", out)
	}
	e.run(t, "fs_ls", map[string]string{"path": "b.txt"}).fails(t, "is not a directory")
	e.run(t, "fs_ls", map[string]string{"path": "nope"}).fails(t, "no such directory")
}

func TestFsGlob(t *testing.T) {
	e := newToolEnv(t)
	for _, f := range []string{"main.go", "a/b.go", "a/c/d.go", "a/x.ts", "a/y.tsx", "docs/r.md", ".git/e.go", "odd [1].go"} {
		e.write(t, f, "")
	}
	for _, c := range []struct{ pattern, path, want string }{
		{"*.go", "", "a/b.go\na/c/d.go\nmain.go\nodd [1].go\n"},
		{"**/*.go", "", "a/b.go\na/c/d.go\nmain.go\nodd [1].go\n"},
		{"a/*.go", "", "a/b.go\n"},
		{"a/**/*.go", "", "a/b.go\na/c/d.go\n"},
		{"*.{ts,tsx}", "", "a/x.ts\na/y.tsx\n"},
		{"a/c", "", "a/c/\n"},
		{"*.go", "a", "a/b.go\na/c/d.go\n"},
		{"?.go", "a/", "a/b.go\na/c/d.go\n"},
		{`odd \[1\].go`, "", "odd [1].go\n"},
		{"*.rs", "", "No paths match \"*.rs\" (searched in .)\n"},
	} {
		vars := map[string]string{"pattern": c.pattern}
		if c.path != "" {
			vars["path"] = c.path
		}
		if out := e.run(t, "fs_glob", vars).ok(t); out != c.want {
			t.Errorf("fs_glob %q in %q:\n%q\nwant\n%q", c.pattern, c.path, out, c.want)
		}
	}
	abs := e.run(t, "fs_glob", map[string]string{"pattern": filepath.Join(e.work, "a", "*.go")}).ok(t)
	if want := filepath.Join(e.work, "a", "b.go") + "\n"; abs != want {
		t.Errorf("absolute pattern: %q, want %q", abs, want)
	}
	out := e.run(t, "fs_glob", map[string]string{"pattern": "**", "max_results": "2"}).ok(t)
	if !strings.HasPrefix(out, "a/\na/b.go\n(") || !strings.Contains(out, "more paths not shown") {
		t.Errorf("max_results 2: %q", out)
	}
	e.run(t, "fs_glob", map[string]string{"pattern": "{a"}).fails(t, "unclosed {")
	e.run(t, "fs_glob", map[string]string{"pattern": "*", "path": "nope"}).fails(t, "no such directory")
}

func TestFsGrep(t *testing.T) {
	e := newToolEnv(t)
	e.write(t, "a/h.txt", "hello world\nfoo\nHello again\n")
	e.write(t, "a/b.go", "package a\n\nfunc Hello() {}\n")
	for _, c := range []struct {
		vars map[string]string
		want string
	}{
		{map[string]string{"pattern": "hello"}, "a/h.txt:1:hello world\n"},
		{map[string]string{"pattern": "^func [A-Z]"}, "a/b.go:3:func Hello() {}\n"},
		{map[string]string{"pattern": "Hello", "include": "*.go"}, "a/b.go:3:func Hello() {}\n"},
		{map[string]string{"pattern": "Hello", "path": "a/h.txt", "include": "*.go"}, "a/h.txt:3:Hello again\n"},
		{map[string]string{"pattern": "nothing here"}, "No matches for /nothing here/ in .\n"},
	} {
		if out := e.run(t, "fs_grep", c.vars).ok(t); out != c.want {
			t.Errorf("fs_grep %v:\n%q\nwant\n%q", c.vars, out, c.want)
		}
	}
	out := e.run(t, "fs_grep", map[string]string{"pattern": "hello", "path": "a/h.txt", "ignore_case": "1"}).ok(t)
	if out != "a/h.txt:1:hello world\na/h.txt:3:Hello again\n" {
		t.Errorf("ignore_case: %q", out)
	}
	out = e.run(t, "fs_grep", map[string]string{"pattern": "o", "path": "a/h.txt", "max_results": "1"}).ok(t)
	if out != "a/h.txt:1:hello world\n(more matches not shown: narrow the pattern, path or include)\n" {
		t.Errorf("max_results 1: %q", out)
	}
	e.run(t, "fs_grep", map[string]string{"pattern": "("}).fails(t, "the search failed")
	e.run(t, "fs_grep", map[string]string{"pattern": "x", "path": "nope"}).fails(t, "no such file or directory: nope")
}

func TestFsWriteCreatesParentDirectories(t *testing.T) {
	e := newToolEnv(t)
	out := e.run(t, "fs_write", map[string]string{"path": "new/deep/f.txt", "contents": "line 1\nline 2"}).ok(t)
	if out != "Created new/deep/f.txt (13 bytes).\n" {
		t.Errorf("output %q", out)
	}
	if got := e.read(t, "new/deep/f.txt"); got != "line 1\nline 2" {
		t.Errorf("wrote %q", got)
	}
	e.run(t, "fs_write", map[string]string{"path": "new", "contents": "x"}).fails(t, "new is a directory")
}

func TestFsWriteReplacesAFileOnlyWhenConfirmed(t *testing.T) {
	e := newToolEnv(t)
	e.write(t, "f.txt", "old\n")
	r := e.run(t, "fs_write", map[string]string{"path": "f.txt", "contents": "new\n"})
	r.fails(t, "no terminal to ask on")
	if got := e.read(t, "f.txt"); got != "old\n" {
		t.Fatalf("the refused write changed the file to %q", got)
	}
	out := e.run(t, "fs_write", map[string]string{"path": "f.txt", "contents": "new\n"}, "AUTO_CONFIRM=1").ok(t)
	if out != "Replaced f.txt (4 bytes).\n" {
		t.Errorf("output %q", out)
	}
	if got := e.read(t, "f.txt"); got != "new\n" {
		t.Errorf("file %q", got)
	}
}

func TestFsPatchReplacesExactlyOneOccurrence(t *testing.T) {
	e := newToolEnv(t)
	for _, c := range []struct {
		name, before, old, new, after string
	}{
		{"one line", "one\ntwo\nthree\n", "two", "2", "one\n2\nthree\n"},
		{"across lines", "a\nb\nc\nd\n", "b\nc\n", "X\n", "a\nX\nd\n"},
		{"delete", "keep\ndrop me\nkeep too\n", "drop me\n", "", "keep\nkeep too\n"},
		{"no final newline kept", "x = 1\ny = 2", "y = 2", "y = 3", "x = 1\ny = 3"},
		{"at the very end", "a\nb", "\nb", "", "a"},
		{"special characters", "p := `$HOME/*.[ch]` \\n & done\n", "`$HOME/*.[ch]` \\n &", "`~`", "p := `~` done\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e.write(t, "f.txt", c.before)
			out := e.run(t, "fs_patch", map[string]string{"path": "f.txt", "old": c.old, "new": c.new}, "AUTO_CONFIRM=1").ok(t)
			if !strings.HasPrefix(out, "Changed f.txt at line ") {
				t.Errorf("output %q", out)
			}
			if got := e.read(t, "f.txt"); got != c.after {
				t.Errorf("file %q, want %q", got, c.after)
			}
		})
	}
}

func TestFsPatchRefusesZeroOrSeveralMatches(t *testing.T) {
	e := newToolEnv(t)
	for _, c := range []struct {
		name, before, old, want string
	}{
		{"absent", "one\ntwo\n", "three", "does not occur in f.txt"},
		{"twice", "two\none\ntwo\n", "two", "occurs more than once in f.txt (from line 1 and from line 3)"},
		{"overlapping", "aaa\n", "aa", "occurs more than once"},
		{"twice across lines", "x\ny\nx\ny\n", "x\ny", "from line 1 and from line 3"},
		{"not exact", "a  b\n", "a b", "does not occur"},
		{"empty old", "a\n", "", "old must not be empty"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e.write(t, "f.txt", c.before)
			r := e.run(t, "fs_patch", map[string]string{"path": "f.txt", "old": c.old, "new": "NEW"}, "AUTO_CONFIRM=1")
			r.fails(t, c.want)
			if got := e.read(t, "f.txt"); got != c.before {
				t.Errorf("the file changed to %q", got)
			}
		})
	}
	e.run(t, "fs_patch", map[string]string{"path": "missing.txt", "old": "a", "new": "b"}).fails(t, "no such file")
}

func TestFsPatchNeedsConfirmation(t *testing.T) {
	e := newToolEnv(t)
	e.write(t, "f.txt", "one\ntwo\n")
	r := e.run(t, "fs_patch", map[string]string{"path": "f.txt", "old": "two", "new": "2"})
	r.fails(t, "Change f.txt at line 2? ("+filepath.Join(resolved(t, e.work), "f.txt")+")")
	if got := e.read(t, "f.txt"); got != "one\ntwo\n" {
		t.Errorf("the refused patch changed the file to %q", got)
	}
}

func TestFsMkdir(t *testing.T) {
	e := newToolEnv(t)
	if out := e.run(t, "fs_mkdir", map[string]string{"path": "a/b/c"}).ok(t); out != "Created the directory a/b/c.\n" {
		t.Errorf("output %q", out)
	}
	if st, err := os.Stat(filepath.Join(e.work, "a", "b", "c")); err != nil || !st.IsDir() {
		t.Fatalf("no directory: %v", err)
	}
	if out := e.run(t, "fs_mkdir", map[string]string{"path": "a/b/c"}).ok(t); out != "The directory a/b/c already exists.\n" {
		t.Errorf("second time: %q", out)
	}
	e.write(t, "f", "")
	e.run(t, "fs_mkdir", map[string]string{"path": "f"}).fails(t, "exists and is not a directory")
}

func TestExecuteCommandReturnsOutputAndExitStatus(t *testing.T) {
	e := newToolEnv(t)
	out := e.run(t, "execute_command", map[string]string{"command": "echo out; echo err >&2; printf partial; exit 3"}, "AUTO_CONFIRM=1").ok(t)
	if want := "out\nerr\npartial\n[exit status: 3]\n"; out != want {
		t.Errorf("got %q, want %q", out, want)
	}
	out = e.run(t, "execute_command", map[string]string{"command": "true"}, "AUTO_CONFIRM=1").ok(t)
	if want := "(no output)\n[exit status: 0]\n"; out != want {
		t.Errorf("got %q, want %q", out, want)
	}
	// The command gets no input, so one that reads it ends at once.
	out = e.run(t, "execute_command", map[string]string{"command": "cat; pwd"}, "AUTO_CONFIRM=1").ok(t)
	if want := e.work + "\n[exit status: 0]\n"; out != want && out != resolved(t, e.work)+"\n[exit status: 0]\n" {
		t.Errorf("got %q, want %q", out, want)
	}
	out = e.run(t, "execute_command", map[string]string{"command": "head -c 100000 /dev/zero | tr '\\0' x"}, "AUTO_CONFIRM=1").ok(t)
	if !strings.Contains(out, "[... 34464 bytes of output left out ...]") || len(out) > 66000 {
		t.Errorf("long output not cut: %d bytes", len(out))
	}
}

func TestExecuteCommandNeedsConfirmation(t *testing.T) {
	e := newToolEnv(t)
	r := e.run(t, "execute_command", map[string]string{"command": "touch ran"})
	r.fails(t, "Run this command? touch ran")
	if _, err := os.Stat(filepath.Join(e.work, "ran")); err == nil {
		t.Fatal("the command ran without confirmation")
	}
}

func TestGetCurrentTimeIsISO8601WithZone(t *testing.T) {
	e := newToolEnv(t)
	iso := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d [A-Z][a-z]+day \S+\n$`)
	out := e.run(t, "get_current_time", nil, "TZ=UTC0").ok(t)
	if !iso.MatchString(out) || !strings.Contains(out, "+00:00 ") {
		t.Errorf("UTC: %q", out)
	}
	// A POSIX zone: no time zone database needed.
	out = e.run(t, "get_current_time", nil, "TZ=XST-5:30").ok(t)
	if !iso.MatchString(out) || !strings.Contains(out, "+05:30 ") || !strings.HasSuffix(out, " XST\n") {
		t.Errorf("XST-5:30: %q", out)
	}
	got, err := time.Parse(time.RFC3339, strings.Fields(out)[0])
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(got); d < -time.Minute || d > time.Minute {
		t.Errorf("the time is off by %v", d)
	}
}

func TestFetchURLAsText(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	e := newToolEnv(t)
	const page = `<!DOCTYPE html>
<html><head><title>The &amp; Page</title>
<style>body { color: red }</style>
<script>if (a < b) { document.write("<p>script text</p>") }</script></head>
<body><!-- a <p>comment</p> -->
<h1>Heading</h1><p>First  paragraph, <b>bold</b> &lt;tag&gt; &quot;quoted&quot; it&#39;s&nbsp;fine.</p>
<ul><li>one</li><li class="x">two</li></ul>
<SCRIPT type="text/javascript">alert("no")</SCRIPT>
<p>Last</p></body></html>`
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	})
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/page", http.StatusFound)
	})
	mux.HandleFunc("/plain", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "<b>kept</b> as it is\n")
	})
	mux.HandleFunc("/image", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n\x00\x00"))
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		line := strings.Repeat("y", 1023) + "\n"
		for range 6 * 1024 { // 6 MiB, over the 5 MiB download limit
			if _, err := w.Write([]byte(line)); err != nil {
				return // the tool stopped reading
			}
		}
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	want := "The & Page\n\nHeading\n\nFirst paragraph, bold <tag> \"quoted\" it's fine.\n\n- one\n- two\n\nLast\n"
	out := e.run(t, "fetch_url_as_text", map[string]string{"url": srv.URL + "/page"}).ok(t)
	if !strings.Contains(out, "First paragraph, bold <tag> \"quoted\" it's") || !strings.Contains(out, "Last") {
		t.Errorf("page text:\n%s", out)
	}
	for _, gone := range []string{"<", "color: red", "script text", "alert", "comment"} {
		if strings.Contains(strings.ReplaceAll(out, "<tag>", ""), gone) {
			t.Errorf("page text has %q:\n%s", gone, out)
		}
	}
	if _, err := exec.LookPath("w3m"); err != nil {
		if _, err := exec.LookPath("lynx"); err != nil && out != want {
			t.Errorf("awk conversion:\n%q\nwant\n%q", out, want)
		}
	}
	if moved := e.run(t, "fetch_url_as_text", map[string]string{"url": srv.URL + "/moved"}).ok(t); moved != out {
		t.Errorf("redirect: %q", moved)
	}
	if out := e.run(t, "fetch_url_as_text", map[string]string{"url": srv.URL + "/plain"}).ok(t); out != "<b>kept</b> as it is\n" {
		t.Errorf("plain text: %q", out)
	}
	out = e.run(t, "fetch_url_as_text", map[string]string{"url": srv.URL + "/big"}).ok(t)
	if len(out) > 110*1024 || !strings.Contains(out, "left out") || !strings.Contains(out, "only its beginning was read") {
		t.Errorf("big page: %d bytes, ending %q", len(out), out[max(0, len(out)-200):])
	}
	e.run(t, "fetch_url_as_text", map[string]string{"url": srv.URL + "/image"}).fails(t, "is not text (its content type is image/png)")
	e.run(t, "fetch_url_as_text", map[string]string{"url": srv.URL + "/missing"}).fails(t, "cannot fetch")
	e.run(t, "fetch_url_as_text", map[string]string{"url": "file:///etc/passwd"}).fails(t, "only http:// and https://")
}
