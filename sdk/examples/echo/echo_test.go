package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/plugintest"
	"github.com/coyote-cli/coyote/sdk/provider"
)

func TestEchoStreamsTheLastUserMessageOverGRPC(t *testing.T) {
	p := plugintest.Provider(t, sdk.Info{Name: "echo"}, &echo{})
	ctx := context.Background()
	if _, err := p.Configure(ctx, &provider.ConfigureRequest{Client: provider.ClientConfig{Name: "e", Type: "echo"}}); err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	var finish string
	err := p.Chat(ctx, &provider.ChatRequest{
		Client:   "e",
		Messages: []provider.Message{provider.TextMessage(provider.RoleUser, "hello plugin world")},
	}, func(ev *provider.ChatEvent) error {
		got.WriteString(ev.Text)
		if ev.FinishReason != "" {
			finish = ev.FinishReason
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != "hello plugin world\n" || finish != "stop" {
		t.Fatalf("got %q finish %q", got.String(), finish)
	}
}

func TestEchoUnconfiguredClientIsFailedPrecondition(t *testing.T) {
	p := plugintest.Provider(t, sdk.Info{Name: "echo"}, &echo{})
	err := p.Chat(context.Background(), &provider.ChatRequest{Client: "nope"}, func(*provider.ChatEvent) error { return nil })
	if !errors.Is(err, sdk.ErrFailedPrecondition) {
		t.Fatalf("err = %v, want ErrFailedPrecondition", err)
	}
}
