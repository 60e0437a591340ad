package sdk

import (
	"bytes"
	"strings"
	"sync/atomic"
	"testing"
)

type fakeKind struct{ Plugin }

func (fakeKind) Kind() string { return KindProvider }

func TestRunByHandExplainsTheBinary(t *testing.T) {
	info := Info{Name: "echo", Version: "1.2.3"}
	var out, errOut bytes.Buffer
	if code := runByHand(info, []Plugin{fakeKind{}}, []string{"/x/coyote-provider-echo"}, &out, &errOut); code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	msg := errOut.String()
	for _, want := range []string{"coyote-provider-echo is a Coyote plugin (echo 1.2.3, protocol 1)", "coyote plugins"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if out.Len() != 0 {
		t.Fatalf("wrote to stdout: %q", out.String())
	}

	out.Reset()
	if code := runByHand(info, []Plugin{fakeKind{}}, []string{"coyote-provider-echo", "--version"}, &out, &errOut); code != 0 {
		t.Fatalf("--version exit %d", code)
	}
	if want := "echo 1.2.3 (coyote provider plugin, protocol 1, sdk " + Version + ")\n"; out.String() != want {
		t.Fatalf("--version printed %q, want %q", out.String(), want)
	}
}

func TestExitHooksRunOnceLastFirst(t *testing.T) {
	var order []int
	var h hooks
	h.add(func() { order = append(order, 1) })
	h.add(func() { order = append(order, 2) })
	h.run()
	h.run()
	if len(order) != 2 || order[0] != 2 || order[1] != 1 {
		t.Fatalf("hooks ran %v, want [2 1]", order)
	}
}

// The lifeline's end and the kernel's death signal come together: the
// second caller of run must wait for the hooks the first runs,
// or it would exit the process in the middle of them.
func TestExitHooksRunOnceAndASecondCallerWaits(t *testing.T) {
	release, started := make(chan struct{}), make(chan struct{})
	var runs atomic.Int32
	var h hooks
	h.add(func() {
		runs.Add(1)
		close(started)
		<-release
	})
	go h.run()
	<-started
	second := make(chan struct{})
	go func() { h.run(); close(second) }()
	select {
	case <-second:
		t.Fatal("the second caller returned while the hooks were running")
	default:
	}
	close(release)
	<-second
	if n := runs.Load(); n != 1 {
		t.Fatalf("the hooks ran %d times", n)
	}
}
