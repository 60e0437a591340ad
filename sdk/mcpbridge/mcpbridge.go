// Package mcpbridge is the contract between the Coyote kernel and the MCP
// bridge plugin (coyote-mcp), the one plugin process that owns every MCP
// server connection: the servers' configuration, listing their tools,
// calling them, stopping them and, optionally, the OAuth flow of remote
// servers. The kernel never speaks MCP itself, so a misbehaving server or
// transport can take down only the bridge, which the kernel restarts.
//
// The types here are the public, hand-written contract; grpc.go and
// convert.go are the only files that know the generated wire types.
package mcpbridge

import "context"

// Bridge is implemented by the MCP plugin and by the kernel's client.
type Bridge interface {
	// Configure replaces the servers the bridge knows (the merged user +
	// workspace mcp.json, {{SECRET}}s already resolved by the kernel). It
	// starts nothing. A running server whose config is unchanged keeps
	// running; one whose config changed or that is gone is stopped.
	Configure(ctx context.Context, req *ConfigureRequest) error
	// Tools returns the tools of each named server, starting those not
	// running (concurrently). A server that cannot start, or that needs
	// OAuth and has no token, is reported in its entry (Error /
	// NeedsAuth), never as an error of the call.
	Tools(ctx context.Context, req *ToolsRequest) (*ToolsResponse, error)
	// Call invokes one tool on one server. A tool's own failure (MCP
	// isError) is Result.IsError with its text, not an error. A server
	// that dies mid-call is an error naming the server and how it ended;
	// the next call that needs it starts it again.
	Call(ctx context.Context, req *CallRequest) (*CallResult, error)
	// Stop ends the named servers (all when Servers is empty).
	Stop(ctx context.Context, req *StopRequest) error
}

// Authenticator is optional (capability CapOAuth): it runs the OAuth flow
// of a remote server. send receives the authorization URL to show the user
// (the kernel prints it and tries to open a browser), then progress
// messages; Authenticate returns when the token is stored.
type Authenticator interface {
	Authenticate(ctx context.Context, req *AuthenticateRequest, send func(*AuthEvent) error) error
}

// CapOAuth is announced by a bridge that implements Authenticator.
const CapOAuth = "oauth"

// Server transport types.
const (
	TypeStdio = "stdio"
	TypeHTTP  = "http" // streamable HTTP
	TypeSSE   = "sse"  // the legacy HTTP+SSE transport
)

// ServerConfig is one MCP server.
type ServerConfig struct {
	Name    string
	Type    string            // TypeStdio, TypeHTTP or TypeSSE
	Command string            // stdio
	Args    []string          // stdio
	Env     map[string]string // stdio, added to a minimal environment
	Cwd     string            // stdio
	URL     string            // http, sse
	Headers map[string]string // http, sse: static headers
	OAuth   *OAuthConfig      // http, sse: optional
}

// OAuthConfig is what mcp.json says about a remote server's OAuth client.
type OAuthConfig struct {
	ClientID, ClientSecret string
	CallbackPort           int    // 0: any free port
	RedirectHost           string // "" means localhost
}

// ConfigureRequest replaces the servers the bridge knows.
type ConfigureRequest struct {
	Servers  []ServerConfig
	OAuthDir string // <cache dir>/oauth: tokens and client registrations
}

// ToolsRequest names the servers whose tools are wanted.
type ToolsRequest struct{ Servers []string }

// ToolsResponse has one entry per requested server, in request order.
type ToolsResponse struct{ Servers []ServerTools }

// ServerTools is the tools of one server, or why there are none.
type ServerTools struct {
	Server    string
	Tools     []Tool
	Error     string // could not start or list; one line
	NeedsAuth bool   // remote server that needs `coyote --auth-mcp <server>`
}

// Tool is one tool a server offers.
type Tool struct {
	Name, Description string
	InputSchema       []byte // JSON Schema object
}

// CallRequest invokes one tool.
type CallRequest struct {
	Server, Tool string
	Arguments    []byte // JSON object (may be empty → {})
}

// CallResult is what a tool returned.
type CallResult struct {
	// Text is the tool's content: text parts joined with "\n", non-text
	// parts as their JSON, structured content as JSON when there is no
	// text.
	Text    string
	IsError bool
}

// StopRequest names the servers to end; none means all.
type StopRequest struct{ Servers []string }

// AuthenticateRequest names the remote server to authorize.
type AuthenticateRequest struct{ Server string }

// AuthEvent is one step of an OAuth flow.
type AuthEvent struct {
	AuthorizationURL string // set once: the URL the user must open
	Message          string // progress, one line
}
