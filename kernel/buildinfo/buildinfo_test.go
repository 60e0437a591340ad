package buildinfo

import (
	"regexp"
	"testing"
)

func TestStringNamesTheReleaseAndTheCommit(t *testing.T) {
	if !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(Version) {
		t.Fatalf("Version = %q, want MAJOR.MINOR.PATCH", Version)
	}
	saved := Commit
	defer func() { Commit = saved }()
	Commit = "64f9416"
	commitOnce = commitOnceFresh()
	if got := String(); got != Version+" (64f9416)" {
		t.Fatalf("String() = %q", got)
	}
}
