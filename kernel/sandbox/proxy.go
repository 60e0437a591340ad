package sandbox

import (
	"bytes"
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

// Route is one upstream the proxy carries requests to, with the secrets
// it puts in place of their placeholders.
type Route struct {
	// Name is the route's path segment: /<kind>/<name>/… ("c/openai").
	Name string
	// Upstream is the base URL requests go to (it may hold placeholders
	// too: a key in a query parameter).
	Upstream string
	// Secrets replace their placeholders in the request's URL and
	// headers.
	Secrets []Secret
}

// Secret is one value the inside knows only by its placeholder.
type Secret struct {
	Placeholder, Value string
}

// fill puts each secret where its placeholder is.
func (r *Route) fill(s string, escape bool) string {
	for _, sec := range r.Secrets {
		v := sec.Value
		if escape {
			v = url.QueryEscape(v)
		}
		s = strings.ReplaceAll(s, sec.Placeholder, v)
	}
	return s
}

// hide puts each placeholder back where its secret is (an upstream that
// echoes a key in a header).
func (r *Route) hide(s string) string {
	for _, sec := range r.Secrets {
		if sec.Value != "" {
			s = strings.ReplaceAll(s, sec.Value, sec.Placeholder)
		}
	}
	return s
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

// maxRequest bounds one request's body.
const maxRequest = 256 << 20

// maxSocketPath is below sun_path's 108 bytes on Linux (104 on BSDs).
const maxSocketPath = 100

// listenUnix listens on a Unix socket at path. A path too long for a
// socket address (a deep cache directory) is reached on Linux through the
// directory's descriptor, /proc/self/fd/N/name, which is short.
func listenUnix(path string) (net.Listener, error) {
	if len(path) <= maxSocketPath {
		return net.Listen("unix", path)
	}
	dir, err := os.Open(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	short := fmt.Sprintf("/proc/self/fd/%d/%s", dir.Fd(), filepath.Base(path))
	if _, err := os.Stat(filepath.Dir(short)); err != nil || len(short) > maxSocketPath {
		return nil, fmt.Errorf("the socket path %s is longer than a Unix socket allows (%d bytes); set COYOTE_CACHE_DIR to a shorter directory", path, maxSocketPath)
	}
	ln, err := net.Listen("unix", short)
	if err != nil {
		return nil, err
	}
	// The listener would unlink the /proc name, which means nothing once
	// the descriptor is closed; Close removes the real path.
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	return ln, nil
}

// StartProxy listens on socket (whose directory must exist and be the
// kernel's alone) and serves the routes until Close.
func StartProxy(socket string, routes []Route, log func(msg string, args ...any)) (*Proxy, error) {
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
	ln, err := listenUnix(socket)
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
	target, query, _ := strings.Cut(r.Upstream, "?")
	target = r.fill(target+rest, true)
	if q := req.URL.RawQuery; q != "" {
		if query != "" {
			query += "&"
		}
		query += q
	}
	if query != "" {
		target += "?" + r.fill(query, true)
	}
	// The request is read whole first (an API request is bounded), and
	// the upstream call is not tied to the server's view of the inside's
	// connection, which takes a pause in the reply for a client gone; a
	// client really gone is seen when writing to it fails.
	body, err := io.ReadAll(io.LimitReader(req.Body, maxRequest+1))
	if err != nil || len(body) > maxRequest {
		http.Error(w, "coyote sandbox proxy: request body unreadable or over 256 MiB", http.StatusRequestEntityTooLarge)
		return
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(req.Context()))
	defer cancel()
	out, err := http.NewRequestWithContext(ctx, req.Method, target, bytes.NewReader(body))
	if err != nil {
		http.Error(w, "coyote sandbox proxy: "+err.Error(), http.StatusBadGateway)
		return
	}
	for k, vs := range req.Header {
		for _, v := range vs {
			out.Header.Add(k, r.fill(v, false))
		}
	}
	for _, h := range hopHeaders {
		out.Header.Del(h)
	}
	resp, err := p.client.Do(out)
	if err != nil {
		if p.log != nil {
			p.log("sandbox proxy: upstream failed", "route", r.Name, "error", r.redact(err))
		}
		http.Error(w, "coyote sandbox proxy: cannot reach "+r.Name+": "+r.redact(err), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		for _, v := range vs {
			w.Header().Add(k, r.hide(v))
		}
	}
	for _, h := range hopHeaders {
		w.Header().Del(h)
	}
	w.WriteHeader(resp.StatusCode)
	if err := flushCopy(w, resp.Body); err != nil && p.log != nil {
		p.log("sandbox proxy: reply cut short", "route", r.Name, "error", r.redact(err))
	}
}

// flushCopy copies a body, flushing after each read so a stream (server-
// sent events) arrives as it is written.
func flushCopy(w http.ResponseWriter, body io.Reader) error {
	fl, _ := w.(http.Flusher)
	buf := make([]byte, 32<<10)
	for {
		n, err := body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return werr
			}
			if fl != nil {
				fl.Flush()
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// redact is an error's text without the route's secrets.
func (r *Route) redact(err error) string {
	s := err.Error()
	for _, sec := range r.Secrets {
		if sec.Value != "" {
			s = strings.ReplaceAll(s, sec.Value, "[redacted]")
			s = strings.ReplaceAll(s, url.QueryEscape(sec.Value), "[redacted]")
		}
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
