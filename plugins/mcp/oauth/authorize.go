package oauth

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// callbackPath is the path of the redirect URI.
const callbackPath = "/callback"

// clientName is the client_name sent with a dynamic registration.
const clientName = "Coyote"

// Authorize runs the interactive authorization of the server: discovery,
// client registration when no client id is configured, then the
// authorization-code flow with PKCE. show receives the URL the user must
// open; a loopback server receives the browser's redirect. Authorize
// returns when the token is stored, when the user or the server refuses,
// when ctx ends, or after flowTimeout (5 minutes) with an error that
// says so. Its errors do not repeat "authorize MCP server X": the
// kernel, which asked, says that.
func (c *Client) Authorize(ctx context.Context, show func(authURL string)) error {
	if c.dir == "" {
		return errors.New("no directory to keep OAuth tokens in (the kernel sends <cache dir>/oauth with the configuration)")
	}
	ctx, cancel := context.WithTimeoutCause(ctx, c.flowTimeout, errFlowTimeout)
	defer cancel()
	shown := false
	err := c.authorize(ctx, func(u string) {
		shown = true
		show(u)
	})
	if err != nil && errors.Is(context.Cause(ctx), errFlowTimeout) {
		return &flowTimeoutError{after: c.flowTimeout, browser: shown}
	}
	return err
}

// errFlowTimeout is the cause of the end of an authorization that took
// too long.
var errFlowTimeout = errors.New("the authorization took too long")

// flowTimeoutError is an authorization that did not finish in time.
type flowTimeoutError struct {
	after   time.Duration
	browser bool // the URL had been shown: the browser did not come back
}

func (e *flowTimeoutError) Error() string {
	if e.browser {
		return fmt.Sprintf("the authorization did not finish within %s (no answer from the browser): start it again and approve it in the browser", roundDuration(e.after))
	}
	return fmt.Sprintf("the authorization did not finish within %s: its servers did not answer in time; try again later", roundDuration(e.after))
}

// Is makes errors.Is(err, context.DeadlineExceeded) true.
func (e *flowTimeoutError) Is(target error) bool { return target == context.DeadlineExceeded }

// roundDuration writes d as people say it: "5 minutes", "30 seconds".
func roundDuration(d time.Duration) string {
	switch {
	case d >= time.Minute && d%time.Minute == 0:
		if d == time.Minute {
			return "1 minute"
		}
		return fmt.Sprintf("%d minutes", d/time.Minute)
	case d >= time.Second && d%time.Second == 0:
		return fmt.Sprintf("%d seconds", d/time.Second)
	}
	return d.String()
}

func (c *Client) authorize(ctx context.Context, show func(authURL string)) error {
	d, err := c.discover(ctx)
	if err != nil {
		return err
	}
	resource := d.resource
	cl, err := c.prepareClient(ctx, d)
	if err != nil {
		return err
	}
	defer cl.closeListeners()

	verifier, err := randomString(32)
	if err != nil {
		return err
	}
	state, err := randomString(24)
	if err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(verifier))
	q := url.Values{
		"response_type":         {"code"},
		"client_id":             {cl.tc.clientID},
		"redirect_uri":          {cl.redirectURI},
		"code_challenge":        {base64.RawURLEncoding.EncodeToString(sum[:])},
		"code_challenge_method": {"S256"},
		"state":                 {state},
		"resource":              {resource},
	}
	if d.scopes != "" {
		q.Set("scope", d.scopes)
	}
	authURL, err := url.Parse(d.as.AuthorizationEndpoint)
	if err != nil {
		return fmt.Errorf("authorization_endpoint: %w", err)
	}
	merged := authURL.Query()
	for k, v := range q {
		merged[k] = v
	}
	authURL.RawQuery = merged.Encode()

	results := make(chan callbackResult, 1)
	srv := &http.Server{
		Handler:           callbackHandler(cl.path, state, results),
		ReadHeaderTimeout: 10 * time.Second,
	}
	for _, ln := range cl.listeners {
		go func() { _ = srv.Serve(ln) }()
	}
	defer func() { _ = srv.Close() }()
	cl.listeners = nil // the server closes them now

	show(authURL.String())

	var res callbackResult
	select {
	case res = <-results:
	case <-ctx.Done():
		return fmt.Errorf("waiting for the browser: %w", ctx.Err())
	}
	if res.err != nil {
		return res.err
	}

	tr, err := requestToken(ctx, c.httpClient, cl.tc, url.Values{
		"grant_type":    {"authorization_code"},
		"code":          {res.code},
		"redirect_uri":  {cl.redirectURI},
		"code_verifier": {verifier},
		"resource":      {resource},
	})
	if err != nil {
		return fmt.Errorf("exchange the authorization code: %w", err)
	}
	t := &storedToken{
		ServerURL:     c.s.URL,
		Resource:      resource,
		TokenEndpoint: cl.tc.endpoint,
		ClientID:      cl.tc.clientID,
		AuthMethod:    cl.tc.authMethod,
	}
	t.update(tr, c.now())
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.saveTokenLocked(t)
}

// update takes a token endpoint answer into t; a refresh answer without a
// new refresh token keeps the old one.
func (t *storedToken) update(tr *tokenResponse, now time.Time) {
	t.AccessToken = tr.AccessToken
	t.TokenType = tr.TokenType
	if tr.RefreshToken != "" {
		t.RefreshToken = tr.RefreshToken
	}
	t.ExpiresAt = time.Time{}
	if tr.ExpiresIn > 0 {
		t.ExpiresAt = now.Add(tr.ExpiresIn).UTC()
	}
	if tr.Scope != "" {
		t.Scope = tr.Scope
	}
}

// preparedClient is the OAuth client of one authorization: its
// credentials, its redirect URI and the listeners that will receive it.
type preparedClient struct {
	tc          tokenClient
	redirectURI string
	path        string
	listeners   []net.Listener
}

func (p *preparedClient) closeListeners() {
	for _, ln := range p.listeners {
		_ = ln.Close()
	}
}

// prepareClient chooses the client: the configured one; else the cached
// registration when its redirect URI still fits (same host, the pinned
// port if one is set, a port that is free now) and it was made with the
// same authorization server; else a new registration.
func (c *Client) prepareClient(ctx context.Context, d *discovery) (*preparedClient, error) {
	host := c.redirectHost()
	endpoint := d.as.TokenEndpoint
	if c.s.ClientID == "" {
		if r := c.loadRegistration(); r != nil {
			if u, port, ok := reusableRedirect(r, host, c.s.CallbackPort, d.as.RegistrationEndpoint); ok {
				if lns, _, err := listenCallback(host, port); err == nil {
					return &preparedClient{
						tc:          c.tokenClientOf(endpoint, r.ClientID, r.AuthMethod, r),
						redirectURI: r.RedirectURI,
						path:        u.EscapedPath(),
						listeners:   lns,
					}, nil
				}
			}
		}
		if d.as.RegistrationEndpoint == "" {
			return nil, fmt.Errorf(`its authorization server offers no dynamic client registration: register a client there and set "oauth": {"clientId": ...} for %q in mcp.json`, c.s.Name)
		}
	}

	lns, port, err := listenCallback(host, c.s.CallbackPort)
	if err != nil {
		return nil, err
	}
	p := &preparedClient{redirectURI: redirectURI(host, port), path: callbackPath, listeners: lns}
	if c.s.ClientID != "" {
		p.tc = c.tokenClientOf(endpoint, c.s.ClientID, c.secretAuthMethod(d), nil)
		return p, nil
	}
	r, err := c.register(ctx, d, p.redirectURI)
	if err == nil {
		err = c.saveRegistration(r)
	}
	if err != nil {
		p.closeListeners()
		return nil, err
	}
	p.tc = c.tokenClientOf(endpoint, r.ClientID, r.AuthMethod, r)
	return p, nil
}

// secretAuthMethod is how this client authenticates at the token
// endpoint: as a public client, or with the configured secret in a way
// the server supports.
func (c *Client) secretAuthMethod(d *discovery) string {
	if c.s.ClientSecret == "" {
		return authNone
	}
	return secretMethod(d.as.TokenEndpointAuthMethodsSupported)
}

// tokenClientOf is the token endpoint client of clientID (registered as r,
// nil for the configured client), with its secret and an auth method that
// fits whether it has one.
func (c *Client) tokenClientOf(endpoint, clientID, method string, r *registration) tokenClient {
	tc := tokenClient{endpoint: endpoint, clientID: clientID, clientSecret: c.secretFor(clientID, r), authMethod: method}
	switch {
	case tc.clientSecret == "":
		tc.authMethod = authNone
	case tc.authMethod == "" || tc.authMethod == authNone:
		tc.authMethod = authBasic
	}
	return tc
}

// reusableRedirect reports whether a cached registration's redirect URI
// fits the configuration, and its port.
func reusableRedirect(r *registration, host string, pinned int, registrationEndpoint string) (*url.URL, int, bool) {
	if r.RedirectURI == "" {
		return nil, 0, false // registered before redirect URIs were kept
	}
	if r.RegistrationEndpoint != "" && r.RegistrationEndpoint != registrationEndpoint {
		return nil, 0, false
	}
	u, err := url.Parse(r.RedirectURI)
	if err != nil || !strings.EqualFold(u.Hostname(), host) {
		return nil, 0, false
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil || port <= 0 {
		return nil, 0, false
	}
	if pinned != 0 && pinned != port {
		return nil, 0, false
	}
	return u, port, true
}

// register makes a dynamic client registration (RFC 7591): a public
// client, unless a client secret is configured.
func (c *Client) register(ctx context.Context, d *discovery, redirect string) (*registration, error) {
	method := c.secretAuthMethod(d)
	body := map[string]any{
		"client_name":                clientName,
		"redirect_uris":              []string{redirect},
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": method,
	}
	if d.scopes != "" {
		body["scope"] = d.scopes
	}
	data, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.as.RegistrationEndpoint, bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := c.httpClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("register a client: %w", err)
	}
	defer func() { _ = resp.Body.Close() }()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxTokenBytes))
	if err != nil {
		return nil, fmt.Errorf("register a client: %w", err)
	}
	var out struct {
		ClientID         string `json:"client_id"`
		ClientSecret     string `json:"client_secret"`
		AuthMethod       string `json:"token_endpoint_auth_method"`
		Error            string `json:"error"`
		ErrorDescription string `json:"error_description"`
	}
	jerr := json.Unmarshal(raw, &out)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		msg := fmt.Sprintf("register a client at %s: %s", d.as.RegistrationEndpoint, resp.Status)
		if jerr == nil && out.Error != "" {
			msg += ": " + oneLine(out.Error)
			if out.ErrorDescription != "" {
				msg += " (" + oneLine(out.ErrorDescription) + ")"
			}
		}
		return nil, fmt.Errorf(`%s; set "oauth": {"clientId": ...} for %q in mcp.json to use a client registered by hand`, msg, c.s.Name)
	}
	if jerr != nil || out.ClientID == "" {
		return nil, fmt.Errorf("register a client at %s: the answer has no client_id", d.as.RegistrationEndpoint)
	}
	if out.AuthMethod == "" {
		out.AuthMethod = method
	}
	return &registration{
		ClientID:             out.ClientID,
		ClientSecret:         out.ClientSecret,
		RedirectURI:          redirect,
		RegistrationEndpoint: d.as.RegistrationEndpoint,
		AuthMethod:           out.AuthMethod,
	}, nil
}

// listenCallback opens the loopback listeners of the callback on port (0:
// any free port) and returns the port. The callback only ever listens on
// loopback addresses, whatever the redirect host says: 127.0.0.1, and
// also ::1 on the same port for a host name ("localhost" may resolve to
// either), or ::1 alone for an IPv6 redirect host.
func listenCallback(host string, port int) ([]net.Listener, int, error) {
	primary, secondary := "127.0.0.1", "::1"
	if ip := net.ParseIP(host); ip != nil {
		secondary = ""
		if ip.To4() == nil {
			primary = "::1"
		}
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(primary, strconv.Itoa(port)))
	if err != nil {
		if port != 0 {
			return nil, 0, fmt.Errorf("the OAuth callback port %d is in use: free it, or change callbackPort in mcp.json: %w", port, err)
		}
		return nil, 0, fmt.Errorf("open the OAuth callback listener: %w", err)
	}
	lns := []net.Listener{ln}
	got := ln.Addr().(*net.TCPAddr).Port
	if secondary != "" {
		if ln2, err := net.Listen("tcp", net.JoinHostPort(secondary, strconv.Itoa(got))); err == nil {
			lns = append(lns, ln2)
		}
	}
	return lns, got, nil
}

func redirectURI(host string, port int) string {
	return (&url.URL{Scheme: "http", Host: net.JoinHostPort(host, strconv.Itoa(port)), Path: callbackPath}).String()
}

// callbackResult is what the browser brought back.
type callbackResult struct {
	code string
	err  error
}

// callbackHandler serves the redirect: it checks the state, answers the
// browser with a short page and hands the first result over (later
// requests, like a reload, only get the page). A request without the
// flow's state is not the answer to this flow (a stale tab, a forged
// link): it gets a 404 and the flow goes on waiting.
func callbackHandler(path, state string, results chan<- callbackResult) http.Handler {
	if path == "" {
		path = "/"
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if r.URL.Path != path || subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(state)) != 1 {
			http.NotFound(w, r)
			return
		}
		var res callbackResult
		status := http.StatusOK
		switch {
		case q.Get("error") != "":
			status = http.StatusBadRequest
			msg := "the authorization server refused: " + oneLine(q.Get("error"))
			if d := q.Get("error_description"); d != "" {
				msg += " (" + oneLine(d) + ")"
			}
			res.err = errors.New(msg)
		case q.Get("code") == "":
			status = http.StatusBadRequest
			res.err = errors.New("the authorization server sent no code")
		default:
			res.code = q.Get("code")
		}
		select {
		case results <- res:
		default:
		}
		writePage(w, status, res.err)
	})
}

func writePage(w http.ResponseWriter, status int, err error) {
	title, text := "Coyote is authorized", "You can close this tab and return to Coyote."
	if err != nil {
		title, text = "Authorization failed", err.Error()
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = fmt.Fprintf(w, "<!doctype html><meta charset=utf-8><title>%s</title><body style=\"font-family:sans-serif;margin:3em\"><h1>%s</h1><p>%s</p></body>\n",
		html.EscapeString(title), html.EscapeString(title), html.EscapeString(text))
}

// randomString returns n random bytes, base64url without padding (PKCE
// verifiers are 43 to 128 such characters; 32 bytes make 43).
func randomString(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("random: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}
