package httpkit

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// warmFor is how long a connection opened ahead waits for its request. A
// server may drop a connection that stays silent; past this it is closed
// unused and the request dials its own.
const warmFor = 20 * time.Second

// warmConn is a connection being opened, or opened, ahead of the first
// request.
type warmConn struct {
	addr  string // host:port
	tls   bool
	ready chan struct{} // closed when conn or err is set
	conn  net.Conn
	err   error
	at    time.Time // when it was opened
}

// warmer hands the connection opened by Warm to the first dial of its
// address.
type warmer struct {
	mu   sync.Mutex
	slot *warmConn
}

// Warm opens a connection to the API's host ahead of the first request:
// TCP, and the TLS handshake for an https base. A plugin calls it when a
// client is configured, which the kernel does while it still prepares the
// request, so the first request finds the connection open. For a remote
// HTTPS API that is several round trips off the first byte. Nothing is
// opened when a proxy carries the client's requests, nor twice: a second
// Warm before the first connection is used does nothing. A connection
// that no request takes within 20 seconds is closed unused.
func (c *Client) Warm() {
	u, err := url.Parse(c.Base)
	if err != nil {
		return
	}
	if p, err := c.proxy(&http.Request{URL: u, Header: http.Header{}}); err != nil || p != nil {
		return
	}
	secure := u.Scheme == "https"
	port := u.Port()
	if port == "" {
		port = "80"
		if secure {
			port = "443"
		}
	}
	w := &warmConn{addr: net.JoinHostPort(u.Hostname(), port), tls: secure, ready: make(chan struct{})}
	c.warm.mu.Lock()
	if c.warm.slot != nil {
		c.warm.mu.Unlock()
		return
	}
	c.warm.slot = w
	c.warm.mu.Unlock()
	go func() {
		if secure {
			w.conn, w.err = c.handshake(context.Background(), w.addr)
		} else {
			w.conn, w.err = c.dialer.DialContext(context.Background(), "tcp", w.addr)
		}
		w.at = time.Now()
		close(w.ready)
		time.AfterFunc(warmFor, func() {
			if c.takeWarm(w.addr, w.tls) == w && w.conn != nil {
				_ = w.conn.Close()
			}
		})
	}()
}

// takeWarm removes and returns the warm connection for addr, if there is
// one.
func (c *Client) takeWarm(addr string, secure bool) *warmConn {
	c.warm.mu.Lock()
	defer c.warm.mu.Unlock()
	w := c.warm.slot
	if w == nil || w.addr != addr || w.tls != secure {
		return nil
	}
	c.warm.slot = nil
	return w
}

// useWarm waits for a warm connection for addr and returns it; nil when
// there is none, it failed, or it waited too long.
func (c *Client) useWarm(ctx context.Context, addr string, secure bool) net.Conn {
	w := c.takeWarm(addr, secure)
	if w == nil {
		return nil
	}
	select {
	case <-w.ready:
	case <-ctx.Done():
		// The request gave up; the connection, when it comes, is not
		// wanted.
		go func() {
			<-w.ready
			if w.conn != nil {
				_ = w.conn.Close()
			}
		}()
		return nil
	}
	if w.err != nil || w.conn == nil {
		return nil
	}
	if time.Since(w.at) > warmFor {
		_ = w.conn.Close()
		return nil
	}
	return w.conn
}

// dial is the transport's plain dial: the warm connection when it is for
// this address, else a new one.
func (c *Client) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if conn := c.useWarm(ctx, addr, false); conn != nil {
		return conn, nil
	}
	return c.dialer.DialContext(ctx, network, addr)
}

// dialTLS is the transport's dial of an https host it reaches directly:
// the warm connection when it is for this address, else a new one with
// its handshake done. (Through a proxy the transport dials with dial and
// does the handshake itself.)
func (c *Client) dialTLS(ctx context.Context, network, addr string) (net.Conn, error) {
	if conn := c.useWarm(ctx, addr, true); conn != nil {
		return conn, nil
	}
	return c.handshake(ctx, addr)
}

// handshake dials addr and does the TLS handshake, offering HTTP/2 as
// the transport would.
func (c *Client) handshake(ctx context.Context, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, c.connectTimeout)
	defer cancel()
	raw, err := c.dialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	conn := tls.Client(raw, &tls.Config{ServerName: host, NextProtos: []string{"h2", "http/1.1"}, RootCAs: c.roots})
	if err := conn.HandshakeContext(ctx); err != nil {
		_ = raw.Close()
		return nil, err
	}
	return conn, nil
}

// closeWarm closes a warm connection no request took.
func (c *Client) closeWarm() {
	c.warm.mu.Lock()
	w := c.warm.slot
	c.warm.slot = nil
	c.warm.mu.Unlock()
	if w != nil {
		go func() {
			<-w.ready
			if w.conn != nil {
				_ = w.conn.Close()
			}
		}()
	}
}
