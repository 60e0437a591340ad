package main

import (
	"github.com/coyote-cli/coyote/plugins/mcp/bridge"
	"github.com/coyote-cli/coyote/plugins/mcp/oauth"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/mcpbridge"
)

const version = "0.1.0"

func main() {
	b := bridge.New(bridge.Options{
		Logger:       sdk.Logger(),
		Name:         "coyote",
		Version:      version,
		OAuth:        oauthClient,
		ErrNeedsAuth: oauth.ErrNeedsAuth,
	})
	// However the plugin ends (shut down, kernel gone, SIGTERM), every
	// server's process group is ended first.
	sdk.OnExit(b.Close)
	sdk.Serve(sdk.Info{
		Name:        "mcp",
		Version:     version,
		Description: "the MCP bridge: every MCP server connection (stdio, streamable HTTP, SSE), with OAuth",
	}, mcpbridge.Plugin(b.Served()))
}

// oauthClient is the OAuth client of a remote server (package oauth).
func oauthClient(dir string, s mcpbridge.ServerConfig) bridge.OAuthClient {
	srv := oauth.Server{Name: s.Name, URL: s.URL}
	if o := s.OAuth; o != nil {
		srv.ClientID, srv.ClientSecret = o.ClientID, o.ClientSecret
		srv.CallbackPort, srv.RedirectHost = o.CallbackPort, o.RedirectHost
	}
	return oauth.New(dir, srv)
}
