package bridge

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/coyote-cli/coyote/sdk/httpkit"
)

// BenchmarkOriginGuardAndHeaders is what the origin guard and the static
// headers add to each request to a remote server (the network aside).
func BenchmarkOriginGuardAndHeaders(b *testing.B) {
	home, _ := url.Parse("https://mcp.example.com/mcp")
	ok := &http.Response{StatusCode: http.StatusOK}
	base := rtFunc(func(*http.Request) (*http.Response, error) { return ok, nil })
	g := &originGuard{origin: httpkit.Origin(home), base: &headerTransport{base: base, headers: map[string]string{"X-Api-Key": "k"}}}
	req, _ := http.NewRequest(http.MethodPost, home.String(), nil)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.RoundTrip(req); err != nil {
			b.Fatal(err)
		}
	}
}
