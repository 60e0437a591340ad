package main

// The REPL measurements: coyote with no arguments in a pseudo-terminal, as
// a user starts it. The prompt is found in what the terminal receives; with
// NO_COLOR set it is drawn without escape sequences inside it.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/creack/pty"

	"github.com/coyote-cli/coyote/internal/fakellm"
)

// replPrompt ends the REPL's prompt outside a session.
const replPrompt = ")> "

// replWait bounds every wait for the REPL: a run that takes longer has
// hung, and the bench stops.
const replWait = 10 * time.Second

// replTerm is coyote's REPL running in a pseudo-terminal, with what it has
// drawn so far.
type replTerm struct {
	cmd  *exec.Cmd
	ptmx *os.File

	mu     sync.Mutex
	out    []byte        // everything drawn, as is
	grew   chan struct{} // closed (and replaced) when out grows or ends
	closed bool          // the terminal has no writer left
	read   chan struct{} // closed when the copying goroutine ends
}

// startREPL starts coyote (with args, usually none) in a 40×120 terminal and
// waits for its first prompt.
func startREPL(coyote string, env []string, args ...string) (*replTerm, error) {
	return startREPLIn(coyote, env, "", args...)
}

// startREPLIn is startREPL in the directory dir ("" for the bench's own).
func startREPLIn(coyote string, env []string, dir string, args ...string) (*replTerm, error) {
	c := exec.Command(coyote, args...)
	c.Dir = dir
	c.Env = append(append([]string{}, env...), "TERM=xterm", "NO_COLOR=1")
	ptmx, err := pty.StartWithSize(c, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		return nil, fmt.Errorf("start coyote in a pty: %w", err)
	}
	t := &replTerm{cmd: c, ptmx: ptmx, grew: make(chan struct{}), read: make(chan struct{})}
	go t.copy()
	if _, err := t.waitFor(replPrompt, 0); err != nil {
		t.stop()
		return nil, err
	}
	return t, nil
}

// copy reads the terminal until coyote has gone.
func (t *replTerm) copy() {
	defer close(t.read)
	buf := make([]byte, 64<<10)
	for {
		n, err := t.ptmx.Read(buf)
		t.mu.Lock()
		t.out = append(t.out, buf[:n]...)
		t.closed = err != nil
		close(t.grew)
		t.grew = make(chan struct{})
		t.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// drawn is how many bytes coyote has drawn so far.
func (t *replTerm) drawn() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.out)
}

// waitFor waits until s is drawn after offset from and returns the offset
// just past it.
func (t *replTerm) waitFor(s string, from int) (int, error) {
	deadline := time.NewTimer(replWait)
	defer deadline.Stop()
	for {
		t.mu.Lock()
		if i := bytes.Index(t.out[from:], []byte(s)); i >= 0 {
			t.mu.Unlock()
			return from + i + len(s), nil
		}
		grew, closed := t.grew, t.closed
		tail := string(t.out[max(from, len(t.out)-300):])
		t.mu.Unlock()
		if closed {
			return 0, fmt.Errorf("the REPL ended before drawing %q; it drew: %q", s, tail)
		}
		select {
		case <-grew:
		case <-deadline.C:
			return 0, fmt.Errorf("the REPL did not draw %q within %v; it drew: %q", s, replWait, tail)
		}
	}
}

// send types keys on the REPL's terminal.
func (t *replTerm) send(keys string) error {
	_, err := t.ptmx.WriteString(keys)
	return err
}

// stop kills coyote and releases the terminal.
func (t *replTerm) stop() {
	_ = t.cmd.Process.Kill()
	_ = t.cmd.Wait()
	select {
	case <-t.read:
	case <-time.After(time.Second):
	}
	_ = t.ptmx.Close()
}

// replStart starts the REPL and returns how long it took to draw its
// prompt.
func replStart(coyote string, env []string) (time.Duration, error) {
	start := time.Now()
	t, err := startREPL(coyote, env)
	if err != nil {
		return 0, err
	}
	d := time.Since(start)
	t.stop()
	return d, nil
}

// replStartsNoPlugin checks that the REPL starts no process (no plugin)
// before the user sends a first prompt: none when the prompt is drawn,
// and none a moment later.
func replStartsNoPlugin(coyote string, env []string) error {
	t, err := startREPL(coyote, env)
	if err != nil {
		return err
	}
	defer t.stop()
	pid := t.cmd.Process.Pid
	if kids := childProcesses(pid); len(kids) > 0 {
		return fmt.Errorf("at the first prompt coyote runs %s", strings.Join(kids, ", "))
	}
	// Nothing signals a process started in the background, so look again
	// after a moment that any eager start would have used.
	time.Sleep(200 * time.Millisecond)
	if kids := childProcesses(pid); len(kids) > 0 {
		return fmt.Errorf("200 ms after the first prompt coyote runs %s", strings.Join(kids, ", "))
	}
	return nil
}

// childProcesses lists the children of pid as "pid (name)".
func childProcesses(pid int) []string {
	var out []string
	for _, child := range childPIDs(pid) {
		out = append(out, fmt.Sprintf("%d (%s)", child, procName(child)))
	}
	return out
}

// replTurns starts a REPL, has one prompt answered (which starts the
// plugin) and then times runs more turns: from typing a line to the
// prompt drawn after the whole reply. The reply's first word (want) marks
// where the reply starts, so that readline's redraws of the typed line are
// not taken for the next prompt.
func replTurns(coyote string, env []string, runs int, want string) (time.Duration, error) {
	t, err := startREPL(coyote, env)
	if err != nil {
		return 0, err
	}
	defer t.stop()
	var failed error
	turn := func() time.Duration {
		if failed != nil {
			return 0
		}
		from := t.drawn()
		start := time.Now()
		if failed = t.send("hi\r"); failed != nil {
			return 0
		}
		at, err := t.waitFor(want, from)
		if err == nil {
			_, err = t.waitFor(replPrompt, at)
		}
		took := time.Since(start)
		failed = err
		return took
	}
	turn() // the warm-up: the plugin starts
	d := median(runs, turn)
	if failed != nil {
		return 0, errors.Join(errors.New("a REPL turn failed"), failed)
	}
	return d, nil
}

// warmHTTP returns the median time of a streamed chat request made by a
// Go HTTP client whose connection is already open: the floor of a turn,
// with neither a process start nor a new connection in it (which curl's
// time includes).
func warmHTTP(runs int, url, body string) (time.Duration, error) {
	client := &http.Client{Timeout: replWait}
	var failed error
	once := func() time.Duration {
		start := time.Now()
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		if err != nil {
			failed = err
			return 0
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer sk-bench")
		resp, err := client.Do(req)
		if err != nil {
			failed = err
			return 0
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err == nil && resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("%s: %s", url, resp.Status)
		}
		if err != nil {
			failed = err
		}
		return time.Since(start)
	}
	d := median(runs, once)
	return d, failed
}

// replCancel times Ctrl+C during a streamed reply: from the key to the
// moment the server sees its request cancelled. It serves its own slow
// fake (a word every 10 ms, for 20 s) and points a config of its own at
// it, in dir.
func replCancel(coyote string, env []string, dir string, runs int) (time.Duration, error) {
	cancelled := make(chan time.Time, 4)
	fake := (&fakellm.OpenAI{Respond: func(*fakellm.ChatRequest) fakellm.Reply {
		return fakellm.Reply{Text: strings.Repeat("word ", 2000), Delay: 10 * time.Millisecond}
	}}).Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		stop := context.AfterFunc(r.Context(), func() {
			select {
			case cancelled <- time.Now():
			default:
			}
		})
		fake.ServeHTTP(w, r)
		stop()
	}))
	defer srv.Close()

	configDir := filepath.Join(dir, "config-cancel")
	if err := os.MkdirAll(configDir, 0o755); err != nil {
		return 0, err
	}
	cfg := fmt.Sprintf("model: slow:gpt-4o-mini\nclients:\n  - type: openai-compatible\n    name: slow\n    api_base: %s/v1\n    api_key: sk-bench\n    models: [{name: gpt-4o-mini}]\n", srv.URL)
	if err := os.WriteFile(filepath.Join(configDir, "config.yaml"), []byte(cfg), 0o600); err != nil {
		return 0, err
	}
	env = append(append([]string{}, env...), "COYOTE_CONFIG_DIR="+configDir) // the last one wins

	t, err := startREPL(coyote, env)
	if err != nil {
		return 0, err
	}
	defer t.stop()
	var failed error
	once := func() time.Duration {
		if failed != nil {
			return 0
		}
		from := t.drawn()
		if failed = t.send("hi\r"); failed != nil {
			return 0
		}
		at, err := t.waitFor("word", from)
		if err != nil {
			failed = err
			return 0
		}
		for len(cancelled) > 0 {
			<-cancelled
		}
		pressed := time.Now()
		if failed = t.send("\x03"); failed != nil {
			return 0
		}
		var took time.Duration
		select {
		case seen := <-cancelled:
			took = seen.Sub(pressed)
		case <-time.After(replWait):
			failed = fmt.Errorf("the server did not see the request cancelled within %v of Ctrl+C", replWait)
			return 0
		}
		_, failed = t.waitFor(replPrompt, at)
		return took
	}
	d := median(runs, once)
	if failed != nil {
		return 0, errors.Join(errors.New("Ctrl+C in the REPL"), failed)
	}
	return d, nil
}
