package sandbox

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// startPair runs a proxy with one route to upstream and a forwarder to
// it, and returns an HTTP client that goes through the forwarder as the
// plugins inside do.
func startPair(t *testing.T, upstream string, secret, placeholder string) (*Proxy, *http.Client) {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "p.sock")
	p, err := StartProxy(sock, []Route{{Name: "c/fake", Upstream: upstream, Secrets: []Secret{{Placeholder: placeholder, Value: secret}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	fw, err := StartForward(sock, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fw.Close)
	u, _ := url.Parse(fw.URL)
	return p, &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(u)}}
}

func TestProxyPutsTheKeyWhereThePlaceholderIs(t *testing.T) {
	var got http.Header
	var query string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, query = r.Header.Clone(), r.URL.RawQuery
		fmt.Fprint(w, "ok "+r.URL.Path)
	}))
	defer up.Close()
	ph := NewPlaceholder()
	p, c := startPair(t, up.URL+"/v1", "real-key", ph)
	req, _ := http.NewRequest("POST", RouteBase("c/fake")+"/chat?key="+ph, strings.NewReader("{}"))
	req.Header.Set("Authorization", "Bearer "+ph)
	req.Header.Set("X-Api-Key", ph)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "ok /v1/chat" {
		t.Fatalf("body %q", body)
	}
	if got.Get("Authorization") != "Bearer real-key" || got.Get("X-Api-Key") != "real-key" || query != "key=real-key" {
		t.Fatalf("upstream saw %v, query %q", got, query)
	}
	if p.Requests("c/fake") != 1 {
		t.Fatalf("%d requests", p.Requests("c/fake"))
	}
}

func TestProxyRefusesHostsThatAreNotRoutes(t *testing.T) {
	_, c := startPair(t, "http://127.0.0.1:1", "k", NewPlaceholder())
	for _, u := range []string{"http://example.com/", RouteBase("c/other") + "/x"} {
		resp, err := c.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode < 400 {
			t.Fatalf("%s: status %d", u, resp.StatusCode)
		}
	}
}

func TestProxyCarriesAStreamWhole(t *testing.T) {
	const chunks = 200
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		for i := 0; i < chunks; i++ {
			fmt.Fprintf(w, "data: %d\n\n", i)
			w.(http.Flusher).Flush()
			if i%50 == 0 {
				time.Sleep(time.Millisecond)
			}
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	defer up.Close()
	_, c := startPair(t, up.URL, "k", NewPlaceholder())
	for n := 0; n < 50; n++ {
		resp, err := c.Post(RouteBase("c/fake")+"/s", "application/json", strings.NewReader(`{"stream":true}`))
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || !strings.HasSuffix(string(body), "data: [DONE]\n\n") {
			t.Fatalf("try %d: stream cut: %v, %d bytes", n, err, len(body))
		}
	}
}

func TestWithTheNetworkOtherHostsGoStraightOut(t *testing.T) {
	routed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "routed "+r.Header.Get("Authorization"))
	}))
	defer routed.Close()
	direct := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "direct "+r.URL.Path)
	}))
	defer direct.Close()
	tls := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "tls") }))
	defer tls.Close()

	sock := filepath.Join(t.TempDir(), "p.sock")
	ph := NewPlaceholder()
	p, err := StartProxy(sock, []Route{{Name: "c/x", Upstream: routed.URL, Secrets: []Secret{{Placeholder: ph, Value: "key"}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, network := range []bool{false, true} {
		fw, err := StartForward(sock, network)
		if err != nil {
			t.Fatal(err)
		}
		u, _ := url.Parse(fw.URL)
		tr := tls.Client().Transport.(*http.Transport).Clone()
		tr.Proxy = http.ProxyURL(u)
		c := &http.Client{Transport: tr}
		get := func(target string, hdr ...string) (int, string) {
			req, _ := http.NewRequest("GET", target, nil)
			if len(hdr) > 0 {
				req.Header.Set("Authorization", hdr[0])
			}
			resp, err := c.Do(req)
			if err != nil {
				return 0, err.Error()
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, string(b)
		}
		if code, body := get(RouteBase("c/x")+"/a", "Bearer "+ph); code != 200 || body != "routed Bearer key" {
			t.Errorf("network %v: routed: %d %q", network, code, body)
		}
		// httptest servers are on 127.0.0.1, which Go's clients never
		// send to a proxy from the environment; the explicit ProxyURL
		// here does.
		code, body := get(direct.URL + "/b")
		if network && (code != 200 || body != "direct /b") || !network && code == 200 {
			t.Errorf("network %v: direct: %d %q", network, code, body)
		}
		code, body = get(tls.URL)
		if network && (code != 200 || body != "tls") || !network && code == 200 {
			t.Errorf("network %v: tls: %d %q", network, code, body)
		}
		fw.Close()
	}
}
