package httpkit

import (
	"net"
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
