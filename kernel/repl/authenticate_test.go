package repl

import (
	"context"
	"io"
	"strings"
	"testing"
)

// TestAuthenticateLogsInTheCurrentClient: .authenticate hands the current
// model's client to the login, only when that client uses auth: oauth.
func TestAuthenticateLogsInTheCurrentClient(t *testing.T) {
	r, _ := newTestREPL(t)
	var got []string
	r.o.Authenticate = func(_ context.Context, client string, _ io.Writer, readCode func(string) (string, error)) error {
		if readCode == nil {
			t.Error("no way to read a pasted code")
		}
		got = append(got, client)
		return nil
	}
	err := r.dispatch(context.Background(), ".authenticate")
	if err == nil || !strings.Contains(err.Error(), `client "fake" does not log in with OAuth: set `+"`auth: oauth`") {
		t.Fatalf("a client with a key: %v", err)
	}
	tg, err := r.conv.Target()
	if err != nil {
		t.Fatal(err)
	}
	tg.Client.Options["auth"] = "oauth"
	if err := r.dispatch(context.Background(), ".authenticate"); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != "fake" {
		t.Fatalf("logged in %q, want [fake]", got)
	}
	if err := r.dispatch(context.Background(), ".authenticate fake"); err == nil || !strings.HasPrefix(err.Error(), "usage: .authenticate") {
		t.Fatalf("with an argument: %v", err)
	}
}
