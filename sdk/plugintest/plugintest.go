// Package plugintest runs a plugin implementation over real gRPC inside one
// test process, so plugin tests need no built binaries and still exercise the
// wire: conversions, streaming, error mapping and cancellation.
//
//	func TestEcho(t *testing.T) {
//		p := plugintest.Provider(t, sdk.Info{Name: "echo"}, &echo{})
//		// p is the kernel's view of the plugin: call it like the kernel does.
//	}
package plugintest

import (
	"context"
	"testing"

	goplugin "github.com/hashicorp/go-plugin"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// Conn is a kernel-side connection to plugins served in this process.
type Conn struct {
	client goplugin.ClientProtocol
}

// Serve serves the plugins over a real gRPC connection in this process and
// returns the kernel's side of it. Everything is stopped when the test ends.
func Serve(t testing.TB, info sdk.Info, plugins ...sdk.Plugin) *Conn {
	t.Helper()
	client, server := goplugin.TestPluginGRPCConn(t, false, sdk.PluginSet(info, plugins...))
	t.Cleanup(func() {
		// Stop the server first: Close asks the plugin side to stop as well,
		// and two concurrent stops race inside go-plugin.
		server.Stop()
		_ = client.Close()
	})
	return &Conn{client: client}
}

// Dispense returns the kernel's client for one kind, as the plugin host does.
func (c *Conn) Dispense(t testing.TB, kind string) any {
	t.Helper()
	raw, err := c.client.Dispense(kind)
	if err != nil {
		t.Fatalf("dispense %s: %v", kind, err)
	}
	return raw
}

// Describe calls the plugin's Describe over the wire.
func (c *Conn) Describe(t testing.TB) *sdk.Description {
	t.Helper()
	d, err := sdk.DispenseDescriber(c.client)
	if err != nil {
		t.Fatalf("dispense describe: %v", err)
	}
	desc, err := d.Describe(context.Background())
	if err != nil {
		t.Fatalf("describe: %v", err)
	}
	return desc
}

// Provider serves impl and returns the kernel's Provider for it.
func Provider(t testing.TB, info sdk.Info, impl provider.Provider) provider.Provider {
	t.Helper()
	return Serve(t, info, provider.Plugin(impl)).Dispense(t, sdk.KindProvider).(provider.Provider)
}
