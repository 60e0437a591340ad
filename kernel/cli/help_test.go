package cli

import (
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/coyote-cli/coyote/kernel/iostreams"
)

// Every flag has its heading in --help, once; a new flag that joins no
// group fails here.
func TestEveryFlagIsInOneHelpGroup(t *testing.T) {
	io, _, _, _ := iostreams.Test()
	cmd := NewRootCmd(&Factory{IO: io}, nil)
	cmd.InitDefaultHelpFlag()
	seen := map[string]string{}
	for _, g := range flagGroups {
		for _, name := range g.flags {
			if other, dup := seen[name]; dup {
				t.Errorf("--%s is under %q and %q", name, other, g.title)
			}
			seen[name] = g.title
			if cmd.Flags().Lookup(name) == nil {
				t.Errorf("group %q lists --%s, which is no flag", g.title, name)
			}
		}
	}
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if seen[f.Name] == "" && !f.Hidden {
			t.Errorf("--%s is in no group of flagGroups (kernel/cli/help.go)", f.Name)
		}
	})
}

// --help shows the groups in order, one line per flag, each with a
// placeholder in capitals (no stray word taken from the description).
func TestHelpGroupsFlagsUnderHeadings(t *testing.T) {
	io, _, out, _ := iostreams.Test()
	cmd := NewRootCmd(&Factory{IO: io}, nil)
	cmd.SetArgs([]string{"--help"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	help := out.String()
	last := -1
	for _, g := range flagGroups {
		i := strings.Index(help, "\n"+g.title+":\n")
		if i < 0 || i < last {
			t.Fatalf("heading %q missing or out of order:\n%s", g.title, help)
		}
		last = i
	}
	placeholder := regexp.MustCompile(`^\s+(-\w, )?--[\w-]+( (\[[A-Z]+\]|[A-Z]+|KEY=VALUE|NAME VALUE|Name: Value))?\s{2,}\S`)
	for _, l := range strings.Split(help, "\n") {
		if strings.Contains(l, "--") && strings.HasPrefix(strings.TrimSpace(l), "-") && !placeholder.MatchString(l) {
			t.Errorf("flag line with an odd placeholder: %q", l)
		}
	}
	for _, want := range []string{"-s, --session [NAME]", "-m, --model ID", "--list-plugins  ", "-f, --file SOURCE"} {
		if !strings.Contains(help, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
}
