package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/coyote-cli/coyote/kernel/chat"
	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/plugins"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// runPrompt sends the text of the arguments (and of standard input) to the
// model and streams the answer to standard output.
func runPrompt(ctx context.Context, f *Factory, cmd *cobra.Command, opts *rootOptions) error {
	text := strings.Join(opts.Text, " ")
	if text == "" && f.IO.IsStdinTTY() {
		// The interactive REPL is not part of this build yet.
		return cmd.Help()
	}

	// Load the config and start the plugin while standard input is read.
	ready := make(chan *target, 1)
	go func() { ready <- prepare(ctx, f, opts.Model) }()

	if !f.IO.IsStdinTTY() && f.IO.In != nil {
		in, err := io.ReadAll(f.IO.In)
		if err != nil {
			<-ready // let the start finish, so that Close stops it
			return fmt.Errorf("read standard input: %w", err)
		}
		if s := string(in); s != "" {
			if text != "" {
				text += "\n"
			}
			text += s
		}
	}
	t := <-ready
	if strings.TrimSpace(text) == "" {
		return cmd.Help() // nothing to ask
	}
	if t.err != nil {
		return t.err
	}
	req := &provider.ChatRequest{
		Client:   t.client.Name,
		Model:    t.model,
		Messages: []provider.Message{provider.TextMessage(provider.RoleUser, text)},
		Stream:   !opts.NoStream,
	}
	if _, err := chat.Stream(ctx, t.prov, req, f.IO.Out); err != nil {
		return explainProviderError(err, t.client, t.model)
	}
	return nil
}

// target is where a prompt goes: a client, its model and its plugin,
// started and configured.
type target struct {
	client *config.Client
	model  string
	prov   *plugins.Provider
	err    error
}

// prepare loads the config, resolves the model and starts the provider
// plugin with the client configured in it.
func prepare(ctx context.Context, f *Factory, modelID string) *target {
	cfg, err := f.Config()
	if err != nil {
		return &target{err: err}
	}
	client, model, err := cfg.ResolveModel(modelID)
	if err != nil {
		return &target{err: err}
	}
	host, err := f.Host()
	if err != nil {
		return &target{err: err}
	}
	prov, err := host.Provider(client.Type)
	if err != nil {
		return &target{err: fmt.Errorf("client %q has type %q, which no installed plugin serves: %w", client.Name, client.Type, err)}
	}
	t := &target{client: client, model: model, prov: prov}
	if _, err := prov.Configure(ctx, &provider.ConfigureRequest{Client: providerClient(client)}); err != nil {
		t.err = err
	} else if err := prov.Prepare(ctx, client.Name); err != nil {
		t.err = explainProviderError(err, client, model)
	}
	return t
}

// providerClient is what a plugin is told about a configured client.
func providerClient(c *config.Client) provider.ClientConfig {
	models := make([]provider.Model, len(c.Models))
	for i, m := range c.Models {
		models[i] = provider.Model{
			Name:                    m.Name,
			Type:                    m.Type,
			MaxInputTokens:          m.MaxInputTokens,
			MaxOutputTokens:         m.MaxOutputTokens,
			SupportsVision:          m.SupportsVision,
			SupportsFunctionCalling: m.SupportsFunctionCalling,
			ReasoningLevels:         m.ReasoningLevels,
		}
	}
	return provider.ClientConfig{
		Name:    c.Name,
		Type:    c.Type,
		APIBase: c.APIBase,
		APIKey:  c.APIKey,
		Options: c.Options,
		Models:  models,
	}
}

// explainProviderError adds what the user can do about an error the
// provider reported.
func explainProviderError(err error, c *config.Client, model string) error {
	switch {
	case errors.Is(err, sdk.ErrUnauthenticated), errors.Is(err, sdk.ErrPermissionDenied):
		hint := fmt.Sprintf("no API key is set for client %q: set %s_API_KEY or api_key in config.yaml", c.Name, config.EnvPrefix(c.Name))
		if c.KeySource != "" {
			hint = fmt.Sprintf("the API key of client %q comes from %s; check it", c.Name, c.KeySource)
		}
		return fmt.Errorf("%w (%s)", err, hint)
	case errors.Is(err, sdk.ErrNotFound):
		return fmt.Errorf("%w (model %s:%s; run `coyote --list-models` to see the configured models)", err, c.Name, model)
	case errors.Is(err, sdk.ErrRateLimited):
		return fmt.Errorf("%w (wait a moment and try again)", err)
	}
	return err
}

// runListModels prints the configured chat models, one id per line.
func runListModels(f *Factory) error {
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	var b strings.Builder
	for _, c := range cfg.Clients {
		for _, m := range c.Models {
			if m.Type == "" || m.Type == provider.ModelChat {
				fmt.Fprintf(&b, "%s:%s\n", c.Name, m.Name)
			}
		}
	}
	_, err = io.WriteString(f.IO.Out, b.String())
	return err
}
