// Package oauth owns OAuth 2.1 for remote (http and sse) MCP servers, as the
// MCP authorization specification describes it: discovery of the server's
// protected-resource metadata (RFC 9728) and of its authorization server's
// metadata (RFC 8414, OpenID Connect discovery as a fallback), dynamic
// client registration (RFC 7591) cached per server, the authorization-code
// flow with PKCE (S256) and a loopback callback, resource indicators
// (RFC 8707) on every authorize and token request, and the stored tokens
// with their refresh.
//
// Two entry points: Client.Authorize runs the interactive flow (the kernel
// shows the URL to the user), and Client.RoundTripper wraps the transport of
// the MCP connection so that requests carry the stored bearer token, which
// it refreshes when it expires or is refused once. The round tripper never
// blocks on the user: a server that wants a token it cannot get is reported
// as an error wrapping ErrNeedsAuth.
//
// Files live in the directory given to New (<cache dir>/oauth):
// mcp_<server>_oauth_tokens.json and mcp_<server>_registration.json, mode
// 0600, written atomically. The package knows nothing of mcp.json, of the
// plugin protocol or of the MCP wire format.
package oauth
