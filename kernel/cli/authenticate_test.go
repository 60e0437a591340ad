package cli

import (
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/iostreams"
)

// TestChooseOAuthClient: which client --authenticate logs in, by name, the
// only one, or the user's pick in a terminal (by number or name; q quits).
func TestChooseOAuthClient(t *testing.T) {
	oauth := map[string]any{"auth": "oauth"}
	cfg := &config.Config{Clients: []config.Client{
		{Name: "keyed", Type: "openai"},
		{Name: "chatgpt", Type: "openai", Options: oauth},
		{Name: "claude", Type: "claude", Options: oauth},
	}}
	for _, tc := range []struct {
		name, arg, input string
		tty              bool
		want, err        string
	}{
		{name: "named", arg: "claude", want: "claude"},
		{name: "pick by number", arg: authPick, tty: true, input: "2\n", want: "claude"},
		{name: "pick by name after a bad answer", arg: authPick, tty: true, input: "9\nchatgpt\n", want: "chatgpt"},
		{name: "quit", arg: authPick, tty: true, input: "q\n", want: ""},
		{name: "no terminal", arg: authPick, err: "several clients log in with OAuth (chatgpt, claude): name one"},
		{name: "not oauth", arg: "keyed", err: `client "keyed" does not log in with OAuth`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			io, in, _, errOut := iostreams.Test()
			io.SetTTY(tc.tty, tc.tty, tc.tty)
			in.WriteString(tc.input)
			c, err := chooseOAuthClient(&Factory{IO: io}, cfg, tc.arg)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			got := ""
			if c != nil {
				got = c.Name
			}
			if err != nil || got != tc.want {
				t.Fatalf("chose %q, %v; want %q", got, err, tc.want)
			}
			if tc.tty && !strings.Contains(errOut.String(), "  1) chatgpt (openai)\n  2) claude (claude)\n") {
				t.Errorf("the choice shown:\n%s", errOut.String())
			}
		})
	}
	only := &config.Config{Clients: []config.Client{{Name: "keyed", Type: "openai"}, {Name: "claude", Type: "claude", Options: oauth}}}
	if c, err := chooseOAuthClient(&Factory{IO: &iostreams.IOStreams{}}, only, authPick); err != nil || c.Name != "claude" {
		t.Fatalf("the only OAuth client: %v, %v", c, err)
	}
}
