// Package buildinfo holds Coyote's version and the commit it was built
// from, for --version, --info and bug reports.
package buildinfo

import (
	"runtime/debug"
	"sync"
)

// Version is Coyote's release version, changed by hand at each release.
// A variable so that a build can stamp another (-ldflags -X), as the
// --update end-to-end test does to make a "newer" release.
var Version = "0.9.0"

// Commit is the commit the binary was built from, stamped by make
// (-ldflags -X); empty for a plain `go build`, which falls back to the
// revision the Go toolchain records.
var Commit = ""

var commitOnce = commitOnceFresh()

// commitOnceFresh reads the commit once, on first use: the build
// information is not needed at start-up.
func commitOnceFresh() func() string { return sync.OnceValue(commit) }

func commit() string {
	if Commit != "" {
		return Commit
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var rev string
	var dirty bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if len(rev) > 7 {
		rev = rev[:7]
	}
	if rev != "" && dirty {
		rev += "-dirty"
	}
	return rev
}

// String is the version as a user reports it: "0.9.0 (64f9416)", or
// "0.9.0" when the commit is unknown.
func String() string {
	if c := commitOnce(); c != "" {
		return Version + " (" + c + ")"
	}
	return Version
}
