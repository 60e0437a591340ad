//go:build unix

package tools

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/kernel/tools/script"
)

func TestScriptWrapperIsBuiltOnTheFirstCall(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	dir := t.TempDir()
	const tool = `#!/usr/bin/env bash
set -e
# @describe Say hello.
# @option --name! Who to greet.
# @env LLM_OUTPUT=/dev/stdout The file to write the result to.
main() {
    printf 'hello %s\n' "$argc_name" >>"$LLM_OUTPUT"
}
eval "$(argc --argc-eval "$0" "$@")"
`
	if err := os.MkdirAll(filepath.Join(dir, "tools"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tools", "hello.sh"), []byte(tool), 0o755); err != nil {
		t.Fatal(err)
	}
	// A wrapper left by an older Coyote, which the first call replaces.
	wrapper := filepath.Join(dir, "bin", "hello")
	if err := os.MkdirAll(filepath.Dir(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	const stale = "#!/bin/sh\necho stale\n"
	if err := os.WriteFile(wrapper, []byte(stale), 0o755); err != nil {
		t.Fatal(err)
	}

	s := &Scripts{Dir: dir, Runner: &script.Runner{FunctionsDir: dir, Env: []string{"PATH=" + os.Getenv("PATH")}}}
	reg := NewRegistry()
	s.Load(reg, func(w string) { t.Errorf("warning: %s", w) })
	f, ok := reg.Get("hello")
	if !ok {
		t.Fatal("the tool was not registered")
	}
	if data, _ := os.ReadFile(wrapper); string(data) != stale {
		t.Fatalf("Load changed the wrapper to %q; it is built on the first call", data)
	}

	call := func() {
		t.Helper()
		out, err := f.Call(context.Background(), []byte(`{"name":"world"}`))
		if err != nil || out != "hello world\n" {
			t.Fatalf("call: %q, %v", out, err)
		}
	}
	call()
	if data, _ := os.ReadFile(wrapper); string(data) == stale {
		t.Fatal("the first call ran the stale wrapper instead of rebuilding it")
	}
	// A wrapper that has gone missing since is built again.
	if err := os.Remove(wrapper); err != nil {
		t.Fatal(err)
	}
	call()
	if _, err := os.Stat(wrapper); err != nil {
		t.Fatalf("the wrapper was not built again: %v", err)
	}
}

func TestVisibleNamesTakeAStemAndMissingOnesAreNamed(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "tools"), 0o755)
	for _, n := range []string{"fs_ls.sh", "fs_cat.sh", "other.sh"} {
		os.WriteFile(filepath.Join(dir, "tools", n), []byte("# @describe x\nmain() { :; }\n"), 0o755)
	}
	cases := []struct {
		from, want, warning string
	}{
		{"", "fs_cat.sh,fs_ls.sh", "visible_tools names ast_grep.sh, which is not in"},
		{"agent coder's global_tools", "fs_cat.sh,fs_ls.sh", "agent coder's global_tools names ast_grep.sh, which is not in"},
	}
	for _, c := range cases {
		var warnings []string
		s := &Scripts{Dir: dir, Visible: []string{"fs_ls", "fs_cat.sh", "ast_grep.sh"}, VisibleFrom: c.from}
		var got []string
		for _, p := range s.files(func(w string) { warnings = append(warnings, w) }) {
			got = append(got, filepath.Base(p))
		}
		if strings.Join(got, ",") != c.want || len(warnings) != 1 || !strings.Contains(warnings[0], c.warning) {
			t.Errorf("from %q: files %v, warnings %v", c.from, got, warnings)
		}
	}
}
