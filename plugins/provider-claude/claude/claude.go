// Package claude owns Coyote's provider for Anthropic's Messages API
// (client type "claude"). It implements provider.Provider with a small
// HTTP client of its own on top of sdk/httpkit: it turns Coyote's
// conversations into Messages API requests (including the replay of
// thinking blocks and of sessions whose assistant messages hold several
// tool-call rounds), parses Anthropic's named server-sent events into chat
// events, and maps Anthropic's errors onto the sdk sentinels.
//
// Client options it understands, besides api_base and the key:
//
//	extra:
//	  proxy: http://proxy:3128    # default: the *_PROXY environment variables
//	  connect_timeout: 10         # seconds to establish a connection
//	  read_timeout: 300           # seconds without a byte from the server
package claude

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/httpkit"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// Version is the plugin's version, reported by Describe and sent in the
// User-Agent header.
const Version = "0.1.0"

// Info is what the plugin reports about itself through Describe.
var Info = sdk.Info{
	Name:         "claude",
	Version:      Version,
	Description:  "Anthropic's Messages API (Claude)",
	Capabilities: []string{provider.CapTools, provider.CapReasoning},
}

// Type is the client type served by this provider.
const Type = "claude"

// DefaultAPIBase is the api_base of a client that sets none.
const DefaultAPIBase = "https://api.anthropic.com/v1"

// APIVersion is sent as the anthropic-version header.
const APIVersion = "2023-06-01"

// DefaultMaxTokens is sent as max_tokens when the request sets no limit:
// the API requires one.
const DefaultMaxTokens = 4096

// maxBody bounds a non-streamed reply or a model list.
const maxBody = 64 << 20

// Provider serves every configured claude client of one plugin process.
// Use New; it is safe for concurrent use.
type Provider struct {
	clients httpkit.Clients[*client]
}

// New returns a Provider without clients.
func New() *Provider {
	return &Provider{clients: httpkit.Clients[*client]{Label: label}}
}

// client is one configured client.
type client struct {
	name string
	key  string
	http *httpkit.Client
}

func label(name string) string { return "claude client " + strconv.Quote(name) }

func invalidConfig(name, msg string) error {
	return &httpkit.Error{Msg: label(name) + ": " + msg, Kind: sdk.ErrInvalidArgument}
}

func newClient(cfg *provider.ClientConfig) (*client, error) {
	if cfg.Name == "" {
		return nil, &httpkit.Error{Msg: "claude client without a name", Kind: sdk.ErrInvalidArgument}
	}
	if cfg.Type != Type {
		return nil, invalidConfig(cfg.Name, "type "+strconv.Quote(cfg.Type)+" is not served by this plugin (it serves "+Type+")")
	}
	opts, err := httpkit.ParseExtra(cfg.Options["extra"])
	if err != nil {
		return nil, invalidConfig(cfg.Name, err.Error())
	}
	base := cfg.APIBase
	if isBlank(base) {
		base = DefaultAPIBase
	}
	h, err := httpkit.New(label(cfg.Name), base, cfg.APIKey, opts)
	if err != nil {
		return nil, err
	}
	return &client{name: cfg.Name, key: cfg.APIKey, http: h}, nil
}

// Configure registers the client, or replaces a client of the same name.
func (p *Provider) Configure(_ context.Context, req *provider.ConfigureRequest) (*provider.ConfigureResponse, error) {
	c, err := newClient(&req.Client)
	if err != nil {
		return nil, err
	}
	p.clients.Put(c.name, c)
	return &provider.ConfigureResponse{APIBase: c.http.Base}, nil
}

func (p *Provider) client(name string) (*client, error) { return p.clients.Get(name) }

// Close drops the client's idle connections.
func (c *client) Close() { c.http.Close() }

// header returns the headers of every request: the key, the API version,
// the content type of a body and what the caller accepts.
func (c *client) header(body bool, accept string) http.Header {
	h := make(http.Header, 6)
	if c.key != "" {
		h.Set("x-api-key", c.key)
	}
	h.Set("anthropic-version", APIVersion)
	if body {
		h.Set("content-type", "application/json")
	}
	h.Set("accept", accept)
	h.Set("user-agent", c.http.UserAgent("coyote-provider-claude/"+Version))
	return h
}

// ListModels asks the API for its models (GET {api_base}/models), page by
// page.
func (p *Provider) ListModels(ctx context.Context, req *provider.ListModelsRequest) (*provider.ListModelsResponse, error) {
	c, err := p.client(req.Client)
	if err != nil {
		return nil, err
	}
	out := &provider.ListModelsResponse{}
	after := ""
	// The API pages by 1000 at most; ten pages is more than Anthropic has.
	for range 10 {
		u := c.http.Base + "/models?limit=1000"
		if after != "" {
			u += "&after_id=" + url.QueryEscape(after)
		}
		page, err := c.modelPage(ctx, u)
		if err != nil {
			return nil, err
		}
		for _, m := range page.Data {
			if m.ID == "" {
				continue
			}
			out.Models = append(out.Models, provider.Model{Name: m.ID, Type: provider.ModelChat,
				SupportsVision: true, SupportsFunctionCalling: true})
		}
		if !page.HasMore || page.LastID == "" || page.LastID == after {
			break
		}
		after = page.LastID
	}
	return out, nil
}

type modelPage struct {
	Data []struct {
		ID string `json:"id"`
	} `json:"data"`
	HasMore bool   `json:"has_more"`
	LastID  string `json:"last_id"`
}

func (c *client) modelPage(ctx context.Context, u string) (*modelPage, error) {
	x, err := c.http.Do(ctx, http.MethodGet, u, nil, c.header(false, "application/json"))
	if err != nil {
		return nil, err
	}
	defer x.Close()
	if x.Resp.StatusCode/100 != 2 {
		return nil, c.statusError(x, "")
	}
	data, err := x.ReadAll(maxBody)
	if err != nil {
		return nil, err
	}
	var page modelPage
	if err := json.Unmarshal(data, &page); err != nil {
		return nil, c.http.Fail(sdk.ErrBadResponse, "the model list from %s is not Anthropic's JSON: %v: %s", c.http.BaseForHumans, err, httpkit.Quote(data))
	}
	return &page, nil
}

// Chat sends the conversation to {api_base}/messages and reports the reply
// as events, streamed or not as the request asks.
func (p *Provider) Chat(ctx context.Context, req *provider.ChatRequest, send func(*provider.ChatEvent) error) error {
	c, err := p.client(req.Client)
	if err != nil {
		return err
	}
	if req.Model == "" {
		return c.http.Fail(sdk.ErrInvalidArgument, "no model given")
	}
	body, err := c.requestBody(req)
	if err != nil {
		return err
	}
	accept := "application/json"
	if req.Stream {
		accept = "text/event-stream"
	}
	h := c.header(true, accept)
	u, body, err := provider.ApplyPatches(req.Patches, c.http.Base+"/messages", body, h)
	if err != nil {
		return c.http.Fail(sdk.ErrInvalidArgument, "%v", err)
	}
	x, err := c.http.Do(ctx, http.MethodPost, u, body, h)
	if err != nil {
		return err
	}
	defer x.Close()
	if x.Resp.StatusCode/100 != 2 {
		return c.statusError(x, req.Model)
	}
	// A server (or a patch) that turns streaming off answers with JSON.
	if !req.Stream || isJSON(x.Resp.Header.Get("Content-Type")) {
		return c.readMessage(x, send)
	}
	return c.readStream(x, send)
}

var _ provider.Provider = (*Provider)(nil)
