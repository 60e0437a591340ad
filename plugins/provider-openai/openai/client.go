package openai

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// Defaults of the extra.connect_timeout and extra.read_timeout options.
const (
	DefaultConnectTimeout = 10 * time.Second
	DefaultReadTimeout    = 300 * time.Second
)

// maxBody bounds a non-streamed reply or a model list.
const maxBody = 64 << 20

// client is one configured client with its own HTTP transport.
type client struct {
	name string
	// base is api_base without a trailing slash; baseForHumans is the same
	// with any password in it masked.
	base, baseForHumans string
	key                 string
	organization        string
	readTimeout         time.Duration
	transport           *http.Transport
	http                *http.Client
}

func invalidConfig(name, format string, args ...any) error {
	return &apiError{msg: fmt.Sprintf("openai client %q: ", name) + fmt.Sprintf(format, args...), kind: sdk.ErrInvalidArgument}
}

func newClient(cfg *provider.ClientConfig) (*client, error) {
	if cfg.Name == "" {
		return nil, &apiError{msg: "openai client without a name", kind: sdk.ErrInvalidArgument}
	}
	c := &client{name: cfg.Name, key: cfg.APIKey}
	c.base = strings.TrimRight(strings.TrimSpace(cfg.APIBase), "/")
	switch cfg.Type {
	case TypeOpenAI:
		if c.base == "" {
			c.base = DefaultAPIBase
		}
	case TypeOpenAICompatible:
		if c.base == "" {
			return nil, invalidConfig(cfg.Name, "type %s needs the server's URL: set api_base (for example http://localhost:11434/v1)", cfg.Type)
		}
	default:
		return nil, invalidConfig(cfg.Name, "type %q is not served by this plugin (it serves %s and %s)", cfg.Type, TypeOpenAI, TypeOpenAICompatible)
	}
	u, err := url.Parse(c.base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		shown := c.base
		if err == nil {
			shown = u.Redacted()
		}
		return nil, invalidConfig(cfg.Name, "api_base %q is not an http:// or https:// URL", shown)
	}
	c.baseForHumans = u.Redacted()

	if v, ok := cfg.Options["organization_id"]; ok && v != nil {
		s, ok := v.(string)
		if !ok {
			return nil, invalidConfig(cfg.Name, "organization_id must be a string")
		}
		c.organization = s
	}
	connect, read := DefaultConnectTimeout, DefaultReadTimeout
	proxy := http.ProxyFromEnvironment
	if raw, ok := cfg.Options["extra"]; ok && raw != nil {
		extra, ok := raw.(map[string]any)
		if !ok {
			return nil, invalidConfig(cfg.Name, "extra must be a mapping")
		}
		if connect, err = seconds(extra["connect_timeout"], DefaultConnectTimeout); err != nil {
			return nil, invalidConfig(cfg.Name, "extra.connect_timeout: %v", err)
		}
		if read, err = seconds(extra["read_timeout"], DefaultReadTimeout); err != nil {
			return nil, invalidConfig(cfg.Name, "extra.read_timeout: %v", err)
		}
		if v, ok := extra["proxy"]; ok && v != nil {
			s, ok := v.(string)
			if !ok {
				return nil, invalidConfig(cfg.Name, "extra.proxy must be a URL string")
			}
			if s = strings.TrimSpace(s); s != "" {
				pu, err := url.Parse(s)
				if err != nil || pu.Host == "" {
					return nil, invalidConfig(cfg.Name, "extra.proxy is not a URL such as http://proxy:3128")
				}
				switch pu.Scheme {
				case "http", "https", "socks5", "socks5h":
				default:
					return nil, invalidConfig(cfg.Name, "extra.proxy has scheme %q; use http, https or socks5", pu.Scheme)
				}
				proxy = http.ProxyURL(pu)
			}
		}
	}
	c.readTimeout = read
	dialer := &net.Dialer{Timeout: connect, KeepAlive: 30 * time.Second}
	c.transport = &http.Transport{
		Proxy:                 proxy,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   connect,
		MaxIdleConns:          32,
		MaxIdleConnsPerHost:   8,
		IdleConnTimeout:       90 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	c.http = &http.Client{Transport: c.transport}
	return c, nil
}

// seconds reads a timeout given in seconds (a number, or a string holding a
// number or a Go duration such as "1m30s"). Nil or zero means def.
func seconds(v any, def time.Duration) (time.Duration, error) {
	var f float64
	switch x := v.(type) {
	case nil:
		return def, nil
	case float64:
		f = x
	case float32:
		f = float64(x)
	case int:
		f = float64(x)
	case int64:
		f = float64(x)
	case string:
		x = strings.TrimSpace(x)
		n, err := strconv.ParseFloat(x, 64)
		if err != nil {
			d, derr := time.ParseDuration(x)
			if derr != nil {
				return 0, fmt.Errorf("%q is neither a number of seconds nor a duration", x)
			}
			n = d.Seconds()
		}
		f = n
	default:
		return 0, fmt.Errorf("want a number of seconds, not %T", v)
	}
	if f < 0 || f > 1e7 || math.IsNaN(f) {
		return 0, fmt.Errorf("%v seconds is out of range", f)
	}
	if f == 0 {
		return def, nil
	}
	return time.Duration(f * float64(time.Second)), nil
}

// idleTimeout is the cancellation cause of a request whose server stayed
// silent for the read timeout.
type idleTimeout struct{}

func (idleTimeout) Error() string { return "read timeout" }

// exchange is one HTTP request in flight. Reading it reads the response
// body and re-arms the read-timeout watchdog.
type exchange struct {
	c        *client
	parent   context.Context
	ctx      context.Context
	cancel   context.CancelCauseFunc
	watchdog *time.Timer
	idle     time.Duration
	resp     *http.Response
}

// do sends a request to {api_base}{path}. A nil body means none.
func (c *client) do(ctx context.Context, method, path string, body []byte, accept string) (*exchange, error) {
	x := &exchange{c: c, parent: ctx, idle: c.readTimeout}
	x.ctx, x.cancel = context.WithCancelCause(ctx)
	x.watchdog = time.AfterFunc(x.idle, func() { x.cancel(idleTimeout{}) })
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(x.ctx, method, c.base+path, r)
	if err != nil {
		x.close()
		return nil, c.fail(sdk.ErrInvalidArgument, "bad request to %s: %v", c.baseForHumans, err)
	}
	h := req.Header
	if c.key != "" {
		h.Set("Authorization", "Bearer "+c.key)
	}
	if body != nil {
		h.Set("Content-Type", "application/json")
	}
	h.Set("Accept", accept)
	h.Set("User-Agent", "coyote-provider-openai/"+Version)
	if c.organization != "" {
		h.Set("OpenAI-Organization", c.organization)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		err = x.failure(err, "cannot reach")
		x.close()
		return nil, err
	}
	x.resp = resp
	return x, nil
}

func (x *exchange) Read(p []byte) (int, error) {
	n, err := x.resp.Body.Read(p)
	if n > 0 {
		x.watchdog.Reset(x.idle)
	}
	return n, err
}

// drain reads what is left of the body for a short while so that the
// connection can be reused, then gives up.
func (x *exchange) drain() {
	x.idle = 250 * time.Millisecond
	x.watchdog.Reset(x.idle)
	_, _ = io.Copy(io.Discard, io.LimitReader(x, 256<<10))
}

func (x *exchange) close() {
	x.watchdog.Stop()
	if x.resp != nil {
		_ = x.resp.Body.Close()
	}
	x.cancel(nil)
}

// readError turns an error from reading the response body into the error
// Chat reports.
func (x *exchange) readError(err error) error {
	return x.failure(err, "lost the connection to")
}

func (x *exchange) failure(err error, what string) error {
	c := x.c
	if perr := x.parent.Err(); perr != nil {
		return fmt.Errorf("openai client %q: %w", c.name, perr)
	}
	if errors.Is(context.Cause(x.ctx), idleTimeout{}) {
		return c.fail(sdk.ErrUnavailable, "no data from %s for %s (extra.read_timeout)", c.baseForHumans, c.readTimeout)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return c.fail(sdk.ErrUnavailable, "%s %s: %v", what, c.baseForHumans, err)
}
