package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/internal/fakellm"
)

// fileExists reports whether path exists.
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// TestExecuteRefusesACommandThatHidesWhatItRuns is the attack of issue 15:
// a carriage return and an erase-line sequence make the terminal show
// "ls -la" for a command that runs something else.
func TestExecuteRefusesACommandThatHidesWhatItRuns(t *testing.T) {
	dir := t.TempDir()
	pwned := filepath.Join(dir, "PWNED")
	fake := answering("```sh\ntouch " + pwned + " #\r\x1b[2Kls -la\n```\n")
	e := newEnv(t, openAIConfig(fakellm.StartOpenAI(t, fake), "k"))
	p := e.startPTY("-e", "list the files")
	p.expect(`Command (quoted: it has invisible characters): "touch `+pwned+` #\r\x1b[2Kls -la"`, replTimeout)
	p.expect(`Not run: the command has characters that change what a terminal shows (\r \x1b)`, replTimeout)
	p.expect("[r]evise  [d]escribe  [q]uit: ", replTimeout)
	p.send("e\r") // not offered: refused again
	p.expect("Not run: ", replTimeout)
	p.expect("[r]evise  [d]escribe  [q]uit: ", replTimeout)
	p.send("q\r")
	if code := p.waitExit(replTimeout); code != 0 {
		p.fail("exit code %d", code)
	}
	if fileExists(pwned) {
		p.fail("the hidden command ran")
	}
	if raw := p.rawOutput(); strings.Contains(raw, "\x1b[2Kls -la") || strings.Contains(raw, "#\r") {
		p.fail("the reply's escape sequence reached the terminal raw: %q", raw)
	}
	if strings.Contains(p.output(), "[e]xecute") {
		p.fail("the menu offered to execute a refused command")
	}
}

func TestExecuteAsksWhichOfSeveralCommandsAndRunsOnlyThatOne(t *testing.T) {
	dir := t.TempDir()
	first, second := filepath.Join(dir, "first"), filepath.Join(dir, "second")
	fake := answering("Either\n```sh\ntouch " + first + "\n```\nor\n```sh\ntouch " + second + "\n```\n")
	e := newEnv(t, openAIConfig(fakellm.StartOpenAI(t, fake), "k"))
	p := e.startPTY("-e", "make a file")
	p.expect("The reply has 2 commands:", replTimeout)
	p.expect("1) touch "+first, replTimeout)
	p.expect("2) touch "+second, replTimeout)
	p.expect("Which one? [1-2, q to quit]: ", replTimeout)
	p.send("2\r")
	p.expect("Command: touch "+second, replTimeout)
	p.expect("[e]xecute  [r]evise  [d]escribe  [c]opy  [q]uit: ", replTimeout)
	p.send("e\r")
	if code := p.waitExit(replTimeout); code != 0 {
		p.fail("exit code %d", code)
	}
	if fileExists(first) || !fileExists(second) {
		p.fail("first ran: %v, second ran: %v; want only the chosen one", fileExists(first), fileExists(second))
	}
}

// TestReplyCannotSetTheTitleOrEraseLines: in the REPL a reply is rendered;
// its escape sequences must reach the terminal as inert text.
func TestReplyCannotSetTheTitleOrEraseLines(t *testing.T) {
	fake := answering("Hello \x1b]0;PWNED-TITLE\x07there\nAAA\x1b[2KBBB and CCC\rDDD\n")
	e := newEnv(t, openAIConfig(fakellm.StartOpenAI(t, fake), "k"))
	p := e.startREPL()
	p.enter("hi", "AAA[2KBBB and CCCDDD", replPrompt)
	raw := p.rawOutput()
	for _, s := range []string{"\x1b]0;", "PWNED-TITLE\x07", "AAA\x1b[2K", "CCC\rDDD"} {
		if strings.Contains(raw, s) {
			p.fail("%q reached the terminal raw", s)
		}
	}
	if !strings.Contains(p.output(), "Hello ]0;PWNED-TITLEthere") {
		p.fail("the title sequence was not shown as text")
	}
	p.exit()
}

func TestCodeAndExecuteWhenPipedEscapeControlCharacters(t *testing.T) {
	fake := answering("```sh\necho hi #\r\x1b]0;pwned\x07ls\n```\n")
	e := newEnv(t, openAIConfig(fakellm.StartOpenAI(t, fake), "k"))
	for _, flag := range []string{"-c", "-e"} {
		r := e.run("", flag, "say hi")
		e.mustSucceed(r)
		if want := `echo hi #\r\x1b]0;pwned\als` + "\n"; r.stdout != want {
			t.Errorf("%s printed %q, want %q", flag, r.stdout, want)
		}
		if !strings.Contains(r.stderr, "warning: the code had 3 control or text-direction characters") {
			t.Errorf("%s: stderr %q", flag, r.stderr)
		}
	}
}
