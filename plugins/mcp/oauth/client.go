package oauth

import (
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/coyote-cli/coyote/sdk/httpkit"
)

// Server is what the package needs to know of one remote MCP server: its
// name in mcp.json, its URL and the optional "oauth" block of its entry.
type Server struct {
	Name, URL              string // MCP server name and its URL (http or sse)
	ClientID, ClientSecret string // optional pre-registered client
	CallbackPort           int    // 0: pick a free port (pinned when set)
	RedirectHost           string // "" → "localhost"
}

// ErrNeedsAuth is matched (errors.Is) by the error a request gets when the
// server wants a token and none is usable: the user must run the
// interactive flow (`coyote --auth-mcp <server>` or `.mcp auth <server>`).
var ErrNeedsAuth = errors.New("needs OAuth authorization")

// NeedsAuthError is the error behind ErrNeedsAuth; it names the server and
// tells the user what to run.
type NeedsAuthError struct {
	Server string
	// Reason says why no token could be used (no token stored, the
	// refresh was refused, ...); it may be empty.
	Reason string
}

func (e *NeedsAuthError) Error() string {
	msg := fmt.Sprintf("MCP server %q needs authorization: run coyote --auth-mcp %s", e.Server, e.Server)
	if e.Reason != "" {
		msg += " (" + e.Reason + ")"
	}
	return msg
}

// Is makes errors.Is(err, ErrNeedsAuth) true.
func (e *NeedsAuthError) Is(target error) bool { return target == ErrNeedsAuth }

// expirySkew is how long before its stated expiry a token is refreshed, so
// that a token does not expire between the check and the server's.
const expirySkew = 30 * time.Second

// httpTimeout bounds each discovery, registration and token request.
const httpTimeout = 30 * time.Second

// flowTimeout bounds a whole interactive authorization, the user's time
// in the browser included.
const flowTimeout = 5 * time.Minute

// Client holds the OAuth state of one MCP server. It is safe for
// concurrent use; several Clients of the same server (even in several
// processes) share the files in dir, and a Client notices a token that
// another one stored.
type Client struct {
	dir string
	s   Server

	// httpClient sends discovery, registration, the code exchange and
	// refreshes; its connections go through guard.
	httpClient *http.Client
	guard      *netGuard
	// now is the clock; tests replace it to make a token expire.
	now func() time.Time
	// flowTimeout bounds Authorize; tests shorten it.
	flowTimeout time.Duration

	mu sync.Mutex
	// tok is the stored token as last read or written, nil when there is
	// none usable for s.URL; tokStamp identifies the file it came from.
	tok      *storedToken
	tokStamp fileStamp
}

// New returns the Client of server s, whose files live in dir (the
// <cache dir>/oauth directory). It reads nothing yet.
func New(dir string, s Server) *Client {
	g := newNetGuard(s.URL)
	return &Client{
		dir: dir,
		s:   s,
		httpClient: &http.Client{
			Timeout:       httpTimeout,
			Transport:     g.transport(),
			CheckRedirect: checkRedirect,
		},
		guard:       g,
		now:         time.Now,
		flowTimeout: flowTimeout,
	}
}

// checkRedirect lets the OAuth client follow a redirect of a metadata
// request anywhere the network guard allows, and of a registration or
// token request (which carry the client's credentials and the grant)
// only within the same origin.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if m := via[0].Method; m == http.MethodGet || m == http.MethodHead {
		if len(via) >= httpkit.MaxRedirects {
			return fmt.Errorf("stopped after %d redirects", httpkit.MaxRedirects)
		}
		return nil
	}
	return httpkit.SameOriginRedirects(req, via)
}

// HasToken reports whether a usable token for this server's URL is
// stored: an access token that has not expired, or a refresh token to get
// one. Whether the server still accepts it is only known by asking it.
func (c *Client) HasToken() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.loadLocked()
	return t != nil && (t.RefreshToken != "" || t.AccessToken != "" && !c.expiredLocked(t))
}

// redirectHost is the host of the redirect URI.
func (c *Client) redirectHost() string {
	if c.s.RedirectHost == "" {
		return "localhost"
	}
	return c.s.RedirectHost
}

func (c *Client) needsAuth(reason string) error {
	return &NeedsAuthError{Server: c.s.Name, Reason: reason}
}
