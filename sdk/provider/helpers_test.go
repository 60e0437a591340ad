package provider

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/coyote-cli/coyote/sdk"
)

func TestStreamText(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"", nil},
		{"one", []string{"one"}},
		{"hello  plugin world\n", []string{"hello", "  plugin", " world", "\n"}},
		{" lead", []string{" lead"}},
	}
	for _, tt := range tests {
		var got []string
		finish := ""
		err := StreamText(context.Background(), func(ev *ChatEvent) error {
			if ev.FinishReason != "" {
				finish = ev.FinishReason
			} else {
				got = append(got, ev.Text)
			}
			return nil
		}, tt.text)
		if err != nil || !reflect.DeepEqual(got, tt.want) || finish != "stop" {
			t.Errorf("StreamText(%q) = %q, %q, %v", tt.text, got, finish, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := StreamText(ctx, func(*ChatEvent) error { return nil }, "a b"); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestConfigs(t *testing.T) {
	var c Configs
	if _, err := c.Client("x"); !errors.Is(err, sdk.ErrFailedPrecondition) {
		t.Fatalf("unconfigured: %v", err)
	}
	if _, err := c.Configure(context.Background(), &ConfigureRequest{Client: ClientConfig{Name: "x", APIKey: "k"}}); err != nil {
		t.Fatal(err)
	}
	if cfg, err := c.Client("x"); err != nil || cfg.APIKey != "k" {
		t.Fatalf("%+v %v", cfg, err)
	}
	if _, err := c.Configure(context.Background(), &ConfigureRequest{}); !errors.Is(err, sdk.ErrInvalidArgument) {
		t.Fatalf("no name: %v", err)
	}
}

func TestLastUserText(t *testing.T) {
	ms := []Message{TextMessage(RoleUser, "a"), TextMessage(RoleAssistant, "b"), TextMessage(RoleUser, "c"), TextMessage(RoleAssistant, "d")}
	if got := LastUserText(ms); got != "c" {
		t.Errorf("got %q", got)
	}
	if got := LastUserText(nil); got != "" {
		t.Errorf("none: %q", got)
	}
}
