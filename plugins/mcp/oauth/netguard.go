package oauth

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
)

// A public MCP server's metadata names the URLs that discovery, the code
// exchange and every refresh then fetch. Left alone, a hostile server
// could have Coyote fetch internal addresses (a cloud metadata service
// at 169.254.169.254, an intranet host): so when the server itself is on
// a public address, every connection the OAuth client makes must reach a
// public address too. A server on loopback or a private network may name
// anything, as the local servers of tests and intranets do.
//
// The check is made on the address actually dialled, after resolution,
// so a name that resolves to a public address when looked at and to an
// internal one when dialled gains nothing. Through a proxy, the proxy
// connects, so the name is resolved and checked before the request
// instead.

// internalAddrError is a connection refused because its address is
// internal while the MCP server is public.
type internalAddrError struct {
	host string
	addr netip.Addr
}

func (e *internalAddrError) Error() string {
	return fmt.Sprintf("%s is on an internal address (%s), which a public MCP server's metadata may not name", e.host, e.addr)
}

// internalAddr reports whether a is not a public unicast address:
// loopback, private (RFC 1918, unique local), link-local, shared (RFC
// 6598), unspecified, "this network" or multicast.
func internalAddr(a netip.Addr) bool {
	a = a.Unmap()
	return a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() ||
		sharedSpace.Contains(a) || thisNetwork.Contains(a)
}

var (
	sharedSpace = netip.MustParsePrefix("100.64.0.0/10")
	thisNetwork = netip.MustParsePrefix("0.0.0.0/8")
)

// loopbackHost reports whether host (no port) is a loopback name or
// address, where plain http is allowed for the OAuth endpoints.
func loopbackHost(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Unmap().IsLoopback()
}

// netGuard dials the OAuth client's connections, refusing internal
// addresses when the server is public.
type netGuard struct {
	serverHost string
	// resolve, dial and proxyFor are the network and the environment's
	// proxy choice; tests replace them.
	resolve  func(ctx context.Context, host string) ([]netip.Addr, error)
	dial     func(ctx context.Context, network, addr string) (net.Conn, error)
	proxyFor func(*http.Request) (*url.URL, error)

	mu     sync.Mutex
	known  bool // public has been decided
	public bool
}

func newNetGuard(serverURL string) *netGuard {
	g := &netGuard{
		resolve: func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		},
		dial:     (&net.Dialer{}).DialContext,
		proxyFor: http.ProxyFromEnvironment,
	}
	if u, err := url.Parse(serverURL); err == nil {
		g.serverHost = u.Hostname()
	}
	return g
}

// viaProxy is the context key of the proxy a request goes through.
type viaProxy struct{}

// transport returns the round tripper of the OAuth client: an
// http.Transport whose proxy choice and connections go through g.
func (g *netGuard) transport() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = func(req *http.Request) (*url.URL, error) {
		p, _ := req.Context().Value(viaProxy{}).(*url.URL)
		return p, nil
	}
	t.DialContext = g.dialContext
	return &guardedTransport{g: g, base: t}
}

// guardedTransport decides the proxy of each request once: a request
// through a proxy has its host checked here (the proxy, not g, dials
// it), and carries the proxy in its context so that the dial knows that
// its address is the proxy's.
type guardedTransport struct {
	g    *netGuard
	base http.RoundTripper
}

func (t *guardedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	p, err := t.g.proxyFor(req)
	if err != nil {
		return nil, err
	}
	if p != nil {
		if t.g.serverPublic(req.Context()) {
			if _, err := t.g.publicAddrs(req.Context(), req.URL.Hostname()); err != nil {
				if req.Body != nil {
					_ = req.Body.Close()
				}
				return nil, err
			}
		}
		req = req.WithContext(context.WithValue(req.Context(), viaProxy{}, p))
	}
	return t.base.RoundTrip(req)
}

// serverPublic reports whether the MCP server is on a public address: an
// address literal that is public, or a name whose addresses all are. A
// name that does not resolve counts as public (the stricter choice);
// that answer is not remembered.
func (g *netGuard) serverPublic(ctx context.Context) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.known {
		return g.public
	}
	if loopbackHost(g.serverHost) {
		g.known, g.public = true, false
		return false
	}
	_, err := g.publicAddrs(ctx, g.serverHost)
	var ie *internalAddrError
	switch {
	case err == nil:
		g.known, g.public = true, true
	case errors.As(err, &ie):
		g.known, g.public = true, false
	default:
		return true // unresolved: public, and asked again next time
	}
	return g.public
}

// dialContext dials addr; for a public server it resolves the host
// itself and dials only public addresses. The proxy of the request is
// dialled as it is (the user's own configuration).
func (g *netGuard) dialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if p, ok := ctx.Value(viaProxy{}).(*url.URL); ok && canonicalAddr(p) == addr || !g.serverPublic(ctx) {
		return g.dial(ctx, network, addr)
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	addrs, err := g.publicAddrs(ctx, host)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, a := range addrs {
		c, err := g.dial(ctx, network, net.JoinHostPort(a.String(), port))
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

// publicAddrs resolves host and returns its addresses, or an error when
// any of them is internal.
func (g *netGuard) publicAddrs(ctx context.Context, host string) ([]netip.Addr, error) {
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		addrs, err = g.resolve(ctx, host)
		if err != nil {
			return nil, err
		}
	}
	for _, a := range addrs {
		if internalAddr(a) {
			return nil, &internalAddrError{host: host, addr: a.Unmap()}
		}
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("%s has no address", host)
	}
	return addrs, nil
}

// canonicalAddr is host:port of u, with the scheme's default port.
func canonicalAddr(u *url.URL) string {
	port := u.Port()
	if port == "" {
		switch u.Scheme {
		case "https":
			port = "443"
		case "socks5", "socks5h":
			port = "1080"
		default:
			port = "80"
		}
	}
	return net.JoinHostPort(u.Hostname(), port)
}
