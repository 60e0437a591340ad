package cli

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/coyote-cli/coyote/assets"
	"github.com/coyote-cli/coyote/kernel/chat"
	"github.com/coyote-cli/coyote/kernel/role"
	"github.com/coyote-cli/coyote/kernel/shellhist"
	"github.com/coyote-cli/coyote/kernel/termtext"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// ExitCodeError ends coyote with a given exit code and no message (the
// command coyote ran already said what happened).
type ExitCodeError struct{ Code int }

func (e *ExitCodeError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// errNoCommand is -e's error when the reply holds nothing to run.
var errNoCommand = errors.New("the model gave no command; ask again in other words")

// runExecute carries out -e: the model writes a shell command for the
// request. Without a terminal the command alone is printed (writeCode). In
// a terminal the reply is shown as every reply is (show: control
// characters cannot act on the terminal), then the one command the menu
// would run, exactly (commandView), and the user can execute it, revise
// the request, have it described, copy it, or quit. A reply with several
// commands asks which one first. A command holding a control or
// text-direction character is never run or copied (refusal).
func runExecute(ctx context.Context, f *Factory, p chat.Chatter, req *provider.ChatRequest, show func() chat.Display) error {
	if !f.IO.IsStdinTTY() || !f.IO.IsStdoutTTY() {
		reply, err := chat.Stream(ctx, p, req, io.Discard)
		if err != nil {
			return err
		}
		if strings.TrimSpace(reply.Text) == "" {
			return errNoCommand
		}
		return writeCode(f, codeOnly(reply.Text))
	}
	for {
		reply, err := chat.StreamTo(ctx, p, req, show())
		if err != nil {
			return err
		}
		cmds := commandsOf(reply.Text)
		if len(cmds) == 0 {
			return errNoCommand
		}
		command := cmds[0]
		if len(cmds) > 1 {
			if command, err = pickCommand(f, cmds); err != nil || command == "" {
				return quitOnEOF(err)
			}
		}
		revision, err := commandMenu(ctx, f, p, req, command, show)
		if err != nil || revision == "" {
			return quitOnEOF(err)
		}
		req.Messages = append(req.Messages,
			provider.TextMessage(provider.RoleAssistant, command),
			provider.TextMessage(provider.RoleUser, revision))
	}
}

// commandMenu shows command and the menu until the user decides: it runs
// the command (and returns its exit), returns a revision of the request to
// send, or returns "" to quit.
func commandMenu(ctx context.Context, f *Factory, p chat.Chatter, req *provider.ChatRequest, command string, show func() chat.Display) (string, error) {
	refused := refusal(command)
	menu := "[e]xecute  [r]evise  [d]escribe  [c]opy  [q]uit: "
	if refused != "" {
		menu = "[r]evise  [d]escribe  [q]uit: "
	}
	for {
		fmt.Fprintln(f.IO.ErrOut, commandView(command))
		if refused != "" {
			fmt.Fprintln(f.IO.ErrOut, refused)
		}
		choice, err := ask(f, menu)
		if err != nil {
			return "", err
		}
		switch strings.ToLower(strings.TrimSpace(choice)) {
		case "e", "execute":
			if refused == "" {
				return "", runShellCommand(ctx, f, command)
			}
		case "r", "revise":
			revision, err := ask(f, "Revise: ")
			if err != nil || strings.TrimSpace(revision) != "" {
				return revision, err
			}
		case "d", "describe":
			if err := describeCommand(ctx, f, p, req, command, show); err != nil {
				return "", err
			}
		case "c", "copy":
			if refused == "" {
				// OSC 52 asks the terminal itself to set the clipboard,
				// which works over SSH too.
				fmt.Fprintf(f.IO.ErrOut, "\x1b]52;c;%s\x07Copied.\n", base64.StdEncoding.EncodeToString([]byte(command)))
			}
		case "q", "quit", "":
			return "", nil
		}
	}
}

// quitOnEOF treats the end of the input as quitting.
func quitOnEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// commandsOf returns the commands of a reply: each non-empty fenced code
// block, or the whole reply when it has none, trimmed, with CRLF line
// ends made LF (a carriage return right before a newline hides nothing).
func commandsOf(reply string) []string {
	blocks := codeBlocks(reply)
	if len(blocks) == 0 {
		blocks = []string{reply}
	}
	var cmds []string
	for _, b := range blocks {
		if b = strings.TrimSpace(strings.ReplaceAll(b, "\r\n", "\n")); b != "" {
			cmds = append(cmds, b)
		}
	}
	return cmds
}

// pickCommand asks which of several commands to go on with; "" when the
// user quits.
func pickCommand(f *Factory, cmds []string) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "The reply has %d commands:\n", len(cmds))
	for i, c := range cmds {
		first, _, multi := strings.Cut(c, "\n")
		if !visibleText(first) {
			first = strconv.Quote(first)
		}
		fmt.Fprintf(&b, "  %d) %s", i+1, first)
		if multi {
			fmt.Fprintf(&b, "  (%d lines)", strings.Count(c, "\n")+1)
		}
		b.WriteByte('\n')
	}
	fmt.Fprint(f.IO.ErrOut, b.String())
	for {
		answer, err := ask(f, fmt.Sprintf("Which one? [1-%d, q to quit]: ", len(cmds)))
		if err != nil {
			return "", err
		}
		answer = strings.ToLower(strings.TrimSpace(answer))
		if answer == "" || answer == "q" || answer == "quit" {
			return "", nil
		}
		if n, err := strconv.Atoi(answer); err == nil && n >= 1 && n <= len(cmds) {
			return cmds[n-1], nil
		}
	}
}

// commandView is how the menu shows the command it would run: as written
// when every character of it is visible, else as a quoted Go string in
// which a tab, a control, a zero-width, a text-direction or any other
// invisible character is an escape that cannot be mistaken for text.
func commandView(command string) string {
	if !visibleText(command) {
		return "Command (quoted: it has invisible characters): " + strconv.Quote(command)
	}
	if !strings.Contains(command, "\n") {
		return "Command: " + command
	}
	return "Command:\n  " + strings.ReplaceAll(command, "\n", "\n  ")
}

// visibleText reports whether every character of s shows as itself:
// printable (letters, marks, numbers, punctuation, symbols, the ASCII
// space) or a newline.
func visibleText(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r != '\n' && !strconv.IsPrint(r) {
			return false
		}
	}
	return true
}

// refusal is why command must not be run or copied, in one line, or "":
// a control character other than newline and tab (a carriage return or
// an escape sequence can hide what precedes it), or a text-direction
// character (it reorders what is shown), makes what the terminal shows
// differ from what the shell would run.
func refusal(command string) string {
	var found []string
	seen := map[rune]bool{}
	for _, r := range command {
		if termtext.Hidden(r) && !seen[r] {
			seen[r] = true
			found = append(found, termtext.EscapeRune(r))
		}
	}
	if len(found) == 0 {
		return ""
	}
	return "Not run: the command has characters that change what a terminal shows (" + strings.Join(found, " ") +
		"), so what you would see is not what would run."
}

// writeCode prints code for a program to read (-c and -e without a
// terminal): as the model wrote it, except that CRLF line ends become LF
// and every other control character (newline and tab aside) and
// text-direction character is written as a visible escape, with a
// warning, so that the output shown on a terminal (or pasted into a shell
// by the shell integration) is what it holds.
func writeCode(f *Factory, code string) error {
	safe, n := termtext.Escape(strings.ReplaceAll(code, "\r\n", "\n"))
	if n > 0 {
		fmt.Fprintf(f.IO.ErrOut, "warning: the code had %d control or text-direction characters; each is written as a visible escape such as \\x1b\n", n)
	}
	_, err := fmt.Fprintln(f.IO.Out, safe)
	return err
}

// describeCommand streams the explain-shell role's explanation of command.
func describeCommand(ctx context.Context, f *Factory, p chat.Chatter, orig *provider.ChatRequest, command string, show func() chat.Display) error {
	paths, err := f.Paths()
	if err != nil {
		return err
	}
	r, _, err := role.Load(role.ExplainShell, paths.RolesDir, assets.Roles())
	if err != nil {
		return err
	}
	req := *orig
	req.Messages = r.Messages(command)
	_, err = chat.StreamTo(ctx, p, &req, show())
	return err
}

// runShellCommand runs command with the user's shell and the terminal.
func runShellCommand(ctx context.Context, f *Factory, command string) error {
	shell := f.Env("SHELL")
	if shell == "" {
		shell = "sh"
	}
	c := exec.CommandContext(ctx, shell, "-c", command)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, f.IO.Out, f.IO.ErrOut
	err := c.Run()
	saveShellHistory(f, shell, command)
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		return &ExitCodeError{Code: exitErr.ExitCode()}
	}
	return err
}

// saveShellHistory appends the command -e ran to the history file of the
// shell that ran it (bash, zsh, fish), when save_shell_history is on, so
// the shell's up arrow brings it back. A history that cannot be written
// is a warning: the command has run.
func saveShellHistory(f *Factory, shell, command string) {
	cfg, err := f.Config()
	if err != nil || !cfg.Bool("save_shell_history") {
		return
	}
	home := f.Env("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	name := shellhist.Shell(shell)
	if _, err := shellhist.Append(name, shellhist.File(name, f.Env, home), command, time.Now()); err != nil {
		fmt.Fprintf(f.IO.ErrOut, "warning: the command is not in your shell's history: %v\n", err)
	}
}

// ask shows a prompt on stderr and reads one line of input; io.EOF when
// the input ended.
func ask(f *Factory, prompt string) (string, error) {
	fmt.Fprint(f.IO.ErrOut, prompt)
	line, err := f.stdin().ReadString('\n')
	if err != nil && (!errors.Is(err, io.EOF) || line == "") {
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
}
