package repl

import (
	"context"
	"strings"
	"testing"
)

// TestInfoAndClearTodo: .info todo shows the conversation's list (the
// session's when one is active); .clear todo empties it, and refuses
// while auto_continue is off.
func TestInfoAndClearTodo(t *testing.T) {
	r, io := newTestREPL(t)
	out := io.Out.(interface{ String() string })
	ctx := context.Background()
	mustHandle(t, r, ".info todo")
	if !strings.Contains(out.String(), "no todos") {
		t.Fatalf("output %q", out.String())
	}
	list := r.conv.Todos()
	list.Init("tidy up")
	list.Add("sweep")
	mustHandle(t, r, ".info todo")
	if !strings.Contains(out.String(), "Goal: tidy up\nProgress: 0/1 completed\n○ 1. sweep\n") {
		t.Fatalf("output %q", out.String())
	}
	if err := r.Handle(ctx, ".clear todo"); err == nil || !strings.Contains(err.Error(), "auto_continue is off") {
		t.Fatalf(".clear todo with auto_continue off: %v", err)
	}
	if list.Empty() {
		t.Fatal("the refused .clear todo cleared the list")
	}
	mustHandle(t, r, ".set auto_continue true")
	mustHandle(t, r, ".clear todo")
	if !list.Empty() {
		t.Fatal(".clear todo left the list")
	}
	if err := r.Handle(ctx, ".clear messages"); err == nil || !strings.Contains(err.Error(), ".empty session") {
		t.Fatalf(".clear messages: %v", err)
	}
	// In a session, the session's list.
	mustHandle(t, r, ".session work")
	r.conv.Session.Todos().Add("in the session")
	mustHandle(t, r, ".info todo")
	if !strings.HasSuffix(out.String(), "Progress: 0/1 completed\n○ 1. in the session\n") {
		t.Fatalf("output %q", out.String())
	}
}
