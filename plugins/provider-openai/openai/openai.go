// Package openai owns Coyote's provider for the OpenAI API and the many
// services that copy it (Groq, Mistral, DeepSeek, OpenRouter, Ollama, vLLM,
// LM Studio, ...). It implements provider.Provider, provider.Embedder and
// provider.Reranker for the client types "openai", "openai-compatible" and
// "azure-openai" (the same API on an Azure resource: the deployment in the
// path, ?api-version=, the api-key header or an Entra token):
// request building, server-sent-event parsing, tool-call reassembly, a fast
// decoder for batches of vectors, the presets of known services, and the
// mapping of HTTP and stream errors onto the sdk error sentinels. The HTTP
// plumbing itself is sdk/httpkit.
//
// An "openai" client that logs in with a ChatGPT subscription (auth: oauth,
// no api_base) talks to the ChatGPT backend's Codex endpoint (ChatGPTBase)
// in the Responses API: the system prompt as instructions, input items,
// function_call and function_call_output items for tool rounds, encrypted
// reasoning sent back so the model keeps it across them, and the account,
// session and originator headers the backend asks for. wire_api:
// responses asks for the Responses API of any other openai or
// openai-compatible client. The decision is the plugin's, from the
// client's own configuration; the kernel only says that the key is an
// OAuth token.
//
// An openai-compatible client named after a known service needs no
// api_base: ai21, cloudflare (with account_id), deepinfra, deepseek, ernie,
// github, groq, hunyuan, jina, minimax, mistral, moonshot, openrouter,
// perplexity, qianwen, voyageai, xai and zhipuai. Jina and Voyage also get
// their own field names for embeddings and reranking.
//
// Client options it understands, besides api_base and the key:
//
//	organization_id: org-...      # sent as OpenAI-Organization
//	api_version: 2024-10-21       # azure-openai: the api-version query
//	auth: oauth                   # the key is an OAuth token (kernel/oauth)
//	wire_api: responses           # chat over the Responses API (default: chat)
//	chatgpt_account_id: ...       # the ChatGPT workspace (default: the token's)
//	account_id: 0123abcd          # the cloudflare preset's account
//	extra:
//	  proxy: http://proxy:3128    # default: the *_PROXY environment variables
//	  connect_timeout: 10         # seconds to establish a connection
//	  read_timeout: 300           # seconds without a byte from the server
package openai

import (
	"context"
	"encoding/json"
	"net/http"
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
	Name:         "openai",
	Version:      Version,
	Description:  "OpenAI and OpenAI-compatible APIs: chat, embeddings, rerank (Groq, Mistral, Jina, Voyage, Ollama, vLLM, ...)",
	Capabilities: []string{provider.CapTools, provider.CapReasoning},
}

// Client types served by this provider.
const (
	TypeOpenAI           = "openai"
	TypeOpenAICompatible = "openai-compatible"
	TypeAzureOpenAI      = "azure-openai"
)

// DefaultAzureAPIVersion is the api-version of an azure-openai client that
// sets no api_version: the newest generally available one with streamed
// usage and tool calls.
const DefaultAzureAPIVersion = "2024-10-21"

// DefaultAPIBase is the api_base of an "openai" client that sets none.
const DefaultAPIBase = "https://api.openai.com/v1"

// Provider serves every configured OpenAI and OpenAI-compatible client of
// one plugin process. Use New; it is safe for concurrent use.
type Provider struct {
	clients httpkit.Clients[*client]
}

// New returns a Provider without clients.
func New() *Provider {
	return &Provider{clients: httpkit.Clients[*client]{Label: func(name string) string { return label("", name) }}}
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

func (p *Provider) client(name string) (*client, error) { return p.clients.Get(name) }

// Close drops the client's idle connections.
func (c *client) Close() { c.http.Close() }

// ListModels asks the server for its models (GET {api_base}/models).
func (p *Provider) ListModels(ctx context.Context, req *provider.ListModelsRequest) (*provider.ListModelsResponse, error) {
	c, err := p.client(req.Client)
	if err != nil {
		return nil, err
	}
	if c.azure {
		return nil, c.fail(sdk.ErrUnsupported, "Azure OpenAI does not list a resource's deployments to an API key; name your deployments under models: in config.yaml")
	}
	if c.chatgpt {
		return nil, c.fail(sdk.ErrUnsupported, "the ChatGPT backend does not list its models; name them under models: in config.yaml (gpt-5, gpt-5-codex, ...)")
	}
	x, err := c.send(ctx, http.MethodGet, "/models", nil, "application/json", nil)
	if err != nil {
		return nil, err
	}
	defer x.Close()
	if x.Resp.StatusCode/100 != 2 {
		return nil, c.statusError(x, "", "")
	}
	data, err := x.ReadAll(maxBody)
	if err != nil {
		return nil, err
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, c.fail(sdk.ErrBadResponse, "the model list from %s is not OpenAI's JSON: %v: %s", c.http.BaseForHumans, err, httpkit.Quote(data))
	}
	out := &provider.ListModelsResponse{Models: make([]provider.Model, 0, len(list.Data))}
	for _, m := range list.Data {
		if m.ID == "" {
			continue
		}
		out.Models = append(out.Models, provider.Model{Name: m.ID, Type: modelType(m.ID)})
	}
	return out, nil
}

// modelType guesses a model's type from its id.
func modelType(id string) string {
	id = strings.ToLower(id)
	switch {
	case strings.Contains(id, "embed"):
		return provider.ModelEmbedding
	case strings.Contains(id, "rerank"):
		return provider.ModelReranker
	}
	return provider.ModelChat
}

// Chat sends the conversation to {api_base}/chat/completions and reports the
// reply as events, streamed or not as the request asks.
func (p *Provider) Chat(ctx context.Context, req *provider.ChatRequest, send func(*provider.ChatEvent) error) error {
	c, err := p.client(req.Client)
	if err != nil {
		return err
	}
	if req.Model == "" {
		return c.fail(sdk.ErrInvalidArgument, "no model given")
	}
	if c.responses {
		return c.chatResponses(ctx, req, send)
	}
	body, err := c.chatBody(req)
	if err != nil {
		return err
	}
	accept := "application/json"
	if req.Stream {
		accept = "text/event-stream"
	}
	x, err := c.send(ctx, http.MethodPost, c.endpoint("chat/completions", req.Model), body, accept, req.Patches)
	if err != nil {
		return err
	}
	defer x.Close()
	if x.Resp.StatusCode/100 != 2 {
		return c.statusError(x, req.Model, "")
	}
	// A server that ignores "stream" answers with one JSON object.
	if !req.Stream || strings.HasPrefix(x.Resp.Header.Get("Content-Type"), "application/json") {
		return c.readCompletion(x, send)
	}
	return c.readStream(x, send)
}

var (
	_ provider.Provider = (*Provider)(nil)
	_ provider.Embedder = (*Provider)(nil)
	_ provider.Reranker = (*Provider)(nil)
)
