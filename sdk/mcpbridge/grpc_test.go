package mcpbridge_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/mcpbridge"
	"github.com/coyote-cli/coyote/sdk/plugintest"
)

// recorder is a Bridge that remembers what it was sent and answers from
// fixed data.
type recorder struct {
	configured *mcpbridge.ConfigureRequest
	stopped    []string
}

func (r *recorder) Configure(_ context.Context, req *mcpbridge.ConfigureRequest) error {
	r.configured = req
	return nil
}

func (r *recorder) Tools(_ context.Context, req *mcpbridge.ToolsRequest) (*mcpbridge.ToolsResponse, error) {
	out := &mcpbridge.ToolsResponse{}
	for _, s := range req.Servers {
		switch s {
		case "broken":
			out.Servers = append(out.Servers, mcpbridge.ServerTools{Server: s, Error: "exit status 1"})
		case "remote":
			out.Servers = append(out.Servers, mcpbridge.ServerTools{Server: s, Error: "needs auth", NeedsAuth: true})
		default:
			out.Servers = append(out.Servers, mcpbridge.ServerTools{Server: s, Tools: []mcpbridge.Tool{
				{Name: "echo", Description: "says it back", InputSchema: []byte(`{"type":"object"}`)},
			}})
		}
	}
	return out, nil
}

func (r *recorder) Call(_ context.Context, req *mcpbridge.CallRequest) (*mcpbridge.CallResult, error) {
	switch req.Tool {
	case "missing":
		return nil, fmt.Errorf("MCP server %q is not configured: %w", req.Server, sdk.ErrNotFound)
	case "fails":
		return &mcpbridge.CallResult{Text: "no such file", IsError: true}, nil
	}
	return &mcpbridge.CallResult{Text: req.Server + "/" + req.Tool + ":" + string(req.Arguments)}, nil
}

func (r *recorder) Stop(_ context.Context, req *mcpbridge.StopRequest) error {
	r.stopped = req.Servers
	return nil
}

type withAuth struct{ *recorder }

func (withAuth) Authenticate(_ context.Context, req *mcpbridge.AuthenticateRequest, send func(*mcpbridge.AuthEvent) error) error {
	if err := send(&mcpbridge.AuthEvent{AuthorizationURL: "https://auth.example/?s=" + req.Server}); err != nil {
		return err
	}
	return send(&mcpbridge.AuthEvent{Message: "stored"})
}

func serve(t *testing.T, impl mcpbridge.Bridge) (mcpbridge.Client, *sdk.Description) {
	conn := plugintest.Serve(t, sdk.Info{Name: "mcp", Version: "1"}, mcpbridge.Plugin(impl))
	return conn.Dispense(t, sdk.KindMCP).(mcpbridge.Client), conn.Describe(t)
}

func TestEveryFieldCrossesTheWire(t *testing.T) {
	rec := &recorder{}
	c, desc := serve(t, rec)
	ctx := context.Background()
	if desc.Has(mcpbridge.CapOAuth) || len(desc.Kinds) != 1 || desc.Kinds[0] != sdk.KindMCP {
		t.Fatalf("describe = %+v", desc)
	}
	want := &mcpbridge.ConfigureRequest{OAuthDir: "/cache/oauth", Servers: []mcpbridge.ServerConfig{
		{Name: "fs", Type: "stdio", Command: "npx", Args: []string{"-y", "server"}, Env: map[string]string{"K": "V"}, Cwd: "/w"},
		{Name: "remote", Type: "http", URL: "https://mcp.example/mcp", Headers: map[string]string{"X-A": "b"},
			OAuth: &mcpbridge.OAuthConfig{ClientID: "id", ClientSecret: "secret", CallbackPort: 8123, RedirectHost: "127.0.0.1"}},
	}}
	if err := c.Configure(ctx, want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rec.configured, want) {
		t.Fatalf("configured %+v, want %+v", rec.configured, want)
	}
	tools, err := c.Tools(ctx, &mcpbridge.ToolsRequest{Servers: []string{"fs", "broken", "remote"}})
	if err != nil {
		t.Fatal(err)
	}
	wantTools := &mcpbridge.ToolsResponse{Servers: []mcpbridge.ServerTools{
		{Server: "fs", Tools: []mcpbridge.Tool{{Name: "echo", Description: "says it back", InputSchema: []byte(`{"type":"object"}`)}}},
		{Server: "broken", Error: "exit status 1"},
		{Server: "remote", Error: "needs auth", NeedsAuth: true},
	}}
	if !reflect.DeepEqual(tools, wantTools) {
		t.Fatalf("tools %+v, want %+v", tools, wantTools)
	}
	tests := []struct {
		tool    string
		want    mcpbridge.CallResult
		wantErr error
	}{
		{"echo", mcpbridge.CallResult{Text: `fs/echo:{"a":1}`}, nil},
		{"fails", mcpbridge.CallResult{Text: "no such file", IsError: true}, nil},
		{"missing", mcpbridge.CallResult{}, sdk.ErrNotFound},
	}
	for _, tc := range tests {
		r, err := c.Call(ctx, &mcpbridge.CallRequest{Server: "fs", Tool: tc.tool, Arguments: []byte(`{"a":1}`)})
		if tc.wantErr != nil {
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("%s: err = %v, want %v", tc.tool, err, tc.wantErr)
			}
			continue
		}
		if err != nil || *r != tc.want {
			t.Errorf("%s: %+v, %v; want %+v", tc.tool, r, err, tc.want)
		}
	}
	if err := c.Stop(ctx, &mcpbridge.StopRequest{Servers: []string{"fs"}}); err != nil || !reflect.DeepEqual(rec.stopped, []string{"fs"}) {
		t.Fatalf("stop: %v, stopped %v", err, rec.stopped)
	}
	err = c.Authenticate(ctx, &mcpbridge.AuthenticateRequest{Server: "remote"}, func(*mcpbridge.AuthEvent) error { return nil })
	if !errors.Is(err, sdk.ErrUnsupported) {
		t.Fatalf("authenticate without the capability: %v", err)
	}
}

func TestAuthenticateStreamsItsEvents(t *testing.T) {
	c, desc := serve(t, withAuth{&recorder{}})
	if !desc.Has(mcpbridge.CapOAuth) {
		t.Fatalf("capabilities %v lack %q", desc.Capabilities, mcpbridge.CapOAuth)
	}
	var got []mcpbridge.AuthEvent
	err := c.Authenticate(context.Background(), &mcpbridge.AuthenticateRequest{Server: "remote"}, func(ev *mcpbridge.AuthEvent) error {
		got = append(got, *ev)
		return nil
	})
	want := []mcpbridge.AuthEvent{{AuthorizationURL: "https://auth.example/?s=remote"}, {Message: "stored"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("events %+v, %v; want %+v", got, err, want)
	}
	stop := errors.New("user gave up")
	if err := c.Authenticate(context.Background(), &mcpbridge.AuthenticateRequest{Server: "remote"}, func(*mcpbridge.AuthEvent) error { return stop }); !errors.Is(err, stop) {
		t.Fatalf("an error from send: %v", err)
	}
}
