// Package gemini owns Coyote's provider for Google's Gemini models through
// the Generative Language API (client type "gemini"): chat over
// generateContent and streamGenerateContent (server-sent events), embeddings
// over batchEmbedContents, and the model list. It is a small hand-written
// HTTP client on top of sdk/httpkit: request building (contents,
// system instruction, tools, thinking), the replay of thought signatures,
// stream parsing and the mapping of Google's errors onto the sdk sentinels.
//
// The API key travels in the x-goog-api-key header, never in the URL.
// Client options it understands, besides api_base and the key:
//
//	extra:
//	  proxy: http://proxy:3128    # default: the *_PROXY environment variables
//	  connect_timeout: 10         # seconds to establish a connection
//	  read_timeout: 300           # seconds without a byte from the server
//
// Thinking: every request asks for the model's thoughts
// (thinkingConfig.includeThoughts); a reasoning effort is sent as
// thinkingConfig.thinkingLevel ("low", "high", ...), or, when it is a whole
// number, as thinkingConfig.thinkingBudget (tokens; the Gemini 2.5 way).
//
// The wire code is shared: a Client made with NewClient and an Endpoint
// sends the same requests to other URLs with other credentials (the
// Vertex AI plugin's Gemini models).
//
// Tool parameter schemas are JSON Schema on Coyote's side; Gemini's
// "parameters" accept only a subset of OpenAPI's schema object and reject
// the whole request over one unknown keyword, so schemas are reduced to that
// subset (see toolSchema) before they are sent.
package gemini

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/httpkit"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// Version is the plugin's version, reported by Describe and sent in the
// User-Agent header.
const Version = "0.1.0"

// Info is what the plugin reports about itself through Describe.
var Info = sdk.Info{
	Name:         "gemini",
	Version:      Version,
	Description:  "Google Gemini (Generative Language API): chat and embeddings",
	Capabilities: []string{provider.CapTools, provider.CapReasoning},
}

// Type is the client type served by this provider.
const Type = "gemini"

// DefaultAPIBase is the api_base of a client that sets none.
const DefaultAPIBase = "https://generativelanguage.googleapis.com/v1beta"

// maxBody bounds a non-streamed reply, a batch of vectors or a model list.
const maxBody = 64 << 20

// maxBatch is the most inputs one batchEmbedContents call may carry.
const maxBatch = 100

// Provider serves every configured Gemini client of one plugin process.
// Use New; it is safe for concurrent use.
type Provider struct {
	clients httpkit.Clients[*Client]
}

// New returns a Provider without clients.
func New() *Provider {
	return &Provider{clients: httpkit.Clients[*Client]{Label: label}}
}

// Client is one configured client: where its requests go, how they
// authenticate, and the wire format of the Gemini API on top. The Gemini
// plugin makes one per client with the API key; the Vertex AI plugin makes
// its own with NewClient, for the same requests on Vertex's URLs with an
// OAuth token.
type Client struct {
	name string
	key  string
	// bearer: the key is an OAuth access token of a Google login (auth:
	// oauth), sent as a bearer token.
	bearer bool
	http   *httpkit.Client
	ep     Endpoint
	// bodies recycles the buffers of embedding replies.
	bodies sync.Pool
}

// Endpoint says where a Client's requests go and how they prove who sends
// them. The zero value is the Generative Language API:
// {api_base}/models/{model}:{method} with the API key in x-goog-api-key.
type Endpoint struct {
	// MethodURL returns the URL of a method of a model, such as
	// "generateContent" or "streamGenerateContent?alt=sse".
	MethodURL func(model, method string) string
	// Authorize sets a request's credentials on its headers; it may fetch
	// a token. refresh is true when the last attempt was refused with a
	// 401 and a token should be fetched anew. The request is sent again
	// once after a 401 only when Authorize is set.
	Authorize func(ctx context.Context, h http.Header, refresh bool) error
	// UserAgent is sent as User-Agent (default coyote-provider-gemini/Version).
	UserAgent string
}

// NewClient makes a client that sends Gemini requests through hc to ep.
// name is the client's name in the user's configuration.
func NewClient(name string, hc *httpkit.Client, ep Endpoint) *Client {
	return &Client{name: name, http: hc, ep: ep}
}

func label(name string) string { return fmt.Sprintf("gemini client %q", name) }

// Configure registers the client, or replaces a client of the same name.
func (p *Provider) Configure(_ context.Context, req *provider.ConfigureRequest) (*provider.ConfigureResponse, error) {
	cfg := &req.Client
	if cfg.Name == "" {
		return nil, &httpkit.Error{Msg: "gemini client without a name", Kind: sdk.ErrInvalidArgument}
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
	auth, _ := cfg.Options["auth"].(string)
	c := &Client{name: cfg.Name, key: cfg.APIKey, bearer: auth == "oauth", http: hc}
	p.clients.Put(c.name, c)
	// The kernel configures a client just before its first request:
	// connect now, while the kernel prepares that request.
	c.http.Warm()
	return &provider.ConfigureResponse{APIBase: c.http.Base}, nil
}

func (p *Provider) client(name string) (*Client, error) { return p.clients.Get(name) }

// Close drops the client's idle connections.
func (c *Client) Close() { c.http.Close() }

// header returns the headers of a request to the API, with its
// credentials.
func (c *Client) header(ctx context.Context, accept string, body, refresh bool) (http.Header, error) {
	h := make(http.Header, 4)
	switch {
	case c.ep.Authorize != nil:
		if err := c.ep.Authorize(ctx, h, refresh); err != nil {
			return nil, err
		}
	case c.key == "":
	case c.bearer:
		h.Set("Authorization", "Bearer "+c.key)
	default:
		h.Set("x-goog-api-key", c.key)
	}
	if body {
		h.Set("Content-Type", "application/json")
	}
	h.Set("Accept", accept)
	def := c.ep.UserAgent
	if def == "" {
		def = "coyote-provider-gemini/" + Version
	}
	h.Set("User-Agent", c.http.UserAgent(def))
	return h, nil
}

// Post sends body to url after the request patches, and once more with a
// fresh token when an Endpoint with its own Authorize is refused with a
// 401 (before any of the reply was read, so nothing is shown twice).
func (c *Client) Post(ctx context.Context, url string, body []byte, accept string, patches []provider.RequestPatch) (*httpkit.Exchange, error) {
	for attempt := 0; ; attempt++ {
		h, err := c.header(ctx, accept, true, attempt > 0)
		if err != nil {
			return nil, err
		}
		u, b, err := provider.ApplyPatches(patches, url, body, h)
		if err != nil {
			return nil, c.http.Fail(sdk.ErrInvalidArgument, "%v", err)
		}
		x, err := c.http.Do(ctx, http.MethodPost, u, b, h)
		if err != nil {
			return nil, err
		}
		if x.Resp.StatusCode == http.StatusUnauthorized && attempt == 0 && c.ep.Authorize != nil {
			x.Drain()
			x.Close()
			continue
		}
		return x, nil
	}
}

// modelPath is the resource name of a model: "models/<name>", or the name
// itself when it already names a resource ("tunedModels/x", "models/y").
func modelPath(model string) string {
	model = strings.Trim(strings.TrimSpace(model), "/")
	if !strings.Contains(model, "/") {
		model = "models/" + model
	}
	segs := strings.Split(model, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// methodURL is the URL of a method of a model, e.g.
// {api_base}/models/gemini-2.5-flash:generateContent.
func (c *Client) methodURL(model, method string) string {
	if c.ep.MethodURL != nil {
		return c.ep.MethodURL(model, method)
	}
	return c.http.Base + "/" + modelPath(model) + ":" + method
}

// Chat sends the conversation to generateContent, or to
// streamGenerateContent when the request asks for a stream, and reports the
// reply as events.
func (p *Provider) Chat(ctx context.Context, req *provider.ChatRequest, send func(*provider.ChatEvent) error) error {
	c, err := p.client(req.Client)
	if err != nil {
		return err
	}
	return c.Chat(ctx, req, send)
}

// Chat sends the conversation to generateContent, or to
// streamGenerateContent when the request asks for a stream, and reports the
// reply as events.
func (c *Client) Chat(ctx context.Context, req *provider.ChatRequest, send func(*provider.ChatEvent) error) error {
	if strings.TrimSpace(req.Model) == "" {
		return c.http.Fail(sdk.ErrInvalidArgument, "no model given")
	}
	body, err := chatBody(req)
	if err != nil {
		return c.http.Fail(sdk.ErrInvalidArgument, "%v", err)
	}
	method, accept := "generateContent", "application/json"
	if req.Stream {
		method, accept = "streamGenerateContent?alt=sse", "text/event-stream"
	}
	x, err := c.Post(ctx, c.methodURL(req.Model, method), body, accept, req.Patches)
	if err != nil {
		return err
	}
	defer x.Close()
	if x.Resp.StatusCode/100 != 2 {
		return c.StatusError(x, req.Model)
	}
	st := &streamState{c: c, send: send}
	// A proxy (or a patched URL) may answer a stream with one JSON document.
	if !req.Stream || strings.HasPrefix(x.Resp.Header.Get("Content-Type"), "application/json") {
		return st.readWhole(x)
	}
	return st.readStream(x)
}

// ListModels lists the client's models (GET {api_base}/models, every
// page): those that generate content as chat models, those that embed as
// embedding models. Others (image, audio, question answering) are left out.
func (p *Provider) ListModels(ctx context.Context, req *provider.ListModelsRequest) (*provider.ListModelsResponse, error) {
	c, err := p.client(req.Client)
	if err != nil {
		return nil, err
	}
	out := &provider.ListModelsResponse{}
	token := ""
	for range 100 {
		u := c.http.Base + "/models?pageSize=1000"
		if token != "" {
			u += "&pageToken=" + url.QueryEscape(token)
		}
		page, err := c.modelPage(ctx, u)
		if err != nil {
			return nil, err
		}
		for _, m := range page.Models {
			if model, ok := m.model(); ok {
				out.Models = append(out.Models, model)
			}
		}
		if token = page.NextPageToken; token == "" {
			return out, nil
		}
	}
	return nil, c.http.Fail(sdk.ErrBadResponse, "the model list from %s has more than 100 pages", c.http.BaseForHumans)
}

type modelList struct {
	Models        []listedModel `json:"models"`
	NextPageToken string        `json:"nextPageToken"`
}

// listedModel is one model of GET /models.
type listedModel struct {
	// Name is "models/<id>".
	Name             string   `json:"name"`
	InputTokenLimit  int64    `json:"inputTokenLimit"`
	OutputTokenLimit int64    `json:"outputTokenLimit"`
	Methods          []string `json:"supportedGenerationMethods"`
}

func (c *Client) modelPage(ctx context.Context, u string) (*modelList, error) {
	h, err := c.header(ctx, "application/json", false, false)
	if err != nil {
		return nil, err
	}
	x, err := c.http.Do(ctx, http.MethodGet, u, nil, h)
	if err != nil {
		return nil, err
	}
	defer x.Close()
	if x.Resp.StatusCode/100 != 2 {
		return nil, c.StatusError(x, "")
	}
	data, err := x.ReadAll(maxBody)
	if err != nil {
		return nil, err
	}
	var page modelList
	if err := json.Unmarshal(data, &page); err != nil {
		return nil, c.http.Fail(sdk.ErrBadResponse, "the model list from %s is not Google's JSON: %v: %s", c.http.BaseForHumans, err, httpkit.Quote(data))
	}
	return &page, nil
}

// model converts one listed model, or reports false for a model that
// neither chats nor embeds.
func (m *listedModel) model() (provider.Model, bool) {
	out := provider.Model{
		Name:            strings.TrimPrefix(m.Name, "models/"),
		MaxInputTokens:  m.InputTokenLimit,
		MaxOutputTokens: m.OutputTokenLimit,
	}
	chat, embed := false, false
	for _, method := range m.Methods {
		switch method {
		case "generateContent", "streamGenerateContent":
			chat = true
		case "embedContent", "batchEmbedContents":
			embed = true
		}
	}
	switch {
	case out.Name == "":
		return out, false
	case chat:
		out.Type = provider.ModelChat
		// Every Gemini chat model reads images and calls functions; the
		// other families listed (Gemma, ...) are not assumed to.
		if strings.HasPrefix(out.Name, "gemini-") {
			out.SupportsVision, out.SupportsFunctionCalling = true, true
		}
	case embed:
		out.Type = provider.ModelEmbedding
		out.MaxOutputTokens = 0
	default:
		return out, false
	}
	return out, true
}

var (
	_ provider.Provider = (*Provider)(nil)
	_ provider.Embedder = (*Provider)(nil)
)
