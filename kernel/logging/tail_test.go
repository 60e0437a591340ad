package logging

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
)

func TestFilterKeepsTheModulesNamed(t *testing.T) {
	for _, tc := range []struct {
		filter, line string
		keep         bool
	}{
		{"", "2026-01-02T15:04:05.000Z [INFO]  coyote: started", true},
		{"openai", "2026-01-02T15:04:05.000Z [DEBUG] coyote.coyote-provider-openai: request: n=1", true},
		{"openai", "2026-01-02T15:04:05.000Z [INFO]  coyote.acp: request: method=initialize", false},
		{"acp, mcp", "2026-01-02T15:04:05.000Z [INFO]  coyote.acp: request", true},
		{"ACP", "2026-01-02T15:04:05.000Z [INFO]  coyote.acp: request", true},
		{"acp", "  a continuation line", false},
	} {
		if got := ParseFilter(tc.filter).Keeps([]byte(tc.line)); got != tc.keep {
			t.Errorf("filter %q, line %q: keep %v, want %v", tc.filter, tc.line, got, tc.keep)
		}
	}
}

func TestLoggerWritesOnlyTheFilteredModules(t *testing.T) {
	var buf bytes.Buffer
	l, err := NewTo("", &buf, "debug", "provider")
	if err != nil {
		t.Fatal(err)
	}
	l.Info("kernel line")
	l.Named("coyote-provider-openai").Info("plugin line", "k", "v")
	out := buf.String()
	if strings.Contains(out, "kernel line") || !strings.Contains(out, "coyote.coyote-provider-openai: plugin line: k=v") {
		t.Fatalf("log %q", out)
	}
}

// syncBuffer is a bytes.Buffer Tail writes while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
	ch chan struct{}
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := s.b.Write(p)
	select {
	case s.ch <- struct{}{}:
	default:
	}
	return n, err
}

func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// waitFor waits until the output holds want, each write waking it.
func (s *syncBuffer) waitFor(t *testing.T, want string) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for !strings.Contains(s.String(), want) {
		select {
		case <-s.ch:
		case <-timeout:
			t.Fatalf("output %q never held %q", s.String(), want)
		}
	}
}

func TestTailShowsTheLastLinesThenFollowsThroughRotation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "coyote.log")
	var old strings.Builder
	for i := 0; i < 10; i++ {
		old.WriteString("2026-01-02T15:04:05.000Z [INFO]  coyote: old " + string(rune('a'+i)) + "\n")
	}
	old.WriteString("2026-01-02T15:04:05.000Z [DEBUG] coyote: quiet\n")
	if err := os.WriteFile(path, []byte(old.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	out := &syncBuffer{ch: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Tail(ctx, path, out, TailOptions{Lines: 3, Color: true, Level: hclog.Info, Poll: time.Millisecond})
	}()
	out.waitFor(t, "old j")
	if s := out.String(); strings.Contains(s, "old h") || !strings.Contains(s, "old i") || strings.Contains(s, "quiet") {
		t.Fatalf("first lines %q: want the last 3, the debug one hidden", s)
	}
	if !strings.Contains(out.String(), "\x1b[32m[INFO]\x1b[0m") {
		t.Fatalf("no colour: %q", out.String())
	}
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("2026-01-02T15:04:06.000Z [ERROR] coyote.acp: appended\n")
	f.Close()
	out.waitFor(t, "appended")
	// Rotation: the file is renamed and a new one starts.
	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("2026-01-02T15:04:07.000Z [WARN]  coyote: after rotation\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out.waitFor(t, "after rotation")
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
