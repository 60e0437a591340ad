package httpkit

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coyote-cli/coyote/sdk"
)

func TestOrigin(t *testing.T) {
	for _, tc := range []struct{ a, b string }{
		{"https://Example.COM/mcp", "https://example.com:443/other?x=1"},
		{"http://example.com", "http://example.com:80/"},
		{"http://[::1]:8080/x", "http://[::1]:8080/y"},
	} {
		ua, _ := url.Parse(tc.a)
		ub, _ := url.Parse(tc.b)
		if Origin(ua) != Origin(ub) {
			t.Errorf("%s and %s: origins %s and %s differ", tc.a, tc.b, Origin(ua), Origin(ub))
		}
	}
	for _, tc := range []struct{ a, b string }{
		{"https://example.com/", "http://example.com/"},
		{"https://example.com/", "https://example.com:8443/"},
		{"https://example.com/", "https://www.example.com/"},
		{"https://example.com/", "https://example.com.evil.test/"},
	} {
		ua, _ := url.Parse(tc.a)
		ub, _ := url.Parse(tc.b)
		if Origin(ua) == Origin(ub) {
			t.Errorf("%s and %s share the origin %s", tc.a, tc.b, Origin(ua))
		}
	}
}

// A provider's API key rides in a header that Go's client would carry to
// another host on a redirect: the client refuses such a redirect, and
// follows one within the origin, header and all.
func TestAKeyHeaderNeverFollowsARedirectToAnotherOrigin(t *testing.T) {
	var leaked atomic.Bool
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != "" {
			leaked.Store(true)
		}
	}))
	defer other.Close()
	home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, other.URL+"/v1", http.StatusTemporaryRedirect)
		case "/moved":
			http.Redirect(w, r, "/here", http.StatusTemporaryRedirect)
		case "/here":
			if r.Header.Get("X-Api-Key") == "k" {
				w.WriteHeader(http.StatusNoContent)
			}
		}
	}))
	defer home.Close()
	c, err := New("test client", home.URL, "k", Options{ConnectTimeout: time.Second, ReadTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	header := http.Header{"X-Api-Key": {"k"}}
	_, err = c.Do(context.Background(), http.MethodPost, home.URL+"/away", []byte("{}"), header.Clone())
	if !errors.Is(err, sdk.ErrFailedPrecondition) || !strings.Contains(err.Error(), "redirected to another origin") || leaked.Load() {
		t.Fatalf("a redirect to another origin: err %v, key leaked %v", err, leaked.Load())
	}
	x, err := c.Do(context.Background(), http.MethodPost, home.URL+"/moved", []byte("{}"), header.Clone())
	if err != nil || x.Resp.StatusCode != http.StatusNoContent {
		t.Fatalf("a redirect within the origin: %v", err)
	}
	x.Close()
}
