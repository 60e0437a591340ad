package script

import (
	"slices"
	"testing"

	"github.com/coyote-cli/coyote/kernel/envlist"
)

// Every variable of the list tools share with plugins reaches a tool.
func TestScrubEnvKeepsTheSharedBase(t *testing.T) {
	for name := range envlist.Base {
		kv := name + "=v"
		if got := ScrubEnv([]string{kv}, EnvPolicy{}); !slices.Equal(got, []string{kv}) {
			t.Errorf("%s: a tool got %q", name, got)
		}
	}
}
