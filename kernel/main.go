// Package kernel is the core of Coyote: the process the user runs. It owns
// the command line, configuration, the conversation and the plugin host;
// everything provider-, store- or transport-specific lives in plugins.
//
// Main is the whole program; cmd/coyote only calls it.
package kernel

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/coyote-cli/coyote/kernel/cli"
)

// Main runs coyote with the process's arguments and returns its exit code.
// The first Ctrl-C (or SIGTERM) cancels the running work and shuts plugins
// down in order; a second one ends the process at once (plugins still exit,
// through their lifeline).
func Main() (code int) {
	f := cli.NewFactory()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		for sig := range sigs {
			// In the REPL, Ctrl-C cancels the reply in progress and the
			// program stays.
			if sig == os.Interrupt && f.HandleInterrupt() {
				continue
			}
			cancel()
			signal.Stop(sigs) // restore default handling, so a second signal kills
			return
		}
	}()

	defer func() {
		if r := recover(); r != nil {
			f.Logger().Error("panic", "value", r, "stack", string(debug.Stack()))
			fmt.Fprintf(os.Stderr, "Error: internal error: %v (this is a bug; details are in the log)\n", r)
			code = cli.ExitError
		}
	}()
	err := cli.Execute(ctx, f, os.Args[1:])
	return cli.Report(err, f.IO.ErrOut, f.IO.ColorErr())
}
