package main

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// echo is a provider.Provider that repeats the last user message.
type echo struct {
	mu      sync.Mutex
	clients map[string]provider.ClientConfig
}

func (e *echo) Configure(_ context.Context, req *provider.ConfigureRequest) (*provider.ConfigureResponse, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.clients == nil {
		e.clients = map[string]provider.ClientConfig{}
	}
	e.clients[req.Client.Name] = req.Client
	return &provider.ConfigureResponse{}, nil
}

func (e *echo) ListModels(_ context.Context, req *provider.ListModelsRequest) (*provider.ListModelsResponse, error) {
	if _, err := e.client(req.Client); err != nil {
		return nil, err
	}
	return &provider.ListModelsResponse{Models: []provider.Model{{Name: "parrot", Type: provider.ModelChat}}}, nil
}

func (e *echo) Chat(ctx context.Context, req *provider.ChatRequest, send func(*provider.ChatEvent) error) error {
	if _, err := e.client(req.Client); err != nil {
		return err
	}
	var last string
	for _, m := range req.Messages {
		if m.Role == provider.RoleUser {
			last = m.Text()
		}
	}
	if last == "" {
		return fmt.Errorf("nothing to echo: %w", sdk.ErrInvalidArgument)
	}
	for i, word := range strings.Fields(last) {
		if err := ctx.Err(); err != nil {
			return err
		}
		if i > 0 {
			word = " " + word
		}
		if err := send(&provider.ChatEvent{Text: word}); err != nil {
			return err
		}
	}
	if err := send(&provider.ChatEvent{Text: "\n"}); err != nil {
		return err
	}
	return send(&provider.ChatEvent{FinishReason: "stop"})
}

func (e *echo) client(name string) (provider.ClientConfig, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	c, ok := e.clients[name]
	if !ok {
		return c, fmt.Errorf("client %q is not configured: %w", name, sdk.ErrFailedPrecondition)
	}
	return c, nil
}
