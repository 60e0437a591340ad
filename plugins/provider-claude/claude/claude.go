// Package claude owns Coyote's provider for Anthropic's Messages API
// (client type "claude"). It implements provider.Provider with a small
// HTTP client of its own on top of sdk/httpkit: it turns Coyote's
// conversations into Messages API requests (including the replay of
// thinking blocks and of sessions whose assistant messages hold several
// tool-call rounds), parses Anthropic's named server-sent events into chat
// events, and maps Anthropic's errors onto the sdk sentinels. A Client
// made with NewClient and an Endpoint sends the same requests elsewhere
// (the Vertex AI plugin's Claude models).
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
	clients httpkit.Clients[*Client]
}

// New returns a Provider without clients.
func New() *Provider {
	return &Provider{clients: httpkit.Clients[*Client]{Label: label}}
}

// Client is one configured client: where its requests go, how they
// authenticate, and the Messages API's wire format on top. The claude
// plugin makes one per client with the API key; the Vertex AI plugin makes
// its own with NewClient, for the same requests on Vertex's rawPredict
// URLs with an OAuth token.
type Client struct {
	name string
	key  string
	// bearer: the key is an OAuth access token of a Claude subscription
	// login (auth: oauth), sent as a bearer token with the OAuth beta.
	bearer bool
	http   *httpkit.Client
	ep     Endpoint
}

// Endpoint says where a Client's requests go and how they prove who sends
// them. The zero value is Anthropic's API: {api_base}/messages with the key
// in x-api-key and the version in the anthropic-version header.
type Endpoint struct {
	// MessagesURL returns the URL of a chat request for model, streamed
	// or not.
	MessagesURL func(model string, stream bool) string
	// Authorize sets a request's credentials on its headers; it may fetch
	// a token. refresh is true when the last attempt was refused with a
	// 401 and a token should be fetched anew. The request is sent again
	// once after a 401 only when Authorize is set.
	Authorize func(ctx context.Context, h http.Header, refresh bool) error
	// BodyVersion, when set, travels in the body as anthropic_version,
	// and the model is left out of the body (the URL names it): the form
	// of Claude on Vertex AI.
	BodyVersion string
	// UserAgent is sent as user-agent (default coyote-provider-claude/Version).
	UserAgent string
}

// NewClient makes a client that sends Messages API requests through hc
// to ep. name is the client's name in the user's configuration.
func NewClient(name string, hc *httpkit.Client, ep Endpoint) *Client {
	return &Client{name: name, http: hc, ep: ep}
}

// OAuthBeta is the anthropic-beta value the API asks of requests made
// with a subscription login's token.
const OAuthBeta = "oauth-2025-04-20"

func label(name string) string { return "claude client " + strconv.Quote(name) }

func invalidConfig(name, msg string) error {
	return &httpkit.Error{Msg: label(name) + ": " + msg, Kind: sdk.ErrInvalidArgument}
}

func newClient(cfg *provider.ClientConfig) (*Client, error) {
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
	auth, _ := cfg.Options["auth"].(string)
	return &Client{name: cfg.Name, key: cfg.APIKey, bearer: auth == "oauth", http: h}, nil
}

// Configure registers the client, or replaces a client of the same name.
func (p *Provider) Configure(_ context.Context, req *provider.ConfigureRequest) (*provider.ConfigureResponse, error) {
	c, err := newClient(&req.Client)
	if err != nil {
		return nil, err
	}
	p.clients.Put(c.name, c)
	// The kernel configures a client just before its first request:
	// connect now, while the kernel prepares that request.
	c.http.Warm()
	return &provider.ConfigureResponse{APIBase: c.http.Base}, nil
}

func (p *Provider) client(name string) (*Client, error) { return p.clients.Get(name) }

// Close drops the client's idle connections.
func (c *Client) Close() { c.http.Close() }

// header returns the headers of every request: the credentials, the API
// version, the content type of a body and what the caller accepts.
func (c *Client) header(ctx context.Context, body bool, accept string, refresh bool) (http.Header, error) {
	h := make(http.Header, 6)
	switch {
	case c.ep.Authorize != nil:
		if err := c.ep.Authorize(ctx, h, refresh); err != nil {
			return nil, err
		}
	case c.key == "":
	case c.bearer:
		h.Set("authorization", "Bearer "+c.key)
		h.Set("anthropic-beta", OAuthBeta)
	default:
		h.Set("x-api-key", c.key)
	}
	if c.ep.BodyVersion == "" {
		h.Set("anthropic-version", APIVersion)
	}
	if body {
		h.Set("content-type", "application/json")
	}
	h.Set("accept", accept)
	def := c.ep.UserAgent
	if def == "" {
		def = "coyote-provider-claude/" + Version
	}
	h.Set("user-agent", c.http.UserAgent(def))
	return h, nil
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

func (c *Client) modelPage(ctx context.Context, u string) (*modelPage, error) {
	h, err := c.header(ctx, false, "application/json", false)
	if err != nil {
		return nil, err
	}
	x, err := c.http.Do(ctx, http.MethodGet, u, nil, h)
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
	return c.Chat(ctx, req, send)
}

// Chat sends the conversation and reports the reply as events, streamed
// or not as the request asks. A 401 to an Endpoint with its own Authorize
// is tried once more with a fresh token, before any of the reply was read.
func (c *Client) Chat(ctx context.Context, req *provider.ChatRequest, send func(*provider.ChatEvent) error) error {
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
	url := c.http.Base + "/messages"
	if c.ep.MessagesURL != nil {
		url = c.ep.MessagesURL(req.Model, req.Stream)
	}
	var x *httpkit.Exchange
	for attempt := 0; ; attempt++ {
		h, err := c.header(ctx, true, accept, attempt > 0)
		if err != nil {
			return err
		}
		u, b, err := provider.ApplyPatches(req.Patches, url, body, h)
		if err != nil {
			return c.http.Fail(sdk.ErrInvalidArgument, "%v", err)
		}
		if x, err = c.http.Do(ctx, http.MethodPost, u, b, h); err != nil {
			return err
		}
		if x.Resp.StatusCode != http.StatusUnauthorized || attempt > 0 || c.ep.Authorize == nil {
			break
		}
		x.Drain()
		x.Close()
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
