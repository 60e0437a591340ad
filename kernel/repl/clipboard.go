package repl

import (
	"encoding/base64"
	"io"
	"os/exec"
	"strings"

	"github.com/coyote-cli/coyote/kernel/config"
)

// copyToClipboard puts text on the clipboard: through wl-copy, xclip,
// xsel or pbcopy when one is installed, else with the OSC 52 terminal
// sequence, which most terminals (and tmux, and ssh sessions) honour.
func copyToClipboard(out io.Writer, env config.Env, text string) error {
	tools := [][]string{{"pbcopy"}, {"xclip", "-selection", "clipboard"}, {"xsel", "--clipboard", "--input"}}
	if env("WAYLAND_DISPLAY") != "" {
		tools = append([][]string{{"wl-copy"}}, tools...)
	}
	for _, t := range tools {
		if t[0] != "pbcopy" && t[0] != "wl-copy" && env("DISPLAY") == "" {
			continue
		}
		if path, err := exec.LookPath(t[0]); err == nil {
			cmd := exec.Command(path, t[1:]...)
			cmd.Stdin = strings.NewReader(text)
			if cmd.Run() == nil {
				return nil
			}
		}
	}
	_, err := io.WriteString(out, osc52(text))
	return err
}

// osc52 is the terminal sequence that sets the clipboard to text.
func osc52(text string) string {
	return "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(text)) + "\x07"
}
