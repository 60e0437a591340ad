package script

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// askTool asks on /dev/tty the way guard_operation does.
const askTool = `# @describe Ask.
main() {
    if ! exec 3<>/dev/tty; then
        echo "no terminal" >&2
        exit 1
    fi
    printf 'Proceed? [y/N] ' >&3
    read -r ans <&3
    echo "answer=$ans"
}
`

// TestTerminalHelper is not a test: TestTerminalCalls runs the test binary
// with it in a pseudo-terminal (as its controlling terminal), where it
// runs askTool and prints the result.
func TestTerminalHelper(t *testing.T) {
	mode := os.Getenv("COYOTE_SCRIPT_TTY_HELPER")
	if mode == "" {
		t.Skip("helper process only")
	}
	dir := os.Getenv("COYOTE_SCRIPT_TTY_DIR")
	decls, err := Parse(filepath.Join(dir, "tools", "ask.sh"))
	if err != nil {
		fmt.Println("RESULT:", err)
		os.Exit(1)
	}
	r := &Runner{FunctionsDir: dir, Timeout: 20 * time.Second, Terminal: mode == "terminal",
		Env: []string{"PATH=" + os.Getenv("PATH")}}
	res := r.Run(context.Background(), decls[0], nil, nil)
	fmt.Printf("RESULT:%s\n", strings.TrimSpace(res.Text()))
	os.Exit(0)
}

// ptyOutput collects what a pseudo-terminal shows.
type ptyOutput struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
	done    chan struct{}
}

func (o *ptyOutput) copy(f *os.File) {
	defer close(o.done)
	b := make([]byte, 4096)
	for {
		n, err := f.Read(b)
		o.mu.Lock()
		o.buf.Write(b[:n])
		close(o.changed)
		o.changed = make(chan struct{})
		o.mu.Unlock()
		if err != nil {
			return // EIO once the helper has exited
		}
	}
}

// waitFor waits until the output contains s.
func (o *ptyOutput) waitFor(t *testing.T, s string, timeout time.Duration) {
	t.Helper()
	deadline := time.After(timeout)
	for {
		o.mu.Lock()
		has, ch := strings.Contains(o.buf.String(), s), o.changed
		o.mu.Unlock()
		if has {
			return
		}
		select {
		case <-ch:
		case <-o.done:
			t.Fatalf("output ended without %q: %q", s, o.String())
		case <-deadline:
			t.Fatalf("no %q after %s: %q", s, timeout, o.String())
		}
	}
}

func (o *ptyOutput) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// A Terminal call can ask on /dev/tty and read the answer; a call without
// Terminal finds no terminal and fails at once, instead of being stopped
// by SIGTTIN for reading the terminal from a background process group.
func TestTerminalCalls(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "tools"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tools", "ask.sh"), []byte(askTool), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"terminal", "detached"} {
		t.Run(mode, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestTerminalHelper$")
			cmd.Env = append(os.Environ(), "COYOTE_SCRIPT_TTY_HELPER="+mode, "COYOTE_SCRIPT_TTY_DIR="+dir)
			ptmx, err := pty.Start(cmd)
			if err != nil {
				t.Skipf("no pseudo-terminal: %v", err)
			}
			defer ptmx.Close()
			out := &ptyOutput{changed: make(chan struct{}), done: make(chan struct{})}
			go out.copy(ptmx)
			defer func() {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
			}()
			if mode == "terminal" {
				out.waitFor(t, "Proceed? [y/N]", 30*time.Second)
				if _, err := ptmx.Write([]byte("y\n")); err != nil {
					t.Fatal(err)
				}
				out.waitFor(t, "RESULT:answer=y", 30*time.Second)
				return
			}
			out.waitFor(t, "RESULT:", 30*time.Second)
			out.waitFor(t, `no terminal\n"}`, 5*time.Second)
			if strings.Contains(out.String(), "Proceed?") || strings.Contains(out.String(), "timed out") {
				t.Errorf("output %q", out.String())
			}
		})
	}
}
