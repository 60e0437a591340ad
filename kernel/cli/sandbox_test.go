package cli

import (
	"reflect"
	"strings"
	"testing"
)

func TestInnerArgsDropTheSandboxFlagsOnly(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{[]string{"--sandbox=box", "-S", "hi"}, []string{"-S", "hi"}},
		{[]string{"--sandbox", "--fresh", "-m", "x:y", "hello", "--sandbox"}, []string{"-m", "x:y", "hello", "--sandbox"}},
		{[]string{"--tool-sandbox=bwrap", "--sandbox=a", "--", "--fresh"}, []string{"--", "--fresh"}},
		{[]string{"--sandbox-remove", "x", "-S"}, []string{"-S"}},
	} {
		if got := innerArgs(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("innerArgs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSandboxNameDefaultsToTheDirectorysName(t *testing.T) {
	for _, tc := range []struct{ v, wd, want, err string }{
		{sandboxHere, "/home/u/My Project", "my-project", ""},
		{"Work_Box", "/x", "work-box", ""},
		{sandboxHere, "/home/u/___", "", "give one"},
		{"!!!", "/x", "", "no letter or digit"},
	} {
		got, err := sandboxName(tc.v, tc.wd)
		if got != tc.want || (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("sandboxName(%q, %q) = %q, %v", tc.v, tc.wd, got, err)
		}
	}
}

type changed map[string]bool

func (c changed) Changed(n string) bool { return c[n] }

func TestSandboxFlagConflictsAreOneLine(t *testing.T) {
	for _, tc := range []struct {
		o    sandboxOptions
		set  changed
		want string
	}{
		{sandboxOptions{Name: "x"}, changed{"list-secrets": true, "mcp-add": true}, "--sandbox cannot go with --list-secrets, --mcp-add"},
		{sandboxOptions{Fresh: true}, nil, "--fresh goes with --sandbox"},
		{sandboxOptions{List: true, Remove: "a"}, nil, "go alone"},
		{sandboxOptions{Name: "x", Fresh: true}, changed{"model": true, "info": true}, ""},
	} {
		err := checkSandboxFlags(tc.set, &tc.o)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%+v: %v", tc.o, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v: err %v, want %q", tc.o, err, tc.want)
		}
	}
}
