//go:build unix

package bundled

import (
	"strings"
	"testing"
)

func TestReviewerShowsTheChanges(t *testing.T) {
	needGit(t)
	e := newAgentEnv(t, "reviewer")
	e.git(t, "init", "-q", "-b", "main")
	e.write(t, "calc.go", "package calc\n\nfunc Add(a, b int) int { return a + b }\n")
	e.write(t, "notes.txt", "v1\n")
	e.git(t, "add", ".")
	e.git(t, "commit", "-qm", "add Add")
	e.git(t, "checkout", "-q", "-b", "feature")
	e.write(t, "notes.txt", "v2\n")
	e.git(t, "commit", "-qam", "notes v2")
	// Staged: a change to calc.go; unstaged: another on top; untracked: new.go.
	e.write(t, "calc.go", "package calc\n\nfunc Add(a, b int) int { return a - b }\n")
	e.git(t, "add", "calc.go")
	e.write(t, "calc.go", "package calc\n\nfunc Add(a, b int) int { return a - b }\n\nfunc Sub(a, b int) int { return a + b }\n")
	e.write(t, "new.go", "package calc\n")

	tests := []struct {
		name, tool, args string
		want             []string
		absent           []string
	}{
		{"status", "git_status", `{}`, []string{"## feature", "MM calc.go", "?? new.go"}, nil},
		{"every uncommitted change", "git_diff", `{}`,
			[]string{"-func Add(a, b int) int { return a + b }", "+func Add(a, b int) int { return a - b }", "+func Sub", "Untracked files (not in the diff):\nnew.go"}, nil},
		{"staged only", "git_diff", `{"staged":true}`, []string{"+func Add(a, b int) int { return a - b }"}, []string{"Sub", "Untracked"}},
		{"unstaged only", "git_diff", `{"unstaged":true}`, []string{"+func Sub"}, []string{"-func Add"}},
		{"against a branch", "git_diff", `{"ref":"main","stat":true}`, []string{"calc.go", "notes.txt"}, []string{"@@"}},
		{"one path", "git_diff", `{"ref":"main","path":"notes.txt"}`, []string{"-v1", "+v2"}, []string{"calc.go"}},
		{"a file at a commit", "show_file", `{"path":"calc.go","ref":"main"}`, []string{"calc.go at main, lines 1-3 of 3:", "return a + b"}, nil},
		{"a file in the work tree", "show_file", `{"path":"calc.go","offset":5}`, []string{"     5\tfunc Sub"}, nil},
		{"the log of the branch", "git_log", `{"ref":"main..HEAD"}`, []string{"Ada: notes v2"}, []string{"add Add"}},
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
	fails(t, e.call(t, "git_diff", `{"staged":true,"unstaged":true}`), "--staged and --unstaged exclude each other")
	fails(t, e.call(t, "show_file", `{"path":"new.go","ref":"main"}`), "new.go does not exist at main")
	fails(t, e.call(t, "git_diff", `{"ref":"-p"}`), `"-p" is not a revision`)
}

func TestReviewerDiffsARepositoryWithoutCommits(t *testing.T) {
	needGit(t)
	e := newAgentEnv(t, "reviewer")
	e.git(t, "init", "-q")
	e.write(t, "first.txt", "hello\n")
	e.git(t, "add", "first.txt")
	ok(t, e.call(t, "git_diff", `{}`), "+hello")
}
