package sandbox

import (
	"context"

	goplugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/coyote-cli/coyote/sdk"
	pb "github.com/coyote-cli/coyote/sdk/internal/pb/sandboxv1"
)

// Plugin wraps a Launcher for sdk.Serve. The kernel calls it with a nil
// implementation to build its side of the connection.
func Plugin(impl Launcher) sdk.Plugin { return &GRPCPlugin{Impl: impl} }

// GRPCPlugin carries a Launcher over gRPC: it serves Impl in the plugin
// process and dispenses a Launcher client in the kernel.
type GRPCPlugin struct {
	goplugin.NetRPCUnsupportedPlugin
	Impl Launcher
}

// Kind reports sdk.KindSandbox.
func (p *GRPCPlugin) Kind() string { return sdk.KindSandbox }

// Capabilities are per backend (Backends), so the kind adds none.
func (p *GRPCPlugin) Capabilities() []string { return nil }

// GRPCServer registers the implementation with the plugin's gRPC server.
func (p *GRPCPlugin) GRPCServer(_ *goplugin.GRPCBroker, s *grpc.Server) error {
	pb.RegisterSandboxServer(s, &grpcServer{impl: p.Impl})
	return nil
}

// GRPCClient returns the kernel's Launcher for a connected plugin.
func (p *GRPCPlugin) GRPCClient(_ context.Context, _ *goplugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return NewClient(c), nil
}

// NewClient returns the Launcher of the plugin at the other end of c.
func NewClient(c *grpc.ClientConn) Launcher { return &grpcClient{client: pb.NewSandboxClient(c)} }

type grpcServer struct {
	pb.UnimplementedSandboxServer
	impl Launcher
}

func (s *grpcServer) Backends(ctx context.Context, _ *pb.BackendsRequest) (*pb.BackendsResponse, error) {
	r, err := s.impl.Backends(ctx, &BackendsRequest{})
	if err != nil {
		return nil, sdk.ToStatus(err)
	}
	out := &pb.BackendsResponse{}
	for _, b := range r.Backends {
		out.Backends = append(out.Backends, &pb.Backend{Name: b.Name, Available: b.Available, Reason: b.Reason, Capabilities: b.Capabilities})
	}
	return out, nil
}

func (s *grpcServer) Prepare(ctx context.Context, req *pb.PrepareRequest) (*pb.PrepareResponse, error) {
	r := &PrepareRequest{
		Backend: req.GetBackend(), Name: req.GetName(), Workspace: req.GetWorkspace(), StateDir: req.GetStateDir(),
		Fresh: req.GetFresh(), ConfigSeed: req.GetConfigSeed(), OAuthDir: req.GetOauthDir(),
		Options: req.GetOptions(), Mixins: req.GetMixins(),
	}
	for _, sc := range req.GetSecrets() {
		r.Secrets = append(r.Secrets, Secret{Name: sc.GetName(), Value: sc.GetValue(), Hosts: sc.GetHosts()})
	}
	resp, err := s.impl.Prepare(ctx, r)
	if err != nil {
		return nil, sdk.ToStatus(err)
	}
	return &pb.PrepareResponse{Backend: resp.Backend, Name: resp.Name, Created: resp.Created, Home: resp.Home, Notes: resp.Notes}, nil
}

func (s *grpcServer) Command(ctx context.Context, req *pb.CommandRequest) (*pb.CommandResponse, error) {
	r := &CommandRequest{
		Backend: req.GetBackend(), Name: req.GetName(), Workspace: req.GetWorkspace(), StateDir: req.GetStateDir(),
		Argv: req.GetArgv(), Env: req.GetEnv(), Dir: req.GetDir(), Network: req.GetNetwork(), TTY: req.GetTty(),
		Options: req.GetOptions(), Ephemeral: req.GetEphemeral(),
	}
	for _, m := range req.GetMounts() {
		r.Mounts = append(r.Mounts, Mount{Source: m.GetSource(), Target: m.GetTarget(), Mode: m.GetMode()})
	}
	resp, err := s.impl.Command(ctx, r)
	if err != nil {
		return nil, sdk.ToStatus(err)
	}
	return &pb.CommandResponse{Argv: resp.Argv, Env: resp.Env}, nil
}

func (s *grpcServer) List(ctx context.Context, req *pb.ListRequest) (*pb.ListResponse, error) {
	resp, err := s.impl.List(ctx, &ListRequest{Backend: req.GetBackend(), StateDir: req.GetStateDir()})
	if err != nil {
		return nil, sdk.ToStatus(err)
	}
	out := &pb.ListResponse{}
	for _, e := range resp.Environments {
		out.Environments = append(out.Environments, &pb.Environment{Backend: e.Backend, Name: e.Name, Workspace: e.Workspace, Detail: e.Detail})
	}
	return out, nil
}

func (s *grpcServer) Remove(ctx context.Context, req *pb.RemoveRequest) (*pb.RemoveResponse, error) {
	resp, err := s.impl.Remove(ctx, &RemoveRequest{Backend: req.GetBackend(), Name: req.GetName(), StateDir: req.GetStateDir()})
	if err != nil {
		return nil, sdk.ToStatus(err)
	}
	return &pb.RemoveResponse{Removed: resp.Removed}, nil
}

type grpcClient struct {
	client pb.SandboxClient
}

func (c *grpcClient) Backends(ctx context.Context, _ *BackendsRequest) (*BackendsResponse, error) {
	r, err := c.client.Backends(ctx, &pb.BackendsRequest{})
	if err != nil {
		return nil, sdk.FromStatus(err)
	}
	out := &BackendsResponse{}
	for _, b := range r.GetBackends() {
		out.Backends = append(out.Backends, Backend{Name: b.GetName(), Available: b.GetAvailable(), Reason: b.GetReason(), Capabilities: b.GetCapabilities()})
	}
	return out, nil
}

func (c *grpcClient) Prepare(ctx context.Context, req *PrepareRequest) (*PrepareResponse, error) {
	r := &pb.PrepareRequest{
		Backend: req.Backend, Name: req.Name, Workspace: req.Workspace, StateDir: req.StateDir,
		Fresh: req.Fresh, ConfigSeed: req.ConfigSeed, OauthDir: req.OAuthDir, Options: req.Options, Mixins: req.Mixins,
	}
	for _, s := range req.Secrets {
		r.Secrets = append(r.Secrets, &pb.Secret{Name: s.Name, Value: s.Value, Hosts: s.Hosts})
	}
	resp, err := c.client.Prepare(ctx, r)
	if err != nil {
		return nil, sdk.FromStatus(err)
	}
	return &PrepareResponse{Backend: resp.GetBackend(), Name: resp.GetName(), Created: resp.GetCreated(), Home: resp.GetHome(), Notes: resp.GetNotes()}, nil
}

func (c *grpcClient) Command(ctx context.Context, req *CommandRequest) (*CommandResponse, error) {
	r := &pb.CommandRequest{
		Backend: req.Backend, Name: req.Name, Workspace: req.Workspace, StateDir: req.StateDir,
		Argv: req.Argv, Env: req.Env, Dir: req.Dir, Network: req.Network, Tty: req.TTY,
		Options: req.Options, Ephemeral: req.Ephemeral,
	}
	for _, m := range req.Mounts {
		r.Mounts = append(r.Mounts, &pb.Mount{Source: m.Source, Target: m.Target, Mode: m.Mode})
	}
	resp, err := c.client.Command(ctx, r)
	if err != nil {
		return nil, sdk.FromStatus(err)
	}
	return &CommandResponse{Argv: resp.GetArgv(), Env: resp.GetEnv()}, nil
}

func (c *grpcClient) List(ctx context.Context, req *ListRequest) (*ListResponse, error) {
	resp, err := c.client.List(ctx, &pb.ListRequest{Backend: req.Backend, StateDir: req.StateDir})
	if err != nil {
		return nil, sdk.FromStatus(err)
	}
	out := &ListResponse{}
	for _, e := range resp.GetEnvironments() {
		out.Environments = append(out.Environments, Environment{Backend: e.GetBackend(), Name: e.GetName(), Workspace: e.GetWorkspace(), Detail: e.GetDetail()})
	}
	return out, nil
}

func (c *grpcClient) Remove(ctx context.Context, req *RemoveRequest) (*RemoveResponse, error) {
	resp, err := c.client.Remove(ctx, &pb.RemoveRequest{Backend: req.Backend, Name: req.Name, StateDir: req.StateDir})
	if err != nil {
		return nil, sdk.FromStatus(err)
	}
	return &RemoveResponse{Removed: resp.GetRemoved()}, nil
}

var (
	_ sdk.Plugin       = (*GRPCPlugin)(nil)
	_ Launcher         = (*grpcClient)(nil)
	_ pb.SandboxServer = (*grpcServer)(nil)
)
