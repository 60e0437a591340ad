// Package logging owns the kernel log: one file in the cache directory,
// opened only when the first line is written (most runs write none at the
// default level) and rotated when it grows past a size limit. Plugins'
// stderr reaches it through the plugin host.
package logging

import (
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/hashicorp/go-hclog"

	"github.com/coyote-cli/coyote/kernel/redact"
	"github.com/coyote-cli/coyote/sdk/fsx"
)

// Rotation limits: the log is rotated at maxSize into coyote.log.1 …
// coyote.log.<keep>.
const (
	maxSize = 10 << 20
	keep    = 5
)

// New returns a logger writing to path at level ("trace", "debug", "info",
// "warn", "error", "off"; empty means info). An unknown level is an error.
func New(path, level string) (hclog.Logger, error) { return NewTo(path, nil, level, "") }

// NewTo is New with a filter (COYOTE_LOG_FILTER: only the lines of the
// modules it names are kept, see Filter) and, when path is "", the log
// written to w instead of a file (the ACP server's stderr).
func NewTo(path string, w io.Writer, level, filter string) (hclog.Logger, error) {
	lvl := hclog.Info
	if level != "" {
		lvl = hclog.LevelFromString(level)
		if lvl == hclog.NoLevel {
			return nil, fmt.Errorf("unknown log level %q (use trace, debug, info, warn, error or off)", level)
		}
	}
	out := io.Writer(&lazyFile{path: path})
	if path == "" {
		out = &lockedWriter{w: w}
	}
	if f := ParseFilter(filter); f != nil {
		out = filterWriter{w: out, f: f}
	}
	return hclog.New(&hclog.LoggerOptions{
		Name:  "coyote",
		Level: lvl,
		// Secrets read from the vault never reach the file, whoever logs
		// them (a plugin's stderr line, an error quoting a URL).
		Output:          redact.Writer(out),
		IncludeLocation: false,
	}), nil
}

// lazyFile opens (and rotates) its file on the first write.
type lazyFile struct {
	path string
	once sync.Once
	mu   sync.Mutex
	f    *os.File
	err  error
}

func (l *lazyFile) Write(p []byte) (int, error) {
	l.once.Do(l.open)
	if l.err != nil {
		return len(p), nil // logging must never break the program
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.f.Write(p)
}

func (l *lazyFile) open() {
	if st, err := os.Stat(l.path); err == nil && st.Size() > maxSize {
		rotate(l.path)
	}
	// 0600 in a 0700 folder, an older open log included: logs may quote
	// prompts.
	l.f, l.err = fsx.OpenPrivateAppend(l.path)
}

// rotate shifts path.N to path.N+1 and path to path.1, dropping the oldest.
func rotate(path string) {
	for i := keep - 1; i >= 1; i-- {
		_ = os.Rename(fmt.Sprintf("%s.%d", path, i), fmt.Sprintf("%s.%d", path, i+1))
	}
	_ = os.Rename(path, path+".1")
}

// lockedWriter serialises the lines written to a shared stream.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.w.Write(p); err != nil {
		return len(p), nil // logging must never break the program
	}
	return len(p), nil
}
