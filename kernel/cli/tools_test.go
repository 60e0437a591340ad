package cli

import (
	"strings"
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

func TestAutoConfirmNoteNamesTheUsersOwnAutoConfirm(t *testing.T) {
	tests := []struct {
		name   string
		env    string   // AUTO_CONFIRM in the environment
		pass   []string // tool_env_passthrough
		skip   bool     // --dangerously-skip-permissions
		warned bool
	}{
		{"nothing", "", []string{"GITHUB_*"}, false, false},
		{"in the environment", "1", nil, false, true},
		{"in tool_env_passthrough", "", []string{"PATH", " AUTO_CONFIRM "}, false, true},
		{"with the flag", "1", []string{"AUTO_CONFIRM"}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			io, _, _, _ := iostreams.Test()
			f := &Factory{IO: io, Env: func(k string) string {
				if k == "AUTO_CONFIRM" {
					return tt.env
				}
				return ""
			}}
			var notes []string
			autoConfirmNote(f, tt.pass, tt.skip, func(msg string) { notes = append(notes, msg) })
			if warned := len(notes) == 1 && strings.HasPrefix(notes[0], "AUTO_CONFIRM from the environment is ignored"); warned != tt.warned || len(notes) > 1 {
				t.Fatalf("notes %q, want a note: %v", notes, tt.warned)
			}
		})
	}
}
