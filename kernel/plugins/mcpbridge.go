package plugins

import (
	"context"
	"slices"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/mcpbridge"
)

// mcpKind declares the MCP bridge, coyote-mcp. The setup each process is
// given is the last Configure: the servers it may run.
var mcpKind = Declare(&Kind[mcpbridge.Client, mcpbridge.ConfigureRequest]{
	Name:      sdk.KindMCP,
	Noun:      "the MCP bridge",
	Singleton: true,
	Plugin:    mcpbridge.Plugin(nil),
	Replay: func(ctx context.Context, c mcpbridge.Client, _ string, req mcpbridge.ConfigureRequest) error {
		return c.Configure(ctx, &req)
	},
})

// mcpServers is the key of the bridge's one piece of setup.
const mcpServers = "servers"

// MCPBridge is the kernel's supervised handle on the MCP bridge plugin
// (coyote-mcp). It implements mcpbridge.Bridge and, for a plugin with
// mcpbridge.CapOAuth, mcpbridge.Authenticator. It remembers the last
// Configure and sends it to every new process before its first request,
// so a bridge that crashed (reported once as a *CrashError) comes back
// with the same servers on the next call. Configure and Stop start no
// process; Tools, Call and Authenticate do.
type MCPBridge struct {
	h *Handle[mcpbridge.Client, mcpbridge.ConfigureRequest]
}

// MCP returns the handle of the MCP bridge plugin, without starting it.
func (h *Host) MCP() (*MCPBridge, error) {
	hd, err := handleOf(h, mcpKind, "")
	if err != nil {
		return nil, err
	}
	return typedHandle(hd, func(hd *Handle[mcpbridge.Client, mcpbridge.ConfigureRequest]) *MCPBridge { return &MCPBridge{h: hd} }), nil
}

// Plugin is the supervised plugin behind the handle.
func (m *MCPBridge) Plugin() *Plugin { return m.h.Plugin() }

// Configure replaces the servers the bridge knows. The configuration is
// sent to the live process now, or to the next one before its first
// request.
func (m *MCPBridge) Configure(ctx context.Context, req *mcpbridge.ConfigureRequest) error {
	cp := *req
	cp.Servers = slices.Clone(req.Servers)
	m.h.Remember(mcpServers, cp)
	if m.Plugin().live() == nil {
		return nil
	}
	return m.h.CallSetUp(ctx, func(*Process, mcpbridge.Client) error { return nil })
}

// Tools lists the tools of the named servers (see mcpbridge.Bridge).
func (m *MCPBridge) Tools(ctx context.Context, req *mcpbridge.ToolsRequest) (resp *mcpbridge.ToolsResponse, err error) {
	err = m.h.CallSetUp(ctx, func(_ *Process, c mcpbridge.Client) error {
		resp, err = c.Tools(ctx, req)
		return err
	})
	return resp, err
}

// Call invokes one tool of one server.
func (m *MCPBridge) Call(ctx context.Context, req *mcpbridge.CallRequest) (resp *mcpbridge.CallResult, err error) {
	err = m.h.CallSetUp(ctx, func(_ *Process, c mcpbridge.Client) error {
		resp, err = c.Call(ctx, req)
		return err
	})
	return resp, err
}

// Stop ends servers. With no live process nothing runs, and nothing is
// started.
func (m *MCPBridge) Stop(ctx context.Context, req *mcpbridge.StopRequest) error {
	if m.Plugin().live() == nil {
		return nil
	}
	return m.h.CallSetUp(ctx, func(_ *Process, c mcpbridge.Client) error { return c.Stop(ctx, req) })
}

// Authenticate runs the OAuth flow of a remote server. A plugin without
// the oauth capability gets a readable sdk.ErrUnsupported.
func (m *MCPBridge) Authenticate(ctx context.Context, req *mcpbridge.AuthenticateRequest, send func(*mcpbridge.AuthEvent) error) error {
	return m.h.CallSetUp(ctx, func(proc *Process, c mcpbridge.Client) error {
		if err := m.Plugin().requireCap(proc, mcpbridge.CapOAuth, "OAuth for MCP servers"); err != nil {
			return err
		}
		return c.Authenticate(ctx, req, send)
	})
}

var (
	_ mcpbridge.Bridge        = (*MCPBridge)(nil)
	_ mcpbridge.Authenticator = (*MCPBridge)(nil)
)
