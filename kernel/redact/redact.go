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
package redact

import (
	"errors"
	"io"
	"net/url"
	"sort"
	"strings"
	"sync"
)

// minLen is the shortest value redacted: a secret of a few characters
// ("1", "on") is indistinguishable from ordinary text and would blank out
// words everywhere.
const minLen = 4

var (
	mu       sync.RWMutex
	names    = map[string]string{} // value (or an escaped form of it) → name
	replacer *strings.Replacer     // nil while there is nothing to redact
)

// Add records that value is the secret name, so that String replaces it,
// also in the forms a URL gives it (query and path escaped).
func Add(name, value string) {
	if len(value) < minLen {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	changed := false
	for _, form := range []string{value, url.QueryEscape(value), url.PathEscape(value)} {
		if names[form] != name {
			names[form] = name
			changed = true
		}
	}
	if !changed {
		return
	}
	// Longest values first, so a secret that contains another is replaced
	// whole; ties in a fixed order.
	values := make([]string, 0, len(names))
	for v := range names {
		values = append(values, v)
	}
	sort.Slice(values, func(i, j int) bool {
		if len(values[i]) != len(values[j]) {
			return len(values[i]) > len(values[j])
		}
		return values[i] < values[j]
	})
	pairs := make([]string, 0, 2*len(values))
	for _, v := range values {
		pairs = append(pairs, v, "{{"+names[v]+"}}")
	}
	replacer = strings.NewReplacer(pairs...)
}

func current() *strings.Replacer {
	mu.RLock()
	defer mu.RUnlock()
	return replacer
}

// String returns s with every recorded secret replaced by its {{NAME}}.
func String(s string) string {
	if r := current(); r != nil {
		return r.Replace(s)
	}
	return s
}

// Error returns err with the secrets in its message replaced. The result
// matches (errors.Is) what err matched, but does not unwrap to it, so the
// message with the secret cannot be reached through it.
func Error(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if clean := String(msg); clean != msg {
		return &redacted{msg: clean, orig: err}
	}
	return err
}

// redacted is an error whose message had secrets replaced.
type redacted struct {
	msg  string
	orig error
}

func (e *redacted) Error() string { return e.msg }

// Is matches what the original error matches (SDK sentinels, context
// errors).
func (e *redacted) Is(target error) bool { return errors.Is(e.orig, target) }

// Writer returns a writer that redacts what is written to w. Each Write is
// redacted on its own, so it suits writers that get whole lines or
// messages at a time (a logger, a table printed at once).
func Writer(w io.Writer) io.Writer { return writer{w} }

type writer struct{ w io.Writer }

func (w writer) Write(p []byte) (int, error) {
	r := current()
	if r == nil {
		return w.w.Write(p)
	}
	if _, err := io.WriteString(w.w, r.Replace(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Reset forgets every secret. Tests use it, so that one test's secrets do
// not change another's output.
func Reset() {
	mu.Lock()
	defer mu.Unlock()
	names = map[string]string{}
	replacer = nil
}
