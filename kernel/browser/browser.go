// Package browser opens a URL in the user's web browser, for OAuth
// flows. It is best effort: where no browser can be started, the caller
// has printed the URL for the user to open by hand.
package browser

import (
	"os"
	"os/exec"
	"runtime"
)

// Open starts the system's URL opener on url without waiting for it. It
// reports whether one was started. $BROWSER, when set, is used first.
// Nothing is opened when there is no display on Linux and BSD (an ssh
// session, say): the printed URL is the way there.
func Open(url string) bool {
	var cmds [][]string
	if b := os.Getenv("BROWSER"); b != "" {
		cmds = append(cmds, []string{b, url})
	}
	switch runtime.GOOS {
	case "darwin":
		cmds = append(cmds, []string{"open", url})
	case "windows":
		cmds = append(cmds, []string{"rundll32", "url.dll,FileProtocolHandler", url})
	default:
		if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" && os.Getenv("BROWSER") == "" {
			return false
		}
		cmds = append(cmds, []string{"xdg-open", url})
	}
	for _, c := range cmds {
		if _, err := exec.LookPath(c[0]); err != nil {
			continue
		}
		cmd := exec.Command(c[0], c[1:]...)
		if cmd.Start() == nil {
			go func() { _ = cmd.Wait() }()
			return true
		}
	}
	return false
}
