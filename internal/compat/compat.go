// Package compat finds the original's configuration corpus
// (../shared/compat/coyote-0.8.3 beside the repository) for the tests that
// check Coyote reads the original's files.
//
// The corpus is not part of the repository: a clone elsewhere has no
// ../shared. Tests then skip with one line saying so, except under CI
// (the CI variable set), where a missing corpus fails the test, so CI never
// stops checking compatibility without anyone noticing.
package compat

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// version is the original's release the corpus was taken from.
const version = "coyote-0.8.3"

// root is the corpus directory, found from this file's location so that a
// test in any package gets the same answer.
func root() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return ""
	}
	// internal/compat/compat.go → <repo>/../shared/compat/<version>
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "compat", version)
}

// Dir returns the corpus directory, or skips t (fails it under CI) when
// the corpus is absent.
func Dir(t testing.TB) string {
	t.Helper()
	return Path(t, "")
}

// Path returns the path of a file of the corpus, skipping t (failing it
// under CI) when that file is absent.
func Path(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(root(), filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		missing(t, p)
	}
	return p
}

// ReadFile reads a file of the corpus, skipping t (failing it under CI)
// when it is absent.
func ReadFile(t testing.TB, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(Path(t, rel))
	if err != nil {
		t.Fatalf("read the compat corpus: %v", err)
	}
	return data
}

func missing(t testing.TB, p string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("the original's config corpus is missing (%s); CI must run the compatibility tests", p)
	}
	t.Skipf("skipped: the original's config corpus (%s) is not beside this clone", filepath.Clean(p))
}
