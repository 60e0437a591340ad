// Package redact hides known secret values in text before it leaves the
// process that knows them: an error message, a log line, a tool failure
// handed to a model. A Redactor is told each secret and what to show in
// its place; String and Error then replace every occurrence.
//
// It is the net under code that already avoids printing secrets, for text
// that mixes one into something else: an HTTP library's error quoting a
// URL with a key in its query, a server echoing a header. Secrets are
// matched as written and in the two forms a URL gives them (query- and
// path-escaped), longest first, so that a secret containing another is
// replaced whole.
//
//	var r redact.Redactor
//	r.Add(apiKey, "[redacted]")
//	return r.Error(err) // err's message without the key; errors.Is still matches
//
// The kernel keeps one process-wide Redactor of the vault secrets it
// resolved; the MCP bridge keeps one per server (its URL's userinfo and
// query, its headers); httpkit.Client one for its API key.
package redact

import (
	"errors"
	"io"
	"net/url"
	"sort"
	"strings"
	"sync"
)

// MinLen is the shortest secret replaced: a value of a few characters
// ("1", "on") cannot be told from ordinary text, and replacing it would
// garble words, ports and counts everywhere.
const MinLen = 4

// Redactor replaces recorded secrets in text. The zero value records
// none and is ready to use; a Redactor is safe for concurrent use.
type Redactor struct {
	mu       sync.RWMutex
	shown    map[string]string // a secret, or an escaped form of it → what replaces it
	replacer *strings.Replacer // nil while there is nothing to replace
}

// Add records that secret is to be shown as replacement, also in its
// query-escaped and path-escaped forms. A secret shorter than MinLen is
// ignored; a secret added again is shown as the latest replacement.
func (r *Redactor) Add(secret, replacement string) {
	if len(secret) < MinLen {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.shown == nil {
		r.shown = map[string]string{}
	}
	changed := false
	for _, form := range []string{secret, url.QueryEscape(secret), url.PathEscape(secret)} {
		if old, ok := r.shown[form]; !ok || old != replacement {
			r.shown[form] = replacement
			changed = true
		}
	}
	if !changed {
		return
	}
	// Longest first, so that a secret containing another is replaced
	// whole; ties in a fixed order.
	forms := make([]string, 0, len(r.shown))
	for f := range r.shown {
		forms = append(forms, f)
	}
	sort.Slice(forms, func(i, j int) bool {
		if len(forms[i]) != len(forms[j]) {
			return len(forms[i]) > len(forms[j])
		}
		return forms[i] < forms[j]
	})
	pairs := make([]string, 0, 2*len(forms))
	for _, f := range forms {
		pairs = append(pairs, f, r.shown[f])
	}
	r.replacer = strings.NewReplacer(pairs...)
}

func (r *Redactor) current() *strings.Replacer {
	if r == nil {
		return nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.replacer
}

// String returns s with every recorded secret replaced. A nil Redactor
// returns s as it is.
func (r *Redactor) String(s string) string {
	if rep := r.current(); rep != nil {
		return rep.Replace(s)
	}
	return s
}

// Error returns err with the secrets in its message replaced. The result
// matches (errors.Is) what err matched, such as an sdk sentinel or a
// context error, but does not unwrap to it, so that the message with the
// secret cannot be reached through it. An error with no secret in its
// message is returned as it is.
func (r *Redactor) Error(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if clean := r.String(msg); clean != msg {
		return &redactedError{msg: clean, orig: err}
	}
	return err
}

// Writer returns a writer that redacts what is written to w. Each Write is
// redacted on its own, so it suits writers that get whole lines or
// messages at a time (a logger, a table printed at once); a secret split
// between two writes is not found.
func (r *Redactor) Writer(w io.Writer) io.Writer { return writer{r, w} }

type writer struct {
	r *Redactor
	w io.Writer
}

func (w writer) Write(p []byte) (int, error) {
	rep := w.r.current()
	if rep == nil {
		return w.w.Write(p)
	}
	if _, err := io.WriteString(w.w, rep.Replace(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Reset forgets every secret.
func (r *Redactor) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.shown, r.replacer = nil, nil
}

// redactedError is an error whose message had secrets replaced.
type redactedError struct {
	msg  string
	orig error
}

func (e *redactedError) Error() string { return e.msg }

// Is matches what the original error matches.
func (e *redactedError) Is(target error) bool { return errors.Is(e.orig, target) }
