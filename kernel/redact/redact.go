// Package redact keeps the secret values this process has read from the
// vault, and takes them out of text meant for people: the error line, the
// log, --info, .info and --dry-run show {{NAME}} where a secret was.
//
// Callers that show values they know to be templated show the template
// instead (config.Value.Template); this package is the net under them, for
// text that mixes a secret into something else (an error quoting a URL, a
// plugin's log line). It must not be used on what the user asked to see
// (--get-secret) nor on the model's answer.
package redact

import (
	"io"
	"sort"
	"strings"
	"sync"
)

// minLen is the shortest value redacted: a secret of a few characters
// would blank out ordinary words everywhere.
const minLen = 4

var (
	mu       sync.RWMutex
	names    = map[string]string{} // value → name
	replacer *strings.Replacer     // nil while there is nothing to redact
)

// Add records that value is the secret name, so that String replaces it.
func Add(name, value string) {
	if len(value) < minLen {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	if names[value] == name {
		return
	}
	names[value] = name
	// Longest values first, so a secret that contains another is replaced
	// whole.
	values := make([]string, 0, len(names))
	for v := range names {
		values = append(values, v)
	}
	sort.Slice(values, func(i, j int) bool { return len(values[i]) > len(values[j]) })
	pairs := make([]string, 0, 2*len(values))
	for _, v := range values {
		pairs = append(pairs, v, "{{"+names[v]+"}}")
	}
	replacer = strings.NewReplacer(pairs...)
}

// String returns s with every recorded secret replaced by its {{NAME}}.
func String(s string) string {
	mu.RLock()
	r := replacer
	mu.RUnlock()
	if r == nil {
		return s
	}
	return r.Replace(s)
}

// Writer returns a writer that redacts what is written to w. Each Write is
// redacted on its own, so it suits writers that get whole lines or
// messages at a time (a logger, a table printed at once).
func Writer(w io.Writer) io.Writer { return writer{w} }

type writer struct{ w io.Writer }

func (w writer) Write(p []byte) (int, error) {
	mu.RLock()
	r := replacer
	mu.RUnlock()
	if r == nil {
		return w.w.Write(p)
	}
	if _, err := io.WriteString(w.w, r.Replace(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// reset forgets every secret (for tests).
func reset() {
	mu.Lock()
	defer mu.Unlock()
	names = map[string]string{}
	replacer = nil
}
