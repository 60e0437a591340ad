// Package httpkit is the HTTP plumbing of a provider plugin that talks to
// an HTTP API: what Coyote's own OpenAI, Claude and Gemini plugins use, for
// a third party's plugin to use the same way. It knows HTTP, not any
// provider's API.
//
// # The client
//
// Users configure a client's connection in the `extra:` block of its entry
// in config.yaml (proxy, connect_timeout, read_timeout). ParseExtra reads
// it from provider.ClientConfig.Options; New makes a client with those
// settings:
//
//	func (p *myProvider) Configure(ctx context.Context, req *provider.ConfigureRequest) (*provider.ConfigureResponse, error) {
//		o, err := httpkit.ParseExtra(req.Client.Options["extra"])
//		if err != nil {
//			return nil, fmt.Errorf("client %q: %v: %w", req.Client.Name, err, sdk.ErrInvalidArgument)
//		}
//		c, err := httpkit.New(fmt.Sprintf("mine client %q", req.Client.Name), req.Client.APIBase, req.Client.APIKey, o)
//		if err != nil {
//			return nil, err
//		}
//		p.clients.Put(req.Client.Name, c) // an httpkit.Clients[*httpkit.Client]
//		return &provider.ConfigureResponse{}, nil
//	}
//
// Client.Do sends a request and returns an Exchange once the headers are
// in. Reading the exchange reads the body; a server silent for longer than
// the read timeout fails the read with sdk.ErrUnavailable, and the
// caller's cancellation (the user's Ctrl-C) ends it at once.
//
// # Errors
//
// An error status becomes an error the kernel understands with StatusError:
// the class of the status as an SDK sentinel (KindForStatus: 401 is
// sdk.ErrUnauthenticated, 429 sdk.ErrRateLimited, 5xx sdk.ErrUnavailable,
// …), a one-line message with the API's own error text, the API key masked
// wherever the server echoed it, and the Retry-After delay, which the
// kernel honours when it retries:
//
//	x, err := c.Do(ctx, http.MethodPost, c.Base+"/chat", body, header)
//	if err != nil {
//		return err
//	}
//	defer x.Close()
//	if x.Resp.StatusCode != http.StatusOK {
//		return c.StatusError(x, 64<<10)
//	}
//
// # Streams
//
// LineReader splits a body into lines for server-sent events and
// newline-delimited JSON; SSE reads the events of a server-sent event
// stream.
package httpkit

import (
	"crypto/x509"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Defaults of extra.connect_timeout and extra.read_timeout.
const (
	DefaultConnectTimeout = 10 * time.Second
	DefaultReadTimeout    = 300 * time.Second
)

// Options are a client's connection settings.
type Options struct {
	// Proxy picks the proxy of a request; nil means the *_PROXY variables.
	Proxy          func(*http.Request) (*url.URL, error)
	ConnectTimeout time.Duration
	// ReadTimeout is how long the server may stay silent during a reply.
	ReadTimeout time.Duration
	// RootCAs are the certificate authorities an https API's certificate
	// must chain to; nil means the system's (SSL_CERT_FILE and
	// SSL_CERT_DIR change those).
	RootCAs *x509.CertPool
	// UserAgent, when set, is the User-Agent header to send instead of
	// the plugin's own (see Client.UserAgent): extra.user_agent, which
	// the kernel fills in from the user_agent setting.
	UserAgent string
}

// ParseExtra reads the `extra:` block of a client's options (nil if
// absent): proxy (http, https or socks5 URL), connect_timeout and
// read_timeout (seconds, or a Go duration string), and user_agent (the
// kernel sets it from config.yaml's user_agent unless the client's entry
// has its own).
func ParseExtra(raw any) (Options, error) {
	o := Options{Proxy: http.ProxyFromEnvironment, ConnectTimeout: DefaultConnectTimeout, ReadTimeout: DefaultReadTimeout}
	if raw == nil {
		return o, nil
	}
	extra, ok := raw.(map[string]any)
	if !ok {
		return o, fmt.Errorf("extra must be a mapping")
	}
	var err error
	if o.ConnectTimeout, err = Seconds(extra["connect_timeout"], DefaultConnectTimeout); err != nil {
		return o, fmt.Errorf("extra.connect_timeout: %v", err)
	}
	if o.ReadTimeout, err = Seconds(extra["read_timeout"], DefaultReadTimeout); err != nil {
		return o, fmt.Errorf("extra.read_timeout: %v", err)
	}
	if v, ok := extra["user_agent"]; ok && v != nil {
		s, ok := v.(string)
		if !ok || strings.ContainsAny(s, "\r\n") {
			return o, fmt.Errorf("extra.user_agent must be a string on one line")
		}
		o.UserAgent = strings.TrimSpace(s)
	}
	if v, ok := extra["proxy"]; ok && v != nil {
		s, ok := v.(string)
		if !ok {
			return o, fmt.Errorf("extra.proxy must be a URL string")
		}
		if s = strings.TrimSpace(s); s != "" {
			pu, err := url.Parse(s)
			if err != nil || pu.Host == "" {
				return o, fmt.Errorf("extra.proxy is not a URL such as http://proxy:3128")
			}
			switch pu.Scheme {
			case "http", "https", "socks5", "socks5h":
			default:
				return o, fmt.Errorf("extra.proxy has scheme %q; use http, https or socks5", pu.Scheme)
			}
			o.Proxy = http.ProxyURL(pu)
		}
	}
	return o, nil
}

// Seconds reads a timeout given in seconds (a number, or a string holding a
// number or a Go duration such as "1m30s"). Nil or zero means def.
func Seconds(v any, def time.Duration) (time.Duration, error) {
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

// RetryAfter reads a Retry-After header: seconds, or an HTTP date. It
// returns 0 when absent or unreadable.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseFloat(v, 64); err == nil && n > 0 && n < 1e6 {
		return time.Duration(n * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
