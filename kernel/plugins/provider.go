package plugins

import (
	"context"
	"fmt"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// providerKind declares provider plugins, coyote-provider-<type>. The
// setup each process is given is the configuration of every client it
// serves, by client name.
var providerKind = Declare(&Kind[provider.Provider, provider.ClientConfig]{
	Name:   sdk.KindProvider,
	Noun:   "a provider",
	Plugin: provider.Plugin(nil),
	Replay: func(ctx context.Context, c provider.Provider, _ string, cfg provider.ClientConfig) error {
		_, err := c.Configure(ctx, &provider.ConfigureRequest{Client: cfg})
		return err
	},
	Missing: func(binary, client string) error {
		return fmt.Errorf("client %q has no configuration for plugin %s", client, binary)
	},
	// Where Google's Application Default Credentials are (vertexai
	// without adc_file), and where the AWS credential chain of a client
	// without keys of its own (bedrock) looks: the profile, region, shared
	// files, web identity and container endpoints. Never the keys themselves (AWS_ACCESS_KEY_ID,
	// AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN): those go in the client's
	// entry, or the vault, or the shared credentials file.
	EnvPrefixes: []string{"GOOGLE_APPLICATION_CREDENTIALS", "CLOUDSDK_CONFIG", "GCE_METADATA_HOST",
		"AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION",
		"AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE", "AWS_SDK_LOAD_CONFIG",
		"AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN", "AWS_ROLE_SESSION_NAME",
		"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE",
		"AWS_EC2_METADATA_DISABLED", "AWS_EC2_METADATA_SERVICE_ENDPOINT"},
})

// Provider is the kernel's supervised handle on a provider plugin. It
// implements provider.Provider: each call goes to the live plugin process
// (started on first use), every client is configured in each process before
// its first request there (again after a restart), and a process that dies
// mid-call is reported as a *CrashError.
type Provider struct {
	h *Handle[provider.Provider, provider.ClientConfig]
}

// Provider returns the handle of the provider plugin serving a client type,
// without starting it.
func (h *Host) Provider(clientType string) (*Provider, error) {
	hd, err := handleOf(h, providerKind, clientType)
	if err != nil {
		return nil, err
	}
	return typedHandle(hd, func(hd *Handle[provider.Provider, provider.ClientConfig]) *Provider { return &Provider{h: hd} }), nil
}

// Plugin is the supervised plugin behind the handle.
func (p *Provider) Plugin() *Plugin { return p.h.Plugin() }

// Configure records a client's configuration. It is sent to the plugin
// before the client's first request in each process; call Prepare to do
// that (and start the plugin) ahead of time.
func (p *Provider) Configure(_ context.Context, req *provider.ConfigureRequest) (*provider.ConfigureResponse, error) {
	p.h.Remember(req.Client.Name, req.Client)
	return &provider.ConfigureResponse{}, nil
}

// APIBase configures the client in the live plugin (starting it) and
// returns the base URL the client calls, the plugin's default filled in;
// "" from a plugin too old to say. The sandbox's credential proxy routes
// the client there.
func (p *Provider) APIBase(ctx context.Context, cfg provider.ClientConfig) (string, error) {
	var base string
	err := p.h.Update(ctx, cfg.Name, cfg, func(c provider.Provider, _ bool) error {
		resp, err := c.Configure(ctx, &provider.ConfigureRequest{Client: cfg})
		if err == nil && resp != nil {
			base = resp.APIBase
		}
		return err
	})
	return base, err
}

// Prepare starts the plugin if needed and configures client in it, so that a
// later request pays neither cost.
func (p *Provider) Prepare(ctx context.Context, client string) error {
	return p.h.CallFor(ctx, client, func(*Process, provider.Provider) error { return nil })
}

// ListModels asks the plugin for the models of a configured client.
func (p *Provider) ListModels(ctx context.Context, req *provider.ListModelsRequest) (resp *provider.ListModelsResponse, err error) {
	err = p.h.CallFor(ctx, req.Client, func(_ *Process, c provider.Provider) error {
		resp, err = c.ListModels(ctx, req)
		return err
	})
	return resp, err
}

// Chat sends a request to the plugin and streams its events to send.
func (p *Provider) Chat(ctx context.Context, req *provider.ChatRequest, send func(*provider.ChatEvent) error) error {
	return p.h.CallFor(ctx, req.Client, func(_ *Process, c provider.Provider) error {
		return c.Chat(ctx, req, send)
	})
}

// Embed asks the plugin for vectors. A plugin without the embeddings
// capability gets a readable sdk.ErrUnsupported.
func (p *Provider) Embed(ctx context.Context, req *provider.EmbedRequest) (resp *provider.EmbedResponse, err error) {
	err = p.h.CallFor(ctx, req.Client, func(proc *Process, c provider.Provider) error {
		if err := p.Plugin().requireCap(proc, provider.CapEmbeddings, "embeddings"); err != nil {
			return err
		}
		resp, err = c.(provider.Embedder).Embed(ctx, req)
		return err
	})
	return resp, err
}

// Rerank asks the plugin to rerank documents. A plugin without the rerank
// capability gets a readable sdk.ErrUnsupported.
func (p *Provider) Rerank(ctx context.Context, req *provider.RerankRequest) (resp *provider.RerankResponse, err error) {
	err = p.h.CallFor(ctx, req.Client, func(proc *Process, c provider.Provider) error {
		if err := p.Plugin().requireCap(proc, provider.CapRerank, "reranking"); err != nil {
			return err
		}
		resp, err = c.(provider.Reranker).Rerank(ctx, req)
		return err
	})
	return resp, err
}

var (
	_ provider.Provider = (*Provider)(nil)
	_ provider.Embedder = (*Provider)(nil)
	_ provider.Reranker = (*Provider)(nil)
)
