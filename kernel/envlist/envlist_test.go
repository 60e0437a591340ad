package envlist

import (
	"runtime"
	"testing"
)

func TestBaseHoldsTheSharedListOnly(t *testing.T) {
	windows := runtime.GOOS == "windows"
	tests := []struct {
		name string
		has  bool
	}{
		{"PATH", true},
		{"TERM", true},
		{"TZ", true},
		{"LC_MESSAGES", true},
		{"NO_PROXY", true},
		{"REQUESTS_CA_BUNDLE", true},
		{"GIT_SSL_CAPATH", true},
		{"NODE_EXTRA_CA_CERTS", true},
		{"SystemRoot", true},
		// Names only Windows compares without case.
		{"Path", windows},
		{"ComSpec", windows},
		// Not the base: each side's own rules, or nobody's.
		{"HTTPS_PROXY", false},
		{"PWD", false},
		{"EDITOR", false},
		{"LC_TERMINAL", false},
		{"OPENAI_API_KEY", false},
		{"AUTO_CONFIRM", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := Base.Has(tt.name); got != tt.has {
			t.Errorf("Base.Has(%q) = %v, want %v", tt.name, got, tt.has)
		}
	}
}
