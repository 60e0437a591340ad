// Package archtest checks rules of the code's shape that the compiler does
// not: which packages may depend on which.
package archtest

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/coyote-cli/coyote"

// repoRoot is the repository's root directory, found from this file.
func repoRoot(t *testing.T) string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot find the repository")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// deps lists, for each package matched by pattern, its import path and
// every package it depends on (what its binary links, tests excluded).
func deps(t *testing.T, pattern string) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Deps \" \"}}", pattern)
	cmd.Dir = repoRoot(t)
	out, err := cmd.Output()
	if err != nil {
		msg := err.Error()
		if ee, ok := err.(*exec.ExitError); ok {
			msg += ": " + string(ee.Stderr)
		}
		t.Fatalf("go list %s: %s", pattern, msg)
	}
	m := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) > 0 {
			m[f[0]] = f[1:]
		}
	}
	return m
}

// TestPluginsDependOnTheSDKNotTheKernel: a plugin is written against the
// public SDK alone, as a third party's is; none links the kernel, so the
// kernel's packages can change without breaking a plugin, and a plugin
// binary does not carry the kernel's code. (Tests may drive a built
// plugin through the kernel's host; only what the binaries link counts.)
func TestPluginsDependOnTheSDKNotTheKernel(t *testing.T) {
	pkgs := deps(t, "./plugins/...")
	if len(pkgs) == 0 {
		t.Fatal("go list found no plugin packages")
	}
	var bad []string
	for pkg, ds := range pkgs {
		for _, d := range ds {
			if d == module+"/kernel" || strings.HasPrefix(d, module+"/kernel/") {
				bad = append(bad, strings.TrimPrefix(pkg, module+"/")+" depends on "+strings.TrimPrefix(d, module+"/"))
			}
		}
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		t.Errorf("plugins must import only the SDK (github.com/coyote-cli/coyote/sdk/...), never the kernel; move what they share into a public SDK package:\n  %s", strings.Join(bad, "\n  "))
	}
}

// TestGuardSeesAKernelDependency keeps the guard honest: the same check
// over a package known to link the kernel finds it.
func TestGuardSeesAKernelDependency(t *testing.T) {
	pkgs := deps(t, "./cmd/coyote")
	found := false
	for _, ds := range pkgs {
		for _, d := range ds {
			if strings.HasPrefix(d, module+"/kernel/") {
				found = true
			}
		}
	}
	if !found {
		t.Fatal("go list shows no kernel package among cmd/coyote's dependencies: the guard above would see nothing either")
	}
}

// TestFakeServerLinksNoPluginMachinery: package fakellm is linked into
// cmd/fakellm (make demo) and the benchmarks as a plain HTTP server; what
// ties it to the provider conformance suite (and so to go-plugin and
// gRPC) lives in the test-only internal/fakellm/scenario.
func TestFakeServerLinksNoPluginMachinery(t *testing.T) {
	for pkg, ds := range deps(t, "./cmd/fakellm") {
		for _, d := range ds {
			if strings.HasPrefix(d, "github.com/hashicorp/go-plugin") || strings.HasPrefix(d, "google.golang.org/grpc") {
				t.Errorf("%s depends on %s: keep the conformance glue in internal/fakellm/scenario", pkg, d)
			}
		}
	}
}
