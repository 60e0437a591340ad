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
	"sync/atomic"
	"syscall"

	"github.com/coyote-cli/coyote/kernel/cli"
)

// Main runs coyote with the process's arguments and returns its exit code.
//
// Ctrl-C (SIGINT), SIGTERM and SIGHUP (the terminal closed) cancel the
// running work, with the signal as the cancellation's cause: a one-shot
// run stops, the REPL saves what it must and leaves, and every plugin is
// shut down in order. The exit code is then 128 + the signal's number
// (130, 143, 129). A second signal ends the process at once (plugins
// still exit, through their lifeline). In the REPL, Ctrl-C only cancels
// the reply in progress.
func Main() (code int) {
	f := cli.NewFactory()
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	var caught atomic.Value // the syscall.Signal that ended the run
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	go func() {
		for sig := range sigs {
			// In the REPL, Ctrl-C cancels the reply in progress and the
			// program stays.
			if sig == os.Interrupt && f.HandleInterrupt() {
				continue
			}
			if s, ok := sig.(syscall.Signal); ok {
				caught.Store(s)
			}
			cancel(fmt.Errorf("coyote was ended by %s", signalName(sig)))
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
	code = cli.Report(err, f.IO.ErrOut, f.IO.ColorErr())
	if s, ok := caught.Load().(syscall.Signal); ok {
		code = 128 + int(s)
	}
	return code
}

// signalName is a signal as a user knows it: SIGINT, SIGTERM, SIGHUP.
func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT (Ctrl-C)"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP (the terminal closed)"
	}
	return sig.String()
}
