package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/kernel/buildinfo"
	"github.com/coyote-cli/coyote/kernel/iostreams"
)

func TestReportIsOneLineAndPicksTheExitCode(t *testing.T) {
	tests := []struct {
		name  string
		err   error
		color bool
		code  int
		out   string
	}{
		{"success", nil, false, 0, ""},
		{"interrupted", fmt.Errorf("chat: %w", context.Canceled), false, 130, ""},
		{"error", errors.New("plugin x crashed"), false, 1, "Error: plugin x crashed\n"},
		{"multi-line error", errors.New("upstream said:\n  bad\r\n  things"), false, 1, "Error: upstream said: bad things\n"},
		{"color", errors.New("boom"), true, 1, "\x1b[31mError:\x1b[0m boom\n"},
		{"usage", &UsageError{Err: errors.New("unknown flag: --x")}, false, 2, "Error: unknown flag: --x\nRun `coyote --help` for usage.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			if code := Report(tt.err, &out, tt.color); code != tt.code {
				t.Fatalf("code %d, want %d", code, tt.code)
			}
			if out.String() != tt.out {
				t.Fatalf("printed %q, want %q", out.String(), tt.out)
			}
		})
	}
}

func TestRootCommandParsesPromptsLikeTheOriginal(t *testing.T) {
	tests := []struct {
		args  []string
		model string
		text  []string
	}{
		{[]string{"hello", "world"}, "", []string{"hello", "world"}},
		{[]string{"-m", "openai:gpt-4.1", "hi"}, "openai:gpt-4.1", []string{"hi"}},
		{[]string{"what", "does", "ls", "-la", "do"}, "", []string{"what", "does", "ls", "-la", "do"}},
		{[]string{"help", "me", "write", "a", "regex"}, "", []string{"help", "me", "write", "a", "regex"}},
		{[]string{"plugins", "for", "vim?"}, "", []string{"plugins", "for", "vim?"}},
		// After the word "plugins", leading flags are still coyote's (a
		// cobra subcommand parses them); later ones are text.
		{[]string{"-m", "x", "plugins", "-S", "now", "-m"}, "x", []string{"plugins", "now", "-m"}},
		{[]string{"completion", "of", "a", "task"}, "", []string{"completion", "of", "a", "task"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.args), func(t *testing.T) {
			io, _, _, _ := iostreams.Test()
			var got *rootOptions
			cmd := NewRootCmd(&Factory{IO: io}, func(_ context.Context, o *rootOptions) error {
				got = o
				return nil
			})
			cmd.SetArgs(tt.args)
			if err := cmd.Execute(); err != nil {
				t.Fatal(err)
			}
			if got == nil || got.Model != tt.model || !reflect.DeepEqual(got.Text, tt.text) {
				t.Fatalf("options = %+v", got)
			}
		})
	}
}

func TestVersionAndBadFlags(t *testing.T) {
	io, _, out, _ := iostreams.Test()
	cmd := NewRootCmd(&Factory{IO: io}, nil)
	cmd.SetArgs([]string{"--version"})
	if err := cmd.Execute(); err != nil || out.String() != "coyote "+buildinfo.String()+"\n" || !strings.HasPrefix(out.String(), "coyote 0.") {
		t.Fatalf("--version: %q, %v", out.String(), err)
	}
	cmd = NewRootCmd(&Factory{IO: io}, nil)
	cmd.SetArgs([]string{"--no-such-flag"})
	var usage *UsageError
	if err := cmd.Execute(); !errors.As(err, &usage) {
		t.Fatalf("err = %v, want a usage error", err)
	}
}

func TestOptionalSessionValue(t *testing.T) {
	tests := []struct{ in, out []string }{
		{[]string{"-s", "work", "hi"}, []string{"--session=work", "hi"}},
		{[]string{"-s", "-m", "x", "hi"}, []string{"-s", "-m", "x", "hi"}},
		{[]string{"-m", "a:b", "-s", "work", "hi"}, []string{"-m", "a:b", "--session=work", "hi"}},
		{[]string{"-s"}, []string{"-s"}},
		{[]string{"hi", "-s", "x"}, []string{"hi", "-s", "x"}},
		{[]string{"--session", "a/b", "-r", "shell", "q"}, []string{"--session=a/b", "-r", "shell", "q"}},
		// Which flags take a value comes from the flags themselves.
		{[]string{"--auth-mcp", "web", "-s", "work"}, []string{"--auth-mcp", "web", "--session=work"}},
		{[]string{"--scope", "user", "--mcp-force", "-s", "w", "hi"}, []string{"--scope", "user", "--mcp-force", "--session=w", "hi"}},
		{[]string{"--no-stream", "-s", "w", "hi"}, []string{"--no-stream", "--session=w", "hi"}},
		// --authenticate's client is optional too.
		{[]string{"--authenticate", "claude"}, []string{"--authenticate=claude"}},
		{[]string{"--authenticate"}, []string{"--authenticate"}},
	}
	io, _, _, _ := iostreams.Test()
	flags := NewRootCmd(&Factory{IO: io}, nil).LocalFlags()
	for _, tt := range tests {
		got, joined := joinOptionalValues(flags, tt.in)
		if !reflect.DeepEqual(got, tt.out) {
			t.Errorf("joinOptionalValues(%q) = %q, want %q", tt.in, got, tt.out)
		}
		if want := slices.ContainsFunc(tt.out, func(a string) bool { return strings.HasPrefix(a, "--session=") }); joined != want {
			t.Errorf("joinOptionalValues(%q) joined = %v, want %v", tt.in, joined, want)
		}
	}
}

// An error line may quote a server's text: it is one line, and it cannot
// act on the terminal.
func TestReportShowsAServersTextWithoutControls(t *testing.T) {
	var b bytes.Buffer
	code := Report(errors.New("500: \x1b]0;owned\x07bad\r\x1b[2Kgateway\nsecond line"), &b, false)
	if code != ExitError || strings.ContainsAny(b.String(), "\x1b\x07\r") || strings.Count(b.String(), "\n") != 1 {
		t.Fatalf("exit %d, line %q", code, b.String())
	}
}
