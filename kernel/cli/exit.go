package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/coyote-cli/coyote/kernel/redact"
	"github.com/coyote-cli/coyote/kernel/termtext"
)

// Exit codes.
const (
	ExitOK          = 0
	ExitError       = 1
	ExitUsage       = 2
	ExitInterrupted = 130
	// ExitHangUp is SIGHUP's, 128 + 1: the terminal closed.
	ExitHangUp = 129
)

// UsageError is a mistake on the command line.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Report prints err as one line on errOut (red when color is on) and
// returns the process exit code. It is the only place errors meet the user;
// the details are in the log.
func Report(err error, errOut io.Writer, color bool) int {
	if err == nil {
		return ExitOK
	}
	if errors.Is(err, context.Canceled) {
		return ExitInterrupted
	}
	var exit *ExitCodeError
	if errors.As(err, &exit) {
		return exit.Code
	}
	code := ExitError
	var usage *UsageError
	if errors.As(err, &usage) {
		code = ExitUsage
	}
	prefix := "Error:"
	if color {
		prefix = "\x1b[31mError:\x1b[0m"
	}
	// An error may quote a server's text: it is shown, never acted on.
	fmt.Fprintf(errOut, "%s %s\n", prefix, termtext.Strip(oneLine(redact.String(err.Error()))))
	if code == ExitUsage {
		fmt.Fprintln(errOut, "Run `coyote --help` for usage.")
	}
	return code
}

// oneLine folds a multi-line message onto one line.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.Join(strings.Fields(strings.NewReplacer("\r", " ", "\n", " ").Replace(s)), " ")
}
