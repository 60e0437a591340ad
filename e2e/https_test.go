package e2e

import (
	"encoding/pem"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// A one-shot prompt to an HTTPS API (HTTP/2): the plugin connects when it
// is configured (httpkit.Warm, its own TLS dial) and the request uses that
// connection; a certificate it does not trust fails in one line that
// says how to trust it.
func TestOneShotOverHTTPS(t *testing.T) {
	fake := answering("Secure hello.")
	var conns atomic.Int32
	var proto atomic.Value
	h := fake.Handler()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proto.Store(r.Proto)
		h.ServeHTTP(w, r)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, openAIConfig(srv.URL+"/v1", "k"))

	r := e.run("", "hi")
	if r.code == 0 || !strings.Contains(r.stderr, "SSL_CERT_FILE") || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
		t.Fatalf("an untrusted certificate: exit %d, stderr %q", r.code, r.stderr)
	}

	conns.Store(0)
	e.set("SSL_CERT_FILE=" + ca)
	r = e.run("", "hi")
	e.mustSucceed(r)
	if strings.TrimSpace(r.stdout) != "Secure hello." || proto.Load() != "HTTP/2.0" || conns.Load() != 1 {
		t.Fatalf("stdout %q over %v, %d connections (want HTTP/2.0 over the one opened ahead)", r.stdout, proto.Load(), conns.Load())
	}
}
