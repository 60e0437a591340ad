// Command provider is a test provider plugin. The last user message picks
// what it does: "crash" streams a little and exits with status 3, "panic"
// panics, "abort" dies of SIGABRT (a Go program then prints a stack and a
// register dump), "pid" answers with its process id, "slow" streams one word per
// 50 ms until cancelled; anything else is echoed back. On start it appends
// its pid to launched.log next to its binary, so tests can tell whether it
// was started at all.
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/provider"
)

func main() {
	if os.Getenv(sdk.Handshake.MagicCookieKey) != "" {
		if exe, err := os.Executable(); err == nil {
			f, err := os.OpenFile(filepath.Join(filepath.Dir(exe), "launched.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
			if err == nil {
				fmt.Fprintln(f, os.Getpid())
				f.Close()
			}
		}
	}
	sdk.Serve(sdk.Info{Name: "testing", Version: "0.0.1"}, provider.Plugin(testProvider{}))
}

type testProvider struct{}

func (testProvider) Configure(context.Context, *provider.ConfigureRequest) (*provider.ConfigureResponse, error) {
	return &provider.ConfigureResponse{}, nil
}

func (testProvider) ListModels(context.Context, *provider.ListModelsRequest) (*provider.ListModelsResponse, error) {
	return &provider.ListModelsResponse{}, nil
}

func (testProvider) Chat(ctx context.Context, req *provider.ChatRequest, send func(*provider.ChatEvent) error) error {
	last := req.Messages[len(req.Messages)-1].Text()
	say := func(s string) error { return send(&provider.ChatEvent{Text: s}) }
	switch last {
	case "crash":
		_ = say("partial answer ")
		os.Exit(3)
	case "panic":
		panic("the test provider panicked")
	case "abort":
		_ = syscall.Kill(os.Getpid(), syscall.SIGABRT)
		select {}
	case "pid":
		return say(strconv.Itoa(os.Getpid()))
	case "slow":
		for {
			if err := say("word "); err != nil {
				return err
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	return say("echo: " + last)
}
