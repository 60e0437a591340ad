package logging

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
)

// TailOptions are how Tail shows the log.
type TailOptions struct {
	// Lines is how many of the last lines are shown first.
	Lines int
	// Color shows the level, the module and the time in colour.
	Color bool
	// Filter keeps the lines of some modules only (COYOTE_LOG_FILTER).
	Filter Filter
	// Level hides the entries below it (hclog.NoLevel: none hidden).
	Level hclog.Level
	// Poll is how often the file is looked at when nothing is new (0:
	// 200 ms).
	Poll time.Duration
}

// Tail shows the last lines of the log at path, then each line added to
// it, until ctx ends (coyote --tail-logs). It waits for a log that does
// not exist yet, and starts over when the log is rotated or truncated.
func Tail(ctx context.Context, path string, w io.Writer, o TailOptions) error {
	if o.Poll <= 0 {
		o.Poll = 200 * time.Millisecond
	}
	out := bufio.NewWriter(w)
	t := &tailer{o: o, w: out, keep: true}
	var (
		f      *os.File
		info   os.FileInfo
		offset int64
		first  = true
	)
	defer func() {
		if f != nil {
			f.Close()
		}
	}()
	tick := time.NewTicker(o.Poll)
	defer tick.Stop()
	buf := make([]byte, 64<<10)
	for {
		if f == nil {
			nf, err := os.Open(path)
			switch {
			case errors.Is(err, fs.ErrNotExist):
			case err != nil:
				return err
			default:
				f, info, offset = nf, nil, 0
				if st, err := f.Stat(); err == nil {
					info = st
					if first {
						offset = lastLinesOffset(f, st.Size(), o.Lines)
					}
				}
				first = false
			}
		}
		if f != nil {
			for {
				n, err := f.ReadAt(buf, offset)
				if n > 0 {
					offset += int64(n)
					t.feed(buf[:n])
				}
				if err != nil || n == 0 {
					break
				}
			}
			if err := out.Flush(); err != nil {
				return err
			}
			// Rotated (another file at path) or truncated: start over.
			if st, err := os.Stat(path); err != nil || !os.SameFile(st, info) || st.Size() < offset {
				f.Close()
				f = nil
				t.partial = nil
				if err == nil {
					continue
				}
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// lastLinesOffset is where the last n lines of f start.
func lastLinesOffset(f *os.File, size int64, n int) int64 {
	if n <= 0 {
		return size
	}
	const chunk = 64 << 10
	pos, lines := size, 0
	buf := make([]byte, chunk)
	for pos > 0 {
		start := max(pos-chunk, 0)
		k, err := f.ReadAt(buf[:pos-start], start)
		if err != nil && !errors.Is(err, io.EOF) {
			return size
		}
		b := buf[:k]
		for i := len(b) - 1; i >= 0; i-- {
			if b[i] == '\n' && start+int64(i) != size-1 {
				lines++
				if lines == n {
					return start + int64(i) + 1
				}
			}
		}
		pos = start
	}
	return 0
}

type tailer struct {
	o       TailOptions
	w       *bufio.Writer
	partial []byte
	keep    bool // the current entry is shown (its continuation lines follow it)
}

func (t *tailer) feed(p []byte) {
	p = append(t.partial, p...)
	for {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			break
		}
		t.line(p[:i])
		p = p[i+1:]
	}
	t.partial = append([]byte(nil), p...)
}

// line shows one line of the log.
func (t *tailer) line(l []byte) {
	level, module, msgAt := Fields(l)
	if level != "" {
		lv := hclog.LevelFromString(strings.ToLower(strings.TrimSpace(level)))
		t.keep = t.o.Filter.Keeps(l) && (t.o.Level == hclog.NoLevel || lv == hclog.NoLevel || lv >= t.o.Level)
	}
	if !t.keep {
		return
	}
	if !t.o.Color || level == "" {
		t.w.Write(l)
		t.w.WriteByte('\n')
		return
	}
	const reset, dim, bold = "\x1b[0m", "\x1b[2m", "\x1b[1m"
	color := map[string]string{"ERROR": "\x1b[31m", "WARN": "\x1b[33m", "INFO": "\x1b[32m", "DEBUG": "\x1b[36m", "TRACE": "\x1b[35m"}[strings.TrimSpace(level)]
	open := bytes.IndexByte(l, '[')
	t.w.WriteString(dim + string(bytes.TrimSpace(l[:open])) + reset + " ")
	t.w.WriteString(color + "[" + level + "]" + reset + " ")
	msg := l[msgAt:]
	if module != "" {
		t.w.WriteString(bold + module + reset)
		msg = msg[len(module):]
	}
	t.w.Write(msg)
	t.w.WriteByte('\n')
}
