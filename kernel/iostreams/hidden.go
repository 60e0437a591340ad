package iostreams

import (
	"fmt"
	"io"
	"os"

	"golang.org/x/term"
)

// ReadHidden prints prompt to w and reads one line from the terminal in
// without echoing it. Echo is turned off before the prompt appears, so
// nothing typed as soon as the prompt shows can reach the screen; the
// terminal's previous state is restored afterwards.
func ReadHidden(in *os.File, w io.Writer, prompt string) ([]byte, error) {
	fd := int(in.Fd())
	restore, err := echoOff(fd)
	if err != nil {
		return nil, fmt.Errorf("turn off echo: %w", err)
	}
	defer restore()
	fmt.Fprint(w, prompt)
	b, err := term.ReadPassword(fd)
	fmt.Fprintln(w)
	return b, err
}
