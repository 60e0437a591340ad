// Package buildinfo holds the version stamped into the coyote binary at
// build time (make build sets it with -ldflags -X).
package buildinfo

// Version of coyote; "dev" for builds that were not stamped.
var Version = "dev"
