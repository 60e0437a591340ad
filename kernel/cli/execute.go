package cli

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/coyote-cli/coyote/assets"
	"github.com/coyote-cli/coyote/kernel/chat"
	"github.com/coyote-cli/coyote/kernel/role"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// ExitCodeError ends coyote with a given exit code and no message (the
// command coyote ran already said what happened).
type ExitCodeError struct{ Code int }

func (e *ExitCodeError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// runExecute carries out -e: the model writes a shell command for the
// request; without a terminal the command alone is printed, in a terminal
// the user can execute, revise, have it described, copy it, or quit.
func runExecute(ctx context.Context, f *Factory, p chat.Chatter, req *provider.ChatRequest) error {
	interactive := f.IO.IsStdinTTY() && f.IO.IsStdoutTTY()
	for {
		var out io.Writer = io.Discard
		if interactive {
			out = f.IO.Out
		}
		reply, err := chat.Stream(ctx, p, req, out)
		if err != nil {
			return err
		}
		command := codeOnly(reply.Text)
		if !interactive {
			_, err := fmt.Fprintln(f.IO.Out, command)
			return err
		}
		for {
			choice, err := ask(f, "[e]xecute  [r]evise  [d]escribe  [c]opy  [q]uit: ")
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			switch strings.ToLower(strings.TrimSpace(choice)) {
			case "e", "execute":
				return runShellCommand(ctx, f, command)
			case "r", "revise":
				revision, err := ask(f, "Revise: ")
				if err != nil {
					return err
				}
				req.Messages = append(req.Messages,
					provider.TextMessage(provider.RoleAssistant, command),
					provider.TextMessage(provider.RoleUser, revision))
			case "d", "describe":
				if err := describeCommand(ctx, f, p, req, command); err != nil {
					return err
				}
				continue
			case "c", "copy":
				// OSC 52 asks the terminal itself to set the clipboard,
				// which works over SSH too.
				fmt.Fprintf(f.IO.ErrOut, "\x1b]52;c;%s\x07Copied.\n", base64.StdEncoding.EncodeToString([]byte(command)))
				continue
			case "q", "quit", "":
				return nil
			default:
				continue
			}
			break // revise: ask the model again
		}
	}
}

// describeCommand streams the explain-shell role's explanation of command.
func describeCommand(ctx context.Context, f *Factory, p chat.Chatter, orig *provider.ChatRequest, command string) error {
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
	_, err = chat.Stream(ctx, p, &req, f.IO.Out)
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
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		return &ExitCodeError{Code: exitErr.ExitCode()}
	}
	return err
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
