package repl

import "encoding/base64"

// osc52 is the terminal sequence that sets the clipboard to text.
func osc52(text string) string {
	return "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(text)) + "\x07"
}
