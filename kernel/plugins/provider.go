package plugins

import (
	"context"
	"fmt"
	"sync"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// Provider is the kernel's supervised handle on a provider plugin. It
// implements provider.Provider: each call goes to the live plugin process
// (started on first use), every client is configured in each process before
// its first request there (again after a restart), and a process that dies
// mid-call is reported as a *CrashError.
type Provider struct {
	pl *Plugin

	mu      sync.Mutex
	clients map[string]clientEntry
}

// clientEntry is a client's configuration and its revision, which grows
// with each Configure so that processes can tell they are out of date.
type clientEntry struct {
	cfg provider.ClientConfig
	rev int
}

// providerState is what one process has been told.
type providerState struct {
	mu         sync.Mutex
	client     provider.Provider
	configured map[string]int // client name → revision sent
}

// Provider returns the handle of the provider plugin serving a client type,
// without starting it.
func (h *Host) Provider(clientType string) (*Provider, error) {
	pl, err := h.Lookup(sdk.KindProvider, clientType)
	if err != nil {
		return nil, err
	}
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if pl.provider == nil {
		pl.provider = &Provider{pl: pl, clients: map[string]clientEntry{}}
	}
	return pl.provider, nil
}

// Plugin is the supervised plugin behind the handle.
func (p *Provider) Plugin() *Plugin { return p.pl }

// Configure records a client's configuration. It is sent to the plugin
// before the client's first request in each process; call Prepare to do
// that (and start the plugin) ahead of time.
func (p *Provider) Configure(_ context.Context, req *provider.ConfigureRequest) (*provider.ConfigureResponse, error) {
	p.mu.Lock()
	p.clients[req.Client.Name] = clientEntry{cfg: req.Client, rev: p.clients[req.Client.Name].rev + 1}
	p.mu.Unlock()
	return &provider.ConfigureResponse{}, nil
}

// Prepare starts the plugin if needed and configures client in it, so that a
// later request pays neither cost.
func (p *Provider) Prepare(ctx context.Context, client string) error {
	return p.pl.Call(ctx, func(proc *Process) error {
		_, err := p.conn(ctx, proc, client)
		return err
	})
}

// ListModels asks the plugin for the models of a configured client.
func (p *Provider) ListModels(ctx context.Context, req *provider.ListModelsRequest) (*provider.ListModelsResponse, error) {
	var resp *provider.ListModelsResponse
	err := p.pl.Call(ctx, func(proc *Process) error {
		c, err := p.conn(ctx, proc, req.Client)
		if err != nil {
			return err
		}
		resp, err = c.ListModels(ctx, req)
		return err
	})
	return resp, err
}

// Chat sends a request to the plugin and streams its events to send.
func (p *Provider) Chat(ctx context.Context, req *provider.ChatRequest, send func(*provider.ChatEvent) error) error {
	return p.pl.Call(ctx, func(proc *Process) error {
		c, err := p.conn(ctx, proc, req.Client)
		if err != nil {
			return err
		}
		return c.Chat(ctx, req, send)
	})
}

// Embed asks the plugin for vectors. A plugin without the embeddings
// capability gets a readable sdk.ErrUnsupported.
func (p *Provider) Embed(ctx context.Context, req *provider.EmbedRequest) (*provider.EmbedResponse, error) {
	var resp *provider.EmbedResponse
	err := p.pl.Call(ctx, func(proc *Process) error {
		c, err := p.capable(ctx, proc, req.Client, provider.CapEmbeddings, "embeddings")
		if err != nil {
			return err
		}
		resp, err = c.(provider.Embedder).Embed(ctx, req)
		return err
	})
	return resp, err
}

// Rerank asks the plugin to rerank documents. A plugin without the rerank
// capability gets a readable sdk.ErrUnsupported.
func (p *Provider) Rerank(ctx context.Context, req *provider.RerankRequest) (*provider.RerankResponse, error) {
	var resp *provider.RerankResponse
	err := p.pl.Call(ctx, func(proc *Process) error {
		c, err := p.capable(ctx, proc, req.Client, provider.CapRerank, "reranking")
		if err != nil {
			return err
		}
		resp, err = c.(provider.Reranker).Rerank(ctx, req)
		return err
	})
	return resp, err
}

// capable returns the process's client after checking that the plugin
// announced capability.
func (p *Provider) capable(ctx context.Context, proc *Process, client, capability, what string) (provider.Provider, error) {
	if err := p.pl.requireCap(ctx, proc, capability, what); err != nil {
		return nil, err
	}
	return p.conn(ctx, proc, client)
}

// conn returns the process's provider client with client configured in it.
func (p *Provider) conn(ctx context.Context, proc *Process, client string) (provider.Provider, error) {
	st := proc.State(sdk.KindProvider, func() any {
		return &providerState{configured: map[string]int{}}
	}).(*providerState)
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.client == nil {
		raw, err := proc.Dispense(sdk.KindProvider)
		if err != nil {
			return nil, fmt.Errorf("plugin %s: %w", p.pl.Binary, err)
		}
		c, ok := raw.(provider.Provider)
		if !ok {
			return nil, fmt.Errorf("plugin %s: dispensed %T, not a provider", p.pl.Binary, raw)
		}
		st.client = c
	}
	p.mu.Lock()
	entry, ok := p.clients[client]
	p.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("client %q has no configuration for plugin %s", client, p.pl.Binary)
	}
	if st.configured[client] != entry.rev {
		if _, err := st.client.Configure(ctx, &provider.ConfigureRequest{Client: entry.cfg}); err != nil {
			return nil, err
		}
		st.configured[client] = entry.rev
	}
	return st.client, nil
}

var (
	_ provider.Provider = (*Provider)(nil)
	_ provider.Embedder = (*Provider)(nil)
	_ provider.Reranker = (*Provider)(nil)
)
