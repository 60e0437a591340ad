package bridge

import (
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/mcpbridge"
)

func TestRedactURL(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"https://mcp.example.com/mcp", "https://mcp.example.com/mcp"},
		{"https://mcp.example.com/mcp?api_key=s3cret", "https://mcp.example.com/mcp?api_key=***"},
		{"https://mcp.example.com/mcp?a=1&b=&flag", "https://mcp.example.com/mcp?a=***&b=***&***"},
		{"https://user:pass@mcp.example.com:8443/x?k=v#frag", "https://mcp.example.com:8443/x?k=***"},
		{"https://tok@mcp.example.com/", "https://mcp.example.com/"},
		{"http://[::1]:9/mcp?t=%2Fx", "http://[::1]:9/mcp?t=***"},
		{"://bad", "(the url in mcp.json)"},
	} {
		if got := redactURL(tc.in); got != tc.want {
			t.Errorf("redactURL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestRedactorHidesURLSecretsAndHeaderValues(t *testing.T) {
	cfg := &mcpbridge.ServerConfig{
		Name: "r", Type: "http",
		URL:     "https://bob:hunter22@mcp.example.com/mcp?api_key=abc%2Fdef123&v=1",
		Headers: map[string]string{"Authorization": "Bearer tok-4567890", "X-Api-Key": "k3y-value"},
	}
	r := newRedactor(cfg)
	for _, tc := range []struct{ in, want string }{
		{`Post "https://bob:hunter22@mcp.example.com/mcp?api_key=abc%2Fdef123&v=1": refused`, `Post "https://mcp.example.com/mcp?api_key=***&v=***": refused`},
		{`Post "https://bob:***@mcp.example.com/mcp?api_key=abc%2Fdef123&v=1": refused`, `Post "https://mcp.example.com/mcp?api_key=***&v=***": refused`},
		{`GET https://mcp.example.com/mcp?api_key=abc%2Fdef123 failed`, `GET https://mcp.example.com/mcp?api_key=*** failed`},
		{"the key abc/def123 is wrong", "the key *** is wrong"},
		{"token tok-4567890 expired; k3y-value unknown", "token *** expired; *** unknown"},
		{"user hunter22 and bob", "user *** and bob"},
		{"port 1 of 443", "port 1 of 443"},
	} {
		if got := r.String(tc.in); got != tc.want {
			t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	err := r.Error(errors.Join(errors.New("Post \"https://mcp.example.com/mcp?api_key=abc%2Fdef123\""), sdk.ErrUnavailable))
	if !errors.Is(err, sdk.ErrUnavailable) || strings.Contains(err.Error(), "def123") {
		t.Errorf("redacted error %v: lost its identity or kept the secret", err)
	}
	if errors.Unwrap(err) != nil {
		t.Error("a redacted error unwraps to the original message")
	}
}

// TestURLSecretsDoNotLeaveTheBridge: a server whose URL carries a secret
// in its query (and its userinfo) and that is down: neither the start
// error nor a call's error repeats the secret; both show the redacted URL.
func TestURLSecretsDoNotLeaveTheBridge(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	_ = ln.Close() // nothing listens there now
	secrets := []string{"s3cr3t-query-value", "pa55word", "hdr-secret-value"}
	for _, typ := range []string{mcpbridge.TypeHTTP, mcpbridge.TypeSSE} {
		t.Run(typ, func(t *testing.T) {
			c, _ := served(t, Options{})
			configure(t, c, mcpbridge.ServerConfig{
				Name: "down", Type: typ,
				URL:     "http://me:pa55word@127.0.0.1:" + port + "/mcp?api_key=s3cr3t-query-value",
				Headers: map[string]string{"X-Api-Key": "hdr-secret-value"},
			})
			resp, err := c.Tools(testCtx(t), &mcpbridge.ToolsRequest{Servers: []string{"down"}})
			if err != nil {
				t.Fatal(err)
			}
			_, callErr := c.Call(testCtx(t), &mcpbridge.CallRequest{Server: "down", Tool: "x", Arguments: []byte(`{}`)})
			if callErr == nil {
				t.Fatal("a call on a server that is down succeeded")
			}
			for _, msg := range []string{resp.Servers[0].Error, callErr.Error()} {
				t.Logf("error: %s", msg)
				for _, s := range secrets {
					if strings.Contains(msg, s) {
						t.Errorf("error %q repeats the secret %q", msg, s)
					}
				}
				if !strings.Contains(msg, `"http://127.0.0.1:`+port+`/mcp?api_key=***"`) {
					t.Errorf("error %q does not show the redacted URL", msg)
				}
			}
		})
	}
}
