// Package mcptest finds the real MCP servers from npm that tests and
// benchmarks run (npm/package.json, installed by
// scripts/install-test-deps.sh), and gives the commands that start them
// over stdio.
package mcptest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// Packages of npm/package.json and their entry scripts.
const (
	Everything = "@modelcontextprotocol/server-everything"
	Filesystem = "@modelcontextprotocol/server-filesystem"
)

var entries = map[string]string{
	Everything: "dist/index.js",
	Filesystem: "dist/index.js",
}

// Dir is the npm directory: internal/mcptest/npm of the repository,
// found from this file's source path, or from the working directory when
// the build trimmed paths.
func Dir() (string, error) {
	if _, file, _, ok := runtime.Caller(0); ok {
		dir := filepath.Join(filepath.Dir(file), "npm")
		if _, err := os.Stat(dir); err == nil {
			return dir, nil
		}
	}
	dir, err := filepath.Abs(filepath.Join("internal", "mcptest", "npm"))
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(dir); err != nil {
		return "", errors.New("mcptest: cannot find internal/mcptest/npm; run from the repository's root")
	}
	return dir, nil
}

// Command returns the command that runs an npm MCP server over stdio
// (node and the package's entry script), or an error naming what is
// missing and how to install it.
func Command(pkg string) (string, []string, error) {
	entry, ok := entries[pkg]
	if !ok {
		return "", nil, fmt.Errorf("mcptest: unknown package %q", pkg)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return "", nil, errors.New("node is not installed: install Node.js, then run scripts/install-test-deps.sh")
	}
	dir, err := Dir()
	if err != nil {
		return "", nil, err
	}
	script := filepath.Join(dir, "node_modules", filepath.FromSlash(pkg), filepath.FromSlash(entry))
	if _, err := os.Stat(script); err != nil {
		return "", nil, fmt.Errorf("%s is not installed in %s: run scripts/install-test-deps.sh", pkg, dir)
	}
	return node, []string{script}, nil
}

// TB is the part of testing.TB that Server uses.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
}

// Server is Command for tests: a missing server fails the test (it never
// skips), with the message saying how to install it.
func Server(t TB, pkg string) (string, []string) {
	t.Helper()
	cmd, args, err := Command(pkg)
	if err != nil {
		t.Fatalf("%v", err)
	}
	return cmd, args
}
