package plugins

import (
	"context"
	"slices"
	"sync"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/mcpbridge"
)

// MCPBridge is the kernel's supervised handle on the MCP bridge plugin
// (coyote-mcp). It implements mcpbridge.Bridge and, for a plugin with
// mcpbridge.CapOAuth, mcpbridge.Authenticator. It remembers the last
// Configure and sends it to every new process before its first request,
// so a bridge that crashed (reported once as a *CrashError) comes back
// with the same servers on the next call. Configure and Stop start no
// process; Tools, Call and Authenticate do.
type MCPBridge struct {
	pl *Plugin

	mu   sync.Mutex
	last *mcpbridge.ConfigureRequest
	rev  int // grows with each Configure
}

// mcpState is what one process has been told.
type mcpState struct {
	mu     sync.Mutex
	client mcpbridge.Client
	rev    int // revision of the configuration it has; 0: none
}

// MCP returns the handle of the MCP bridge plugin, without starting it.
func (h *Host) MCP() (*MCPBridge, error) {
	pl, err := h.Lookup(sdk.KindMCP, "")
	if err != nil {
		return nil, err
	}
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if pl.mcp == nil {
		pl.mcp = &MCPBridge{pl: pl}
	}
	return pl.mcp, nil
}

// Plugin is the supervised plugin behind the handle.
func (m *MCPBridge) Plugin() *Plugin { return m.pl }

// Configure replaces the servers the bridge knows. The configuration is
// sent to the live process now, or to the next one before its first
// request.
func (m *MCPBridge) Configure(ctx context.Context, req *mcpbridge.ConfigureRequest) error {
	m.mu.Lock()
	cp := *req
	cp.Servers = slices.Clone(req.Servers)
	m.last = &cp
	m.rev++
	m.mu.Unlock()
	if m.pl.live() == nil {
		return nil
	}
	return m.call(ctx, func(mcpbridge.Client) error { return nil })
}

// Tools lists the tools of the named servers (see mcpbridge.Bridge).
func (m *MCPBridge) Tools(ctx context.Context, req *mcpbridge.ToolsRequest) (resp *mcpbridge.ToolsResponse, err error) {
	err = m.call(ctx, func(c mcpbridge.Client) error {
		resp, err = c.Tools(ctx, req)
		return err
	})
	return resp, err
}

// Call invokes one tool of one server.
func (m *MCPBridge) Call(ctx context.Context, req *mcpbridge.CallRequest) (resp *mcpbridge.CallResult, err error) {
	err = m.call(ctx, func(c mcpbridge.Client) error {
		resp, err = c.Call(ctx, req)
		return err
	})
	return resp, err
}

// Stop ends servers. With no live process nothing runs, and nothing is
// started.
func (m *MCPBridge) Stop(ctx context.Context, req *mcpbridge.StopRequest) error {
	if m.pl.live() == nil {
		return nil
	}
	return m.call(ctx, func(c mcpbridge.Client) error { return c.Stop(ctx, req) })
}

// Authenticate runs the OAuth flow of a remote server. A plugin without
// the oauth capability gets a readable sdk.ErrUnsupported.
func (m *MCPBridge) Authenticate(ctx context.Context, req *mcpbridge.AuthenticateRequest, send func(*mcpbridge.AuthEvent) error) error {
	return m.pl.Call(ctx, func(proc *Process) error {
		if err := m.pl.requireCap(ctx, proc, mcpbridge.CapOAuth, "OAuth for MCP servers"); err != nil {
			return err
		}
		c, err := m.conn(ctx, proc)
		if err != nil {
			return err
		}
		return c.Authenticate(ctx, req, send)
	})
}

// call runs fn with the live process's client, configured.
func (m *MCPBridge) call(ctx context.Context, fn func(mcpbridge.Client) error) error {
	return m.pl.Call(ctx, func(proc *Process) error {
		c, err := m.conn(ctx, proc)
		if err != nil {
			return err
		}
		return fn(c)
	})
}

// conn returns the process's client with the latest configuration sent
// to it.
func (m *MCPBridge) conn(ctx context.Context, proc *Process) (mcpbridge.Client, error) {
	st, err := m.state(ctx, proc)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	last, rev := m.last, m.rev
	m.mu.Unlock()
	st.mu.Lock()
	defer st.mu.Unlock()
	if last != nil && st.rev != rev {
		if proc.Gen > 1 && st.rev == 0 {
			m.pl.log.Debug("configuring the MCP servers again in a new process", "generation", proc.Gen)
		}
		if err := st.client.Configure(ctx, last); err != nil {
			return nil, err
		}
		st.rev = rev
	}
	return st.client, nil
}

// state returns what the process has been told, connecting its client on
// first use. A plugin that does not serve the MCP kind is refused
// readably.
func (m *MCPBridge) state(ctx context.Context, proc *Process) (*mcpState, error) {
	st := proc.State(sdk.KindMCP, func() any { return &mcpState{} }).(*mcpState)
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.client != nil {
		return st, nil
	}
	c, err := dispense[mcpbridge.Client](ctx, proc, m.pl.Binary, sdk.KindMCP, "the MCP bridge")
	if err != nil {
		return nil, err
	}
	st.client = c
	return st, nil
}

var (
	_ mcpbridge.Bridge        = (*MCPBridge)(nil)
	_ mcpbridge.Authenticator = (*MCPBridge)(nil)
)
