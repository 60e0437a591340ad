// Package redact keeps the secret values this process has read from the
// vault, and takes them out of text that leaves the kernel other than as
// the user's own request: the error line, the log, --info, .info and
// --dry-run show {{NAME}} where a secret was, and so do the MCP bridge's
// errors and tool failures before they go to the model as tool results.
//
// Callers that show values they know to be templated show the template
// instead (config.Value.Template); this package is the net under them, for
// text that mixes a secret into something else (an error quoting a URL, a
// plugin's log line, a server echoing its arguments). It must not be used
// on what the user asked to see (--get-secret) nor on the model's answer.
//
// The matching is sdk/redact's (a Redactor, shared with the plugins); this
// package is the kernel's one process-wide instance of it.
package redact

import (
	"io"

	sdkredact "github.com/coyote-cli/coyote/sdk/redact"
)

// secrets is the process's redactor: every vault secret read, shown as
// its {{NAME}}.
var secrets sdkredact.Redactor

// Add records that value is the secret name, so that String replaces it
// with {{name}}, also in the forms a URL gives it (query and path
// escaped). A value shorter than sdk/redact.MinLen is not recorded: a
// secret of a few characters ("1", "on") is indistinguishable from
// ordinary text and would blank out words everywhere.
func Add(name, value string) { secrets.Add(value, "{{"+name+"}}") }

// String returns s with every recorded secret replaced by its {{NAME}}.
func String(s string) string { return secrets.String(s) }

// Error returns err with the secrets in its message replaced. The result
// matches (errors.Is) what err matched, but does not unwrap to it, so the
// message with the secret cannot be reached through it.
func Error(err error) error { return secrets.Error(err) }

// Writer returns a writer that redacts what is written to w. Each Write is
// redacted on its own, so it suits writers that get whole lines or
// messages at a time (a logger, a table printed at once).
func Writer(w io.Writer) io.Writer { return secrets.Writer(w) }

// Reset forgets every secret. Tests use it, so that one test's secrets do
// not change another's output.
func Reset() { secrets.Reset() }
