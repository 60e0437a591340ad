package cli

import (
	"testing"

	"github.com/coyote-cli/coyote/kernel/iostreams"
)

func TestShownToolCallsCannotActOnTheTerminal(t *testing.T) {
	io, _, out, _ := iostreams.Test()
	io.SetTTY(false, true, false)
	f := &Factory{IO: io, Env: func(k string) string {
		if k == "NO_COLOR" {
			return "1"
		}
		return ""
	}}
	_, show := toolsFor(f, nil, false)
	show("fs_read\x1b[2K", "{\"path\":\"a\x1b]0;title\x07\rb\u009b\"}")
	if got, want := out.String(), "Call fs_read[2K {\"path\":\"a]0;titleb\"}\n"; got != want {
		t.Fatalf("shown %q, want %q", got, want)
	}
}
