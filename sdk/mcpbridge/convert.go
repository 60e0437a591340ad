package mcpbridge

import (
	pb "github.com/coyote-cli/coyote/sdk/internal/pb/mcpbridgev1"
)

// The conversions of the nested messages; grpc.go converts the flat ones
// (tool calls, stop, auth events) where it sends them.

func serverConfigToProto(s *ServerConfig) *pb.ServerConfig {
	out := &pb.ServerConfig{
		Name:    s.Name,
		Type:    s.Type,
		Command: s.Command,
		Args:    s.Args,
		Env:     s.Env,
		Cwd:     s.Cwd,
		Url:     s.URL,
		Headers: s.Headers,
	}
	if o := s.OAuth; o != nil {
		out.Oauth = &pb.OAuthConfig{
			ClientId:     o.ClientID,
			ClientSecret: o.ClientSecret,
			CallbackPort: int32(o.CallbackPort),
			RedirectHost: o.RedirectHost,
		}
	}
	return out
}

func serverConfigFromProto(s *pb.ServerConfig) ServerConfig {
	out := ServerConfig{
		Name:    s.GetName(),
		Type:    s.GetType(),
		Command: s.GetCommand(),
		Args:    s.GetArgs(),
		Env:     s.GetEnv(),
		Cwd:     s.GetCwd(),
		URL:     s.GetUrl(),
		Headers: s.GetHeaders(),
	}
	if o := s.GetOauth(); o != nil {
		out.OAuth = &OAuthConfig{
			ClientID:     o.GetClientId(),
			ClientSecret: o.GetClientSecret(),
			CallbackPort: int(o.GetCallbackPort()),
			RedirectHost: o.GetRedirectHost(),
		}
	}
	return out
}

func configureRequestToProto(r *ConfigureRequest) *pb.ConfigureRequest {
	out := &pb.ConfigureRequest{OauthDir: r.OAuthDir, Servers: make([]*pb.ServerConfig, len(r.Servers))}
	for i := range r.Servers {
		out.Servers[i] = serverConfigToProto(&r.Servers[i])
	}
	return out
}

func configureRequestFromProto(r *pb.ConfigureRequest) *ConfigureRequest {
	out := &ConfigureRequest{OAuthDir: r.GetOauthDir(), Servers: make([]ServerConfig, len(r.GetServers()))}
	for i, s := range r.GetServers() {
		out.Servers[i] = serverConfigFromProto(s)
	}
	return out
}

func toolsResponseToProto(r *ToolsResponse) *pb.ToolsResponse {
	out := &pb.ToolsResponse{}
	if r == nil {
		return out
	}
	out.Servers = make([]*pb.ServerTools, len(r.Servers))
	for i, s := range r.Servers {
		st := &pb.ServerTools{Server: s.Server, Error: s.Error, NeedsAuth: s.NeedsAuth, Tools: make([]*pb.Tool, len(s.Tools))}
		for j, t := range s.Tools {
			st.Tools[j] = &pb.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema}
		}
		out.Servers[i] = st
	}
	return out
}

func toolsResponseFromProto(r *pb.ToolsResponse) *ToolsResponse {
	out := &ToolsResponse{Servers: make([]ServerTools, len(r.GetServers()))}
	for i, s := range r.GetServers() {
		st := ServerTools{Server: s.GetServer(), Error: s.GetError(), NeedsAuth: s.GetNeedsAuth()}
		if len(s.GetTools()) > 0 {
			st.Tools = make([]Tool, len(s.GetTools()))
			for j, t := range s.GetTools() {
				st.Tools[j] = Tool{Name: t.GetName(), Description: t.GetDescription(), InputSchema: t.GetInputSchema()}
			}
		}
		out.Servers[i] = st
	}
	return out
}
