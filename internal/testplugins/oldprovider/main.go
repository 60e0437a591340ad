// Command oldprovider is a provider plugin built against the first
// provider contract, protocol 1 as the SDK shipped it before embeddings and
// reranking joined it: Configure, ListModels and Chat, and a Describe that
// announces only chat and streaming. Its generated code is that contract's
// (internal/, copied from the repository's history with its .proto), and it
// imports neither the SDK nor the SDK's generated code, as a plugin built
// with an older SDK release would not. The end-to-end tests pin that the
// kernel keeps working with it where the contract only grew, and that a
// capability the kernel needs and it lacks is a readable "not supported by
// plugin coyote-provider-old v0.9.0".
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/rpc"
	"os"
	"strconv"
	"strings"
	"sync"

	goplugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/coyote-cli/coyote/internal/testplugins/oldprovider/internal/providerv1"
	"github.com/coyote-cli/coyote/internal/testplugins/oldprovider/internal/sdkv1"
)

// The handshake of protocol 1, as documented for plugins not written with
// the SDK.
var handshake = goplugin.HandshakeConfig{
	MagicCookieKey:   "COYOTE_PLUGIN_COOKIE",
	MagicCookieValue: "5a0d4c1e-coyote-plugin-1b7f",
}

func main() {
	if os.Getenv(handshake.MagicCookieKey) != handshake.MagicCookieValue {
		fmt.Fprintln(os.Stderr, "oldprovider is a Coyote test plugin; coyote runs it")
		os.Exit(1)
	}
	watchLifeline()
	goplugin.Serve(&goplugin.ServeConfig{
		HandshakeConfig: handshake,
		VersionedPlugins: map[int]goplugin.PluginSet{1: {
			"provider": service(func(s *grpc.Server) { providerv1.RegisterProviderServer(s, &provider{clients: map[string]bool{}}) }),
			"describe": service(func(s *grpc.Server) { sdkv1.RegisterPluginServer(s, describe{}) }),
		}},
		GRPCServer: goplugin.DefaultGRPCServer,
	})
}

// watchLifeline exits when the kernel's end of the lifeline closes.
func watchLifeline() {
	fd, err := strconv.Atoi(os.Getenv("COYOTE_PLUGIN_LIFELINE_FD"))
	if err != nil || fd < 3 {
		return
	}
	go func() {
		_, _ = io.Copy(io.Discard, os.NewFile(uintptr(fd), "lifeline"))
		os.Exit(0)
	}()
}

// service is a go-plugin plugin that registers one gRPC service.
type service func(*grpc.Server)

func (s service) GRPCServer(_ *goplugin.GRPCBroker, srv *grpc.Server) error {
	s(srv)
	return nil
}

func (service) GRPCClient(context.Context, *goplugin.GRPCBroker, *grpc.ClientConn) (any, error) {
	return nil, errors.New("oldprovider serves only")
}

func (service) Server(*goplugin.MuxBroker) (any, error) { return nil, errors.New("gRPC only") }
func (service) Client(*goplugin.MuxBroker, *rpc.Client) (any, error) {
	return nil, errors.New("gRPC only")
}

type describe struct {
	sdkv1.UnimplementedPluginServer
}

func (describe) Describe(context.Context, *sdkv1.DescribeRequest) (*sdkv1.DescribeResponse, error) {
	return &sdkv1.DescribeResponse{
		Name: "old", Kinds: []string{"provider"}, Version: "0.9.0", SdkVersion: "0.1.0",
		ProtocolVersion: 1, Capabilities: []string{"chat", "streaming"},
	}, nil
}

// provider answers "old plugin: <the last user text>".
type provider struct {
	providerv1.UnimplementedProviderServer
	mu      sync.Mutex
	clients map[string]bool
}

func (p *provider) Configure(_ context.Context, req *providerv1.ConfigureRequest) (*providerv1.ConfigureResponse, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clients[req.GetClient().GetName()] = true
	return &providerv1.ConfigureResponse{}, nil
}

func (p *provider) ListModels(_ context.Context, req *providerv1.ListModelsRequest) (*providerv1.ListModelsResponse, error) {
	return &providerv1.ListModelsResponse{Models: []*providerv1.Model{{Name: "m", Type: "chat"}}}, nil
}

func (p *provider) Chat(req *providerv1.ChatRequest, stream grpc.ServerStreamingServer[providerv1.ChatEvent]) error {
	p.mu.Lock()
	known := p.clients[req.GetClient()]
	p.mu.Unlock()
	if !known {
		return fmt.Errorf("client %q was never configured", req.GetClient())
	}
	var text []string
	if msgs := req.GetMessages(); len(msgs) > 0 {
		for _, part := range msgs[len(msgs)-1].GetParts() {
			if t, ok := part.GetKind().(*providerv1.Part_Text); ok {
				text = append(text, t.Text)
			}
		}
	}
	events := []*providerv1.ChatEvent{
		{Kind: &providerv1.ChatEvent_Text{Text: "old plugin: " + strings.Join(text, " ")}},
		{Kind: &providerv1.ChatEvent_Usage{Usage: &providerv1.Usage{InputTokens: 1, OutputTokens: 3}}},
		{Kind: &providerv1.ChatEvent_FinishReason{FinishReason: "stop"}},
	}
	for _, ev := range events {
		if err := stream.Send(ev); err != nil {
			return err
		}
	}
	return nil
}
