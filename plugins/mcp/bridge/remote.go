package bridge

import (
	"net/http"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coyote-cli/coyote/sdk/mcpbridge"
)

// remoteTransport returns the streamable HTTP or SSE transport of a
// remote server. Requests go through, outermost first: the static headers
// of mcp.json, the OAuth client (when the bridge has one), and a watch
// for 401 answers, over the default transport.
func (s *server) remoteTransport() (mcp.Transport, error) {
	s.saw401 = &statusWatch{base: http.DefaultTransport}
	var rt http.RoundTripper = s.saw401
	if s.b.opts.OAuth != nil {
		rt = s.b.opts.OAuth(s.oauthDir, s.cfg).RoundTripper(rt)
	}
	if len(s.cfg.Headers) > 0 {
		rt = &headerTransport{base: rt, headers: s.cfg.Headers}
	}
	client := &http.Client{Transport: rt}
	if s.cfg.Type == mcpbridge.TypeSSE {
		return &mcp.SSEClientTransport{Endpoint: s.cfg.URL, HTTPClient: client}, nil
	}
	return &mcp.StreamableClientTransport{Endpoint: s.cfg.URL, HTTPClient: client}, nil
}

// headerTransport adds a server's static headers to every request.
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
