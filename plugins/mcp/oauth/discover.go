package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/coyote-cli/coyote/sdk/httpkit"
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
//
// Metadata is used only as the RFCs allow: the resource metadata must be
// for this server's URL (RFC 9728 §3.3), the authorization server's for
// the issuer it was fetched for (RFC 8414 §3.3), the authorization server
// must support PKCE with S256 and say so (MCP authorization), and every
// URL it names must be https unless on a loopback host.
func (c *Client) discover(ctx context.Context) (*discovery, error) {
	serverURL, err := parseHTTPURL(c.s.URL)
	if err != nil {
		return nil, fmt.Errorf("MCP server %q: %w", c.s.Name, err)
	}
	canonical, err := canonicalResource(c.s.URL)
	if err != nil {
		return nil, fmt.Errorf("MCP server %q: %w", c.s.Name, err)
	}
	var tried []string
	var candidates []string
	challengeScope := ""
	if ch, ok := c.probe(ctx); ok {
		if m := ch["resource_metadata"]; m != "" {
			if u, err := parseHTTPURL(m); err == nil {
				if err := requireHTTPS("its resource_metadata URL", u); err != nil {
					return nil, c.refused(err)
				}
				candidates = append(candidates, u.String())
			}
		}
		challengeScope = ch["scope"]
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	candidates = appendNew(candidates, resourceMetadataURLs(serverURL)...)

	prm, err := firstDocument(ctx, c, candidates, &tried, func(u string, doc *resourceMetadata) (bool, error) {
		if len(doc.AuthorizationServers) == 0 {
			return false, nil
		}
		if !sameURL(doc.Resource, canonical) {
			return false, fmt.Errorf("its resource metadata at %s is for the resource %q, not for its URL %s (RFC 9728 §3.3); check the server's url in mcp.json", u, doc.Resource, canonical)
		}
		return true, nil
	})
	if err != nil {
		return nil, err
	}

	issuer := httpkit.Origin(serverURL)
	if prm != nil {
		issuer = prm.AuthorizationServers[0]
	}
	issuerURL, err := parseHTTPURL(issuer)
	if err != nil {
		return nil, fmt.Errorf("authorization server of MCP server %q: %w", c.s.Name, err)
	}
	if err := requireHTTPS("its authorization server", issuerURL); err != nil {
		return nil, c.refused(err)
	}
	as, err := firstDocument(ctx, c, serverMetadataURLs(issuerURL), &tried, func(u string, doc *serverMetadata) (bool, error) {
		if doc.AuthorizationEndpoint == "" || doc.TokenEndpoint == "" {
			return false, nil
		}
		if !sameURL(doc.Issuer, issuer) {
			return false, fmt.Errorf("the authorization server metadata at %s names the issuer %q, not %s, for which it was fetched (RFC 8414 §3.3)", u, doc.Issuer, issuer)
		}
		return true, nil
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
		u, err := parseHTTPURL(e.u)
		if err != nil {
			return nil, fmt.Errorf("OAuth metadata of MCP server %q: %s: %w", c.s.Name, e.name, err)
		}
		if err := requireHTTPS("the "+e.name+" of its authorization server", u); err != nil {
			return nil, c.refused(err)
		}
	}
	switch {
	case len(as.CodeChallengeMethodsSupported) == 0:
		return nil, c.refused(fmt.Errorf("its authorization server %s does not say that it supports PKCE (its metadata has no code_challenge_methods_supported), which MCP requires", issuer))
	case !slices.Contains(as.CodeChallengeMethodsSupported, "S256"):
		return nil, c.refused(fmt.Errorf("its authorization server %s does not support PKCE with S256, which MCP requires", issuer))
	}

	d := &discovery{as: *as, resource: canonical}
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

// refused says that the OAuth metadata of the server cannot be used, and
// why.
func (c *Client) refused(why error) error {
	return fmt.Errorf("refused the OAuth metadata of MCP server %q: %w", c.s.Name, why)
}

// fetchFailure decides what a failed metadata request means: the end of
// ctx and a refused internal address end the discovery (the error is
// returned); any other failure only skips that URL (nil).
func (c *Client) fetchFailure(ctx context.Context, u string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var ie *internalAddrError
	if errors.As(err, &ie) {
		return c.refused(fmt.Errorf("it names %s: %w", u, ie))
	}
	return nil
}

// requireHTTPS refuses a URL that is not https, unless its host is a
// loopback one (a local test or development server).
func requireHTTPS(what string, u *url.URL) error {
	if u.Scheme == "https" || loopbackHost(u.Hostname()) {
		return nil
	}
	return fmt.Errorf("%s %s is not https (plain http is allowed only on loopback hosts)", what, u)
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

// firstDocument returns the first of urls whose JSON document check
// accepts, nil when none is; each URL asked is added to tried. check
// says whether a document is usable at all, and returns an error when it
// is usable but not for this server (a mismatch): such a document is
// skipped too, and when no later one is accepted the first mismatch
// refuses the discovery. A URL that fails to load is skipped, unless
// fetchFailure says the failure ends the discovery.
func firstDocument[T any](ctx context.Context, c *Client, urls []string, tried *[]string, check func(u string, doc *T) (bool, error)) (*T, error) {
	var mismatch error
	for _, u := range urls {
		*tried = append(*tried, u)
		var doc T
		if err := c.getJSON(ctx, u, &doc); err != nil {
			if hard := c.fetchFailure(ctx, u, err); hard != nil {
				return nil, hard
			}
			continue
		}
		ok, err := check(u, &doc)
		if err != nil {
			if mismatch == nil {
				mismatch = err
			}
			continue
		}
		if ok {
			return &doc, nil
		}
	}
	if mismatch != nil {
		return nil, c.refused(mismatch)
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
		urls = append(urls, httpkit.Origin(issuer)+p+"/.well-known/openid-configuration")
	}
	return urls
}

// wellKnown returns origin/.well-known/<name><path> and, when the path is
// not empty, origin/.well-known/<name> after it.
func wellKnown(u *url.URL, name string) []string {
	root := httpkit.Origin(u) + "/.well-known/" + name
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

// sameURL reports whether two http(s) URLs are the same once normalised
// as RFC 3986 §6.2.2-6.2.3 allow: scheme and host in lower case, the
// scheme's default port left out, and an empty path the same as "/". A
// different path, query or trailing slash is a different URL: issuers
// and resources must be identical.
func sameURL(a, b string) bool {
	na, ok := normalURL(a)
	if !ok {
		return false
	}
	nb, ok := normalURL(b)
	return ok && na == nb
}

func normalURL(s string) (string, bool) {
	u, err := parseHTTPURL(s)
	if err != nil || u.User != nil {
		return "", false
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	out := httpkit.Origin(u) + path
	if u.RawQuery != "" || u.ForceQuery {
		out += "?" + u.RawQuery
	}
	if u.Fragment != "" {
		out += "#" + u.EscapedFragment()
	}
	return out, true
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
