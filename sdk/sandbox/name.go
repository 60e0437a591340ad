package sandbox

import (
	"path/filepath"
	"strconv"
	"strings"
)

// SanitizeName turns s (a directory's base name, or what the user typed)
// into an environment name every backend accepts: lower-case letters,
// digits and single hyphens, no hyphen at either end, at most 63
// characters. It returns "" when nothing is left.
func SanitizeName(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		default:
			dash = true
		}
	}
	out := b.String()
	if len(out) > 63 {
		out = strings.TrimRight(out[:63], "-")
	}
	return out
}

// RunDir is the directory of one kernel's run-time files (its credential
// proxy's socket) under a state directory. The kernel makes it; the
// launcher plugin removes it when it exits, which it does when the kernel
// has gone however it ended (SIGKILL included), so nothing is left behind.
func RunDir(stateDir string, kernelPID int) string {
	return filepath.Join(stateDir, "run", strconv.Itoa(kernelPID))
}
