package provider

import (
	"context"
	"errors"
	"fmt"
	"io"

	goplugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/coyote-cli/coyote/sdk"
	pb "github.com/coyote-cli/coyote/sdk/internal/pb/providerv1"
)

// Plugin wraps a Provider for sdk.Serve. The kernel calls it with a nil
// implementation to build its side of the connection.
func Plugin(impl Provider) sdk.Plugin {
	return &GRPCPlugin{Impl: impl}
}

// GRPCPlugin carries a Provider over gRPC: it serves Impl in the plugin
// process and dispenses a client implementing Provider in the kernel.
type GRPCPlugin struct {
	goplugin.NetRPCUnsupportedPlugin
	Impl Provider
}

// Kind reports sdk.KindProvider.
func (p *GRPCPlugin) Kind() string { return sdk.KindProvider }

// Capabilities reports what every provider plugin offers, plus what the
// optional interfaces of the implementation add.
func (p *GRPCPlugin) Capabilities() []string {
	caps := []string{CapChat, CapStreaming}
	if _, ok := p.Impl.(Embedder); ok {
		caps = append(caps, CapEmbeddings)
	}
	if _, ok := p.Impl.(Reranker); ok {
		caps = append(caps, CapRerank)
	}
	return caps
}

// GRPCServer registers the implementation with the plugin's gRPC server.
func (p *GRPCPlugin) GRPCServer(_ *goplugin.GRPCBroker, s *grpc.Server) error {
	pb.RegisterProviderServer(s, &grpcServer{impl: p.Impl})
	return nil
}

// GRPCClient returns the kernel's Provider for a connected plugin.
func (p *GRPCPlugin) GRPCClient(_ context.Context, _ *goplugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return &grpcClient{client: pb.NewProviderClient(c)}, nil
}

// grpcServer adapts a Provider to the generated service.
type grpcServer struct {
	pb.UnimplementedProviderServer
	impl Provider
}

func (s *grpcServer) Configure(ctx context.Context, req *pb.ConfigureRequest) (*pb.ConfigureResponse, error) {
	client, err := clientFromProto(req.GetClient())
	if err != nil {
		return nil, sdk.ToStatus(errors.Join(err, sdk.ErrInvalidArgument))
	}
	resp, err := s.impl.Configure(ctx, &ConfigureRequest{Client: client})
	if err != nil {
		return nil, sdk.ToStatus(err)
	}
	if resp == nil {
		resp = &ConfigureResponse{}
	}
	return &pb.ConfigureResponse{ApiBase: resp.APIBase}, nil
}

func (s *grpcServer) ListModels(ctx context.Context, req *pb.ListModelsRequest) (*pb.ListModelsResponse, error) {
	resp, err := s.impl.ListModels(ctx, &ListModelsRequest{Client: req.GetClient()})
	if err != nil {
		return nil, sdk.ToStatus(err)
	}
	return &pb.ListModelsResponse{Models: modelsToProto(resp.Models)}, nil
}

func (s *grpcServer) Chat(req *pb.ChatRequest, stream grpc.ServerStreamingServer[pb.ChatEvent]) error {
	err := s.impl.Chat(stream.Context(), chatRequestFromProto(req), func(ev *ChatEvent) error {
		return stream.Send(chatEventToProto(ev))
	})
	return sdk.ToStatus(err)
}

func (s *grpcServer) Embed(ctx context.Context, req *pb.EmbedRequest) (*pb.EmbedResponse, error) {
	e, ok := s.impl.(Embedder)
	if !ok {
		return nil, sdk.ToStatus(fmt.Errorf("embeddings: %w", sdk.ErrUnsupported))
	}
	resp, err := e.Embed(ctx, embedRequestFromProto(req))
	if err != nil {
		return nil, sdk.ToStatus(err)
	}
	return embedResponseToProto(resp), nil
}

func (s *grpcServer) Rerank(ctx context.Context, req *pb.RerankRequest) (*pb.RerankResponse, error) {
	r, ok := s.impl.(Reranker)
	if !ok {
		return nil, sdk.ToStatus(fmt.Errorf("rerank: %w", sdk.ErrUnsupported))
	}
	resp, err := r.Rerank(ctx, rerankRequestFromProto(req))
	if err != nil {
		return nil, sdk.ToStatus(err)
	}
	return rerankResponseToProto(resp), nil
}

// grpcClient is the kernel's Provider for a plugin process. It also
// implements Embedder and Reranker; a plugin without them answers
// sdk.ErrUnsupported.
type grpcClient struct {
	client pb.ProviderClient
}

func (c *grpcClient) Configure(ctx context.Context, req *ConfigureRequest) (*ConfigureResponse, error) {
	client, err := clientToProto(&req.Client)
	if err != nil {
		return nil, err
	}
	resp, err := c.client.Configure(ctx, &pb.ConfigureRequest{Client: client})
	if err != nil {
		return nil, sdk.FromStatus(err)
	}
	return &ConfigureResponse{APIBase: resp.GetApiBase()}, nil
}

func (c *grpcClient) ListModels(ctx context.Context, req *ListModelsRequest) (*ListModelsResponse, error) {
	resp, err := c.client.ListModels(ctx, &pb.ListModelsRequest{Client: req.Client})
	if err != nil {
		return nil, sdk.FromStatus(err)
	}
	return &ListModelsResponse{Models: modelsFromProto(resp.GetModels())}, nil
}

// Chat receives the plugin's events and hands them to send. An error event
// ends the call with that error; an error from send cancels the stream.
func (c *grpcClient) Chat(ctx context.Context, req *ChatRequest, send func(*ChatEvent) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.client.Chat(ctx, chatRequestToProto(req))
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
		ev := chatEventFromProto(msg)
		if ev.Error != nil {
			return sdk.NewError(ev.Error.Code, ev.Error.Message)
		}
		if err := send(ev); err != nil {
			return err
		}
	}
}

func (c *grpcClient) Embed(ctx context.Context, req *EmbedRequest) (*EmbedResponse, error) {
	resp, err := c.client.Embed(ctx, embedRequestToProto(req))
	if err != nil {
		return nil, sdk.FromStatus(err)
	}
	out := embedResponseFromProto(resp)
	if len(out.Vectors) != len(req.Inputs) {
		return nil, fmt.Errorf("embed: %d vectors for %d inputs: %w", len(out.Vectors), len(req.Inputs), sdk.ErrBadResponse)
	}
	return out, nil
}

func (c *grpcClient) Rerank(ctx context.Context, req *RerankRequest) (*RerankResponse, error) {
	resp, err := c.client.Rerank(ctx, rerankRequestToProto(req))
	if err != nil {
		return nil, sdk.FromStatus(err)
	}
	return rerankResponseFromProto(resp), nil
}

var (
	_ Embedder          = (*grpcClient)(nil)
	_ Reranker          = (*grpcClient)(nil)
	_ sdk.Plugin        = (*GRPCPlugin)(nil)
	_ Provider          = (*grpcClient)(nil)
	_ pb.ProviderServer = (*grpcServer)(nil)
)
