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

// client is one configured client. The AWS client is made on first use:
// finding credentials through the AWS chain reads files, which a client
// that is configured but not used this run should not pay for.
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
	http                   *http.Client
	transport              *http.Transport

	mu sync.Mutex
	rt *bedrockruntime.Client
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
	dialer := &net.Dialer{Timeout: opts.ConnectTimeout, KeepAlive: 30 * time.Second}
	c.transport = &http.Transport{
		Proxy:                 opts.Proxy,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   opts.ConnectTimeout,
		MaxIdleConns:          32,
		MaxIdleConnsPerHost:   8,
		IdleConnTimeout:       90 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	// Signed requests carry credentials: never follow a redirect to
	// another host.
	c.http = &http.Client{Transport: idleTimeout{c.transport, opts.ReadTimeout}, CheckRedirect: httpkit.SameOriginRedirects}
	return c, nil
}

// Close drops the client's idle connections.
func (c *client) Close() { c.transport.CloseIdleConnections() }

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
		loads = append(loads, awsconfig.WithHTTPClient(c.http))
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
	c.endpoint = endpoint
	c.rt = bedrockruntime.New(bedrockruntime.Options{
		Region:      region,
		Credentials: creds,
		HTTPClient:  c.http,
		// The kernel retries rate limits and server errors itself, waiting
		// what the server asks; the SDK retrying too would multiply them.
		Retryer:      aws.NopRetryer{},
		BaseEndpoint: aws.String(endpoint),
		AppID:        "coyote",
	})
	return c.rt, nil
}

// Configure registers the client, or replaces a client of the same name.
// It reads no file and makes no request: credentials are found on first
// use.
func (p *Provider) Configure(_ context.Context, req *provider.ConfigureRequest) (*provider.ConfigureResponse, error) {
	c, err := newClient(&req.Client)
	if err != nil {
		return nil, err
	}
	p.clients.Put(c.name, c)
	base := c.base
	if base == "" {
		if r := cmpOr(c.region, regionFromEnv()); r != "" {
			base = defaultEndpoint(r)
		}
	}
	return &provider.ConfigureResponse{APIBase: base}, nil
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
