package oauth

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/coyote-cli/coyote/sdk/httpkit"
)

// RoundTripper wraps base (http.DefaultTransport when nil) for the
// requests to the MCP server:
//   - a request gets "Authorization: Bearer <token>" when a token for the
//     server's URL is stored; a token about to expire is refreshed first;
//   - a 401 answer to a request with a token refreshes the token once and
//     sends the request again (its body replayed);
//   - a 401 that no token can answer (none stored, no refresh token, the
//     refresh refused, or a fresh token refused) is an error wrapping
//     ErrNeedsAuth; the round tripper never waits for the user;
//   - a request that carries its own Authorization header (a static
//     header from mcp.json) is passed through untouched;
//   - a request to another origin (scheme, host, port) than the server's
//     URL, such as a redirect elsewhere, is passed through without the
//     token: a token belongs to its server's origin only.
//
// Discovery, registration and token requests do not go through base: they
// use their own client, so headers meant for the MCP server never reach
// the authorization server.
func (c *Client) RoundTripper(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	home := ""
	if u, err := url.Parse(c.s.URL); err == nil {
		home = httpkit.Origin(u)
	}
	return &roundTripper{c: c, base: base, origin: home}
}

type roundTripper struct {
	c      *Client
	base   http.RoundTripper
	origin string // of the server's URL; "" when it does not parse
}

func (rt *roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("Authorization") != "" || rt.origin == "" || httpkit.Origin(req.URL) != rt.origin {
		return rt.base.RoundTrip(req)
	}
	token, err := rt.c.currentToken(req.Context())
	if err != nil {
		closeReqBody(req)
		return nil, err
	}
	if token == "" {
		resp, err := rt.base.RoundTrip(req)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode == http.StatusUnauthorized {
			closeBody(resp)
			return nil, rt.c.needsAuth("")
		}
		return resp, nil
	}

	first, err := replayable(req)
	if err != nil {
		return nil, err
	}
	resp, err := rt.base.RoundTrip(withBearer(first, token))
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		return resp, err
	}
	closeBody(resp)

	token, err = rt.c.tokenAfter401(req.Context(), token)
	if err != nil {
		return nil, err
	}
	again := first.Clone(req.Context())
	if first.GetBody != nil {
		body, err := first.GetBody()
		if err != nil {
			return nil, fmt.Errorf("replay request to MCP server %q: %w", rt.c.s.Name, err)
		}
		again.Body = body
	}
	resp, err = rt.base.RoundTrip(withBearer(again, token))
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		return resp, err
	}
	closeBody(resp)
	rt.c.dropToken(token)
	return nil, rt.c.needsAuth("the server refused a fresh token")
}

// replayable returns req, or a copy whose body is buffered, so that the
// body can be sent a second time.
func replayable(req *http.Request) (*http.Request, error) {
	if req.Body == nil || req.Body == http.NoBody || req.GetBody != nil {
		return req, nil
	}
	data, err := io.ReadAll(req.Body)
	_ = req.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("read request body: %w", err)
	}
	out := req.Clone(req.Context())
	out.Body = io.NopCloser(bytes.NewReader(data))
	out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	return out, nil
}

// withBearer returns a copy of req with the token added (the caller's
// request is never changed).
func withBearer(req *http.Request, token string) *http.Request {
	out := req.Clone(req.Context()) // shares the body
	out.Header.Set("Authorization", "Bearer "+token)
	return out
}

func closeReqBody(req *http.Request) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
}

// currentToken returns the access token to send, refreshing it when it
// has expired; "" when there is none to send.
func (c *Client) currentToken(ctx context.Context) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.loadLocked()
	if t == nil {
		return "", nil
	}
	if t.AccessToken != "" && !c.expiredLocked(t) {
		return t.AccessToken, nil
	}
	if t.RefreshToken == "" {
		return "", nil
	}
	return c.refreshLocked(ctx, t)
}

// tokenAfter401 returns the token to retry with after the server refused
// used: one that another request stored meanwhile, else a refreshed one.
func (c *Client) tokenAfter401(ctx context.Context, used string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.loadLocked()
	if t == nil {
		return "", c.needsAuth("")
	}
	if t.AccessToken != "" && t.AccessToken != used && !c.expiredLocked(t) {
		return t.AccessToken, nil
	}
	if t.RefreshToken == "" {
		c.clearLocked(t)
		return "", c.needsAuth("the server refused the token and there is no refresh token")
	}
	return c.refreshLocked(ctx, t)
}

func (c *Client) expiredLocked(t *storedToken) bool {
	return !t.ExpiresAt.IsZero() && !c.now().Add(expirySkew).Before(t.ExpiresAt)
}

// refreshLocked uses the refresh token (with the RFC 8707 resource). A
// refusal by the token endpoint clears the stored tokens, so the server
// is reported as needing authorization; a failure to reach it changes
// nothing.
func (c *Client) refreshLocked(ctx context.Context, t *storedToken) (string, error) {
	tc := tokenClient{
		endpoint:   t.TokenEndpoint,
		clientID:   t.ClientID,
		authMethod: t.AuthMethod,
	}
	if tc.authMethod != authNone && tc.authMethod != "" {
		tc.clientSecret = c.secretFor(t.ClientID, c.loadRegistration())
	}
	form := url.Values{
		"grant_type":    {"refresh_token"},
		"refresh_token": {t.RefreshToken},
	}
	if t.Resource != "" {
		form.Set("resource", t.Resource)
	}
	tr, err := requestToken(ctx, c.httpClient, tc, form)
	if err != nil {
		var te *tokenError
		if errors.As(err, &te) && te.final() {
			c.clearLocked(t)
			return "", c.needsAuth("the token could not be refreshed: " + te.Error())
		}
		return "", fmt.Errorf("refresh the OAuth token of MCP server %q: %w", c.s.Name, err)
	}
	next := *t
	next.update(tr, c.now())
	if err := c.saveTokenLocked(&next); err != nil {
		return "", err
	}
	return next.AccessToken, nil
}

// secretFor is the client secret of clientID, whose dynamic registration
// r may be (nil: none): the configured secret for the configured client;
// else the secret the registration returned; else, when no client is
// configured, the configured secret (a registered client without one of
// its own uses it). The code exchange and every refresh use the same.
func (c *Client) secretFor(clientID string, r *registration) string {
	switch {
	case c.s.ClientID != "" && c.s.ClientID == clientID:
		return c.s.ClientSecret
	case r != nil && r.ClientID == clientID && r.ClientSecret != "":
		return r.ClientSecret
	case c.s.ClientID == "":
		return c.s.ClientSecret
	}
	return ""
}

// clearLocked forgets the tokens of t but keeps the rest of the file
// (for the record); HasToken is false afterwards. A failure to write is
// ignored: the in-memory state is cleared all the same.
func (c *Client) clearLocked(t *storedToken) {
	next := *t
	next.AccessToken, next.RefreshToken, next.ExpiresAt = "", "", time.Time{}
	if err := c.saveTokenLocked(&next); err != nil {
		c.tok = &next
	}
}

// dropToken clears the stored tokens when token is still the current
// access token (the server refused it right after it was issued).
func (c *Client) dropToken(token string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t := c.loadLocked(); t != nil && t.AccessToken == token {
		c.clearLocked(t)
	}
}
