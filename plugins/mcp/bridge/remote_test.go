package bridge

import (
	"net/http"
	"net/url"
	"testing"
)

func TestOriginOf(t *testing.T) {
	for _, tc := range []struct{ a, b string }{
		{"https://Example.COM/mcp", "https://example.com:443/other?x=1"},
		{"http://example.com", "http://example.com:80/"},
		{"http://[::1]:8080/x", "http://[::1]:8080/y"},
	} {
		ua, _ := url.Parse(tc.a)
		ub, _ := url.Parse(tc.b)
		if originOf(ua) != originOf(ub) {
			t.Errorf("%s and %s: origins %s and %s differ", tc.a, tc.b, originOf(ua), originOf(ub))
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
		if originOf(ua) == originOf(ub) {
			t.Errorf("%s and %s share the origin %s", tc.a, tc.b, originOf(ua))
		}
	}
}

// BenchmarkOriginGuardAndHeaders is what the origin guard and the static
// headers add to each request to a remote server (the network aside).
func BenchmarkOriginGuardAndHeaders(b *testing.B) {
	home, _ := url.Parse("https://mcp.example.com/mcp")
	ok := &http.Response{StatusCode: http.StatusOK}
	base := rtFunc(func(*http.Request) (*http.Response, error) { return ok, nil })
	g := &originGuard{origin: originOf(home), base: &headerTransport{base: base, headers: map[string]string{"X-Api-Key": "k"}, origin: originOf(home)}}
	req, _ := http.NewRequest(http.MethodPost, home.String(), nil)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.RoundTrip(req); err != nil {
			b.Fatal(err)
		}
	}
}
