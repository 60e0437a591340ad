// Package bedrock owns Coyote's provider for Amazon Bedrock (client type
// "bedrock"). It calls Bedrock's Converse and ConverseStream APIs, and
// InvokeModel for embeddings and reranking, through the official
// aws-sdk-go-v2 client (bedrockruntime), which signs each request with
// SigV4 and reads the event-stream frames of a streamed reply. It turns
// Coyote's conversations into Converse messages (tool results replayed as
// toolResult blocks of a user message, signed reasoning replayed as
// reasoningContent), reports the reply as chat events, and maps Bedrock's
// errors onto the sdk sentinels.
//
// Client options it understands (keys of the client's entry in
// config.yaml; {{NAME}} secrets are resolved by the kernel):
//
//	access_key_id: AKIA...        # with secret_access_key: fixed credentials
//	secret_access_key: ...
//	session_token: ...            # only for temporary credentials
//	profile: work                 # a profile of ~/.aws/config (no keys given)
//	region: us-east-1             # default: AWS_REGION, or the profile's
//	api_base: https://...         # an endpoint of its own (VPC endpoint, proxy)
//	extra:
//	  proxy: http://proxy:3128    # default: the *_PROXY environment variables
//	  connect_timeout: 10         # seconds to establish a connection
//	  read_timeout: 300           # seconds without a byte from the server
//
// Without access_key_id the standard AWS chain finds the credentials: the
// AWS_* environment variables, the shared config and credentials files
// (AWS_PROFILE or profile:), SSO, web identity, the container or instance
// role.
package bedrock

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/httpkit"
	"github.com/coyote-cli/coyote/sdk/provider"
	"github.com/coyote-cli/coyote/sdk/redact"
)

// Version is the plugin's version, reported by Describe.
const Version = "0.1.0"

// Type is the client type served by this provider.
const Type = "bedrock"

// Info is what the plugin reports about itself through Describe.
var Info = sdk.Info{
	Name:         Type,
	Version:      Version,
	Description:  "Amazon Bedrock (Converse API, SigV4)",
	Capabilities: []string{provider.CapTools, provider.CapReasoning},
}

// Provider serves every configured bedrock client of one plugin process.
// Use New; it is safe for concurrent use.
type Provider struct {
	clients httpkit.Clients[*client]
}

// New returns a Provider without clients.
func New() *Provider {
	return &Provider{clients: httpkit.Clients[*client]{Label: label}}
}

func label(name string) string { return "bedrock client " + strconv.Quote(name) }

// client is one configured client. Configure starts making its AWS
// client in the background (see prepare), since the kernel configures a
// client just before its first request; a request waits for that work
// rather than doing it again.
type client struct {
	name  string
	label string
	// region and base are the configured ones ("" when unset).
	region, base string
	// ak, sk and token are fixed credentials; profile picks a shared
	// config profile when there are none.
	ak, sk, token, profile string
	models                 []provider.Model
	secrets                *redact.Redactor
	opts                   httpkit.Options

	mu sync.Mutex
	// api carries Bedrock's requests, through the connection its Warm
	// opened; it is made at Configure when the endpoint is known then
	// (api_base, or a region of the client's entry or the environment),
	// else with the AWS client.
	api *httpkit.Client
	rt  *bedrockruntime.Client
	// endpoint is where requests go, for messages.
	endpoint string
}

func invalidConfig(name, msg string) error {
	return &httpkit.Error{Msg: label(name) + ": " + msg, Kind: sdk.ErrInvalidArgument}
}

// option reads a string option; ok is false when it is set to something
// else than a string.
func option(opts map[string]any, key string) (string, bool) {
	v, has := opts[key]
	if !has || v == nil {
		return "", true
	}
	switch s := v.(type) {
	case string:
		return strings.TrimSpace(s), true
	case int, int64, float64:
		return strings.TrimSpace(fmt.Sprint(s)), true
	}
	return "", false
}

func newClient(cfg *provider.ClientConfig) (*client, error) {
	if cfg.Name == "" {
		return nil, &httpkit.Error{Msg: "bedrock client without a name", Kind: sdk.ErrInvalidArgument}
	}
	if cfg.Type != Type {
		return nil, invalidConfig(cfg.Name, "type "+strconv.Quote(cfg.Type)+" is not served by this plugin (it serves "+Type+")")
	}
	c := &client{name: cfg.Name, label: label(cfg.Name), models: cfg.Models, secrets: &redact.Redactor{}}
	for key, dst := range map[string]*string{
		"access_key_id": &c.ak, "secret_access_key": &c.sk, "session_token": &c.token,
		"region": &c.region, "profile": &c.profile,
	} {
		v, ok := option(cfg.Options, key)
		if !ok {
			return nil, invalidConfig(cfg.Name, key+" must be a string")
		}
		*dst = v
	}
	if (c.ak == "") != (c.sk == "") {
		return nil, invalidConfig(cfg.Name, "access_key_id and secret_access_key go together: set both, or neither to use the AWS credential chain")
	}
	if c.token != "" && c.ak == "" {
		return nil, invalidConfig(cfg.Name, "session_token needs access_key_id and secret_access_key")
	}
	c.secrets.Add(c.sk, "[redacted]")
	c.secrets.Add(c.token, "[redacted]")
	if base := strings.TrimRight(strings.TrimSpace(cfg.APIBase), "/"); base != "" {
		if !strings.HasPrefix(base, "http://") && !strings.HasPrefix(base, "https://") {
			return nil, invalidConfig(cfg.Name, "api_base "+strconv.Quote(base)+" is not an http:// or https:// URL")
		}
		c.base = base
	}
	opts, err := httpkit.ParseExtra(cfg.Options["extra"])
	if err != nil {
		return nil, invalidConfig(cfg.Name, err.Error())
	}
	c.opts = opts
	if ep := c.knownEndpoint(); ep != "" {
		if c.api, err = httpkit.New(c.label, ep, c.sk, opts); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// knownEndpoint is the endpoint as far as it is known before the AWS
// configuration is read: api_base, or the default one of the client's
// region or the environment's; "" when the region comes from a profile.
func (c *client) knownEndpoint() string {
	if c.base != "" {
		return c.base
	}
	if r := cmpOr(c.region, regionFromEnv()); r != "" {
		return defaultEndpoint(r)
	}
	return ""
}

// Close drops the client's idle connections to Bedrock, and one opened
// ahead that no request took.
func (c *client) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.api != nil {
		c.api.Close()
	}
}

// prepareTimeout bounds the background making of the AWS client.
const prepareTimeout = 30 * time.Second

// prepare opens the connection to Bedrock and makes the AWS client in the
// background: for a client without keys of its own, that reads the AWS
// configuration files and fetches the credentials (from SSO, STS, or the
// container or instance endpoint), often the slowest part of a first
// request, while the kernel still prepares that request. A failure is
// left for the request to meet and report. Fixed keys never start the
// chain, so nothing there can reach the instance endpoint.
func (c *client) prepare() {
	c.mu.Lock()
	if c.api != nil {
		c.api.Warm()
	}
	c.mu.Unlock()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), prepareTimeout)
		defer cancel()
		rt, err := c.runtime(ctx)
		if err != nil || c.ak != "" {
			return
		}
		// The chain's credentials come in an aws.CredentialsCache: the
		// request reuses what this fetches, or waits for it.
		if creds := rt.Options().Credentials; creds != nil {
			_, _ = creds.Retrieve(ctx)
		}
	}()
}

// fail builds an error of class kind about the client, one line, with its
// secrets masked.
func (c *client) fail(kind error, format string, args ...any) error {
	msg := httpkit.OneLine(c.label+": "+fmt.Sprintf(format, args...), 600)
	return &httpkit.Error{Msg: c.secrets.String(msg), Kind: kind}
}

// regionFromEnv is the region of the environment, as the AWS tools read
// it.
func regionFromEnv() string {
	if r := os.Getenv("AWS_REGION"); r != "" {
		return r
	}
	return os.Getenv("AWS_DEFAULT_REGION")
}

// defaultEndpoint is Bedrock's runtime endpoint in a region.
func defaultEndpoint(region string) string {
	suffix := "amazonaws.com"
	if strings.HasPrefix(region, "cn-") {
		suffix = "amazonaws.com.cn"
	}
	return "https://bedrock-runtime." + region + "." + suffix
}

// chainClient is the HTTP client of the credential chain's requests (STS,
// SSO, the container and instance endpoints: other hosts than Bedrock's):
// the AWS SDK's own kind, to which the AWS configuration can add a CA
// bundle (AWS_CA_BUNDLE, ca_bundle of a profile), with the client's proxy
// and connect timeout.
func chainClient(opts httpkit.Options) *awshttp.BuildableClient {
	return awshttp.NewBuildableClient().
		WithTransportOptions(func(t *http.Transport) {
			t.Proxy = opts.Proxy
			t.TLSHandshakeTimeout = opts.ConnectTimeout
		}).
		WithDialerOptions(func(d *net.Dialer) { d.Timeout = opts.ConnectTimeout })
}

// runtime returns the client's AWS client, making it on first use.
func (c *client) runtime(ctx context.Context) (*bedrockruntime.Client, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.rt != nil {
		return c.rt, nil
	}
	var (
		creds  aws.CredentialsProvider
		region = c.region
	)
	if c.ak != "" {
		creds = credentials.NewStaticCredentialsProvider(c.ak, c.sk, c.token)
		if region == "" {
			region = regionFromEnv()
		}
	} else {
		var loads []func(*awsconfig.LoadOptions) error
		loads = append(loads, awsconfig.WithHTTPClient(chainClient(c.opts)))
		if region != "" {
			loads = append(loads, awsconfig.WithRegion(region))
		}
		if c.profile != "" {
			loads = append(loads, awsconfig.WithSharedConfigProfile(c.profile))
		}
		cfg, err := awsconfig.LoadDefaultConfig(ctx, loads...)
		if err != nil {
			return nil, c.fail(sdk.ErrInvalidArgument, "read the AWS configuration: %v", err)
		}
		creds, region = cfg.Credentials, cfg.Region
	}
	if region == "" {
		return nil, c.fail(sdk.ErrInvalidArgument, "no AWS region: set region: on the client (such as us-east-1), or AWS_REGION")
	}
	endpoint := c.base
	if endpoint == "" {
		endpoint = defaultEndpoint(region)
	}
	if c.api == nil {
		api, err := httpkit.New(c.label, endpoint, c.sk, c.opts)
		if err != nil {
			return nil, err
		}
		c.api = api
	}
	c.endpoint = endpoint
	c.rt = bedrockruntime.New(bedrockruntime.Options{
		Region:      region,
		Credentials: creds,
		// Signed requests carry credentials: never follow a redirect to
		// another host.
		HTTPClient: &http.Client{Transport: idleTimeout{c.api.RoundTripper(), c.opts.ReadTimeout}, CheckRedirect: httpkit.SameOriginRedirects},
		// The kernel retries rate limits and server errors itself, waiting
		// what the server asks; the SDK retrying too would multiply them.
		Retryer:      aws.NopRetryer{},
		BaseEndpoint: aws.String(endpoint),
		AppID:        "coyote",
	})
	return c.rt, nil
}

// Configure registers the client, or replaces a client of the same name.
// The kernel configures a client just before its first request, so the
// connection and the credentials are got ready now (see prepare), while
// the kernel still prepares that request.
func (p *Provider) Configure(_ context.Context, req *provider.ConfigureRequest) (*provider.ConfigureResponse, error) {
	c, err := newClient(&req.Client)
	if err != nil {
		return nil, err
	}
	p.clients.Put(c.name, c)
	c.prepare()
	return &provider.ConfigureResponse{APIBase: c.knownEndpoint()}, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// ListModels lists the models configured for the client. Bedrock's model
// catalog is a different service (and IAM permission) than the runtime
// this plugin calls, so the kernel's catalog stays the source of the rest.
func (p *Provider) ListModels(_ context.Context, req *provider.ListModelsRequest) (*provider.ListModelsResponse, error) {
	c, err := p.clients.Get(req.Client)
	if err != nil {
		return nil, err
	}
	return &provider.ListModelsResponse{Models: append([]provider.Model(nil), c.models...)}, nil
}

var _ provider.Provider = (*Provider)(nil)
