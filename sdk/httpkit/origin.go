package httpkit

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// Origin is a URL's origin, scheme://host[:port], in lower case and
// without the scheme's default port, so that equal origins compare equal
// as strings. Credentials (a bearer token, an API key header) belong to
// one origin: a plugin compares a request's origin with its server's
// before it attaches them, and a redirect that changes origin gets none.
func Origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if scheme == "http" && port == "80" || scheme == "https" && port == "443" {
		port = ""
	}
	if port != "" {
		return scheme + "://" + net.JoinHostPort(host, port)
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return scheme + "://" + host
}

// MaxRedirects is how many redirects a request follows at most.
const MaxRedirects = 10

// CrossOriginError is a redirect refused because it leads to another
// origin than the request's.
type CrossOriginError struct{ From, To string }

func (e *CrossOriginError) Error() string {
	return fmt.Sprintf("the server at %s redirected to another origin (%s); Coyote sends credentials only to the origin they are for: if the server moved, change its URL", e.From, e.To)
}

// SameOriginRedirects is a redirect policy (http.Client.CheckRedirect)
// for requests that carry credentials: an API key header, a token, a body
// with the conversation. Go's client drops only Authorization and
// cookies on a redirect to another host, so any other header would go
// along; such a redirect is refused (*CrossOriginError) instead. A
// redirect within the origin is followed, MaxRedirects at most.
func SameOriginRedirects(req *http.Request, via []*http.Request) error {
	if len(via) >= MaxRedirects {
		return fmt.Errorf("stopped after %d redirects", MaxRedirects)
	}
	if from, to := Origin(via[0].URL), Origin(req.URL); from != to {
		return &CrossOriginError{From: from, To: to}
	}
	return nil
}
