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
// Metadata is trusted only as far as the RFCs allow: resource metadata must
// be for the server's exact URL (RFC 9728 §3.3), authorization server
// metadata for the issuer it was fetched for (RFC 8414 §3.3), the server
// must state PKCE S256 support, and the issuer and the authorization, token
// and registration endpoints must be https unless on a loopback host. A
// server on a public address cannot have the client connect to internal
// addresses (netguard.go). The token goes only to the server's origin; the
// grant and the client's credentials are not redirected to another origin.
// The callback ignores (404) requests without the flow's state, the flow
// ends after 5 minutes, and text from servers is shown without control
// characters.
//
// Files live in the directory given to New (<cache dir>/oauth):
// mcp_<server>_oauth_tokens.json and mcp_<server>_registration.json, mode
// 0600, written atomically. The package knows nothing of mcp.json, of the
// plugin protocol or of the MCP wire format.
package oauth
