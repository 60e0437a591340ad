package httpkit

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/redact"
)

// Client sends the requests of one configured client.
type Client struct {
	// Label starts every error message, e.g. `openai client "groq"`.
	Label string
	// Base is the API base URL without a trailing slash; BaseForHumans is
	// the same with any password masked, for messages.
	Base, BaseForHumans string
	// secrets masks the API key wherever a server may echo it into a
	// message.
	secrets     *redact.Redactor
	readTimeout time.Duration
	userAgent   string
	transport   *http.Transport
	http        *http.Client
	// What Warm and the dials need: the proxy choice, the dialer, the
	// trusted roots (nil: the system's) and the connect timeout.
	proxy          func(*http.Request) (*url.URL, error)
	dialer         *net.Dialer
	roots          *x509.CertPool
	connectTimeout time.Duration
	warm           warmer
}

// New makes a client for base (an http or https URL) with its own
// transport.
func New(label, base, key string, o Options) (*Client, error) {
	c := &Client{Label: label, secrets: &redact.Redactor{}, readTimeout: o.ReadTimeout, userAgent: o.UserAgent}
	c.secrets.Add(key, "[redacted]")
	c.Base = strings.TrimRight(strings.TrimSpace(base), "/")
	u, err := url.Parse(c.Base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		shown := c.Base
		if err == nil {
			shown = u.Redacted()
		}
		return nil, c.Fail(sdk.ErrInvalidArgument, "api_base %q is not an http:// or https:// URL", shown)
	}
	c.BaseForHumans = u.Redacted()
	if o.Proxy == nil {
		o.Proxy = http.ProxyFromEnvironment
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = DefaultConnectTimeout
	}
	c.proxy, c.roots, c.connectTimeout = o.Proxy, o.RootCAs, o.ConnectTimeout
	c.dialer = &net.Dialer{Timeout: o.ConnectTimeout, KeepAlive: 30 * time.Second}
	c.transport = &http.Transport{
		Proxy:       o.Proxy,
		DialContext: c.dial,
		// Direct https connections are dialled here, so that one opened
		// ahead by Warm, handshake done, serves the first request.
		DialTLSContext:        c.dialTLS,
		TLSClientConfig:       &tls.Config{RootCAs: o.RootCAs},
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   o.ConnectTimeout,
		MaxIdleConns:          32,
		MaxIdleConnsPerHost:   8,
		IdleConnTimeout:       90 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	// The API key rides in a header, which Go's client would carry to
	// another host on a redirect.
	c.http = &http.Client{Transport: c.transport, CheckRedirect: SameOriginRedirects}
	return c, nil
}

// Close drops the client's idle connections, and one opened by Warm that
// no request took.
func (c *Client) Close() {
	c.closeWarm()
	c.transport.CloseIdleConnections()
}

// RoundTripper is the client's transport, for a plugin whose requests go
// through a library of its own (such as the AWS SDK) instead of Do: the
// connection Warm opened serves its first request too, and Close drops
// its idle connections.
func (c *Client) RoundTripper() http.RoundTripper { return c.transport }

// UserAgent is the User-Agent header a plugin sends: the one the user
// configured (Options.UserAgent), else the plugin's own, def.
func (c *Client) UserAgent(def string) string {
	if c.userAgent != "" {
		return c.userAgent
	}
	return def
}

// ReadTimeout is how long a reply may stay silent.
func (c *Client) ReadTimeout() time.Duration { return c.readTimeout }

// idleTimeout is the cancellation cause of a request whose server stayed
// silent for the read timeout.
type idleTimeout struct{}

func (idleTimeout) Error() string { return "read timeout" }

// Exchange is one HTTP request in flight. Reading it reads the response
// body and re-arms the read-timeout watchdog.
type Exchange struct {
	Resp     *http.Response
	c        *Client
	parent   context.Context
	ctx      context.Context
	cancel   context.CancelCauseFunc
	watchdog *time.Timer
	idle     time.Duration
}

// Do sends a request and returns once the response headers arrived. A nil
// body sends none. The caller closes the exchange.
func (c *Client) Do(ctx context.Context, method, url string, body []byte, header http.Header) (*Exchange, error) {
	x := &Exchange{c: c, parent: ctx, idle: c.readTimeout}
	x.ctx, x.cancel = context.WithCancelCause(ctx)
	x.watchdog = time.AfterFunc(x.idle, func() { x.cancel(idleTimeout{}) })
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(x.ctx, method, url, r)
	if err != nil {
		x.Close()
		return nil, c.Fail(sdk.ErrInvalidArgument, "bad request to %s: %v", c.BaseForHumans, err)
	}
	req.Header = header
	resp, err := c.http.Do(req)
	if err != nil {
		err = x.failure(err, "cannot reach")
		x.Close()
		return nil, err
	}
	x.Resp = resp
	return x, nil
}

// Context is the request's context: done when the caller cancels or the
// read timeout fires.
func (x *Exchange) Context() context.Context { return x.ctx }

// Canceled reports whether the caller gave up on the request.
func (x *Exchange) Canceled() bool { return x.parent.Err() != nil }

func (x *Exchange) Read(p []byte) (int, error) {
	n, err := x.Resp.Body.Read(p)
	if n > 0 {
		x.watchdog.Reset(x.idle)
	}
	return n, err
}

// Drain reads what is left of the body for a short while, so that the
// connection can be reused, then gives up.
func (x *Exchange) Drain() {
	x.idle = 250 * time.Millisecond
	x.watchdog.Reset(x.idle)
	_, _ = io.Copy(io.Discard, io.LimitReader(x, 256<<10))
}

// Close ends the exchange.
func (x *Exchange) Close() {
	x.watchdog.Stop()
	if x.Resp != nil {
		_ = x.Resp.Body.Close()
	}
	x.cancel(nil)
}

// ReadError turns an error from reading the body into the error to report:
// the caller's cancellation, the read timeout, or a lost connection.
func (x *Exchange) ReadError(err error) error {
	return x.failure(err, "lost the connection to")
}

func (x *Exchange) failure(err error, what string) error {
	c := x.c
	if perr := x.parent.Err(); perr != nil {
		return fmt.Errorf("%s: %w", c.Label, perr)
	}
	if errors.Is(context.Cause(x.ctx), idleTimeout{}) {
		return c.Fail(sdk.ErrUnavailable, "no data from %s for %s (extra.read_timeout)", c.BaseForHumans, c.readTimeout)
	}
	var cross *CrossOriginError
	if errors.As(err, &cross) {
		// Not a network failure: retrying would be refused the same way.
		return c.Fail(sdk.ErrFailedPrecondition, "%v", cross)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var untrusted *tls.CertificateVerificationError
	if errors.As(err, &untrusted) {
		// Not a network failure either; say how to trust a private CA.
		return c.Fail(sdk.ErrFailedPrecondition, "%s %s: %v (a server behind a private certificate authority is trusted with SSL_CERT_FILE=/path/to/ca.pem)", what, c.BaseForHumans, err)
	}
	return c.Fail(sdk.ErrUnavailable, "%s %s: %v", what, c.BaseForHumans, err)
}

// ReadAll reads the whole body, up to limit bytes. A body cut short is an
// sdk.ErrBadResponse.
func (x *Exchange) ReadAll(limit int64) ([]byte, error) {
	size := int64(512)
	if n := x.Resp.ContentLength; n > 0 && n < limit {
		size = n + 1 // room to see the end without growing
	}
	return x.ReadAllTo(make([]byte, 0, size), limit)
}

// ReadAllTo is ReadAll appending to buf, for callers that recycle their
// buffers.
func (x *Exchange) ReadAllTo(buf []byte, limit int64) ([]byte, error) {
	if n := x.Resp.ContentLength; n > 0 && n < limit {
		buf = slices.Grow(buf, int(n)+1)
	}
	r := io.LimitReader(x, limit)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			if x.ctx.Err() == nil && errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, x.c.Fail(sdk.ErrBadResponse, "the reply from %s ended early", x.c.BaseForHumans)
			}
			return nil, x.ReadError(err)
		}
	}
}
