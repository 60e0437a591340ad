package cli

import (
	"slices"
	"testing"
)

func TestCompleteEnvAndWords(t *testing.T) {
	tests := []struct {
		complete string
		args     []string
		want     []string
	}{
		{"bash", nil, []string{"--completions", "bash"}},
		{"nushell", []string{}, []string{"--completions", "nushell"}},
		{"fish", []string{"--", "coyote", "--rag", ""}, []string{"__complete", "--rag", ""}},
		{"fish", []string{"--"}, []string{"__complete"}},
		// Not a shell, or a run with COMPLETE set for something else.
		{"yes", nil, nil},
		{"", []string{"hello"}, []string{"hello"}},
		{"zsh", []string{"hello"}, []string{"hello"}},
		// -s takes its value only as -s=VALUE.
		{"", []string{"__complete", "-s", "w"}, []string{"__complete", "--session=w"}},
		{"", []string{"__complete", "-m", "x", "--update", ""}, []string{"__complete", "-m", "x", "--update="}},
		{"", []string{"__complete", "-s", "--rag"}, []string{"__complete", "-s", "--rag"}},
		{"", []string{"__complete", "-m", "w"}, []string{"__complete", "-m", "w"}},
		{"", []string{"-s", "w"}, []string{"-s", "w"}},
	}
	for _, tt := range tests {
		got := completionWords(completeEnv(tt.complete, tt.args))
		if !slices.Equal(got, tt.want) {
			t.Errorf("COMPLETE=%q %q: %q, want %q", tt.complete, tt.args, got, tt.want)
		}
	}
}
