//go:build unix

package bundled

import (
	"os/exec"
	"strings"
	"testing"
)

func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
}

func TestExploreLooksAroundARepository(t *testing.T) {
	needGit(t)
	e := newAgentEnv(t, "explore")
	e.git(t, "init", "-q", "-b", "main")
	e.write(t, ".gitignore", "build/\n")
	e.write(t, "README.md", "# Demo\n\nA demo project.\n")
	e.write(t, "cmd/demo/main.go", "package main\n\nfunc main() { run() }\n")
	e.write(t, "internal/run/run.go", "package run\n\n// Run runs.\nfunc Run() {}\n")
	e.write(t, "build/out.bin", "ignored\n")
	e.git(t, "add", ".")
	e.git(t, "commit", "-qm", "first commit")
	e.write(t, "internal/run/run.go", "package run\n\n// Run runs the demo.\nfunc Run() {}\n")
	e.git(t, "commit", "-qam", "say what Run runs")

	tests := []struct {
		name, tool, args string
		want             []string
		absent           []string
	}{
		{"tree", "tree", `{}`,
			[]string{"./ (4 files):", "cmd/ (1 file)\n  demo/ (1 file)\n    main.go\n", "internal/ (1 file)", "README.md"},
			[]string{"build", "out.bin"}},
		{"tree counts what is deeper", "tree", `{"depth":1}`, []string{"cmd/ (1 file)\n", "README.md"}, []string{"main.go"}},
		{"find by name", "find_files", `{"pattern":"*.go"}`,
			[]string{"2 file(s) under . match *.go:", "cmd/demo/main.go\n", "internal/run/run.go\n"}, nil},
		{"find by path with **", "find_files", `{"pattern":"internal/**/*.go"}`, []string{"internal/run/run.go"}, []string{"main.go"}},
		{"find under a directory", "find_files", `{"pattern":"*.go","path":"cmd"}`, []string{"cmd/demo/main.go"}, []string{"run.go"}},
		{"find nothing", "find_files", `{"pattern":"*.rs"}`, []string{"No file under . matches *.rs."}, nil},
		{"grep with context", "grep_files", `{"pattern":"^func","context":1}`,
			[]string{"cmd/demo/main.go:3:func main() { run() }", "internal/run/run.go-3-// Run runs the demo.", "internal/run/run.go:4:func Run() {}"}, nil},
		{"read", "read_file", `{"path":"README.md","offset":3}`, []string{"README.md, lines 3-3 of 3:", "     3\tA demo project."}, nil},
		{"log", "git_log", `{}`, []string{"2024-01-02 Ada: say what Run runs", "2024-01-02 Ada: first commit"}, nil},
		{"log of a path with stats", "git_log", `{"path":"cmd","stat":true}`, []string{"first commit", "cmd/demo/main.go | 3 +++"}, []string{"say what"}},
		{"show", "git_show", `{"rev":"HEAD"}`, []string{"say what Run runs", "-// Run runs.", "+// Run runs the demo."}, nil},
		{"blame summary", "git_blame", `{"path":"internal/run/run.go"}`,
			[]string{"      4  100.0%  Ada", "Latest commits that touched internal/run/run.go:", "say what Run runs"}, nil},
		{"blame a range", "git_blame", `{"path":"internal/run/run.go","start":3,"end":3}`, []string{"(Ada 2024-01-02 3) // Run runs the demo."}, []string{"func Run"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := ok(t, e.call(t, tt.tool, tt.args), tt.want...)
			for _, a := range tt.absent {
				if strings.Contains(out, a) {
					t.Errorf("output has %q:\n%s", a, out)
				}
			}
		})
	}
}

func TestExploreRefusesWhatItCannotDo(t *testing.T) {
	needGit(t)
	e := newAgentEnv(t, "explore")
	e.write(t, "a.txt", "a\n")
	tests := []struct {
		name, tool, args string
		want             string
	}{
		{"history outside a repository", "git_log", `{}`, "is not inside a git repository"},
		{"a file outside", "read_file", `{"path":"/etc/hostname"}`, "is outside the workspace"},
		{"a tree outside", "tree", `{"path":"../.."}`, "is outside the workspace"},
		{"a line past the end", "read_file", `{"path":"a.txt","offset":5}`, "a.txt has 1 lines; offset 5 is past its end"},
		{"a depth that is not a number", "tree", `{"depth":"deep"}`, "depth must be a whole number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fails(t, e.call(t, tt.tool, tt.args), tt.want)
		})
	}
	e.git(t, "init", "-q")
	e.git(t, "add", ".")
	e.git(t, "commit", "-qm", "c")
	// A revision that git would read as an option is refused, not run.
	fails(t, e.call(t, "git_log", `{"ref":"--output=/tmp/x"}`), `"--output=/tmp/x" is not a revision`)
	fails(t, e.call(t, "git_show", `{"rev":"nope"}`), "no commit named nope")
}
