// Command coyote-provider-echo is a complete third-party provider plugin: it
// answers every prompt by echoing it back, word by word. Build it with
//
//	go build -o ~/.config/coyote/plugins/coyote-provider-echo .
//
// and add `clients: [{type: echo, models: [{name: parrot}]}]` to config.yaml.
package main

import (
	"context"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// echo repeats the last user message; provider.Configs gives it Configure.
type echo struct{ provider.Configs }

func (e *echo) ListModels(_ context.Context, req *provider.ListModelsRequest) (*provider.ListModelsResponse, error) {
	_, err := e.Client(req.Client)
	return &provider.ListModelsResponse{Models: []provider.Model{{Name: "parrot", Type: provider.ModelChat}}}, err
}

func (e *echo) Chat(ctx context.Context, req *provider.ChatRequest, send func(*provider.ChatEvent) error) error {
	if _, err := e.Client(req.Client); err != nil {
		return err
	}
	return provider.StreamText(ctx, send, provider.LastUserText(req.Messages)+"\n")
}

func main() {
	sdk.Serve(sdk.Info{Name: "echo", Version: "0.1.0", Description: "echoes the prompt back"}, provider.Plugin(&echo{}))
}
