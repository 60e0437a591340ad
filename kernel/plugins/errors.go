package plugins

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// CrashError reports a plugin process that died while the kernel was
// talking to it, or that stopped answering and was stopped. Either way the
// next call starts a new process.
type CrashError struct {
	Binary string
	// Exit says how it ended, e.g. "exit status 2".
	Exit string
	// Reason is the most telling line of its stderr, if any; for a plugin
	// that stopped answering, what the connection said.
	Reason string
	// Unanswered is set when the process was alive but its socket no
	// longer answered, so the host stopped it.
	Unanswered bool
}

func (e *CrashError) Error() string {
	if e.Unanswered {
		return fmt.Sprintf("plugin %s stopped answering on its socket (%s); it was stopped, and the next call starts it again", e.Binary, e.Reason)
	}
	msg := fmt.Sprintf("plugin %s crashed (%s)", e.Binary, e.Exit)
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	return msg
}

// StartError reports a plugin that could not be started or did not complete
// its handshake.
type StartError struct {
	Binary string
	Path   string
	Reason string
	Err    error
}

func (e *StartError) Error() string {
	return fmt.Sprintf("plugin %s failed to start: %s", e.Binary, e.Reason)
}

func (e *StartError) Unwrap() error { return e.Err }

// VersionError reports a plugin speaking a protocol version this kernel does
// not.
type VersionError struct {
	Binary        string
	PluginVersion int
	KernelVersion int
}

func (e *VersionError) Error() string {
	upgrade := "upgrade coyote"
	if e.PluginVersion < e.KernelVersion {
		upgrade = "upgrade the plugin"
	}
	return fmt.Sprintf("plugin %s speaks plugin protocol %d but this coyote speaks protocol %d: %s",
		e.Binary, e.PluginVersion, e.KernelVersion, upgrade)
}

// BackoffError reports a plugin that keeps failing and is rested for a while
// instead of being restarted in a loop.
type BackoffError struct {
	Binary   string
	Failures int
	Window   time.Duration
	RetryIn  time.Duration
	Last     error
}

func (e *BackoffError) Error() string {
	return fmt.Sprintf("plugin %s failed %d times in the last %s; not restarting it for another %s (last failure: %v)",
		e.Binary, e.Failures, e.Window.Round(time.Second), e.RetryIn.Round(100*time.Millisecond), e.Last)
}

func (e *BackoffError) Unwrap() error { return e.Last }

// versionMismatch matches go-plugin's protocol mismatch error. It is
// compiled on first use: nothing runs at start-up that a command may not
// need.
var versionMismatch = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`incompatible API version with plugin\. Plugin version: (\d+), Client versions: \[([\d ]+)\]`)
})

// classifyStartError turns go-plugin's start errors, which are plain
// strings, into one readable line. The e2e tests pin each case, so an
// upgrade of go-plugin that changes its wording is caught.
func classifyStartError(f Found, r *procRunner, t *tail, kernelVersion int, err error) error {
	msg := err.Error()
	if m := versionMismatch().FindStringSubmatch(msg); m != nil {
		var pv int
		fmt.Sscan(m[1], &pv)
		return &VersionError{Binary: f.Binary, PluginVersion: pv, KernelVersion: kernelVersion}
	}
	reason := firstLine(msg)
	const unrecognized = "Unrecognized remote plugin message: "
	line := firstLine(strings.TrimPrefix(msg, unrecognized))
	switch {
	case strings.HasPrefix(msg, unrecognized) && line != "":
		reason = fmt.Sprintf("it printed %q instead of the plugin handshake; is it a Coyote plugin?", truncate(line, 80))
	case strings.HasPrefix(msg, unrecognized), strings.Contains(msg, "exited before we could connect"):
		// Its output closed without a handshake line: almost always
		// because it exited. Wait (briefly) for the exit to say how.
		reason = "it closed its output before the handshake"
		if r != nil && waitExit(r, exitGrace) {
			reason = "it exited before the handshake (" + r.exitDescription() + ")"
		}
		if why := t.reason(); why != "" {
			reason += ": " + why
		}
	case strings.Contains(msg, "timeout while waiting for plugin to start"):
		// A backstop: the host's own timer fires first (launch.timeoutError).
		reason = "it never completed the handshake in time (plugin_start_timeout; raise it if the plugin is only slow)"
	case strings.Contains(msg, "incompatible core API version"):
		reason = "it was built with an incompatible go-plugin; rebuild it against the current Coyote SDK"
	}
	return &StartError{Binary: f.Binary, Path: f.Path, Reason: reason, Err: err}
}

func waitExit(r *procRunner, grace time.Duration) bool {
	select {
	case <-r.exited:
		return true
	case <-time.After(grace):
		return false
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return strings.TrimSpace(s)
}

// truncate shortens s to about n bytes without splitting a character.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
