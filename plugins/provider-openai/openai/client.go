package openai

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/httpkit"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// maxBody bounds a non-streamed reply, a model list or a batch of vectors.
const maxBody = 64 << 20

// userAgent is sent with every request.
const userAgent = "coyote-provider-openai/" + Version

// Dialects of the embeddings and rerank endpoints: the services that ask
// for their own field names.
const (
	dialectOpenAI = ""
	dialectJina   = "jina"
	dialectVoyage = "voyageai"
)

// client is one configured client.
type client struct {
	name string
	typ  string
	// dialect picks the embeddings and rerank field names.
	dialect      string
	key          string
	organization string
	// azure: an azure-openai client, which names a deployment in the path,
	// sends apiVersion in the query and its key in the api-key header.
	azure      bool
	apiVersion string
	// bearer: the key is an OAuth access token the kernel obtained (auth:
	// oauth), always sent as "Authorization: Bearer".
	bearer bool
	// responses: chat goes to {api_base}/responses in the Responses API's
	// body and events rather than to chat/completions (see wireAPI).
	responses bool
	// chatgpt: the key is a ChatGPT login's token, so requests carry the
	// headers the ChatGPT backend asks for (see codexHeaders).
	chatgpt bool
	// accountID is the ChatGPT account (workspace) the token is for.
	accountID string
	http      *httpkit.Client
}

// label starts every error about the client: its type and name, as the
// user wrote them in config.yaml (openai-compatible client "groq").
func label(typ, name string) string {
	if typ == "" {
		return fmt.Sprintf("client %q", name)
	}
	return fmt.Sprintf("%s client %q", typ, name)
}

func invalidConfig(cfg *provider.ClientConfig, format string, args ...any) error {
	return &httpkit.Error{Msg: label(cfg.Type, cfg.Name) + ": " + fmt.Sprintf(format, args...), Kind: sdk.ErrInvalidArgument}
}

// presetBase returns the API base URL of a named openai-compatible service
// ("groq", "mistral", ...) and whether the name is a preset. The URL of
// "cloudflare" holds the placeholder {ACCOUNT_ID}.
func presetBase(name string) (string, bool) {
	var base string
	switch strings.ToLower(name) {
	case "ai21":
		base = "https://api.ai21.com/studio/v1"
	case "cloudflare":
		base = "https://api.cloudflare.com/client/v4/accounts/{ACCOUNT_ID}/ai/v1"
	case "deepinfra":
		base = "https://api.deepinfra.com/v1/openai"
	case "deepseek":
		base = "https://api.deepseek.com"
	case "ernie":
		base = "https://qianfan.baidubce.com/v2"
	case "github":
		base = "https://models.inference.ai.azure.com"
	case "groq":
		base = "https://api.groq.com/openai/v1"
	case "hunyuan":
		base = "https://api.hunyuan.cloud.tencent.com/v1"
	case "minimax":
		base = "https://api.minimax.chat/v1"
	case "mistral":
		base = "https://api.mistral.ai/v1"
	case "moonshot":
		base = "https://api.moonshot.cn/v1"
	case "openrouter":
		base = "https://openrouter.ai/api/v1"
	case "perplexity":
		base = "https://api.perplexity.ai"
	case "qianwen":
		base = "https://dashscope.aliyuncs.com/compatible-mode/v1"
	case "xai":
		base = "https://api.x.ai/v1"
	case "zhipuai":
		base = "https://open.bigmodel.cn/api/paas/v4"
	case "jina":
		base = "https://api.jina.ai/v1"
	case "voyageai":
		base = "https://api.voyageai.com/v1"
	default:
		return "", false
	}
	return base, true
}

const accountPlaceholder = "{ACCOUNT_ID}"

func newClient(cfg *provider.ClientConfig) (*client, error) {
	if cfg.Name == "" {
		return nil, &httpkit.Error{Msg: "openai client without a name", Kind: sdk.ErrInvalidArgument}
	}
	c := &client{name: cfg.Name, typ: cfg.Type, key: cfg.APIKey}
	base := strings.TrimSpace(cfg.APIBase)
	if auth, _ := cfg.Options["auth"].(string); auth == "oauth" {
		c.bearer = true
	}
	api, err := wireAPI(cfg, base, c.bearer)
	if err != nil {
		return nil, err
	}
	c.responses = api == WireResponses
	switch cfg.Type {
	case TypeOpenAI:
		switch {
		case base != "":
		case c.responses && c.bearer:
			// A ChatGPT login: the subscription's backend, not the API.
			base = ChatGPTBase
		default:
			base = DefaultAPIBase
		}
	case TypeOpenAICompatible:
		if base != "" {
			break
		}
		preset, ok := presetBase(cfg.Name)
		if !ok {
			return nil, invalidConfig(cfg, "type %s needs the server's URL: set api_base (for example http://localhost:11434/v1 for Ollama), or name the client after a known service such as groq or mistral", cfg.Type)
		}
		if strings.Contains(preset, accountPlaceholder) {
			account, _ := cfg.Options["account_id"].(string)
			if account = strings.TrimSpace(account); account == "" {
				return nil, invalidConfig(cfg, "the %s preset needs your account id: set the account_id option (or api_base)", strings.ToLower(cfg.Name))
			}
			preset = strings.Replace(preset, accountPlaceholder, url.PathEscape(account), 1)
		}
		base = preset
	case TypeAzureOpenAI:
		if base == "" {
			return nil, invalidConfig(cfg, "type %s needs your resource's endpoint: set api_base to https://<resource>.openai.azure.com", cfg.Type)
		}
		// The endpoint as the Azure portal shows it, or with the /openai
		// the paths add anyway.
		base = strings.TrimSuffix(strings.TrimRight(base, "/"), "/openai")
		c.azure = true
		c.apiVersion = DefaultAzureAPIVersion
		if v, ok := cfg.Options["api_version"]; ok && v != nil {
			s, ok := v.(string)
			if s = strings.TrimSpace(s); !ok || s == "" {
				return nil, invalidConfig(cfg, "api_version must be a version string such as %s", DefaultAzureAPIVersion)
			}
			c.apiVersion = s
		}
	default:
		return nil, invalidConfig(cfg, "type %q is not served by this plugin (it serves %s, %s and %s)", cfg.Type, TypeOpenAI, TypeOpenAICompatible, TypeAzureOpenAI)
	}
	if c.responses && c.bearer && cfg.Type == TypeOpenAI {
		// An OpenAI login's token on the Responses API: a ChatGPT
		// subscription (or a proxy in front of its backend).
		if err := c.setChatGPT(cfg); err != nil {
			return nil, err
		}
	}
	if cfg.Type == TypeOpenAICompatible {
		c.dialect = dialectOf(cfg.Name, base)
	}
	if v, ok := cfg.Options["organization_id"]; ok && v != nil {
		s, ok := v.(string)
		if !ok {
			return nil, invalidConfig(cfg, "organization_id must be a string")
		}
		c.organization = s
	}
	opts, err := httpkit.ParseExtra(cfg.Options["extra"])
	if err != nil {
		return nil, invalidConfig(cfg, "%v", err)
	}
	if c.http, err = httpkit.New(label(cfg.Type, cfg.Name), base, cfg.APIKey, opts); err != nil {
		return nil, err
	}
	return c, nil
}

// dialectOf recognises Jina and Voyage by the client's name or by the
// host of its api_base.
func dialectOf(name, base string) string {
	switch strings.ToLower(name) {
	case dialectJina:
		return dialectJina
	case dialectVoyage:
		return dialectVoyage
	}
	if u, err := url.Parse(base); err == nil {
		switch h := strings.ToLower(u.Hostname()); {
		case h == "jina.ai" || strings.HasSuffix(h, ".jina.ai"):
			return dialectJina
		case h == "voyageai.com" || strings.HasSuffix(h, ".voyageai.com"):
			return dialectVoyage
		}
	}
	return dialectOpenAI
}

// endpoint is the path, below api_base, of an API ("chat/completions",
// "embeddings") for a model: /<api> for OpenAI and the services that copy
// it, /openai/deployments/<model>/<api>?api-version=... for Azure, where
// the model is the deployment's name.
func (c *client) endpoint(api, model string) string {
	if !c.azure {
		return "/" + api
	}
	return "/openai/deployments/" + url.PathEscape(model) + "/" + api + "?api-version=" + url.QueryEscape(c.apiVersion)
}

// send makes one request to {api_base}{path} and returns once the response
// headers arrived. The request's patches are applied last. A nil body
// sends none.
func (c *client) send(ctx context.Context, method, path string, body []byte, accept string, patches []provider.RequestPatch) (*httpkit.Exchange, error) {
	return c.sendWith(ctx, method, path, body, accept, patches, nil)
}

// sendWith is send with headers of the request's own, set by set (before
// the patches).
func (c *client) sendWith(ctx context.Context, method, path string, body []byte, accept string, patches []provider.RequestPatch, set func(http.Header)) (*httpkit.Exchange, error) {
	h := make(http.Header, 8)
	switch {
	case c.key == "":
	case c.azure && !c.bearer:
		h.Set("api-key", c.key)
	default:
		h.Set("Authorization", "Bearer "+c.key)
	}
	if body != nil {
		h.Set("Content-Type", "application/json")
	}
	h.Set("Accept", accept)
	h.Set("User-Agent", c.http.UserAgent(userAgent))
	if c.organization != "" {
		h.Set("OpenAI-Organization", c.organization)
	}
	if c.chatgpt {
		c.codexHeaders(h)
	}
	if set != nil {
		set(h)
	}
	target := c.http.Base + path
	if len(patches) > 0 {
		var err error
		if target, body, err = provider.ApplyPatches(patches, target, body, h); err != nil {
			return nil, c.http.Fail(sdk.ErrInvalidArgument, "%v", err)
		}
	}
	return c.http.Do(ctx, method, target, body, h)
}

// fail builds an error of class kind about the client.
func (c *client) fail(kind error, format string, args ...any) error {
	return c.http.Fail(kind, format, args...)
}
