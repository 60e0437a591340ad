// Package bridge is the MCP bridge itself: it keeps the configured MCP
// servers, starts each one when it is first needed (stdio, streamable HTTP
// or legacy SSE, through the official go-sdk client), reuses it, lists and
// caches its tools, calls them, and ends servers when they are stopped,
// reconfigured away or when the plugin exits. It implements
// mcpbridge.Bridge; plugins/mcp serves it.
package bridge

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sync"

	"github.com/hashicorp/go-hclog"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/mcpbridge"
	"github.com/coyote-cli/coyote/sdk/redact"
)

// OAuthClient is the OAuth side of one remote server (plugins/mcp/oauth
// implements it).
type OAuthClient interface {
	// RoundTripper adds the server's bearer token to requests through base
	// and refreshes it; a request answered 401 with no usable token fails
	// with an error wrapping Options.ErrNeedsAuth.
	RoundTripper(base http.RoundTripper) http.RoundTripper
	// Authorize runs the whole interactive flow and stores the token; show
	// receives the URL the user must open. Its error is passed on as it
	// is (the kernel names the server).
	Authorize(ctx context.Context, show func(authURL string)) error
}

// Options configure a Bridge.
type Options struct {
	// Logger receives the bridge's log and every stdio server's stderr.
	Logger hclog.Logger
	// Name and Version are the client identity sent to servers.
	Name, Version string
	// OAuth returns the OAuth client of a remote server, given the
	// directory of tokens and registrations. Nil: no OAuth; a server that
	// answers 401 is still reported as needing authentication.
	OAuth func(dir string, server mcpbridge.ServerConfig) OAuthClient
	// ErrNeedsAuth is the sentinel the OAuth round tripper wraps when a
	// server wants a token there is none of.
	ErrNeedsAuth error
}

// Bridge owns every MCP server connection of the plugin. It is safe for
// concurrent use.
type Bridge struct {
	opts Options
	log  hclog.Logger

	mu      sync.Mutex
	configs map[string]mcpbridge.ServerConfig
	// redactors hide each configured server's secrets in its errors
	// (see newRedactor); built at Configure.
	redactors map[string]*redact.Redactor
	oauthDir  string
	servers   map[string]*server // started (or starting) servers
	closed    bool
}

// New returns a bridge that knows no servers.
func New(opts Options) *Bridge {
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	if opts.Name == "" {
		opts.Name = "coyote"
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	return &Bridge{
		opts:    opts,
		log:     opts.Logger,
		configs: map[string]mcpbridge.ServerConfig{},
		servers: map[string]*server{},
	}
}

// Served is what plugins/mcp serves: the bridge, with Authenticate (and so
// the oauth capability) when it has OAuth.
func (b *Bridge) Served() mcpbridge.Bridge {
	if b.opts.OAuth != nil {
		return &withOAuth{b}
	}
	return b
}

// Configure replaces the known servers. Servers whose config is unchanged
// keep running; the others are stopped before it returns.
func (b *Bridge) Configure(_ context.Context, req *mcpbridge.ConfigureRequest) error {
	configs := make(map[string]mcpbridge.ServerConfig, len(req.Servers))
	redactors := make(map[string]*redact.Redactor, len(req.Servers))
	for _, c := range req.Servers {
		if err := validate(&c); err != nil {
			return err
		}
		if _, dup := configs[c.Name]; dup {
			return fmt.Errorf("MCP server %q is configured twice: %w", c.Name, sdk.ErrInvalidArgument)
		}
		configs[c.Name] = c
		redactors[c.Name] = newRedactor(&c)
	}
	b.mu.Lock()
	var stop []*server
	for name, s := range b.servers {
		c, ok := configs[name]
		if !ok || !sameConfig(&c, &s.cfg) || (isRemote(&c) && req.OAuthDir != b.oauthDir) {
			stop = append(stop, s)
			delete(b.servers, name)
		}
	}
	b.configs = configs
	b.redactors = redactors
	b.oauthDir = req.OAuthDir
	b.mu.Unlock()
	stopAll(stop)
	return nil
}

func validate(c *mcpbridge.ServerConfig) error {
	if c.Name == "" {
		return fmt.Errorf("an MCP server has no name: %w", sdk.ErrInvalidArgument)
	}
	switch c.Type {
	case mcpbridge.TypeStdio:
		if c.Command == "" {
			return fmt.Errorf("MCP server %q (stdio) has no command: %w", c.Name, sdk.ErrInvalidArgument)
		}
	case mcpbridge.TypeHTTP, mcpbridge.TypeSSE:
		if c.URL == "" {
			return fmt.Errorf("MCP server %q (%s) has no url: %w", c.Name, c.Type, sdk.ErrInvalidArgument)
		}
	default:
		return fmt.Errorf("MCP server %q has transport %q; use stdio, http or sse: %w", c.Name, c.Type, sdk.ErrInvalidArgument)
	}
	return nil
}

func isRemote(c *mcpbridge.ServerConfig) bool { return c.Type != mcpbridge.TypeStdio }

// sameConfig compares two configs, nil and empty lists and maps alike.
func sameConfig(a, b *mcpbridge.ServerConfig) bool {
	sameOAuth := (a.OAuth == nil) == (b.OAuth == nil) && (a.OAuth == nil || *a.OAuth == *b.OAuth)
	return a.Name == b.Name && a.Type == b.Type && a.Command == b.Command && a.Cwd == b.Cwd && a.URL == b.URL &&
		slices.Equal(a.Args, b.Args) && maps.Equal(a.Env, b.Env) && maps.Equal(a.Headers, b.Headers) && sameOAuth
}

// Tools lists the tools of each named server, starting them concurrently.
func (b *Bridge) Tools(ctx context.Context, req *mcpbridge.ToolsRequest) (*mcpbridge.ToolsResponse, error) {
	out := &mcpbridge.ToolsResponse{Servers: make([]mcpbridge.ServerTools, len(req.Servers))}
	var wg sync.WaitGroup
	for i, name := range req.Servers {
		out.Servers[i].Server = name
		wg.Add(1)
		go func() {
			defer wg.Done()
			e := &out.Servers[i]
			s, err := b.get(ctx, name)
			if err == nil {
				e.Tools, err = s.tools(ctx)
			}
			if err != nil {
				e.Error = oneLine(b.redact(name, err).Error())
				e.NeedsAuth = errors.Is(err, errNeedsAuth)
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// Call invokes one tool of one server, starting the server if needed.
func (b *Bridge) Call(ctx context.Context, req *mcpbridge.CallRequest) (*mcpbridge.CallResult, error) {
	s, err := b.get(ctx, req.Server)
	if err != nil {
		return nil, b.redact(req.Server, err)
	}
	res, err := s.call(ctx, req.Tool, req.Arguments)
	return res, b.redact(req.Server, err)
}

// redact hides the secrets of a server's config in err (see
// newRedactor). Every error about a server leaves the bridge through it.
func (b *Bridge) redact(server string, err error) error {
	if err == nil {
		return nil
	}
	b.mu.Lock()
	r := b.redactors[server]
	b.mu.Unlock()
	return r.Error(err) // a server no longer configured has none: err as it is
}

// Stop ends the named servers, or all of them.
func (b *Bridge) Stop(_ context.Context, req *mcpbridge.StopRequest) error {
	b.mu.Lock()
	var stop []*server
	if len(req.Servers) == 0 {
		for _, s := range b.servers {
			stop = append(stop, s)
		}
		clear(b.servers)
	}
	for _, name := range req.Servers {
		if s, ok := b.servers[name]; ok {
			stop = append(stop, s)
			delete(b.servers, name)
		}
	}
	b.mu.Unlock()
	stopAll(stop)
	return nil
}

// Close ends every server and refuses to start more. The plugin calls it
// on its way out.
func (b *Bridge) Close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	_ = b.Stop(context.Background(), &mcpbridge.StopRequest{})
}

func stopAll(servers []*server) {
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.stop()
		}()
	}
	wg.Wait()
}

// get returns the live server of a name, starting it when it is not
// running (or has died). Concurrent callers share one start; a caller
// whose ctx ends stops waiting, but the start goes on for the others.
func (b *Bridge) get(ctx context.Context, name string) (*server, error) {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil, fmt.Errorf("MCP server %q: the bridge is shutting down: %w", name, sdk.ErrUnavailable)
	}
	cfg, ok := b.configs[name]
	if !ok {
		b.mu.Unlock()
		return nil, fmt.Errorf("MCP server %q is not configured: %w", name, sdk.ErrNotFound)
	}
	s := b.servers[name]
	if s != nil && s.hasEnded() {
		delete(b.servers, name)
		s = nil
	}
	if s == nil {
		s = newServer(b, cfg, b.oauthDir)
		b.servers[name] = s
		go s.start()
	}
	b.mu.Unlock()
	select {
	case <-s.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if s.startErr != nil {
		b.forget(s)
		return nil, s.startErr
	}
	return s, nil
}

// forget removes s from the running servers, if it is still the one there.
func (b *Bridge) forget(s *server) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.servers[s.cfg.Name] == s {
		delete(b.servers, s.cfg.Name)
	}
}

// withOAuth is the bridge with the Authenticate RPC.
type withOAuth struct{ *Bridge }

// Authenticate runs the OAuth flow of a remote server. A running
// connection of that server is stopped, so its next use has the token.
func (b *withOAuth) Authenticate(ctx context.Context, req *mcpbridge.AuthenticateRequest, send func(*mcpbridge.AuthEvent) error) error {
	b.mu.Lock()
	cfg, ok := b.configs[req.Server]
	dir := b.oauthDir
	b.mu.Unlock()
	if !ok {
		return fmt.Errorf("MCP server %q is not configured: %w", req.Server, sdk.ErrNotFound)
	}
	if !isRemote(&cfg) {
		return fmt.Errorf("MCP server %q runs locally (stdio) and needs no OAuth: %w", req.Server, sdk.ErrInvalidArgument)
	}
	var sendErr error
	err := b.opts.OAuth(dir, cfg).Authorize(ctx, func(u string) {
		if sendErr == nil {
			sendErr = send(&mcpbridge.AuthEvent{AuthorizationURL: u})
		}
	})
	if err != nil {
		return b.redact(req.Server, err) // the kernel says which server it was authorizing
	}
	if sendErr != nil {
		return sendErr
	}
	_ = b.Stop(ctx, &mcpbridge.StopRequest{Servers: []string{req.Server}})
	return send(&mcpbridge.AuthEvent{Message: fmt.Sprintf("MCP server %q is authorized; the token is stored", req.Server)})
}

var (
	_ mcpbridge.Bridge        = (*Bridge)(nil)
	_ mcpbridge.Authenticator = (*withOAuth)(nil)
)
