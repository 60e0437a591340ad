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
	fw, err := StartForward(sock)
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
