package oauth

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// resourceMetadata is the part of RFC 9728 protected-resource metadata
// that the flow uses.
type resourceMetadata struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported"`
}

// serverMetadata is the part of RFC 8414 authorization-server metadata
// (or of an OpenID Connect discovery document) that the flow uses.
type serverMetadata struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint"`
	ScopesSupported                   []string `json:"scopes_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
}

// discovery is what discover found for one server.
type discovery struct {
	as serverMetadata
	// resource is the resource the metadata advertises ("" when none).
	resource string
	// scopes to request, space-separated ("" requests none).
	scopes string
}

// maxMetadataBytes bounds a metadata document.
const maxMetadataBytes = 1 << 20

// discover finds the authorization server of the MCP server: it asks the
// server without a token and follows the resource_metadata of the 401's
// WWW-Authenticate challenge, else the RFC 9728 well-known locations; then
// it reads the metadata of the first authorization server listed. A server
// that publishes no resource metadata is taken to be its own authorization
// server (the 2025-03-26 MCP revision).
func (c *Client) discover(ctx context.Context) (*discovery, error) {
	serverURL, err := parseHTTPURL(c.s.URL)
	if err != nil {
		return nil, fmt.Errorf("MCP server %q: %w", c.s.Name, err)
	}
	var tried []string
	var candidates []string
	challengeScope := ""
	if ch, ok := c.probe(ctx); ok {
		if m := ch["resource_metadata"]; m != "" {
			if u, err := parseHTTPURL(m); err == nil {
				candidates = append(candidates, u.String())
			}
		}
		challengeScope = ch["scope"]
	}
	candidates = appendNew(candidates, resourceMetadataURLs(serverURL)...)

	prm, err := firstDocument(ctx, c, candidates, &tried, func(m *resourceMetadata) bool {
		return len(m.AuthorizationServers) > 0
	})
	if err != nil {
		return nil, err
	}

	issuer := origin(serverURL)
	if prm != nil {
		issuer = prm.AuthorizationServers[0]
	}
	issuerURL, err := parseHTTPURL(issuer)
	if err != nil {
		return nil, fmt.Errorf("authorization server of MCP server %q: %w", c.s.Name, err)
	}
	as, err := firstDocument(ctx, c, serverMetadataURLs(issuerURL), &tried, func(m *serverMetadata) bool {
		return m.AuthorizationEndpoint != "" && m.TokenEndpoint != ""
	})
	if err != nil {
		return nil, err
	}
	if as == nil {
		return nil, fmt.Errorf("MCP server %q publishes no OAuth metadata (tried %s): check its URL, or that it uses OAuth at all", c.s.Name, strings.Join(tried, ", "))
	}
	for _, e := range []struct{ name, u string }{
		{"authorization_endpoint", as.AuthorizationEndpoint},
		{"token_endpoint", as.TokenEndpoint},
		{"registration_endpoint", as.RegistrationEndpoint},
	} {
		if e.u == "" {
			continue
		}
		if _, err := parseHTTPURL(e.u); err != nil {
			return nil, fmt.Errorf("OAuth metadata of MCP server %q: %s: %w", c.s.Name, e.name, err)
		}
	}
	if len(as.CodeChallengeMethodsSupported) > 0 && !slices.Contains(as.CodeChallengeMethodsSupported, "S256") {
		return nil, fmt.Errorf("the authorization server of MCP server %q does not support PKCE with S256, which MCP requires", c.s.Name)
	}

	d := &discovery{as: *as}
	switch {
	case challengeScope != "":
		d.scopes = challengeScope
	case prm != nil && len(prm.ScopesSupported) > 0:
		d.scopes = strings.Join(prm.ScopesSupported, " ")
	default:
		d.scopes = strings.Join(as.ScopesSupported, " ")
	}
	if prm != nil {
		d.resource = prm.Resource
	}
	return d, nil
}

// probe asks the server without a token and returns the parameters of
// the Bearer challenge of a 401 answer; ok is false for any other answer.
func (c *Client) probe(ctx context.Context) (params map[string]string, ok bool) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.s.URL, nil)
	if err != nil {
		return nil, false
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := c.httpClient.Do(req)
	if err != nil {
		return nil, false
	}
	defer closeBody(resp)
	if resp.StatusCode != http.StatusUnauthorized {
		return nil, false
	}
	for _, ch := range parseChallenges(resp.Header.Values("WWW-Authenticate")) {
		if ch.scheme == "bearer" {
			return ch.params, true
		}
	}
	return map[string]string{}, true
}

// firstDocument returns the first of urls whose JSON document is usable,
// nil when none is; each URL asked is added to tried. Only the end of ctx
// is an error: a URL that fails is skipped.
func firstDocument[T any](ctx context.Context, c *Client, urls []string, tried *[]string, usable func(*T) bool) (*T, error) {
	for _, u := range urls {
		*tried = append(*tried, u)
		var doc T
		if err := c.getJSON(ctx, u, &doc); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			continue
		}
		if usable(&doc) {
			return &doc, nil
		}
	}
	return nil, nil
}

// getJSON GETs u and decodes a 200 answer into v.
func (c *Client) getJSON(ctx context.Context, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.httpClient.Do(req)
	if err != nil {
		return err
	}
	defer closeBody(resp)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxMetadataBytes)).Decode(v); err != nil {
		return fmt.Errorf("GET %s: %w", u, err)
	}
	return nil
}

// resourceMetadataURLs are the RFC 9728 well-known locations for a
// server URL: the path-inserted form first, then the root.
func resourceMetadataURLs(u *url.URL) []string {
	return wellKnown(u, "oauth-protected-resource")
}

// serverMetadataURLs are the places the metadata of an authorization
// server may live: RFC 8414 (path-inserted), then OpenID Connect discovery
// (path-inserted, then appended to the issuer's path).
func serverMetadataURLs(issuer *url.URL) []string {
	urls := wellKnown(issuer, "oauth-authorization-server")[:1]
	urls = append(urls, wellKnown(issuer, "openid-configuration")[:1]...)
	if p := strings.TrimSuffix(issuer.EscapedPath(), "/"); p != "" {
		urls = append(urls, origin(issuer)+p+"/.well-known/openid-configuration")
	}
	return urls
}

// wellKnown returns origin/.well-known/<name><path> and, when the path is
// not empty, origin/.well-known/<name> after it.
func wellKnown(u *url.URL, name string) []string {
	root := origin(u) + "/.well-known/" + name
	if p := strings.TrimSuffix(u.EscapedPath(), "/"); p != "" {
		return []string{root + p, root}
	}
	return []string{root}
}

// challenge is one WWW-Authenticate challenge (RFC 9110 §11.6.1); scheme
// and parameter names are lower-case.
type challenge struct {
	scheme string
	params map[string]string
}

// parseChallenges parses WWW-Authenticate header values leniently: what
// it cannot read ends the value it is in, never the whole parse.
func parseChallenges(values []string) []challenge {
	var out []challenge
	for _, v := range values {
		p := headerParser{s: v}
		for {
			p.skip(" \t,")
			scheme := p.token()
			if scheme == "" {
				break
			}
			ch := challenge{scheme: strings.ToLower(scheme), params: map[string]string{}}
			for {
				p.skip(" \t")
				save := p.i
				name := p.token()
				p.skip(" \t")
				if name == "" || !p.eat('=') {
					// The next challenge's scheme, or a token68.
					p.i = save
					if name != "" && len(ch.params) == 0 {
						p.token68()
					}
					break
				}
				p.skip(" \t")
				var val string
				if p.peek() == '"' {
					val = p.quoted()
				} else {
					val = p.bare()
				}
				if val == "" || strings.HasPrefix(val, "=") {
					// "abc=" or "abc==": a token68 credential, not a parameter.
					p.i = save
					p.token68()
					break
				}
				ch.params[strings.ToLower(name)] = val
				p.skip(" \t")
				if !p.eat(',') {
					break
				}
			}
			out = append(out, ch)
			if p.i >= len(p.s) {
				break
			}
		}
	}
	return out
}

type headerParser struct {
	s string
	i int
}

func (p *headerParser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *headerParser) eat(b byte) bool {
	if p.peek() == b && p.i < len(p.s) {
		p.i++
		return true
	}
	return false
}

func (p *headerParser) skip(set string) {
	for p.i < len(p.s) && strings.IndexByte(set, p.s[p.i]) >= 0 {
		p.i++
	}
}

// token reads an RFC 9110 token.
func (p *headerParser) token() string {
	start := p.i
	for p.i < len(p.s) {
		b := p.s[p.i]
		if b <= ' ' || b >= 0x7f || strings.IndexByte("\"(),/:;<=>?@[\\]{}", b) >= 0 {
			break
		}
		p.i++
	}
	return p.s[start:p.i]
}

// bare reads an unquoted parameter value: a token, read leniently up to
// the next comma or blank (some servers leave URLs unquoted).
func (p *headerParser) bare() string {
	start := p.i
	for p.i < len(p.s) && p.s[p.i] != ',' && p.s[p.i] != ' ' && p.s[p.i] != '\t' {
		p.i++
	}
	return p.s[start:p.i]
}

// token68 skips a token68 credential (letters, digits and -._~+/ then =).
func (p *headerParser) token68() {
	for p.i < len(p.s) && p.s[p.i] != ',' {
		p.i++
	}
}

// quoted reads a quoted string, unescaping backslashes.
func (p *headerParser) quoted() string {
	p.i++ // the opening quote
	var b strings.Builder
	for p.i < len(p.s) {
		ch := p.s[p.i]
		p.i++
		switch {
		case ch == '\\' && p.i < len(p.s):
			b.WriteByte(p.s[p.i])
			p.i++
		case ch == '"':
			return b.String()
		default:
			b.WriteByte(ch)
		}
	}
	return b.String()
}

// canonicalResource is the RFC 8707 resource for a server URL: the URL
// with its scheme and host in lower case, without query or fragment, and
// without the lone "/" of an empty path.
func canonicalResource(serverURL string) (string, error) {
	u, err := parseHTTPURL(serverURL)
	if err != nil {
		return "", err
	}
	v := *u
	v.Scheme = strings.ToLower(v.Scheme)
	v.Host = strings.ToLower(v.Host)
	v.RawQuery, v.ForceQuery, v.Fragment, v.RawFragment = "", false, "", ""
	v.User = nil
	if v.Path == "/" {
		v.Path, v.RawPath = "", ""
	}
	return v.String(), nil
}

// resolveResource picks the resource to send: the advertised one when it
// names the same origin (scheme, host, port) as the server URL, since
// metadata may not claim another server's tokens (RFC 9728 §3.3);
// otherwise the canonical server URL.
func resolveResource(advertised, serverURL string) (string, error) {
	canonical, err := canonicalResource(serverURL)
	if err != nil {
		return "", err
	}
	if advertised == "" {
		return canonical, nil
	}
	a, err := parseHTTPURL(advertised)
	if err != nil {
		return canonical, nil
	}
	s, _ := parseHTTPURL(serverURL)
	if origin(a) != origin(s) {
		return canonical, nil
	}
	return advertised, nil
}

// origin is scheme://host[:port] in lower case, with the default port of
// the scheme left out, so that equal origins compare equal.
func origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if scheme == "http" && port == "80" || scheme == "https" && port == "443" {
		port = ""
	}
	if port != "" {
		return scheme + "://" + net.JoinHostPort(host, port)
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return scheme + "://" + host
}

// parseHTTPURL parses an absolute http or https URL.
func parseHTTPURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("invalid URL %q: %w", s, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("invalid URL %q: not an http:// or https:// URL", s)
	}
	return u, nil
}

func appendNew(list []string, items ...string) []string {
	for _, it := range items {
		if !slices.Contains(list, it) {
			list = append(list, it)
		}
	}
	return list
}

// closeBody drains a little of an unread body so the connection can be
// reused, then closes it.
func closeBody(resp *http.Response) {
	_, _ = io.CopyN(io.Discard, resp.Body, 4<<10)
	_ = resp.Body.Close()
}
