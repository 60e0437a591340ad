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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // restore default handling, so a second signal kills
	}()

	f := cli.NewFactory()
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
