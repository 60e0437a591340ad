// Package acme is a provider plugin for the made-up Acme chat API (see
// acmefake for its wire format), written against Coyote's SDK alone: the
// HTTP client, error mapping and server-sent events come from
// sdk/httpkit.
package acme

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/httpkit"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// Info is what the plugin reports about itself.
var Info = sdk.Info{Name: "acme", Version: "0.1.0", Description: "the Acme chat API (a third-party example)",
	Capabilities: []string{provider.CapTools}}

// Provider serves every configured Acme client.
type Provider struct {
	clients httpkit.Clients[*client]
}

// client is one configured client: its HTTP client and its key.
type client struct {
	http *httpkit.Client
	key  string
}

func (c *client) Close() { c.http.Close() }

// New returns a provider with no client configured.
func New() *Provider {
	p := &Provider{}
	p.clients.Label = func(name string) string { return fmt.Sprintf("acme client %q", name) }
	return p
}

// Configure makes the HTTP client of a configured client.
func (p *Provider) Configure(_ context.Context, req *provider.ConfigureRequest) (*provider.ConfigureResponse, error) {
	label := p.clients.Label(req.Client.Name)
	o, err := httpkit.ParseExtra(req.Client.Options["extra"])
	if err != nil {
		return nil, fmt.Errorf("%s: %v: %w", label, err, sdk.ErrInvalidArgument)
	}
	c, err := httpkit.New(label, req.Client.APIBase, req.Client.APIKey, o)
	if err != nil {
		return nil, err
	}
	p.clients.Put(req.Client.Name, &client{http: c, key: req.Client.APIKey})
	return &provider.ConfigureResponse{}, nil
}

// ListModels lists the one model Acme has.
func (p *Provider) ListModels(_ context.Context, req *provider.ListModelsRequest) (*provider.ListModelsResponse, error) {
	if _, err := p.clients.Get(req.Client); err != nil {
		return nil, err
	}
	return &provider.ListModelsResponse{Models: []provider.Model{{Name: "acme-1", Type: provider.ModelChat, SupportsFunctionCalling: true}}}, nil
}

type wireToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type wireMessage struct {
	Role       string         `json:"role"`
	Content    string         `json:"content,omitempty"`
	ToolCalls  []wireToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

type wireUsage struct {
	Input  int64 `json:"input"`
	Output int64 `json:"output"`
}

// event is a streamed event, or a whole non-streamed answer.
type event struct {
	Text      string         `json:"text"`
	ToolCall  *wireToolCall  `json:"tool_call"`
	ToolCalls []wireToolCall `json:"tool_calls"`
	Usage     *wireUsage     `json:"usage"`
	Finish    string         `json:"finish"`
}

// Chat sends the conversation and reports the answer as it arrives.
func (p *Provider) Chat(ctx context.Context, req *provider.ChatRequest, send func(*provider.ChatEvent) error) error {
	cl, err := p.clients.Get(req.Client)
	if err != nil {
		return err
	}
	c := cl.http
	body := map[string]any{"model": req.Model, "stream": req.Stream, "messages": messages(req.Messages)}
	if len(req.Tools) > 0 {
		tools := make([]map[string]any, len(req.Tools))
		for i, t := range req.Tools {
			tools[i] = map[string]any{"name": t.Name, "description": t.Description, "parameters": json.RawMessage(t.Parameters)}
		}
		body["tools"] = tools
	}
	data, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("%s: %v: %w", c.Label, err, sdk.ErrInvalidArgument)
	}
	h := http.Header{"Content-Type": {"application/json"}}
	if cl.key != "" {
		h.Set("Authorization", "Bearer "+cl.key)
	}
	x, err := c.Do(ctx, http.MethodPost, c.Base+"/v1/chat", data, h)
	if err != nil {
		return err
	}
	defer x.Close()
	if x.Resp.StatusCode != http.StatusOK {
		return c.StatusError(x, 0)
	}
	if !req.Stream {
		raw, err := x.ReadAll(8 << 20)
		if err != nil {
			return err
		}
		var ev event
		if err := json.Unmarshal(raw, &ev); err != nil {
			return c.Fail(sdk.ErrBadResponse, "bad answer: %v", err)
		}
		return emit(&ev, send)
	}
	sse := httpkit.NewSSE(x)
	for {
		e, err := sse.Next()
		if err != nil {
			if x.Canceled() {
				return ctx.Err()
			}
			return c.Fail(sdk.ErrBadResponse, "the stream ended before its finish event: %v", x.ReadError(err))
		}
		var ev event
		if err := json.Unmarshal(e.Data, &ev); err != nil {
			return c.Fail(sdk.ErrBadResponse, "bad event %s", httpkit.Quote(e.Data))
		}
		if ev.ToolCall != nil {
			ev.ToolCalls = []wireToolCall{*ev.ToolCall}
		}
		if err := emit(&ev, send); err != nil {
			return err
		}
		if ev.Finish != "" {
			return nil
		}
	}
}

// emit reports an event (or a whole answer) to the kernel.
func emit(ev *event, send func(*provider.ChatEvent) error) error {
	if ev.Text != "" {
		if err := send(&provider.ChatEvent{Text: ev.Text}); err != nil {
			return err
		}
	}
	for _, tc := range ev.ToolCalls {
		if err := send(&provider.ChatEvent{ToolCall: &provider.ToolCall{ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments}}); err != nil {
			return err
		}
	}
	if ev.Usage != nil {
		if err := send(&provider.ChatEvent{Usage: &provider.Usage{InputTokens: ev.Usage.Input, OutputTokens: ev.Usage.Output}}); err != nil {
			return err
		}
	}
	if ev.Finish != "" {
		return send(&provider.ChatEvent{FinishReason: ev.Finish})
	}
	return nil
}

func messages(ms []provider.Message) []wireMessage {
	var out []wireMessage
	for _, m := range ms {
		w := wireMessage{Role: m.Role}
		for _, part := range m.Parts {
			switch {
			case part.ToolCall != nil:
				w.ToolCalls = append(w.ToolCalls, wireToolCall{ID: part.ToolCall.ID, Name: part.ToolCall.Name, Arguments: part.ToolCall.Arguments})
			case part.ToolResult != nil:
				out = append(out, wireMessage{Role: "tool", Content: part.ToolResult.Content, ToolCallID: part.ToolResult.CallID})
				continue
			default:
				w.Content += part.Text
			}
		}
		if w.Content != "" || len(w.ToolCalls) > 0 {
			out = append(out, w)
		}
	}
	return out
}

var _ provider.Provider = (*Provider)(nil)
