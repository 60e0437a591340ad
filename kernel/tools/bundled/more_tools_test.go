//go:build unix

package bundled

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// These tests run the tools added for the original's breadth, the same way
// as tools_test.go: with the real bash, against files the test makes and
// servers it starts (httptest), never the network.

func (e *toolEnv) exists(rel string) bool {
	_, err := os.Lstat(filepath.Join(e.work, filepath.FromSlash(rel)))
	return err == nil
}

func TestFsRm(t *testing.T) {
	e := newToolEnv(t)
	e.write(t, "a.txt", "a")
	e.write(t, "dir/one.txt", "1")
	e.write(t, "dir/sub/two.txt", "2")

	e.run(t, "fs_rm", map[string]string{"path": "a.txt"}).fails(t, "Delete a.txt?")
	if !e.exists("a.txt") {
		t.Fatal("fs_rm deleted without confirmation")
	}
	if out := e.run(t, "fs_rm", map[string]string{"path": "a.txt"}, "AUTO_CONFIRM=1").ok(t); out != "Deleted a.txt.\n" {
		t.Errorf("got %q", out)
	}
	if e.exists("a.txt") {
		t.Error("a.txt is still there")
	}
	out := e.run(t, "fs_rm", map[string]string{"path": "dir"}, "AUTO_CONFIRM=1").ok(t)
	if out != "Deleted the directory dir and the 2 files in it.\n" || e.exists("dir") {
		t.Errorf("got %q; dir exists: %v", out, e.exists("dir"))
	}
	e.run(t, "fs_rm", map[string]string{"path": "gone"}, "AUTO_CONFIRM=1").fails(t, "no such file or directory: gone")
	for _, p := range []string{".", "./", "..", "/", "sub/..", e.work, filepath.Dir(e.work)} {
		e.run(t, "fs_rm", map[string]string{"path": p}, "AUTO_CONFIRM=1").fails(t, "refusing to delete")
	}
	if _, err := os.Stat(e.work); err != nil {
		t.Fatal("the working directory is gone")
	}
}

func TestFsMv(t *testing.T) {
	e := newToolEnv(t)
	e.write(t, "a.txt", "a")
	e.write(t, "b.txt", "b")
	e.run(t, "fs_mv", map[string]string{"source": "a.txt", "destination": "new/dir/a.txt"}).fails(t, "Move a.txt to new/dir/a.txt?")
	if !e.exists("a.txt") || e.exists("new") {
		t.Fatal("fs_mv moved without confirmation")
	}
	out := e.run(t, "fs_mv", map[string]string{"source": "a.txt", "destination": "new/dir/a.txt"}, "AUTO_CONFIRM=1").ok(t)
	if out != "Moved a.txt to new/dir/a.txt.\n" || e.exists("a.txt") || e.read(t, "new/dir/a.txt") != "a" {
		t.Errorf("got %q", out)
	}
	e.run(t, "fs_mv", map[string]string{"source": "b.txt", "destination": "new/dir/a.txt"}, "AUTO_CONFIRM=1").fails(t, "new/dir/a.txt already exists")
	if e.read(t, "new/dir/a.txt") != "a" || e.read(t, "b.txt") != "b" {
		t.Error("fs_mv replaced an existing destination")
	}
}

func TestFsCopy(t *testing.T) {
	e := newToolEnv(t)
	e.write(t, "src/x.txt", "x")
	e.write(t, "src/deep/y.txt", "y")
	e.write(t, "taken.txt", "mine")
	if out := e.run(t, "fs_copy", map[string]string{"source": "src", "destination": "to/copy"}).ok(t); out != "Copied src to to/copy.\n" {
		t.Errorf("got %q", out)
	}
	if e.read(t, "to/copy/x.txt") != "x" || e.read(t, "to/copy/deep/y.txt") != "y" || e.read(t, "src/x.txt") != "x" {
		t.Error("the copy or the source is wrong")
	}
	e.run(t, "fs_copy", map[string]string{"source": "src/x.txt", "destination": "taken.txt"}).fails(t, "taken.txt already exists")
	if e.read(t, "taken.txt") != "mine" {
		t.Error("fs_copy replaced an existing file")
	}
	e.run(t, "fs_copy", map[string]string{"source": "nope", "destination": "n"}).fails(t, "no such file or directory: nope")
}

// gitRepo makes a repository in e.work with two commits, then changes
// a.txt (unstaged), stages b.txt and leaves new.txt untracked.
func gitRepo(t *testing.T, e *toolEnv) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = e.work
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com",
			"GIT_COMMITTER_NAME=Ada", "GIT_COMMITTER_EMAIL=ada@example.com",
			"GIT_AUTHOR_DATE=2024-05-06T07:08:09Z", "GIT_COMMITTER_DATE=2024-05-06T07:08:09Z",
			"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "trunk")
	e.write(t, "a.txt", "one\n")
	git("add", "a.txt")
	git("commit", "-q", "-m", "first: add a")
	e.write(t, "b.txt", "bee\n")
	git("add", "b.txt")
	git("commit", "-q", "-m", "second: add b")
	e.write(t, "a.txt", "one\ntwo\n")
	e.write(t, "b.txt", "bee staged\n")
	git("add", "b.txt")
	e.write(t, "new.txt", "new\n")
}

func TestGitTools(t *testing.T) {
	e := newToolEnv(t)
	gitRepo(t, e)

	status := e.run(t, "git_status", nil).ok(t)
	for _, want := range []string{"## trunk\n", " M a.txt\n", "M  b.txt\n", "?? new.txt\n"} {
		if !strings.Contains(status, want) {
			t.Errorf("git_status lacks %q:\n%s", want, status)
		}
	}

	diff := e.run(t, "git_diff", nil).ok(t)
	if !strings.Contains(diff, "+two\n") || strings.Contains(diff, "bee staged") {
		t.Errorf("unstaged diff:\n%s", diff)
	}
	staged := e.run(t, "git_diff", map[string]string{"staged": "1"}).ok(t)
	if !strings.Contains(staged, "+bee staged\n") || strings.Contains(staged, "+two") {
		t.Errorf("staged diff:\n%s", staged)
	}
	if got := e.run(t, "git_diff", map[string]string{"file": "new.txt"}).ok(t); got != "(no changes)\n" {
		t.Errorf("diff of an untracked file: %q", got)
	}
	since := e.run(t, "git_diff", map[string]string{"revision": "HEAD~1", "file": "b.txt"}).ok(t)
	if !strings.Contains(since, "+bee staged") {
		t.Errorf("diff since HEAD~1:\n%s", since)
	}
	cut := e.run(t, "git_diff", map[string]string{"revision": "HEAD~1", "max_lines": "3"}).ok(t)
	if strings.Count(cut, "\n") != 4 || !strings.Contains(cut, "more lines left out") {
		t.Errorf("cut diff:\n%s", cut)
	}
	e.run(t, "git_diff", map[string]string{"revision": "--output=/tmp/x"}).fails(t, "must not start with -")

	log := e.run(t, "git_log", nil).ok(t)
	want := "2024-05-06 Ada: second: add b\n"
	lines := strings.Split(strings.TrimSuffix(log, "\n"), "\n")
	if len(lines) != 2 || !strings.HasSuffix(lines[0]+"\n", want) || !strings.HasSuffix(lines[1], "Ada: first: add a") {
		t.Errorf("git_log:\n%s", log)
	}
	if got := e.run(t, "git_log", map[string]string{"count": "1"}).ok(t); strings.Count(got, "\n") != 1 {
		t.Errorf("git_log --count 1:\n%s", got)
	}
	if got := e.run(t, "git_log", map[string]string{"grep": "^first"}).ok(t); !strings.Contains(got, "first: add a") || strings.Contains(got, "second") {
		t.Errorf("git_log --grep:\n%s", got)
	}
	if got := e.run(t, "git_log", map[string]string{"file": "b.txt"}).ok(t); strings.Count(got, "\n") != 1 {
		t.Errorf("git_log --file b.txt:\n%s", got)
	}

	show := e.run(t, "git_show", map[string]string{"revision": "HEAD~1"}).ok(t)
	if !strings.Contains(show, "first: add a") || !strings.Contains(show, "+one") || !strings.Contains(show, "Author:     Ada <ada@example.com>") {
		t.Errorf("git_show:\n%s", show)
	}
	if got := e.run(t, "git_show", map[string]string{"revision": "HEAD", "file": "b.txt"}).ok(t); got != "bee\n" {
		t.Errorf("git_show --file: %q", got)
	}
	e.run(t, "git_show", map[string]string{"revision": "nope"}).fails(t, "no such commit: nope")

	other := newToolEnv(t)
	for _, tool := range []string{"git_status", "git_diff", "git_log", "git_show"} {
		other.run(t, tool, nil, "GIT_CEILING_DIRECTORIES="+filepath.Dir(other.work)).fails(t, "not inside a git work tree")
	}
}

func TestCalculate(t *testing.T) {
	e := newToolEnv(t)
	for _, c := range []struct{ expr, want string }{
		{"1 + 2 * 3", "7"},
		{"(3.5 * 2^10) / sqrt(7)", "1354.62467126507"},
		{"2**10", "1024"},
		{"pi * 2", "6.28318530717959"},
		{"1e3 + .5", "1000.5"},
		{"-7 % 3", "-1"},
		{"floor(-2.5) + ceil(2.1) + abs(-4) + int(3.9)", "7"},
		{"log10(1000) + log(exp(2))", "5"},
		{"atan2(1, 1) * 4", "3.14159265358979"},
	} {
		if got := e.run(t, "calculate", map[string]string{"expression": c.expr}).ok(t); got != c.expr+" = "+c.want+"\n" {
			t.Errorf("%s: got %q, want %s", c.expr, got, c.want)
		}
	}
	for _, c := range []struct{ expr, want string }{
		{`system("touch pwned")`, "may hold only numbers"},
		{`getline < "/etc/passwd"`, "may hold only numbers"},
		{"x + 1", "may hold only numbers"},
		{"1 / 0", "no finite value"},
		{"sqrt(-1)", "no finite value"},
		{"(1 +", "cannot evaluate"},
		{"  ", "expression is required"},
	} {
		e.run(t, "calculate", map[string]string{"expression": c.expr}).fails(t, c.want)
	}
	if e.exists("pwned") {
		t.Fatal("calculate ran a command")
	}
}

func TestSqliteQuery(t *testing.T) {
	if _, err := exec.LookPath("sqlite3"); err != nil {
		t.Skip("sqlite3 is not installed")
	}
	e := newToolEnv(t)
	q := func(query string, env ...string) toolResult {
		return e.run(t, "sqlite_query", map[string]string{"database": "d.db", "query": query}, env...)
	}
	qw := func(query string, env ...string) toolResult {
		return e.run(t, "sqlite_query", map[string]string{"database": "d.db", "query": query, "write": "1"}, env...)
	}
	q("select 1").fails(t, "no such database: d.db (pass --write to create it)")
	qw("create table t(a int, b text)").fails(t, "Run this SQL, which may change d.db?")
	if e.exists("d.db") {
		t.Fatal("sqlite_query wrote without confirmation")
	}
	qw("create table t(a int, b text); insert into t values (1, 'x, y'), (2, 'z');", "AUTO_CONFIRM=1").ok(t)
	if got := q("select * from t order by a").ok(t); got != "a,b\n1,\"x, y\"\n2,z\n" {
		t.Errorf("select: %q", got)
	}
	if got := e.run(t, "sqlite_query", map[string]string{"database": "d.db", "query": "select a from t order by a", "max_rows": "2"}).ok(t); got != "a\n1\n[... 1 more lines left out; add a LIMIT or narrow the query ...]\n" {
		t.Errorf("max_rows: %q", got)
	}
	if got := q("select * from t where a > 5").ok(t); got != "(no rows)\n" {
		t.Errorf("no rows: %q", got)
	}
	q("insert into t values (3, 'w')", "AUTO_CONFIRM=1").fails(t, "readonly database")
	q("select * from nope").fails(t, "no such table: nope")
	q(".shell touch pwned").fails(t, "dot-commands")
	q("select 1;\n.system touch pwned").fails(t, "dot-commands")
	q("attach 'other.db' as o").fails(t, "safe mode")
	q("select load_extension('x')").fails(t, "")
	if e.exists("pwned") || e.exists("other.db") {
		t.Fatal("sqlite_query ran a command or made a file")
	}
	if got := q("select count(*) as n from t").ok(t); got != "n\n2\n" {
		t.Errorf("after refused writes: %q", got)
	}
}

// fakeDuckDB puts a duckdb on PATH that records its arguments and input
// and prints a CSV result, or fails when the input says "fail".
func fakeDuckDB(t *testing.T) (pathEnv, record string) {
	t.Helper()
	bin := t.TempDir()
	record = filepath.Join(t.TempDir(), "record")
	script := `#!/usr/bin/env bash
{ printf '%s\n' "$@"; printf -- '--\n'; cat; } >"` + record + `"
if grep -q fail "` + record + `"; then echo "Catalog Error: Table with name fail does not exist!" >&2; exit 1; fi
printf 'x,y\n1,2\n'
`
	if err := os.WriteFile(filepath.Join(bin, "duckdb"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return "PATH=" + bin + ":" + os.Getenv("PATH"), record
}

func TestDuckDBQueryCommandLine(t *testing.T) {
	e := newToolEnv(t)
	path, record := fakeDuckDB(t)
	readRecord := func() string {
		data, err := os.ReadFile(record)
		if err != nil {
			t.Fatal(err)
		}
		os.Remove(record)
		return string(data)
	}
	if got := e.run(t, "duckdb_query", map[string]string{"query": "select * from 'data.csv'"}, path).ok(t); got != "x,y\n1,2\n" {
		t.Errorf("output %q", got)
	}
	if got := readRecord(); got != "-safe\n-batch\n-bail\n-csv\n--\nselect * from 'data.csv'\n" {
		t.Errorf("in memory: %q", got)
	}
	e.write(t, "w.duckdb", "")
	e.run(t, "duckdb_query", map[string]string{"query": "select 1", "database": "w.duckdb"}, path).ok(t)
	if got := readRecord(); !strings.HasPrefix(got, "-safe\n-batch\n-bail\n-csv\n-readonly\nw.duckdb\n--\n") {
		t.Errorf("with a database: %q", got)
	}
	e.run(t, "duckdb_query", map[string]string{"query": "select 1", "database": "missing.duckdb"}, path).fails(t, "no such database: missing.duckdb")
	for _, q := range []string{"COPY t TO 'out.csv'", "select 1; export database 'x'", "install httpfs", "ATTACH 'x.db'", "set memory_limit='1GB'"} {
		e.run(t, "duckdb_query", map[string]string{"query": q}, path).fails(t, "pass --write to run it")
	}
	e.run(t, "duckdb_query", map[string]string{"query": ".shell id"}, path).fails(t, "dot-commands")
	e.run(t, "duckdb_query", map[string]string{"query": "copy t to 'o.csv'", "write": "1"}, path).fails(t, "Run this SQL, which may change files?")
	if _, err := os.Stat(record); err == nil {
		t.Fatal("duckdb ran for a refused query")
	}
	e.run(t, "duckdb_query", map[string]string{"query": "copy t to 'o.csv'", "database": "new.duckdb", "write": "1"}, path, "AUTO_CONFIRM=1").ok(t)
	if got := readRecord(); got != "-safe\n-batch\n-bail\n-csv\nnew.duckdb\n--\ncopy t to 'o.csv'\n" {
		t.Errorf("write: %q", got)
	}
	e.run(t, "duckdb_query", map[string]string{"query": "select * from fail"}, path).fails(t, "Table with name fail does not exist")
	e.run(t, "duckdb_query", map[string]string{"query": "select 1"}, "PATH=/usr/bin:/bin").fails(t, "the duckdb command is not installed")
}

func TestDuckDBQueryRealDuckDB(t *testing.T) {
	if _, err := exec.LookPath("duckdb"); err != nil {
		t.Skip("the duckdb command is not installed; TestDuckDBQueryCommandLine covers the tool with a fake")
	}
	e := newToolEnv(t)
	e.write(t, "data.csv", "name,n\nada,3\nbob,4\n")
	got := e.run(t, "duckdb_query", map[string]string{"query": "select sum(n) as total from 'data.csv'"}).ok(t)
	if got != "total\n7\n" {
		t.Errorf("got %q", got)
	}
}

func TestExecutePyCode(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	e := newToolEnv(t)
	code := "import os, sys\nprint(sum(range(10)))\nprint('err', file=sys.stderr)\nprint(os.getcwd())\nsys.exit(4)"
	e.run(t, "execute_py_code", map[string]string{"code": code}).fails(t, "Run this Python code?")
	out := e.run(t, "execute_py_code", map[string]string{"code": code}, "AUTO_CONFIRM=1").ok(t)
	if want := "45\nerr\n" + resolved(t, e.work) + "\n[exit status: 4]\n"; out != want && out != strings.Replace(want, resolved(t, e.work), e.work, 1) {
		t.Errorf("got %q", out)
	}
	out = e.run(t, "execute_py_code", map[string]string{"code": "print(undefined_name)"}, "AUTO_CONFIRM=1").ok(t)
	if !strings.Contains(out, "NameError") || !strings.HasSuffix(out, "[exit status: 1]\n") {
		t.Errorf("got %q", out)
	}
	out = e.run(t, "execute_py_code", map[string]string{"code": "x = 1"}, "AUTO_CONFIRM=1").ok(t)
	if out != "(no output)\n[exit status: 0]\n" {
		t.Errorf("got %q", out)
	}
}

// searchServer answers like the engines web_search knows, and records the
// last request.
type searchServer struct {
	*httptest.Server
	last *http.Request
	body string
}

func newSearchServer(t *testing.T) *searchServer {
	s := &searchServer{}
	mux := http.NewServeMux()
	record := func(r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		s.last, s.body = r, string(data)
	}
	mux.HandleFunc("/html/", func(w http.ResponseWriter, r *http.Request) {
		record(r)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><body><div class="result">
<h2><a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fgo.dev%2Fdoc%2F%3Fa%3D1%26b%3D2&amp;rut=abc">The <b>Go</b> &amp; Docs</a></h2>
<a class="result__snippet" href="x">Learn <b>Go</b>,
quickly &#x27;now&#x27;.</a></div>
<div class="result"><a class="result__a" href="https://example.com/two">Second</a></div>
</body></html>`)
	})
	mux.HandleFunc("/search", func(w http.ResponseWriter, r *http.Request) {
		record(r)
		json.NewEncoder(w).Encode(map[string]any{"results": []map[string]string{
			{"title": "S1", "url": "https://s/1", "content": "first\tresult\nhere"},
			{"title": "S2", "url": "https://s/2"},
		}})
	})
	mux.HandleFunc("/brave", func(w http.ResponseWriter, r *http.Request) {
		record(r)
		if r.Header.Get("X-Subscription-Token") != "brave-key" {
			http.Error(w, "bad key", http.StatusUnauthorized)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"web": map[string]any{"results": []map[string]string{
			{"title": "B1", "url": "https://b/1", "description": "brave one"},
		}}})
	})
	mux.HandleFunc("/tavily", func(w http.ResponseWriter, r *http.Request) {
		record(r)
		if r.Method != http.MethodPost || r.Header.Get("Authorization") != "Bearer tv-key" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"results": []map[string]string{
			{"title": "T1", "url": "https://t/1", "content": "tavily one"},
		}})
	})
	mux.HandleFunc("/empty", func(w http.ResponseWriter, r *http.Request) {
		record(r)
		fmt.Fprint(w, `{"results": []}`)
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

func TestWebSearch(t *testing.T) {
	for _, c := range []string{"curl", "jq"} {
		if _, err := exec.LookPath(c); err != nil {
			t.Skip(c + " is not installed")
		}
	}
	e := newToolEnv(t)
	s := newSearchServer(t)
	search := func(query string, env ...string) toolResult {
		return e.run(t, "web_search", map[string]string{"query": query}, env...)
	}

	out := search("go docs & more", "WEB_SEARCH_URL="+s.URL+"/html/").ok(t)
	want := "1. The Go & Docs\n   https://go.dev/doc/?a=1&b=2\n   Learn Go, quickly 'now'.\n\n2. Second\n   https://example.com/two\n\n"
	if out != want {
		t.Errorf("duckduckgo:\n%q\nwant\n%q", out, want)
	}
	if got := s.last.URL.Query().Get("q"); got != "go docs & more" {
		t.Errorf("duckduckgo got the query %q", got)
	}
	if out := e.run(t, "web_search", map[string]string{"query": "go", "count": "1"}, "WEB_SEARCH_URL="+s.URL+"/html/").ok(t); strings.Contains(out, "Second") {
		t.Errorf("count 1:\n%s", out)
	}

	out = search("héllo wörld", "WEB_SEARCH_ENGINE=searxng", "SEARXNG_URL="+s.URL+"/").ok(t)
	if out != "1. S1\n   https://s/1\n   first result here\n\n2. S2\n   https://s/2\n\n" {
		t.Errorf("searxng: %q", out)
	}
	if q := s.last.URL.Query(); q.Get("q") != "héllo wörld" || q.Get("format") != "json" {
		t.Errorf("searxng got %v", q)
	}
	search("x", "WEB_SEARCH_ENGINE=searxng").fails(t, "SEARXNG_URL is not set")

	out = search("b", "WEB_SEARCH_ENGINE=brave", "BRAVE_API_KEY=brave-key", "WEB_SEARCH_URL="+s.URL+"/brave").ok(t)
	if out != "1. B1\n   https://b/1\n   brave one\n\n" {
		t.Errorf("brave: %q", out)
	}
	search("b", "WEB_SEARCH_ENGINE=brave", "BRAVE_API_KEY=wrong", "WEB_SEARCH_URL="+s.URL+"/brave").fails(t, "the brave search failed")
	search("b", "WEB_SEARCH_ENGINE=brave").fails(t, "BRAVE_API_KEY is not set")

	out = search(`say "hi"`, "WEB_SEARCH_ENGINE=tavily", "TAVILY_API_KEY=tv-key", "WEB_SEARCH_URL="+s.URL+"/tavily").ok(t)
	if out != "1. T1\n   https://t/1\n   tavily one\n\n" {
		t.Errorf("tavily: %q", out)
	}
	var body struct {
		Query      string `json:"query"`
		MaxResults int    `json:"max_results"`
	}
	if err := json.Unmarshal([]byte(s.body), &body); err != nil || body.Query != `say "hi"` || body.MaxResults != 8 {
		t.Errorf("tavily got %s (%v)", s.body, err)
	}

	if out := search("nothing", "WEB_SEARCH_ENGINE=searxng", "WEB_SEARCH_URL="+s.URL+"/empty").ok(t); out != "No results for \"nothing\".\n" {
		t.Errorf("no results: %q", out)
	}
	search("x", "WEB_SEARCH_ENGINE=bing").fails(t, `unknown WEB_SEARCH_ENGINE "bing"`)
	e.run(t, "web_search", map[string]string{"query": "x", "count": "50"}).fails(t, "count must be a whole number from 1 to 20")
}

func TestSearchWikipedia(t *testing.T) {
	for _, c := range []string{"curl", "jq"} {
		if _, err := exec.LookPath(c); err != nil {
			t.Skip(c + " is not installed")
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/w/api.php", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("srsearch") == "nothing" {
			fmt.Fprint(w, `{"query":{"search":[]}}`)
			return
		}
		fmt.Fprint(w, `{"query":{"search":[{"title":"Ada Lovelace"},{"title":"Analytical Engine"},{"title":"Charles Babbage"}]}}`)
	})
	mux.HandleFunc("/api/rest_v1/page/summary/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/rest_v1/page/summary/Ada_Lovelace" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, `{"title":"Ada Lovelace","extract":"Augusta Ada King was an English mathematician.","content_urls":{"desktop":{"page":"https://en.wikipedia.org/wiki/Ada_Lovelace"}}}`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	e := newToolEnv(t)
	out := e.run(t, "search_wikipedia", map[string]string{"query": "first programmer"}, "WIKIPEDIA_URL="+srv.URL).ok(t)
	want := "Ada Lovelace\nhttps://en.wikipedia.org/wiki/Ada_Lovelace\n\nAugusta Ada King was an English mathematician.\n\nOther matches: Analytical Engine; Charles Babbage\n"
	if out != want {
		t.Errorf("got\n%q\nwant\n%q", out, want)
	}
	if out := e.run(t, "search_wikipedia", map[string]string{"query": "nothing"}, "WIKIPEDIA_URL="+srv.URL).ok(t); out != "Wikipedia has no article matching \"nothing\".\n" {
		t.Errorf("no match: %q", out)
	}
	e.run(t, "search_wikipedia", map[string]string{"query": "x", "language": "en; rm"}).fails(t, "language must be a code")
}

func TestGetCurrentWeather(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.URL.EscapedPath() + "?" + r.URL.RawQuery
		if strings.Contains(r.URL.Path, "Nowhere") {
			http.Error(w, "Unknown location", http.StatusNotFound)
			return
		}
		fmt.Fprint(w, "Weather report: "+r.URL.Path+"\n  Sunny  +21(20) °C\n")
	}))
	defer srv.Close()
	e := newToolEnv(t)
	out := e.run(t, "get_current_weather", map[string]string{"location": "San Francisco"}, "WEATHER_URL="+srv.URL).ok(t)
	if out != "Weather report: /San+Francisco\n  Sunny  +21(20) °C\n" || got != "/San+Francisco?mT" {
		t.Errorf("got %q for %q", out, got)
	}
	e.run(t, "get_current_weather", map[string]string{"location": "48.85,2.35", "imperial": "1"}, "WEATHER_URL="+srv.URL).ok(t)
	if got != "/48.85,2.35?uT" {
		t.Errorf("imperial request %q", got)
	}
	e.run(t, "get_current_weather", map[string]string{"location": "Zürich"}, "WEATHER_URL="+srv.URL).ok(t)
	if got != "/Z%C3%BCrich?mT" {
		t.Errorf("non-ASCII request %q", got)
	}
	e.run(t, "get_current_weather", map[string]string{"location": "Nowhere"}, "WEATHER_URL="+srv.URL).fails(t, "cannot get the weather for Nowhere")
}

// TestNewGuardedToolsRefuseWithoutTheirGuard: each new tool that changes
// things refuses to act, even with AUTO_CONFIRM, when its guard is gone.
func TestNewGuardedToolsRefuseWithoutTheirGuard(t *testing.T) {
	path, record := fakeDuckDB(t)
	for _, c := range []struct {
		tool, guard string
		vars        map[string]string
		unchanged   func(e *toolEnv) bool
	}{
		{"fs_rm", "guard_path", map[string]string{"path": "f.txt"}, func(e *toolEnv) bool { return e.exists("f.txt") }},
		{"fs_mv", "guard_path", map[string]string{"source": "f.txt", "destination": "g.txt"}, func(e *toolEnv) bool { return e.exists("f.txt") && !e.exists("g.txt") }},
		{"execute_py_code", "guard_operation", map[string]string{"code": "open('g.txt', 'w')"}, func(e *toolEnv) bool { return !e.exists("g.txt") }},
		{"execute_js_code", "guard_operation", map[string]string{"code": "require('fs').writeFileSync('g.txt', '')"}, func(e *toolEnv) bool { return !e.exists("g.txt") }},
		{"sqlite_query", "guard_path", map[string]string{"database": "g.txt", "query": "create table t(a)", "write": "1"}, func(e *toolEnv) bool { return !e.exists("g.txt") }},
		{"duckdb_query", "guard_operation", map[string]string{"query": "create table t(a)", "write": "1"}, func(*toolEnv) bool {
			_, err := os.Stat(record)
			return err != nil
		}},
	} {
		t.Run(c.tool, func(t *testing.T) {
			e := newToolEnv(t)
			e.write(t, "f.txt", "old\n")
			if err := os.Remove(filepath.Join(e.functions, "utils", "guard_operation.sh")); err != nil {
				t.Fatal(err)
			}
			e.run(t, c.tool, c.vars, "AUTO_CONFIRM=1", path).fails(t, c.tool+": cannot load "+c.guard+" from ")
			if !c.unchanged(e) {
				t.Error("the tool acted unguarded")
			}
		})
	}
}

func TestExecuteJsCode(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	e := newToolEnv(t)
	code := "console.log([1, 2, 3].reduce((a, b) => a + b));\nconsole.error('err');\nprocess.exitCode = 2;"
	e.run(t, "execute_js_code", map[string]string{"code": code}).fails(t, "Run this JavaScript code?")
	out := e.run(t, "execute_js_code", map[string]string{"code": code}, "AUTO_CONFIRM=1").ok(t)
	if out != "6\nerr\n[exit status: 2]\n" {
		t.Errorf("got %q", out)
	}
	out = e.run(t, "execute_js_code", map[string]string{"code": "nope("}, "AUTO_CONFIRM=1").ok(t)
	if !strings.Contains(out, "SyntaxError") || !strings.HasSuffix(out, "[exit status: 1]\n") {
		t.Errorf("got %q", out)
	}
}

func TestFsInfo(t *testing.T) {
	e := newToolEnv(t)
	e.write(t, "notes.txt", "one\ntwo\n")
	e.write(t, "dir/a", "")
	e.write(t, "dir/b", "")
	e.write(t, "bin.dat", "\x00\x01\x02")
	if err := os.Symlink("notes.txt", filepath.Join(e.work, "link")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		want []string
	}{
		{"notes.txt", []string{"type: regular file\n", "size: 8 bytes\n", "content: text, 2 lines\n", "permissions: -rw-r--r--\n", "modified: 20"}},
		{"dir", []string{"type: directory\n", "entries: 2\n"}},
		{"dir/a", []string{"content: empty\n"}},
		{"bin.dat", []string{"content: binary\n"}},
		{"link", []string{"type: symbolic link to notes.txt\n", "content: text, 2 lines\n"}},
	} {
		out := e.run(t, "fs_info", map[string]string{"path": c.path}).ok(t)
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: lacks %q:\n%s", c.path, w, out)
			}
		}
	}
	e.run(t, "fs_info", map[string]string{"path": "nope"}).fails(t, "no such file or directory: nope")
}

func TestFsDiff(t *testing.T) {
	e := newToolEnv(t)
	e.write(t, "a.txt", "one\ntwo\n")
	e.write(t, "b.txt", "one\nthree\n")
	e.write(t, "c.txt", "one\ntwo\n")
	out := e.run(t, "fs_diff", map[string]string{"old": "a.txt", "new": "b.txt"}).ok(t)
	if !strings.Contains(out, "--- a.txt") || !strings.Contains(out, "-two\n+three\n") {
		t.Errorf("diff:\n%s", out)
	}
	if out := e.run(t, "fs_diff", map[string]string{"old": "a.txt", "new": "c.txt"}).ok(t); out != "(no differences)\n" {
		t.Errorf("same files: %q", out)
	}
	e.write(t, "x/f", "1\n")
	e.write(t, "y/f", "2\n")
	e.write(t, "y/g", "new\n")
	out = e.run(t, "fs_diff", map[string]string{"old": "x", "new": "y"}).ok(t)
	if !strings.Contains(out, "+2\n") || !strings.Contains(out, "+new\n") {
		t.Errorf("directories:\n%s", out)
	}
	out = e.run(t, "fs_diff", map[string]string{"old": "x", "new": "y", "max_lines": "2"}).ok(t)
	if strings.Count(out, "\n") != 3 || !strings.Contains(out, "more lines left out") {
		t.Errorf("cut:\n%s", out)
	}
	e.run(t, "fs_diff", map[string]string{"old": "a.txt", "new": "missing"}).fails(t, "no such file or directory: missing")
}

func TestConvertTime(t *testing.T) {
	if _, err := os.Stat("/usr/share/zoneinfo/Europe/Paris"); err != nil {
		t.Skip("no time zone database")
	}
	e := newToolEnv(t)
	for _, c := range []struct{ time, from, to, want string }{
		{"2024-07-01 09:30", "Europe/Paris", "America/New_York", "2024-07-01T09:30:00+02:00 Monday CEST (Europe/Paris)\n= 2024-07-01T03:30:00-04:00 Monday EDT (America/New_York)\n"},
		{"2024-01-15T23:00:00", "UTC", "Asia/Tokyo", "2024-01-15T23:00:00+00:00 Monday UTC (UTC)\n= 2024-01-16T08:00:00+09:00 Tuesday JST (Asia/Tokyo)\n"},
		{"2024-03-10 12:00", "UTC", "XST-5:30", "2024-03-10T12:00:00+00:00 Sunday UTC (UTC)\n= 2024-03-10T17:30:00+05:30 Sunday XST (XST-5:30)\n"},
	} {
		got := e.run(t, "convert_time", map[string]string{"time": c.time, "from": c.from, "to": c.to}).ok(t)
		if got != c.want {
			t.Errorf("%s %s → %s:\n%q\nwant\n%q", c.time, c.from, c.to, got, c.want)
		}
	}
	if got := e.run(t, "convert_time", map[string]string{"time": "now", "to": "Asia/Tokyo"}).ok(t); !strings.Contains(got, "(Asia/Tokyo)\n") {
		t.Errorf("now: %q", got)
	}
	e.run(t, "convert_time", map[string]string{"time": "2024-01-01 10:00", "to": "Mars/Olympus"}).fails(t, `unknown time zone "Mars/Olympus"`)
	e.run(t, "convert_time", map[string]string{"time": "2024-01-01 10:00", "to": "../../etc/passwd"}).fails(t, "is not a time zone name")
	e.run(t, "convert_time", map[string]string{"time": "yesterday-ish $(id)", "to": "UTC"}).fails(t, "is not a date and time")
	e.run(t, "convert_time", map[string]string{"time": "2024-13-45 10:00", "to": "UTC"}).fails(t, "cannot read")
}
