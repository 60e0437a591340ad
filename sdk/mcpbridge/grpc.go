package mcpbridge

import (
	"context"
	"fmt"
	"io"

	goplugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/coyote-cli/coyote/sdk"
	pb "github.com/coyote-cli/coyote/sdk/internal/pb/mcpbridgev1"
)

// Plugin wraps a Bridge for sdk.Serve:
//
//	sdk.Serve(sdk.Info{Name: "mcp", Version: "0.1.0"}, mcpbridge.Plugin(bridge))
//
// The plugin announces CapOAuth when impl implements Authenticator. The
// kernel calls Plugin with a nil implementation to build its side of the
// connection.
func Plugin(impl Bridge) sdk.Plugin {
	return &GRPCPlugin{Impl: impl}
}

// GRPCPlugin carries a Bridge over gRPC: it serves Impl in the plugin
// process and dispenses a client implementing Bridge and Authenticator in
// the kernel.
type GRPCPlugin struct {
	goplugin.NetRPCUnsupportedPlugin
	Impl Bridge
}

// Kind reports sdk.KindMCP.
func (p *GRPCPlugin) Kind() string { return sdk.KindMCP }

// Capabilities reports what the optional interfaces of the implementation
// add.
func (p *GRPCPlugin) Capabilities() []string {
	if _, ok := p.Impl.(Authenticator); ok {
		return []string{CapOAuth}
	}
	return nil
}

// GRPCServer registers the implementation with the plugin's gRPC server.
func (p *GRPCPlugin) GRPCServer(_ *goplugin.GRPCBroker, s *grpc.Server) error {
	pb.RegisterMcpBridgeServer(s, &grpcServer{impl: p.Impl})
	return nil
}

// GRPCClient returns the kernel's Bridge for a connected plugin.
func (p *GRPCPlugin) GRPCClient(_ context.Context, _ *goplugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return NewClient(c), nil
}

// Client is the kernel's Bridge (and Authenticator) over one connection.
// A plugin without CapOAuth answers Authenticate with sdk.ErrUnsupported.
type Client interface {
	Bridge
	Authenticator
}

// NewClient returns the Bridge of the plugin at the other end of c.
func NewClient(c *grpc.ClientConn) Client {
	return &grpcClient{client: pb.NewMcpBridgeClient(c)}
}

// grpcServer adapts a Bridge to the generated service.
type grpcServer struct {
	pb.UnimplementedMcpBridgeServer
	impl Bridge
}

func (s *grpcServer) Configure(ctx context.Context, req *pb.ConfigureRequest) (*pb.ConfigureResponse, error) {
	if err := s.impl.Configure(ctx, configureRequestFromProto(req)); err != nil {
		return nil, sdk.ToStatus(err)
	}
	return &pb.ConfigureResponse{}, nil
}

func (s *grpcServer) Tools(ctx context.Context, req *pb.ToolsRequest) (*pb.ToolsResponse, error) {
	resp, err := s.impl.Tools(ctx, &ToolsRequest{Servers: req.GetServers()})
	if err != nil {
		return nil, sdk.ToStatus(err)
	}
	return toolsResponseToProto(resp), nil
}

func (s *grpcServer) Call(ctx context.Context, req *pb.CallRequest) (*pb.CallResult, error) {
	r, err := s.impl.Call(ctx, &CallRequest{Server: req.GetServer(), Tool: req.GetTool(), Arguments: req.GetArguments()})
	if err != nil {
		return nil, sdk.ToStatus(err)
	}
	if r == nil {
		r = &CallResult{}
	}
	return &pb.CallResult{Text: r.Text, IsError: r.IsError}, nil
}

func (s *grpcServer) Stop(ctx context.Context, req *pb.StopRequest) (*pb.StopResponse, error) {
	if err := s.impl.Stop(ctx, &StopRequest{Servers: req.GetServers()}); err != nil {
		return nil, sdk.ToStatus(err)
	}
	return &pb.StopResponse{}, nil
}

func (s *grpcServer) Authenticate(req *pb.AuthenticateRequest, stream grpc.ServerStreamingServer[pb.AuthEvent]) error {
	a, ok := s.impl.(Authenticator)
	if !ok {
		return sdk.ToStatus(fmt.Errorf("OAuth for MCP servers: %w", sdk.ErrUnsupported))
	}
	err := a.Authenticate(stream.Context(), &AuthenticateRequest{Server: req.GetServer()}, func(ev *AuthEvent) error {
		return stream.Send(&pb.AuthEvent{AuthorizationUrl: ev.AuthorizationURL, Message: ev.Message})
	})
	return sdk.ToStatus(err)
}

// grpcClient is the kernel's Bridge for a plugin process.
type grpcClient struct {
	client pb.McpBridgeClient
}

func (c *grpcClient) Configure(ctx context.Context, req *ConfigureRequest) error {
	_, err := c.client.Configure(ctx, configureRequestToProto(req))
	return sdk.FromStatus(err)
}

func (c *grpcClient) Tools(ctx context.Context, req *ToolsRequest) (*ToolsResponse, error) {
	resp, err := c.client.Tools(ctx, &pb.ToolsRequest{Servers: req.Servers})
	if err != nil {
		return nil, sdk.FromStatus(err)
	}
	return toolsResponseFromProto(resp), nil
}

func (c *grpcClient) Call(ctx context.Context, req *CallRequest) (*CallResult, error) {
	resp, err := c.client.Call(ctx, &pb.CallRequest{Server: req.Server, Tool: req.Tool, Arguments: req.Arguments})
	if err != nil {
		return nil, sdk.FromStatus(err)
	}
	return &CallResult{Text: resp.GetText(), IsError: resp.GetIsError()}, nil
}

func (c *grpcClient) Stop(ctx context.Context, req *StopRequest) error {
	_, err := c.client.Stop(ctx, &pb.StopRequest{Servers: req.Servers})
	return sdk.FromStatus(err)
}

// Authenticate hands the plugin's events to send; an error from send
// cancels the flow.
func (c *grpcClient) Authenticate(ctx context.Context, req *AuthenticateRequest, send func(*AuthEvent) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.client.Authenticate(ctx, &pb.AuthenticateRequest{Server: req.Server})
	if err != nil {
		return sdk.FromStatus(err)
	}
	for {
		msg, err := stream.Recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return sdk.FromStatus(err)
		}
		if err := send(&AuthEvent{AuthorizationURL: msg.GetAuthorizationUrl(), Message: msg.GetMessage()}); err != nil {
			return err
		}
	}
}

var (
	_ sdk.Plugin         = (*GRPCPlugin)(nil)
	_ Client             = (*grpcClient)(nil)
	_ pb.McpBridgeServer = (*grpcServer)(nil)
)
