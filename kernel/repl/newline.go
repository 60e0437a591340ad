package repl

import (
	"strings"
	"unicode/utf8"

	"github.com/chzyer/readline"
)

// Ctrl+J (and Ctrl+Enter, in the terminals that send it as Ctrl+J) ends
// the input line without sending it: the input goes on on a ".. " line,
// and Enter sends all of it.
//
// The line editor reads in raw mode, where Enter is a carriage return and
// Ctrl+J a line feed. Between two lines (while a reply streams) the
// terminal is in cooked mode, and turns an Enter typed then into a line
// feed too. So the bytes already waiting when a line starts are typed
// ahead: a line feed among them is an Enter.

// readLine reads one input line, noting how many bytes were typed ahead.
func (r *REPL) readLine(def string) (string, error) {
	r.newlineNext = false
	r.typedAhead, r.knowsAhead = pendingInput(r.o.IO.In)
	return r.rl.ReadlineWithDefault(def)
}

// filterNewline is filterKey's part for Ctrl+J: a line feed typed ahead
// is Enter; one typed at the line is "go on on the next line".
func (r *REPL) filterNewline(key rune) rune {
	if !r.knowsAhead {
		return key // where typed-ahead bytes cannot be told, Ctrl+J stays Enter
	}
	if r.typedAhead > 0 {
		r.typedAhead -= utf8.RuneLen(key)
		if key == readline.CharCtrlJ {
			return readline.CharEnter
		}
		return key
	}
	if key == readline.CharCtrlJ {
		r.newlineNext = true
		return readline.CharEnter
	}
	return key
}

// readContinued gathers the lines that Ctrl+J continued, from first to
// the line ended by Enter.
func (r *REPL) readContinued(first string) (string, error) {
	lines := []string{first}
	r.rl.SetPrompt(".. ")
	r.drawn = drawnPrompt{} // no right prompt on continuation lines
	for r.newlineNext {
		l, err := r.readLine("")
		if err != nil {
			return "", err
		}
		lines = append(lines, l)
	}
	text := strings.Join(lines, "\n")
	_ = r.rl.SaveHistory(":::" + text + ":::")
	return text, nil
}
