// Package vertexai owns Coyote's provider for Google Cloud's Vertex AI
// (client type "vertexai"): Gemini models through Vertex's
// generateContent and streamGenerateContent, Claude models through
// rawPredict and streamRawPredict with the Messages API body, and text
// embeddings through predict. The wire formats are the Gemini and Claude
// plugins' own (packages gemini and claude, given Vertex's URLs and an
// OAuth token through their Endpoint); this package adds the URLs, the
// credentials and the embeddings.
//
// A client's entry in config.yaml:
//
//   - type: vertexai
//     project_id: my-project
//     location: us-central1          # or global
//     adc_file: ~/.config/gcloud/application_default_credentials.json  # optional
//     api_base: https://...          # optional; default from location
//     extra: {proxy: ..., connect_timeout: 10, read_timeout: 300}
//
// adc_file is any Google credentials file: the authorized_user file
// `gcloud auth application-default login` writes, or a service account's
// JSON key (the JWT flow: the key signs an assertion that the token
// endpoint exchanges for an access token). Without it the plugin uses
// Application Default Credentials: the well-known gcloud file, then the
// metadata server of a Google Cloud machine. The access token travels as
// "Authorization: Bearer"; it is refreshed a minute before it expires,
// and once more when Vertex answers 401 before any of a reply was read.
//
// A model is Claude's (publisher anthropic) when its name starts with
// "claude-", Google's otherwise; Mistral's models on Vertex (mistral-*,
// codestral-*) are refused with sdk.ErrUnsupported, not served yet. Thought signatures of Gemini replies are
// kept on the tool calls and reasoning and sent back with the next round,
// as the Gemini plugin does; a reasoning effort becomes Gemini's
// thinkingConfig.thinkingLevel (or thinkingBudget, when a number), and
// Claude's output_config.effort.
package vertexai

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/coyote-cli/coyote/plugins/provider-claude/claude"
	"github.com/coyote-cli/coyote/plugins/provider-gemini/gemini"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/httpkit"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// Version is the plugin's version, reported by Describe and sent in the
// User-Agent header.
const Version = "0.1.0"

// Info is what the plugin reports about itself through Describe.
var Info = sdk.Info{
	Name:         "vertexai",
	Version:      Version,
	Description:  "Google Cloud Vertex AI: Gemini and Claude chat, text embeddings",
	Capabilities: []string{provider.CapTools, provider.CapReasoning},
}

// Type is the client type served by this provider.
const Type = "vertexai"

// ClaudeVersion is the anthropic_version of a Claude request on Vertex.
const ClaudeVersion = "vertex-2023-10-16"

// userAgent is sent with every request.
const userAgent = "coyote-provider-vertexai/" + Version

// Provider serves every configured Vertex AI client of one plugin process.
// Use New; it is safe for concurrent use.
type Provider struct {
	clients httpkit.Clients[*client]
}

// New returns a Provider without clients.
func New() *Provider {
	return &Provider{clients: httpkit.Clients[*client]{Label: label}}
}

func label(name string) string { return "vertexai client " + strconv.Quote(name) }

// client is one configured client.
type client struct {
	name string
	http *httpkit.Client
	// prefix is {api_base}/projects/{project}/locations/{location}/publishers/.
	prefix string
	tokens *tokens
	gemini *gemini.Client
	claude *claude.Client
}

// Close drops the client's idle connections, the token endpoint's too.
func (c *client) Close() {
	c.http.Close()
	c.tokens.hc.CloseIdleConnections()
}

// DefaultAPIBase is the api_base of a client in location that sets none.
func DefaultAPIBase(location string) string {
	if location == "global" {
		return "https://aiplatform.googleapis.com/v1"
	}
	return "https://" + location + "-aiplatform.googleapis.com/v1"
}

// option reads a string option of the client's entry.
func option(cfg *provider.ClientConfig, key string) (string, error) {
	v, ok := cfg.Options[key]
	if !ok || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s must be a string, not %T", key, v)
	}
	return strings.TrimSpace(s), nil
}

// Configure registers the client, or replaces a client of the same name.
func (p *Provider) Configure(_ context.Context, req *provider.ConfigureRequest) (*provider.ConfigureResponse, error) {
	cfg := &req.Client
	if cfg.Name == "" {
		return nil, &httpkit.Error{Msg: "vertexai client without a name", Kind: sdk.ErrInvalidArgument}
	}
	bad := func(format string, args ...any) error {
		return &httpkit.Error{Msg: label(cfg.Name) + ": " + fmt.Sprintf(format, args...), Kind: sdk.ErrInvalidArgument}
	}
	if cfg.Type != Type {
		return nil, bad("type %q is not served by this plugin (it serves %s)", cfg.Type, Type)
	}
	opts, err := httpkit.ParseExtra(cfg.Options["extra"])
	if err != nil {
		return nil, bad("%v", err)
	}
	project, err := option(cfg, "project_id")
	if err != nil {
		return nil, bad("%v", err)
	}
	location, err := option(cfg, "location")
	if err != nil {
		return nil, bad("%v", err)
	}
	adc, err := option(cfg, "adc_file")
	if err != nil {
		return nil, bad("%v", err)
	}
	if project == "" || location == "" {
		return nil, bad("set project_id and location (such as us-central1 or global) in its entry of config.yaml")
	}
	if strings.ContainsAny(project+location, "/?#") {
		return nil, bad("project_id %q or location %q is not a name", project, location)
	}
	base := strings.TrimSpace(cfg.APIBase)
	if base == "" {
		base = DefaultAPIBase(location)
	}
	hc, err := httpkit.New(label(cfg.Name), base, cfg.APIKey, opts)
	if err != nil {
		return nil, err
	}
	tk, err := newTokens(label(cfg.Name), adc, opts.Proxy, opts.ConnectTimeout)
	if err != nil {
		return nil, bad("%v", err)
	}
	c := &client{name: cfg.Name, http: hc, tokens: tk,
		prefix: hc.Base + "/projects/" + url.PathEscape(project) + "/locations/" + url.PathEscape(location) + "/publishers/"}
	c.gemini = gemini.NewClient(cfg.Name, hc, gemini.Endpoint{
		MethodURL: func(model, method string) string { return c.modelURL("google", model, method) },
		Authorize: tk.authorize,
		UserAgent: userAgent,
	})
	c.claude = claude.NewClient(cfg.Name, hc, claude.Endpoint{
		MessagesURL: func(model string, stream bool) string {
			if stream {
				return c.modelURL("anthropic", model, "streamRawPredict")
			}
			return c.modelURL("anthropic", model, "rawPredict")
		},
		Authorize:   tk.authorize,
		BodyVersion: ClaudeVersion,
		UserAgent:   userAgent,
	})
	p.clients.Put(c.name, c)
	// The kernel configures a client just before its first request: fetch
	// the token and open the API connection now, both at once.
	tk.prefetch()
	hc.Warm()
	return &provider.ConfigureResponse{APIBase: hc.Base}, nil
}

// modelURL is the URL of a method of a publisher's model, e.g.
// .../publishers/google/models/gemini-2.5-flash:generateContent.
func (c *client) modelURL(publisher, model, method string) string {
	return c.prefix + publisher + "/models/" + url.PathEscape(strings.TrimSpace(model)) + ":" + method
}

// publisher is who serves a model on Vertex.
func publisher(model string) string {
	switch {
	case strings.HasPrefix(model, "claude-"):
		return "anthropic"
	case strings.HasPrefix(model, "mistral-"), strings.HasPrefix(model, "codestral-"):
		return "mistralai"
	}
	return "google"
}

// Chat sends the conversation to the model's publisher and reports the
// reply as events.
func (p *Provider) Chat(ctx context.Context, req *provider.ChatRequest, send func(*provider.ChatEvent) error) error {
	c, err := p.clients.Get(req.Client)
	if err != nil {
		return err
	}
	if strings.TrimSpace(req.Model) == "" {
		return c.http.Fail(sdk.ErrInvalidArgument, "no model given")
	}
	switch publisher(req.Model) {
	case "anthropic":
		return c.claude.Chat(ctx, req, send)
	case "mistralai":
		return c.http.Fail(sdk.ErrUnsupported, "model %q is Mistral's, and this plugin serves only Google's and Anthropic's models on Vertex AI", req.Model)
	}
	return c.gemini.Chat(ctx, req, send)
}

// ListModels is not offered: Vertex AI has no list of the foundation
// models a project may call, so the catalog's vertexai models (or the
// client's own models:) are the list.
func (p *Provider) ListModels(_ context.Context, req *provider.ListModelsRequest) (*provider.ListModelsResponse, error) {
	c, err := p.clients.Get(req.Client)
	if err != nil {
		return nil, err
	}
	return nil, c.http.Fail(sdk.ErrUnsupported, "Vertex AI does not list the models a project can call; list them under models: in config.yaml")
}

var (
	_ provider.Provider = (*Provider)(nil)
	_ provider.Embedder = (*Provider)(nil)
)
