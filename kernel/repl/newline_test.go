package repl

import (
	"testing"

	"github.com/chzyer/readline"
	"github.com/coyote-cli/coyote/kernel/iostreams"
)

func TestFilterNewlineTellsTypedAheadEntersFromCtrlJ(t *testing.T) {
	tests := []struct {
		name       string
		knows      bool
		ahead      int
		keys       []rune
		want       []rune
		goesOn     bool
		aheadAfter int
	}{
		{"Ctrl+J at the line goes on", true, 0, []rune{'a', '\n'}, []rune{'a', readline.CharEnter}, true, 0},
		{"Enter at the line sends", true, 0, []rune{'a', '\r'}, []rune{'a', '\r'}, false, 0},
		{"a line feed typed ahead is Enter", true, 3, []rune{'h', 'i', '\n'}, []rune{'h', 'i', readline.CharEnter}, false, 0},
		{"after the typed-ahead bytes, Ctrl+J goes on", true, 2, []rune{'\n', 'x', '\n'}, []rune{readline.CharEnter, 'x', readline.CharEnter}, true, 0},
		{"multi-byte runes use their bytes", true, 3, []rune{'é', '\n'}, []rune{'é', readline.CharEnter}, false, 0},
		{"unknown count: Ctrl+J stays Enter", false, 0, []rune{'\n'}, []rune{'\n'}, false, 0},
		{"after Ctrl+O, a line feed read on in cooked mode is Enter", true, 0, []rune{15, '\n', 'a', '\n'},
			[]rune{readline.CharEnter, readline.CharEnter, 'a', readline.CharEnter}, true, 0},
		{"after Ctrl+O, Enter stops the stray read", true, 0, []rune{15, '\r', '\n'},
			[]rune{readline.CharEnter, '\r', readline.CharEnter}, true, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &REPL{knowsAhead: tc.knows, typedAhead: tc.ahead, o: Options{IO: &iostreams.IOStreams{}}}
			for i, k := range tc.keys {
				if got, _ := r.filterKey(k); got != tc.want[i] {
					t.Fatalf("key %d %q: got %q, want %q", i, k, got, tc.want[i])
				}
			}
			if r.newlineNext != tc.goesOn {
				t.Fatalf("goes on = %v, want %v", r.newlineNext, tc.goesOn)
			}
			if r.typedAhead != tc.aheadAfter {
				t.Fatalf("typed ahead left %d, want %d", r.typedAhead, tc.aheadAfter)
			}
		})
	}
}
