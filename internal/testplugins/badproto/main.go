// Command badproto is a test plugin that speaks only plugin protocol 2,
// which no kernel speaks yet.
package main

import (
	goplugin "github.com/hashicorp/go-plugin"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/provider"
)

func main() {
	goplugin.Serve(&goplugin.ServeConfig{
		HandshakeConfig: sdk.Handshake,
		VersionedPlugins: map[int]goplugin.PluginSet{
			2: sdk.PluginSet(sdk.Info{Name: "future", Version: "9.0.0"}, provider.Plugin(nil)),
		},
		GRPCServer: goplugin.DefaultGRPCServer,
	})
}
