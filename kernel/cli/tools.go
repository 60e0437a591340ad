package cli

import (
	"fmt"
	"os"

	"github.com/coyote-cli/coyote/kernel/tools"
)

// toolsFor builds the functions a conversation may offer, and how a call
// is shown: on a terminal each call is printed as it runs; elsewhere
// nothing is (results are never dumped).
func toolsFor(f *Factory) (*tools.Registry, func(name, args string)) {
	reg := tools.NewRegistry()
	var ask tools.Asker
	if f.IO.IsStdinTTY() && f.IO.IsStdoutTTY() {
		ask = tools.TerminalAsker{In: os.Stdin, Out: f.IO.Out}
	}
	for _, fn := range tools.UserFuncs(ask) {
		reg.Add(fn)
	}
	var show func(name, args string)
	if f.IO.IsStdoutTTY() {
		dim, reset := "\x1b[2m", "\x1b[0m"
		if f.Env("NO_COLOR") != "" {
			dim, reset = "", ""
		}
		show = func(name, args string) {
			fmt.Fprintf(f.IO.Out, "%sCall %s %s%s\n", dim, name, args, reset)
		}
	}
	return reg, show
}
