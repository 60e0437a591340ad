package httpkit

import (
	"context"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coyote-cli/coyote/sdk"
)

// connLog records the connections a test server accepts and closes.
type connLog struct {
	mu              sync.Mutex
	opened, closed  int
	firstOpen, shut chan struct{}
	once, shutOnce  sync.Once
}

func newConnLog() *connLog {
	return &connLog{firstOpen: make(chan struct{}), shut: make(chan struct{})}
}

func (l *connLog) state(_ net.Conn, s http.ConnState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch s {
	case http.StateNew:
		l.opened++
		l.once.Do(func() { close(l.firstOpen) })
	case http.StateClosed, http.StateHijacked:
		l.closed++
		l.shutOnce.Do(func() { close(l.shut) })
	}
}

// waitOpen waits for the first connection; a Warm that opens none fails
// the test instead of hanging it.
func (l *connLog) waitOpen(t *testing.T) {
	t.Helper()
	select {
	case <-l.firstOpen:
	case <-time.After(10 * time.Second):
		t.Fatal("no connection was opened ahead of the request")
	}
}

func (l *connLog) counts() (opened, closed int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.opened, l.closed
}

// warmServer starts a server that answers "ok" and logs its connections;
// tls makes it an HTTPS server speaking HTTP/2.
func warmServer(t *testing.T, secure bool) (*httptest.Server, *connLog, Options) {
	t.Helper()
	log := newConnLog()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, r.Proto)
	}))
	srv.Config.ConnState = log.state
	o, err := ParseExtra(nil)
	if err != nil {
		t.Fatal(err)
	}
	o.Proxy = func(*http.Request) (*url.URL, error) { return nil, nil }
	if secure {
		srv.EnableHTTP2 = true
		srv.StartTLS()
		roots := x509.NewCertPool()
		roots.AddCert(srv.Certificate())
		o.RootCAs = roots
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	return srv, log, o
}

// A connection opened by Warm serves the first request: the server sees
// it before the request is sent, and no other.
func TestWarmOpensTheConnectionTheFirstRequestUses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		secure bool
		proto  string
	}{
		{"http", false, "HTTP/1.1"},
		{"https", true, "HTTP/2.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, log, o := warmServer(t, tc.secure)
			c, err := New("c", srv.URL+"/v1", "", o)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.Warm()
			c.Warm() // a second Warm opens nothing more
			log.waitOpen(t)
			for range 2 {
				x, err := c.Do(context.Background(), http.MethodGet, c.Base+"/models", nil, http.Header{})
				if err != nil {
					t.Fatal(err)
				}
				body, err := x.ReadAll(1 << 10)
				x.Close()
				if err != nil || string(body) != tc.proto {
					t.Fatalf("answer %q, %v; want %q", body, err, tc.proto)
				}
			}
			if opened, _ := log.counts(); opened != 1 {
				t.Fatalf("the server saw %d connections; the warm one should have served both requests", opened)
			}
		})
	}
}

// Through a proxy nothing is opened ahead: the connection would go to the
// wrong place.
func TestWarmOpensNothingThroughAProxy(t *testing.T) {
	srv, _, o := warmServer(t, false)
	o.Proxy = func(*http.Request) (*url.URL, error) { return url.Parse(srv.URL) }
	c, err := New("c", "http://upstream.invalid/v1", "", o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Warm()
	if c.warm.slot != nil {
		t.Fatal("Warm opened a connection although a proxy carries the requests")
	}
}

// A client closed before any request closes the connection Warm opened.
func TestCloseClosesAnUnusedWarmConnection(t *testing.T) {
	srv, log, o := warmServer(t, false)
	c, err := New("c", srv.URL, "", o)
	if err != nil {
		t.Fatal(err)
	}
	c.Warm()
	log.waitOpen(t)
	c.Close()
	<-log.shut
	if opened, closed := log.counts(); opened != 1 || closed != 1 {
		t.Fatalf("opened %d, closed %d", opened, closed)
	}
}

// A warm connection that failed leaves the request to dial its own.
func TestAFailedWarmConnectionIsNotUsed(t *testing.T) {
	srv, log, o := warmServer(t, false)
	c, err := New("c", srv.URL, "", o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	addr := srv.Listener.Addr().String()
	w := &warmConn{addr: addr, ready: make(chan struct{}), err: io.ErrUnexpectedEOF}
	close(w.ready)
	c.warm.slot = w
	x, err := c.Do(context.Background(), http.MethodGet, c.Base+"/", nil, http.Header{})
	if err != nil {
		t.Fatal(err)
	}
	x.Close()
	if opened, _ := log.counts(); opened != 1 || c.warm.slot != nil {
		t.Fatalf("opened %d connections, slot %v", opened, c.warm.slot)
	}
}

// A server whose certificate the client does not trust fails at once,
// not retried, with how to trust a private certificate authority.
func TestAnUntrustedCertificateSaysHowToTrustIt(t *testing.T) {
	srv, _, o := warmServer(t, true)
	o.RootCAs = x509.NewCertPool() // trusts nothing
	c, err := New("c", srv.URL, "", o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.Do(context.Background(), http.MethodGet, c.Base+"/", nil, http.Header{})
	if !errors.Is(err, sdk.ErrFailedPrecondition) || !strings.Contains(err.Error(), "SSL_CERT_FILE") {
		t.Fatalf("err = %v", err)
	}
}
