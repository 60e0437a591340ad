package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Env names the inside kernel reads.
const (
	// EnvProxySocket is the path, inside, of the credential proxy's
	// socket.
	EnvProxySocket = "COYOTE_SANDBOX_PROXY"
	// EnvInside marks a process inside a sandbox (the original's name).
	EnvInside = "IS_SANDBOX"
)

// Forward listens on a loopback port and carries each connection to the
// proxy's Unix socket, so that the plugins inside (which speak HTTP over
// TCP, through HTTP_PROXY) reach it. Requests for other hosts go the
// same way and the proxy refuses them: inside, the proxy is the only way
// out.
type Forward struct {
	// URL is the loopback proxy URL for HTTP_PROXY.
	URL    string
	ln     net.Listener
	socket string
	wg     sync.WaitGroup
	srv    *http.Server // with the network
}

// EnvNetwork, set to 1, tells the inside kernel that the sandbox has the
// network: requests for other hosts then go out directly.
const EnvNetwork = "COYOTE_SANDBOX_DIRECT"

// StartForward starts the forwarder for the proxy at socket. Without the
// network every connection goes to the proxy as it is. With it, the
// forwarder is an HTTP proxy of its own: requests for ProxyHost go to the
// proxy's socket, every other request (and CONNECT, for https) straight
// to its host.
func StartForward(socket string, network bool) (*Forward, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	f := &Forward{URL: "http://" + ln.Addr().String(), ln: ln, socket: socket}
	if !network {
		go f.serve()
		return f, nil
	}
	dialer := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if host, _, _ := net.SplitHostPort(addr); host == ProxyHost {
				return dialer.DialContext(ctx, "unix", socket)
			}
			return dialer.DialContext(ctx, network, addr)
		},
		MaxIdleConnsPerHost: 8,
		IdleConnTimeout:     90 * time.Second,
	}
	f.srv = &http.Server{Handler: &netForward{tr: tr, dial: dialer}, ReadHeaderTimeout: 30 * time.Second}
	go func() { _ = f.srv.Serve(ln) }()
	return f, nil
}

// netForward is the forwarder of a sandbox with the network.
type netForward struct {
	tr   *http.Transport
	dial *net.Dialer
}

func (n *netForward) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		n.tunnel(w, r)
		return
	}
	if r.URL.Host == "" {
		http.Error(w, "coyote sandbox forwarder: not a proxy request", http.StatusBadRequest)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequest+1))
	if err != nil || len(body) > maxRequest {
		http.Error(w, "coyote sandbox forwarder: request body unreadable or too large", http.StatusRequestEntityTooLarge)
		return
	}
	// As in the proxy: a pause in a streamed reply is not the client gone.
	ctx, cancel := context.WithCancel(context.WithoutCancel(r.Context()))
	defer cancel()
	out, err := http.NewRequestWithContext(ctx, r.Method, r.URL.String(), bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	out.Header = r.Header.Clone()
	for _, h := range hopHeaders {
		out.Header.Del(h)
	}
	resp, err := n.tr.RoundTrip(out)
	if err != nil {
		http.Error(w, "coyote sandbox forwarder: "+err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	for _, h := range hopHeaders {
		w.Header().Del(h)
	}
	w.WriteHeader(resp.StatusCode)
	_ = flushCopy(w, resp.Body)
}

// tunnel carries a CONNECT (an https request) straight to its host.
func (n *netForward) tunnel(w http.ResponseWriter, r *http.Request) {
	up, err := n.dial.DialContext(r.Context(), "tcp", r.Host)
	if err != nil {
		http.Error(w, "coyote sandbox forwarder: "+err.Error(), http.StatusBadGateway)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		http.Error(w, "coyote sandbox forwarder: cannot tunnel", http.StatusInternalServerError)
		return
	}
	c, rw, err := hj.Hijack()
	if err != nil {
		up.Close()
		return
	}
	_, _ = io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n")
	splice(c, rw.Reader, up)
}

func (f *Forward) serve() {
	for {
		c, err := f.ln.Accept()
		if err != nil {
			return
		}
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			f.carry(c)
		}()
	}
}

// carry splices one connection to the socket. A CONNECT (an https URL
// through the proxy) is answered here: the proxy carries only routed
// plain-HTTP requests, so it is refused with a readable status.
func (f *Forward) carry(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	if peek, _ := br.Peek(8); string(peek) == "CONNECT " {
		req, err := http.ReadRequest(br)
		if err == nil {
			_, _ = io.WriteString(c, "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n"+
				"coyote sandbox proxy: "+req.Host+" is not reachable from the sandbox\n")
		}
		return
	}
	up, err := net.Dial("unix", f.socket)
	if err != nil {
		_, _ = io.WriteString(c, "HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\n\r\ncoyote sandbox proxy: the kernel outside does not answer\n")
		return
	}
	splice(c, br, up)
}

// splice copies c (read through br) and up into each other until either
// side ends, then closes both. HTTP never half-closes: whichever side
// ends first ends both.
func splice(c net.Conn, br io.Reader, up net.Conn) {
	defer c.Close()
	defer up.Close()
	done := make(chan struct{}, 2)
	go func() {
		_, _ = io.Copy(up, br)
		done <- struct{}{}
	}()
	go func() {
		_, _ = io.Copy(c, up)
		done <- struct{}{}
	}()
	<-done
}

// Close stops accepting connections.
func (f *Forward) Close() {
	if f.srv != nil {
		_ = f.srv.Close()
		return
	}
	_ = f.ln.Close()
}

// SecretEnvPrefix starts the variables that carry {{NAME}} secrets into a
// sandbox (the original's names): a placeholder for a secret the proxy
// fills in, or, where no proxy can, the value itself.
const SecretEnvPrefix = "COYOTE_SECRET_"

// SecretEnv is the variable of the secret name: COYOTE_SECRET_ and the
// name upper-cased, every character other than a letter or digit an
// underscore (notion-token → COYOTE_SECRET_NOTION_TOKEN).
func SecretEnv(name string) string {
	b := []byte(SecretEnvPrefix)
	for _, r := range strings.ToUpper(name) {
		if r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b = append(b, byte(r))
		} else {
			b = append(b, '_')
		}
	}
	return string(b)
}
