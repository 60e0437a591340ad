// Package gopassfake is a stand-in for the gopass command, for tests: a
// test binary run under the name gopass calls Main. It keeps entries as
// files in $GOPASS_FAKE_DIR/entries and appends each command line (its
// arguments joined by NUL) to $GOPASS_FAKE_DIR/argv.log, so a test can
// check that no value was ever on it.
package gopassfake

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Main runs the stand-in with the command's arguments and returns its
// exit code.
func Main(args []string) int {
	dir := os.Getenv("GOPASS_FAKE_DIR")
	if dir == "" {
		fmt.Fprintln(os.Stderr, "stand-in: GOPASS_FAKE_DIR is not set")
		return 2
	}
	log, _ := os.OpenFile(filepath.Join(dir, "argv.log"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	fmt.Fprintln(log, strings.Join(args, "\x00"))
	log.Close()
	entries := filepath.Join(dir, "entries")
	file := func(name string) string { return filepath.Join(entries, strings.ReplaceAll(name, "/", "%")) }
	switch {
	case len(args) == 2 && args[0] == "ls" && args[1] == "--flat":
		des, _ := os.ReadDir(entries)
		for _, de := range des {
			fmt.Println(strings.ReplaceAll(de.Name(), "%", "/"))
		}
	case len(args) == 3 && args[0] == "show" && args[1] == "-o":
		b, err := os.ReadFile(file(args[2]))
		if err != nil {
			fmt.Fprintf(os.Stderr, "Error: failed to retrieve secret %q: entry is not in the password store\n", args[2])
			return 11
		}
		first, _, _ := strings.Cut(string(b), "\n")
		fmt.Println(first)
	case len(args) == 3 && args[0] == "insert" && args[1] == "-f":
		b, _ := io.ReadAll(os.Stdin)
		_ = os.MkdirAll(entries, 0o700)
		if err := os.WriteFile(file(args[2]), b, 0o600); err != nil {
			return 1
		}
	case len(args) == 3 && args[0] == "rm" && args[1] == "-f":
		if os.Remove(file(args[2])) != nil {
			fmt.Fprintln(os.Stderr, "Error: entry does not exist")
			return 1
		}
	default:
		fmt.Fprintln(os.Stderr, "fake gopass: unexpected arguments", args)
		return 2
	}
	return 0
}
