package sandbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// ProxyHost is the host name the inside uses for the proxy's routes. It
// resolves nowhere: requests for it only ever reach the proxy.
const ProxyHost = "coyote-sandbox-proxy"

// Route is one upstream the proxy carries requests to, with the secret it
// puts in place of the placeholder.
type Route struct {
	// Name is the route's path segment: /<kind>/<name>/… ("c/openai").
	Name string
	// Upstream is the base URL requests go to.
	Upstream string
	// Secret replaces Placeholder in the request's headers and query.
	Secret      string
	Placeholder string
}

// NewPlaceholder returns a random stand-in for a secret, which means
// nothing outside the proxy.
func NewPlaceholder() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return "coyote-sandbox-" + hex.EncodeToString(b)
}

// RouteBase is the base URL the inside uses for a route.
func RouteBase(name string) string { return "http://" + ProxyHost + "/" + name }

// Proxy is the credential-injecting proxy.
type Proxy struct {
	// Socket is the path of the Unix socket it listens on.
	Socket string
	routes map[string]*Route
	srv    *http.Server
	ln     net.Listener
	client *http.Client
	log    func(msg string, args ...any)

	mu   sync.Mutex
	seen map[string]int // requests per route, for tests and --info
}

// hopHeaders are not forwarded (RFC 9110 §7.6.1).
var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

// maxSocketPath is below sun_path's 108 bytes on Linux (104 on BSDs).
const maxSocketPath = 100

// StartProxy listens on socket (whose directory must exist and be the
// kernel's alone) and serves the routes until Close.
func StartProxy(socket string, routes []Route, log func(msg string, args ...any)) (*Proxy, error) {
	if len(socket) > maxSocketPath {
		return nil, fmt.Errorf("the proxy socket path %s is longer than a Unix socket allows (%d bytes); set COYOTE_CACHE_DIR to a shorter directory", socket, maxSocketPath)
	}
	p := &Proxy{Socket: socket, routes: map[string]*Route{}, seen: map[string]int{}, log: log}
	for i := range routes {
		r := routes[i]
		if _, err := url.Parse(r.Upstream); err != nil {
			return nil, fmt.Errorf("route %s: upstream %q: %w", r.Name, r.Upstream, err)
		}
		r.Upstream = strings.TrimRight(r.Upstream, "/")
		p.routes[r.Name] = &r
	}
	_ = os.Remove(socket)
	ln, err := net.Listen("unix", socket)
	if err != nil {
		return nil, fmt.Errorf("start the sandbox's credential proxy: %w", err)
	}
	_ = os.Chmod(socket, 0o600)
	p.ln = ln
	p.client = &http.Client{
		Transport: &http.Transport{Proxy: http.ProxyFromEnvironment, ForceAttemptHTTP2: true, MaxIdleConnsPerHost: 8, IdleConnTimeout: 90 * time.Second},
		// Redirects go back to the inside, which follows them through the
		// proxy again (or not); the proxy never carries a key elsewhere.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

// Close stops the proxy and removes its socket.
func (p *Proxy) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = p.srv.Shutdown(ctx)
	_ = os.Remove(p.Socket)
}

// Requests is how many requests a route carried.
func (p *Proxy) Requests(route string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.seen[route]
}

// route finds the route of a path: the longest registered name that is a
// whole prefix of it.
func (p *Proxy) route(path string) (*Route, string) {
	path = strings.TrimPrefix(path, "/")
	var best *Route
	rest := ""
	for name, r := range p.routes {
		if path == name || strings.HasPrefix(path, name+"/") {
			if best == nil || len(name) > len(best.Name) {
				best, rest = r, strings.TrimPrefix(path, name)
			}
		}
	}
	return best, rest
}

func (p *Proxy) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	host := req.URL.Host
	if host == "" {
		host = req.Host
	}
	if req.Method == http.MethodConnect || (host != "" && host != ProxyHost) {
		http.Error(w, "coyote sandbox proxy: only the configured clients are reachable from the sandbox ("+host+" is not one; sandbox_network: true gives the sandbox the network)", http.StatusForbidden)
		return
	}
	r, rest := p.route(req.URL.Path)
	if r == nil {
		http.Error(w, "coyote sandbox proxy: no route "+req.URL.Path, http.StatusNotFound)
		return
	}
	p.mu.Lock()
	p.seen[r.Name]++
	p.mu.Unlock()
	target := r.Upstream + rest
	if q := req.URL.RawQuery; q != "" {
		target += "?" + strings.ReplaceAll(q, r.Placeholder, url.QueryEscape(r.Secret))
	}
	out, err := http.NewRequestWithContext(req.Context(), req.Method, target, req.Body)
	if err != nil {
		http.Error(w, "coyote sandbox proxy: "+err.Error(), http.StatusBadGateway)
		return
	}
	out.ContentLength = req.ContentLength
	for k, vs := range req.Header {
		for _, v := range vs {
			out.Header.Add(k, strings.ReplaceAll(v, r.Placeholder, r.Secret))
		}
	}
	for _, h := range hopHeaders {
		out.Header.Del(h)
	}
	resp, err := p.client.Do(out)
	if err != nil {
		if p.log != nil {
			p.log("sandbox proxy: upstream failed", "route", r.Name, "error", redactErr(err, r.Secret))
		}
		http.Error(w, "coyote sandbox proxy: cannot reach "+r.Name+": "+redactErr(err, r.Secret), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		for _, v := range vs {
			w.Header().Add(k, strings.ReplaceAll(v, r.Secret, r.Placeholder))
		}
	}
	for _, h := range hopHeaders {
		w.Header().Del(h)
	}
	w.WriteHeader(resp.StatusCode)
	flushCopy(w, resp.Body)
}

// flushCopy copies a body, flushing after each read so a stream (server-
// sent events) arrives as it is written.
func flushCopy(w http.ResponseWriter, body io.Reader) {
	fl, _ := w.(http.Flusher)
	buf := make([]byte, 32<<10)
	for {
		n, err := body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return
			}
			if fl != nil {
				fl.Flush()
			}
		}
		if err != nil {
			return
		}
	}
}

func redactErr(err error, secret string) string {
	s := err.Error()
	if secret != "" {
		s = strings.ReplaceAll(s, secret, "[redacted]")
		s = strings.ReplaceAll(s, url.QueryEscape(secret), "[redacted]")
	}
	return s
}

// MakeRunDir makes dir for the kernel alone (0700), removing what a
// previous kernel of the same pid left.
func MakeRunDir(dir string) error {
	if err := os.RemoveAll(dir); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return err
	}
	return os.Mkdir(dir, 0o700)
}
