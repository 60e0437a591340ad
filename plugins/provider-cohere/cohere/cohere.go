// Package cohere owns Coyote's provider for Cohere's v2 API (client type
// "cohere"): chat over POST /chat (streamed as Cohere's named server-sent
// events: message-start, content-start/delta/end, tool-plan-delta,
// tool-call-start/delta/end, message-end with the usage), embeddings over
// POST /embed, reranking over POST /rerank, and the model list of GET
// /v1/models. It is a small hand-written HTTP client on sdk/httpkit.
//
// The key travels as "Authorization: Bearer". Client options, besides
// api_base (default https://api.cohere.com/v2) and api_key:
//
//	extra:
//	  proxy: http://proxy:3128    # default: the *_PROXY environment variables
//	  connect_timeout: 10         # seconds to establish a connection
//	  read_timeout: 300           # seconds without a byte from the server
//
// Reasoning: the thinking of Cohere's reasoning models arrives as
// "thinking" content and is shown as reasoning; it is sent back in the
// assistant's message, as Cohere asks, when tools are called. A reasoning
// effort "none" (or "disabled", "off") turns thinking off, a whole number
// is thinking.token_budget, anything else turns it on. A tool plan (the
// model's words before it calls tools) is shown as text and sent back as
// the message's tool_plan.
package cohere

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/httpkit"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// Version is the plugin's version, reported by Describe and sent in the
// User-Agent header.
const Version = "0.1.0"

// Info is what the plugin reports about itself through Describe.
var Info = sdk.Info{
	Name:         "cohere",
	Version:      Version,
	Description:  "Cohere's v2 API: chat, embeddings and rerank",
	Capabilities: []string{provider.CapTools, provider.CapReasoning},
}

// Type is the client type served by this provider.
const Type = "cohere"

// DefaultAPIBase is the api_base of a client that sets none.
const DefaultAPIBase = "https://api.cohere.com/v2"

// maxBody bounds a non-streamed reply, a batch of vectors or a model list.
const maxBody = 64 << 20

// maxTexts is the most texts one /embed call takes.
const maxTexts = 96

// Provider serves every configured Cohere client of one plugin process.
// Use New; it is safe for concurrent use.
type Provider struct {
	clients httpkit.Clients[*client]
}

// New returns a Provider without clients.
func New() *Provider {
	return &Provider{clients: httpkit.Clients[*client]{Label: label}}
}

func label(name string) string { return "cohere client " + strconv.Quote(name) }

type client struct {
	name string
	key  string
	http *httpkit.Client
}

// Close drops the client's idle connections.
func (c *client) Close() { c.http.Close() }

// Configure registers the client, or replaces a client of the same name.
func (p *Provider) Configure(_ context.Context, req *provider.ConfigureRequest) (*provider.ConfigureResponse, error) {
	cfg := &req.Client
	if cfg.Name == "" {
		return nil, &httpkit.Error{Msg: "cohere client without a name", Kind: sdk.ErrInvalidArgument}
	}
	if cfg.Type != Type {
		return nil, &httpkit.Error{Msg: fmt.Sprintf("%s: type %q is not served by this plugin (it serves %s)", label(cfg.Name), cfg.Type, Type), Kind: sdk.ErrInvalidArgument}
	}
	opts, err := httpkit.ParseExtra(cfg.Options["extra"])
	if err != nil {
		return nil, &httpkit.Error{Msg: label(cfg.Name) + ": " + err.Error(), Kind: sdk.ErrInvalidArgument}
	}
	base := strings.TrimSpace(cfg.APIBase)
	if base == "" {
		base = DefaultAPIBase
	}
	hc, err := httpkit.New(label(cfg.Name), base, cfg.APIKey, opts)
	if err != nil {
		return nil, err
	}
	c := &client{name: cfg.Name, key: cfg.APIKey, http: hc}
	p.clients.Put(c.name, c)
	// The kernel configures a client just before its first request:
	// connect now, while the kernel prepares that request.
	hc.Warm()
	return &provider.ConfigureResponse{APIBase: hc.Base}, nil
}

func (c *client) header(accept string, body bool) http.Header {
	h := make(http.Header, 5)
	if c.key != "" {
		h.Set("Authorization", "Bearer "+c.key)
	}
	if body {
		h.Set("Content-Type", "application/json")
	}
	h.Set("Accept", accept)
	h.Set("User-Agent", c.http.UserAgent("coyote-provider-cohere/"+Version))
	h.Set("X-Client-Name", "coyote")
	return h
}

// post sends body to {api_base}/{path} after the request patches, and
// returns the exchange of a 2xx answer or the error of any other.
func (c *client) post(ctx context.Context, path string, body []byte, accept string, patches []provider.RequestPatch) (*httpkit.Exchange, error) {
	h := c.header(accept, true)
	u, body, err := provider.ApplyPatches(patches, c.http.Base+path, body, h)
	if err != nil {
		return nil, c.http.Fail(sdk.ErrInvalidArgument, "%v", err)
	}
	x, err := c.http.Do(ctx, http.MethodPost, u, body, h)
	if err != nil {
		return nil, err
	}
	if x.Resp.StatusCode/100 != 2 {
		defer x.Close()
		return nil, c.statusError(x)
	}
	return x, nil
}

// statusError is the error of a non-2xx answer: Cohere's {"message": …}
// with the status's class and its Retry-After.
func (c *client) statusError(x *httpkit.Exchange) error {
	return c.http.StatusError(x, 1<<20)
}

// Chat sends the conversation to /chat and reports the reply as events,
// streamed or not as the request asks.
func (p *Provider) Chat(ctx context.Context, req *provider.ChatRequest, send func(*provider.ChatEvent) error) error {
	c, err := p.clients.Get(req.Client)
	if err != nil {
		return err
	}
	if strings.TrimSpace(req.Model) == "" {
		return c.http.Fail(sdk.ErrInvalidArgument, "no model given")
	}
	body, err := chatBody(req)
	if err != nil {
		return c.http.Fail(sdk.ErrInvalidArgument, "%v", err)
	}
	accept := "application/json"
	if req.Stream {
		accept = "text/event-stream"
	}
	x, err := c.post(ctx, "/chat", body, accept, req.Patches)
	if err != nil {
		return err
	}
	defer x.Close()
	if !req.Stream || strings.HasPrefix(x.Resp.Header.Get("Content-Type"), "application/json") {
		return c.readWhole(x, send)
	}
	return c.readStream(x, send)
}

// modelsURL is the model list's URL: Cohere lists models under /v1 even
// for the v2 API.
func (c *client) modelsURL() string {
	base := c.http.Base
	if b, ok := strings.CutSuffix(base, "/v2"); ok {
		base = b + "/v1"
	}
	return base + "/models?page_size=1000"
}

type modelList struct {
	Models []struct {
		Name          string   `json:"name"`
		Endpoints     []string `json:"endpoints"`
		ContextLength float64  `json:"context_length"`
		Features      []string `json:"features"`
	} `json:"models"`
	NextPageToken string `json:"next_page_token"`
}

// ListModels lists the models of the account (GET /v1/models, every
// page): those that chat, embed or rerank.
func (p *Provider) ListModels(ctx context.Context, req *provider.ListModelsRequest) (*provider.ListModelsResponse, error) {
	c, err := p.clients.Get(req.Client)
	if err != nil {
		return nil, err
	}
	out := &provider.ListModelsResponse{}
	token := ""
	for range 50 {
		u := c.modelsURL()
		if token != "" {
			u += "&page_token=" + url.QueryEscape(token)
		}
		x, err := c.http.Do(ctx, http.MethodGet, u, nil, c.header("application/json", false))
		if err != nil {
			return nil, err
		}
		if x.Resp.StatusCode/100 != 2 {
			defer x.Close()
			return nil, c.statusError(x)
		}
		data, err := x.ReadAll(maxBody)
		x.Close()
		if err != nil {
			return nil, err
		}
		var page modelList
		if err := json.Unmarshal(data, &page); err != nil {
			return nil, c.http.Fail(sdk.ErrBadResponse, "the model list from %s is not Cohere's JSON: %v: %s", c.http.BaseForHumans, err, httpkit.Quote(data))
		}
		for _, m := range page.Models {
			model := provider.Model{Name: m.Name, MaxInputTokens: int64(m.ContextLength)}
			for _, e := range m.Endpoints {
				switch {
				case e == "chat" && model.Type == "":
					model.Type = provider.ModelChat
				case e == "embed" && model.Type == "":
					model.Type = provider.ModelEmbedding
				case e == "rerank" && model.Type == "":
					model.Type = provider.ModelReranker
				}
			}
			for _, f := range m.Features {
				switch f {
				case "tools", "strict_tools":
					model.SupportsFunctionCalling = true
				case "vision":
					model.SupportsVision = true
				}
			}
			if model.Name != "" && model.Type != "" {
				out.Models = append(out.Models, model)
			}
		}
		if token = page.NextPageToken; token == "" {
			return out, nil
		}
	}
	return nil, c.http.Fail(sdk.ErrBadResponse, "the model list from %s has more than 50 pages", c.http.BaseForHumans)
}

var (
	_ provider.Provider = (*Provider)(nil)
	_ provider.Embedder = (*Provider)(nil)
	_ provider.Reranker = (*Provider)(nil)
)
