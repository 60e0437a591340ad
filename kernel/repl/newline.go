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
// Ctrl+J a line feed. Between two lines (while a reply streams, or while
// the REPL finishes a turn) the terminal is in cooked mode, and its ICRNL
// turns an Enter typed then into a line feed as the byte arrives. So the
// bytes already waiting when raw mode begins were typed in cooked mode:
// a line feed among them is an Enter. They are counted right after the
// switch to raw mode (enterRaw), never before it: a byte that arrives
// between a count and the switch would be a converted Enter left
// uncounted. A byte arriving between the switch and the count is counted
// as typed ahead, which can only turn a Ctrl+J into an Enter.

// rawTerm switches the terminal in and out of raw mode for the line
// editor, counting the bytes typed ahead on the way in.
type rawTerm struct {
	fd    int
	saved *readline.State
	r     *REPL
}

// enter is readline's FuncMakeRaw.
func (t *rawTerm) enter() error {
	r := t.r
	r.knowsAhead = false
	st, err := readline.MakeRaw(t.fd)
	if err != nil {
		return err
	}
	t.saved = st
	n, ok := pendingInput(t.fd)
	r.knowsAhead = ok
	// Bytes counted at the last line and not yet read stay typed ahead:
	// they come first.
	r.typedAhead = max(r.typedAhead, 0) + n
	return nil
}

// exit is readline's FuncExitRaw.
func (t *rawTerm) exit() error {
	if t.saved == nil {
		return nil
	}
	st := t.saved
	t.saved = nil
	return readline.Restore(t.fd, st)
}

// filterNewline is filterKey's part for Ctrl+J: a line feed typed ahead
// is Enter; one typed at the line is "go on on the next line".
//
// readline's reader goroutine stops reading only after a key that ends a
// line for it (Enter, Ctrl+J, Ctrl+C, Ctrl+D). A line ended by a key this
// filter turns into Enter (Ctrl+O) leaves it reading on into cooked mode,
// where an Enter arrives as a line feed that no count sees: until that
// reader stops, a line feed is Enter (strayRead).
func (r *REPL) filterNewline(key rune) rune {
	if r.strayRead {
		switch key {
		case readline.CharEnter, readline.CharCtrlJ, readline.CharInterrupt, readline.CharDelete:
			r.strayRead = false
		}
		if r.typedAhead > 0 {
			r.typedAhead -= max(utf8.RuneLen(key), 1)
		}
		if key == readline.CharCtrlJ {
			return readline.CharEnter
		}
		return key
	}
	if !r.knowsAhead {
		return key // where typed-ahead bytes cannot be told, Ctrl+J stays Enter
	}
	if r.typedAhead > 0 {
		// A rune of several bytes (an escape sequence arrives as one key)
		// counts as one byte here: the count errs on the side of Enter.
		r.typedAhead -= max(utf8.RuneLen(key), 1)
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

// readLine reads one input line.
func (r *REPL) readLine(def string) (string, error) {
	r.newlineNext = false
	return r.rl.ReadlineWithDefault(def)
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
