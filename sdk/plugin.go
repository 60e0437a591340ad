package sdk

import (
	"context"

	goplugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/coyote-cli/coyote/sdk/internal/pb/sdkv1"
)

// Handshake is shared by the kernel and every plugin. The magic cookie is
// not a security measure: it only lets a plugin binary that a user runs by
// hand explain itself instead of printing protocol noise.
var Handshake = goplugin.HandshakeConfig{
	MagicCookieKey:   "COYOTE_PLUGIN_COOKIE",
	MagicCookieValue: "5a0d4c1e-coyote-plugin-1b7f",
}

// Environment variables the kernel sets for a plugin process.
const (
	// EnvLifelineFD names the file descriptor of a pipe whose write end the
	// kernel holds. When it reads EOF the kernel has gone, and the plugin
	// exits.
	EnvLifelineFD = "COYOTE_PLUGIN_LIFELINE_FD"
	// EnvLogLevel is the level the plugin logs at ("trace" … "error").
	EnvLogLevel = "COYOTE_PLUGIN_LOG_LEVEL"
)

// Kinds of plugins. A plugin binary is named coyote-<kind>-<name>.
const (
	KindProvider = "provider"
	KindRAG      = "rag"
	KindMCP      = "mcp"
	KindSandbox  = "sandbox"
	KindVault    = "vault"
)

// describeName is the key of the Describe service in every plugin set.
const describeName = "describe"

// Plugin is one kind served by a plugin binary, wrapped for the wire. Kind
// packages construct it (for example provider.Plugin); plugin authors pass it
// to Serve and never implement it themselves.
type Plugin interface {
	goplugin.Plugin
	goplugin.GRPCPlugin
	// Kind is the plugin kind, one of the Kind constants.
	Kind() string
	// Capabilities are what the implementation offers beyond the kind's
	// required methods, found from the optional interfaces it implements.
	Capabilities() []string
}

// Info says who a plugin is. It is reported by Describe.
type Info struct {
	// Name is the plugin's name, the <name> of coyote-<kind>-<name>.
	Name        string
	Version     string
	Description string
	// Capabilities are added to those the served kinds report.
	Capabilities []string
}

// Description is what a plugin reports about itself through Describe.
type Description struct {
	Name            string
	Kinds           []string
	Version         string
	SDKVersion      string
	ProtocolVersion int
	Capabilities    []string
	Description     string
}

// Has reports whether the plugin announced capability c.
func (d *Description) Has(c string) bool {
	for _, x := range d.Capabilities {
		if x == c {
			return true
		}
	}
	return false
}

// PluginSet builds the go-plugin set for a plugin process (with info and
// implementations) or for the kernel (zero Info and plugins without
// implementations). It always includes the Describe service.
func PluginSet(info Info, plugins ...Plugin) goplugin.PluginSet {
	desc := &Description{
		Name:            info.Name,
		Version:         info.Version,
		SDKVersion:      Version,
		ProtocolVersion: ProtocolVersion,
		Description:     info.Description,
	}
	set := goplugin.PluginSet{}
	seen := map[string]bool{}
	addCap := func(c string) {
		if !seen[c] {
			seen[c] = true
			desc.Capabilities = append(desc.Capabilities, c)
		}
	}
	for _, p := range plugins {
		set[p.Kind()] = p
		desc.Kinds = append(desc.Kinds, p.Kind())
		for _, c := range p.Capabilities() {
			addCap(c)
		}
	}
	for _, c := range info.Capabilities {
		addCap(c)
	}
	set[describeName] = &describePlugin{desc: desc}
	return set
}

// VersionedPlugins is PluginSet keyed by ProtocolVersion, the form go-plugin
// negotiates versions with.
func VersionedPlugins(info Info, plugins ...Plugin) map[int]goplugin.PluginSet {
	return map[int]goplugin.PluginSet{ProtocolVersion: PluginSet(info, plugins...)}
}

// Describer is the kernel's handle on a plugin's Describe service.
type Describer interface {
	Describe(ctx context.Context) (*Description, error)
}

// DispenseDescriber returns the Describe client of a connected plugin.
func DispenseDescriber(c goplugin.ClientProtocol) (Describer, error) {
	raw, err := c.Dispense(describeName)
	if err != nil {
		return nil, err
	}
	return raw.(Describer), nil
}

// describePlugin serves and dispenses the Describe service.
type describePlugin struct {
	goplugin.NetRPCUnsupportedPlugin
	desc *Description
}

func (p *describePlugin) GRPCServer(_ *goplugin.GRPCBroker, s *grpc.Server) error {
	sdkv1.RegisterPluginServer(s, &describeServer{desc: p.desc})
	return nil
}

func (p *describePlugin) GRPCClient(_ context.Context, _ *goplugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return &describeClient{client: sdkv1.NewPluginClient(c)}, nil
}

type describeServer struct {
	sdkv1.UnimplementedPluginServer
	desc *Description
}

func (s *describeServer) Describe(context.Context, *sdkv1.DescribeRequest) (*sdkv1.DescribeResponse, error) {
	d := s.desc
	return &sdkv1.DescribeResponse{
		Name:            d.Name,
		Kinds:           d.Kinds,
		Version:         d.Version,
		SdkVersion:      d.SDKVersion,
		ProtocolVersion: int32(d.ProtocolVersion),
		Capabilities:    d.Capabilities,
		Description:     d.Description,
	}, nil
}

type describeClient struct {
	client sdkv1.PluginClient
}

func (c *describeClient) Describe(ctx context.Context) (*Description, error) {
	r, err := c.client.Describe(ctx, &sdkv1.DescribeRequest{})
	if err != nil {
		return nil, FromStatus(err)
	}
	return &Description{
		Name:            r.GetName(),
		Kinds:           r.GetKinds(),
		Version:         r.GetVersion(),
		SDKVersion:      r.GetSdkVersion(),
		ProtocolVersion: int(r.GetProtocolVersion()),
		Capabilities:    r.GetCapabilities(),
		Description:     r.GetDescription(),
	}, nil
}

var (
	_ goplugin.GRPCPlugin = (*describePlugin)(nil)
	_ Describer           = (*describeClient)(nil)
)
