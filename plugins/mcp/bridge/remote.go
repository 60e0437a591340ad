package bridge

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/httpkit"
	"github.com/coyote-cli/coyote/sdk/mcpbridge"
)

// remoteTransport returns the streamable HTTP or SSE transport of a
// remote server. Requests go through, outermost first: the origin guard,
// the static headers of mcp.json, the OAuth client (when the bridge has
// one), and a watch for 401 answers, over the default transport.
//
// Credentials (static headers, the OAuth token) belong to the origin of
// the server's URL. The guard refuses every request to another origin,
// whether a redirect leads there or the legacy SSE transport's endpoint
// event names it, so neither the credentials nor the conversation leave
// the server the user configured. Refusing is chosen over following the
// redirect without credentials: the other origin would receive the tool
// calls and their arguments all the same, and a moved server is fixed
// once by changing its url.
func (s *server) remoteTransport() (mcp.Transport, error) {
	home, err := url.Parse(s.cfg.URL)
	if err != nil || (home.Scheme != "http" && home.Scheme != "https") || home.Host == "" {
		return nil, fmt.Errorf("MCP server %q: url %s is not an http:// or https:// URL; check it in mcp.json: %w",
			s.cfg.Name, redactURL(s.cfg.URL), sdk.ErrInvalidArgument)
	}
	s.saw401 = &statusWatch{base: http.DefaultTransport}
	var rt http.RoundTripper = s.saw401
	if s.b.opts.OAuth != nil {
		rt = s.b.opts.OAuth(s.oauthDir, s.cfg).RoundTripper(rt)
	}
	if len(s.cfg.Headers) > 0 {
		rt = &headerTransport{base: rt, headers: s.cfg.Headers}
	}
	s.guard = &originGuard{base: rt, origin: httpkit.Origin(home)}
	client := &http.Client{Transport: s.guard, CheckRedirect: s.guard.checkRedirect}
	if s.cfg.Type == mcpbridge.TypeSSE {
		return &mcp.SSEClientTransport{Endpoint: s.cfg.URL, HTTPClient: client}, nil
	}
	return &mcp.StreamableClientTransport{Endpoint: s.cfg.URL, HTTPClient: client}, nil
}

// headerTransport adds a server's static headers to its requests. It is
// only ever built inside the server's originGuard, which lets no request
// to another origin reach it.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range t.headers {
		req.Header.Set(k, v)
	}
	return t.base.RoundTrip(req)
}

// originGuard lets through only the requests to the server's own origin
// and remembers the refusal, so that the error that reaches the user says
// why, however the MCP client wrapped it.
type originGuard struct {
	base   http.RoundTripper
	origin string

	mu      sync.Mutex
	refusal *crossOriginError
}

// crossOriginError is a request the guard refused.
type crossOriginError struct {
	to, home string // origins
	redirect bool   // a redirect led there (else a URL the server named)
}

func (e *crossOriginError) Error() string {
	what := fmt.Sprintf("named %s, another origin than its url (%s), as its SSE message endpoint", e.to, e.home)
	if e.redirect {
		what = fmt.Sprintf("redirected to %s, another origin than its url (%s)", e.to, e.home)
	}
	return "the server " + what + "; Coyote sends requests and credentials only to the server's own origin: if the server moved, change its url in mcp.json"
}

func (g *originGuard) RoundTrip(req *http.Request) (*http.Response, error) {
	if o := httpkit.Origin(req.URL); o != g.origin {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, g.refuse(&crossOriginError{to: o, home: g.origin})
	}
	return g.base.RoundTrip(req)
}

// checkRedirect is the http.Client's redirect policy: same-origin
// redirects are followed (up to httpkit.MaxRedirects), others refused.
func (g *originGuard) checkRedirect(req *http.Request, via []*http.Request) error {
	if o := httpkit.Origin(req.URL); o != g.origin {
		return g.refuse(&crossOriginError{to: o, home: g.origin, redirect: true})
	}
	if len(via) >= httpkit.MaxRedirects {
		return fmt.Errorf("stopped after %d redirects", httpkit.MaxRedirects)
	}
	return nil
}

func (g *originGuard) refuse(e *crossOriginError) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.refusal == nil {
		g.refusal = e
	}
	return e
}

// refusedOrigin returns the refusal behind err: in its chain, or else the
// one the guard recorded since the last call (the MCP client does not
// always wrap with %w); nil when err is not one.
func (g *originGuard) refusedOrigin(err error) *crossOriginError {
	var e *crossOriginError
	if errors.As(err, &e) {
		return e
	}
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	e, g.refusal = g.refusal, nil
	return e
}

// statusWatch remembers whether the server has answered 401.
type statusWatch struct {
	base http.RoundTripper
	saw  atomic.Bool
}

func (t *statusWatch) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err == nil && resp.StatusCode == http.StatusUnauthorized {
		t.saw.Store(true)
	}
	return resp, err
}

func (t *statusWatch) unauthorized() bool { return t.saw.Load() }
