//go:build unix

package script

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recordingSandbox runs the call as it is, recording what it was asked,
// or refuses with err.
type recordingSandbox struct {
	got []Wrap
	err error
}

func (s *recordingSandbox) Wrap(_ context.Context, w Wrap) ([]string, []string, error) {
	s.got = append(s.got, w)
	if s.err != nil {
		return nil, nil, s.err
	}
	return w.Argv, w.Env, nil
}
func (s *recordingSandbox) Describe() string  { return "test" }
func (s *recordingSandbox) Workspace() string { return "/the/workspace" }

const netTool = `#!/usr/bin/env bash
# @describe Write into TMPDIR.
# @meta network
main() {
    echo hi > "$TMPDIR/scratch" && echo "tmp=$TMPDIR" >> "$LLM_OUTPUT"
}
`

const failTool = `#!/usr/bin/env bash
# @describe Fail.
main() {
    echo "touch: cannot touch '/x': Read-only file system" >&2
    exit 1
}
`

func TestSandboxedCallsGetAWritableDirectoryOfTheirOwn(t *testing.T) {
	r, decls := tool(t, "net.sh", netTool)
	sb := &recordingSandbox{}
	r.Sandbox = sb
	res := r.Run(context.Background(), decls[0], []byte(`{}`), nil)
	if res.Err != nil {
		t.Fatal(res.Err.JSON())
	}
	if len(sb.got) != 1 {
		t.Fatalf("%d wraps", len(sb.got))
	}
	w := sb.got[0]
	if !w.Network || len(w.Writable) != 1 || !strings.Contains(res.Output, "tmp="+w.Writable[0]) {
		t.Fatalf("wrap %+v, output %q", w, res.Output)
	}
	if !strings.HasSuffix(w.Argv[0], filepath.Join("bin", "net")) {
		t.Fatalf("argv %q", w.Argv)
	}
	// The call's directory is gone with it.
	if _, err := os.Stat(w.Writable[0]); err == nil {
		t.Fatal("the call's directory was left behind")
	}
}

func TestASandboxedFailureSaysWhatWasWritable(t *testing.T) {
	r, decls := tool(t, "fail.sh", failTool)
	r.Sandbox = &recordingSandbox{}
	res := r.Run(context.Background(), decls[0], []byte(`{}`), nil)
	if res.Err == nil || !strings.Contains(res.Err.ToolCallError, "it ran in the test sandbox: only /the/workspace is writable, and there is no network") ||
		!strings.Contains(res.Err.Stderr, "Read-only file system") {
		t.Fatalf("result %s", res.Text())
	}
	if sb := r.Sandbox.(*recordingSandbox); sb.got[0].Network {
		t.Fatal("a tool that declares no network got it")
	}
}

func TestASandboxThatCannotRunTheCallIsAToolError(t *testing.T) {
	r, decls := tool(t, "fail.sh", failTool)
	r.Sandbox = &recordingSandbox{err: errors.New("sandbox backend bwrap is not available here: bwrap is not installed")}
	res := r.Run(context.Background(), decls[0], []byte(`{}`), nil)
	if res.Err == nil || res.Err.ToolCallError != "fail cannot run in the test sandbox: sandbox backend bwrap is not available here: bwrap is not installed" {
		t.Fatalf("result %s", res.Text())
	}
}

func TestPythonAndJavaScriptToolsDeclareTheNetworkToo(t *testing.T) {
	for _, tc := range []struct {
		file, src string
		want      bool
	}{
		{"a.py", "# @meta network\ndef run(x: str):\n    \"\"\"Do.\n\n    Args:\n        x: X.\n    \"\"\"\n", true},
		{"b.py", "def run(x: str):\n    \"\"\"Do.\n\n    Args:\n        x: X.\n    \"\"\"\n", false},
		{"c.js", "// @meta network\n/**\n * Do.\n * @param {Object} args\n * @param {string} args.x - X.\n */\nexports.run = function (args) {};\n", true},
	} {
		decls, err := ParseSource("/t/"+tc.file, []byte(tc.src))
		if err != nil || len(decls) != 1 {
			t.Fatalf("%s: %v %d", tc.file, err, len(decls))
		}
		if got := decls[0].NeedsNetwork(); got != tc.want {
			t.Errorf("%s: NeedsNetwork = %v", tc.file, got)
		}
	}
}
