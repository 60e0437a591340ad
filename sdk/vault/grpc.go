package vault

import (
	"context"
	"fmt"

	goplugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/coyote-cli/coyote/sdk"
	pb "github.com/coyote-cli/coyote/sdk/internal/pb/vaultv1"
)

// Plugin wraps a Vault for sdk.Serve:
//
//	sdk.Serve(sdk.Info{Name: "aws", Version: "0.1.0"}, vault.Plugin(v))
//
// The plugin announces CapSet, CapUpdate, CapDelete and CapList for the
// optional interfaces impl implements. The kernel calls Plugin with a nil
// implementation to build its side of the connection.
func Plugin(impl Vault) sdk.Plugin {
	return &GRPCPlugin{Impl: impl}
}

// GRPCPlugin carries a Vault over gRPC: it serves Impl in the plugin
// process and dispenses a Client in the kernel.
type GRPCPlugin struct {
	goplugin.NetRPCUnsupportedPlugin
	Impl Vault
}

// Kind reports sdk.KindVault.
func (p *GRPCPlugin) Kind() string { return sdk.KindVault }

// Capabilities reports what the optional interfaces of the implementation
// add.
func (p *GRPCPlugin) Capabilities() []string {
	var caps []string
	if _, ok := p.Impl.(Setter); ok {
		caps = append(caps, CapSet)
	}
	if _, ok := p.Impl.(Updater); ok {
		caps = append(caps, CapUpdate)
	}
	if _, ok := p.Impl.(Deleter); ok {
		caps = append(caps, CapDelete)
	}
	if _, ok := p.Impl.(Lister); ok {
		caps = append(caps, CapList)
	}
	return caps
}

// GRPCServer registers the implementation with the plugin's gRPC server.
func (p *GRPCPlugin) GRPCServer(_ *goplugin.GRPCBroker, s *grpc.Server) error {
	pb.RegisterVaultServer(s, &grpcServer{impl: p.Impl})
	return nil
}

// GRPCClient returns the kernel's Client for a connected plugin.
func (p *GRPCPlugin) GRPCClient(_ context.Context, _ *goplugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return NewClient(c), nil
}

// Client is the kernel's side of a secrets provider plugin: every method,
// the optional ones answering sdk.ErrUnsupported when the plugin lacks
// them (the kernel checks the capabilities first).
type Client interface {
	Vault
	Setter
	Updater
	Deleter
	Lister
}

// NewClient returns the Client of the plugin at the other end of c.
func NewClient(c *grpc.ClientConn) Client {
	return &grpcClient{client: pb.NewVaultClient(c)}
}

// grpcServer adapts a Vault to the generated service.
type grpcServer struct {
	pb.UnimplementedVaultServer
	impl Vault
}

func unsupported(what string) error {
	return sdk.ToStatus(fmt.Errorf("%s secrets: %w", what, sdk.ErrUnsupported))
}

func (s *grpcServer) Configure(ctx context.Context, req *pb.ConfigureRequest) (*pb.ConfigureResponse, error) {
	if err := s.impl.Configure(ctx, &ConfigureRequest{Settings: req.GetSettings()}); err != nil {
		return nil, sdk.ToStatus(err)
	}
	return &pb.ConfigureResponse{}, nil
}

func (s *grpcServer) Get(ctx context.Context, req *pb.GetRequest) (*pb.GetResponse, error) {
	resp, err := s.impl.Get(ctx, &GetRequest{Names: req.GetNames()})
	if err != nil {
		return nil, sdk.ToStatus(err)
	}
	out := &pb.GetResponse{Missing: resp.Missing}
	for _, n := range req.GetNames() {
		if v, ok := resp.Values[n]; ok {
			out.Secrets = append(out.Secrets, &pb.Secret{Name: n, Value: v})
		}
	}
	return out, nil
}

func (s *grpcServer) Set(ctx context.Context, req *pb.SetRequest) (*pb.SetResponse, error) {
	st, ok := s.impl.(Setter)
	if !ok {
		return nil, unsupported("adding")
	}
	if err := st.Set(ctx, &SetRequest{Name: req.GetName(), Value: req.GetValue()}); err != nil {
		return nil, sdk.ToStatus(err)
	}
	return &pb.SetResponse{}, nil
}

func (s *grpcServer) Update(ctx context.Context, req *pb.SetRequest) (*pb.SetResponse, error) {
	u, ok := s.impl.(Updater)
	if !ok {
		return nil, unsupported("updating")
	}
	if err := u.Update(ctx, &SetRequest{Name: req.GetName(), Value: req.GetValue()}); err != nil {
		return nil, sdk.ToStatus(err)
	}
	return &pb.SetResponse{}, nil
}

func (s *grpcServer) Delete(ctx context.Context, req *pb.DeleteRequest) (*pb.DeleteResponse, error) {
	d, ok := s.impl.(Deleter)
	if !ok {
		return nil, unsupported("deleting")
	}
	if err := d.Delete(ctx, &DeleteRequest{Name: req.GetName()}); err != nil {
		return nil, sdk.ToStatus(err)
	}
	return &pb.DeleteResponse{}, nil
}

func (s *grpcServer) List(ctx context.Context, _ *pb.ListRequest) (*pb.ListResponse, error) {
	l, ok := s.impl.(Lister)
	if !ok {
		return nil, unsupported("listing")
	}
	names, err := l.List(ctx)
	if err != nil {
		return nil, sdk.ToStatus(err)
	}
	return &pb.ListResponse{Names: names}, nil
}

// grpcClient is the kernel's Client for a plugin process.
type grpcClient struct {
	client pb.VaultClient
}

func (c *grpcClient) Configure(ctx context.Context, req *ConfigureRequest) error {
	_, err := c.client.Configure(ctx, &pb.ConfigureRequest{Settings: req.Settings})
	return sdk.FromStatus(err)
}

func (c *grpcClient) Get(ctx context.Context, req *GetRequest) (*GetResponse, error) {
	resp, err := c.client.Get(ctx, &pb.GetRequest{Names: req.Names})
	if err != nil {
		return nil, sdk.FromStatus(err)
	}
	out := &GetResponse{Values: make(map[string]string, len(resp.GetSecrets())), Missing: resp.GetMissing()}
	for _, s := range resp.GetSecrets() {
		out.Values[s.GetName()] = s.GetValue()
	}
	return out, nil
}

func (c *grpcClient) Set(ctx context.Context, req *SetRequest) error {
	_, err := c.client.Set(ctx, &pb.SetRequest{Name: req.Name, Value: req.Value})
	return sdk.FromStatus(err)
}

func (c *grpcClient) Update(ctx context.Context, req *SetRequest) error {
	_, err := c.client.Update(ctx, &pb.SetRequest{Name: req.Name, Value: req.Value})
	return sdk.FromStatus(err)
}

func (c *grpcClient) Delete(ctx context.Context, req *DeleteRequest) error {
	_, err := c.client.Delete(ctx, &pb.DeleteRequest{Name: req.Name})
	return sdk.FromStatus(err)
}

func (c *grpcClient) List(ctx context.Context) ([]string, error) {
	resp, err := c.client.List(ctx, &pb.ListRequest{})
	if err != nil {
		return nil, sdk.FromStatus(err)
	}
	return resp.GetNames(), nil
}

var (
	_ sdk.Plugin     = (*GRPCPlugin)(nil)
	_ Client         = (*grpcClient)(nil)
	_ pb.VaultServer = (*grpcServer)(nil)
)
