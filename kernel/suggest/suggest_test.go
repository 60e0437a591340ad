package suggest

import "testing"

func TestClosest(t *testing.T) {
	types := []string{"claude", "gemini", "openai", "openai-compatible"}
	tests := []struct{ word, want string }{
		{"opneai", "openai"},
		{"openia", "openai"},
		{"claud", "claude"},
		{"gemeni", "gemini"},
		{"openai-compatable", "openai-compatible"},
		{"openai-compat", "openai-compatible"},
		{"bedrock", ""},
		{"x", ""},
		{"openai", ""}, // itself is not a suggestion
	}
	for _, tt := range tests {
		if got := Closest(tt.word, types); got != tt.want {
			t.Errorf("Closest(%q) = %q, want %q", tt.word, got, tt.want)
		}
	}
}
