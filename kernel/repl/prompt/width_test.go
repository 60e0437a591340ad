package prompt

import (
	"testing"
)

func TestWidth(t *testing.T) {
	tests := []struct {
		name, in string
		want     int
	}{
		{"empty", "", 0},
		{"ascii", "openai:gpt-4o)> ", 16},
		{"colours excluded", "\x1b[31mred\x1b[0m ", 4},
		{"256-colour and truecolour", "\x1b[38;5;208ma\x1b[38;2;1;2;3mb", 2},
		{"OSC hyperlink ended by ST", "\x1b]8;;https://x.y\x1b\\link\x1b]8;;\x1b\\", 4},
		{"OSC ended by BEL", "\x1b]0;title\x07ab", 2},
		{"unterminated OSC", "ab\x1b]0;title", 2},
		{"unterminated CSI", "ab\x1b[31", 2},
		{"two-byte escape", "\x1b7ab\x1b8", 2},
		{"lone ESC at end", "ab\x1b", 2},
		{"control characters", "a\tb\r\x00\x7f", 2},
		{"latin accents", "café", 4},
		{"combining mark", "cafe\u0301", 4},
		{"CJK", "日本語", 6},
		{"hangul", "한국어", 6},
		{"full-width", "ＡＢ", 4},
		{"ideographic space", "\u3000", 2},
		{"half-width katakana", "ｶﾀｶﾅ", 4},
		{"emoji", "🦊>", 3},
		{"zero-width joiner", "a\u200db", 2},
		{"variation selector", "\u2764\ufe0f", 1},
		{"box drawing", "─│", 2},
		{"invalid UTF-8", "\xff\xfe", 2},
		{"C1 control", "a\u0085b", 2},
		{"prompt with colours and CJK", "\x1b[31mopenai:gpt-4o)\x1b[32m会话\x1b[36m)\x1b[0m ", 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Width(tt.in); got != tt.want {
				t.Errorf("Width(%q) = %d, want %d", tt.in, got, tt.want)
			}
		})
	}
}
