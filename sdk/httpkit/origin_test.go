package httpkit

import (
	"net/url"
	"testing"
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
