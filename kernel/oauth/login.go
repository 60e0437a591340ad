package oauth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coyote-cli/coyote/sdk/fsx"
)

// refreshMargin is how long before its expiry a token is refreshed: a
// request that starts with it must not outlive it.
const refreshMargin = 2 * time.Minute

// loginTimeout bounds the wait for the browser or the device approval.
const loginTimeout = 10 * time.Minute

// Login is one client's OAuth login and the cache of its token. Make one
// per client and share it: Token is safe for concurrent use.
type Login struct {
	// Client is the client's name, which names the token file.
	Client string
	// Provider is how it logs in (ForClient).
	Provider Provider
	// Dir is the token cache, <cache>/oauth.
	Dir string
	// Open shows the user a URL in their browser, reporting whether one
	// was started (browser.Open in the program; tests follow the URL
	// themselves).
	Open func(url string) bool
	// Out is where the login talks to the user (the URL to open, the
	// device code).
	Out io.Writer
	// ReadCode asks the user for the code the provider's page showed
	// (paste-back logins). Nil: such logins are refused.
	ReadCode func(prompt string) (string, error)
	// HTTP sends the requests; nil means a client with a 30-second
	// timeout.
	HTTP *http.Client
	// Now and Wait are the clock; tests replace them. Wait returns early
	// with the context's error.
	Now  func() time.Time
	Wait func(ctx context.Context, d time.Duration) error

	mu  sync.Mutex
	tok *Token
}

// ErrNotLoggedIn means a client that logs in with a user has no token
// (or one that can no longer be refreshed): the user must log in.
var ErrNotLoggedIn = errors.New("not logged in")

// Path is the token file.
func (l *Login) Path() string {
	return filepath.Join(l.Dir, l.Client+"_oauth_tokens.json")
}

// Token returns an access token that will not expire for a while: the
// cached one, else one refreshed with the refresh token (or, for client
// credentials, a new one). force refreshes even a token that looks valid,
// after the provider refused it. Without a usable token it returns an
// error wrapping ErrNotLoggedIn that says how to log in.
func (l *Login) Token(ctx context.Context, force bool) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.tok == nil {
		t, err := l.load()
		if err != nil {
			return "", err
		}
		l.tok = t
	}
	t := l.tok
	if t != nil && !force && (t.ExpiresAt.IsZero() || l.now().Add(refreshMargin).Before(t.ExpiresAt)) {
		return t.AccessToken, nil
	}
	var (
		nt  *Token
		err error
	)
	switch {
	case l.Provider.Flow == FlowClientCredentials:
		nt, err = l.clientCredentials(ctx)
	case t != nil && t.RefreshToken != "":
		nt, err = l.refresh(ctx, t)
		var te *TokenError
		if errors.As(err, &te) && te.final() {
			// Another coyote may have refreshed first, spending the
			// refresh token (providers that rotate them): its token is
			// in the file.
			if saved, lerr := l.load(); lerr == nil && saved != nil && saved.RefreshToken != t.RefreshToken {
				l.tok = saved
				return saved.AccessToken, nil
			}
			return "", fmt.Errorf("client %q: the provider no longer accepts its login (%v): %w; log in again with coyote --authenticate %s (or .authenticate in the REPL)", l.Client, err, ErrNotLoggedIn, l.Client)
		}
	case t != nil && !force:
		// Expired, and nothing to refresh it with.
		return "", fmt.Errorf("client %q: its login expired: %w; log in again with coyote --authenticate %s (or .authenticate in the REPL)", l.Client, ErrNotLoggedIn, l.Client)
	case t != nil:
		return "", fmt.Errorf("client %q: the provider refused its login and it has no refresh token: %w; log in again with coyote --authenticate %s (or .authenticate in the REPL)", l.Client, ErrNotLoggedIn, l.Client)
	default:
		return "", fmt.Errorf("client %q uses auth: oauth and is %w: run coyote --authenticate %s (or .authenticate in the REPL)", l.Client, ErrNotLoggedIn, l.Client)
	}
	if err != nil {
		return "", fmt.Errorf("client %q: get an access token from %s: %w", l.Client, hostOf(l.Provider.TokenURL), err)
	}
	if err := l.save(nt); err != nil {
		return "", err
	}
	l.tok = nt
	return nt.AccessToken, nil
}

// Authenticate runs the provider's flow with the user (or, for client
// credentials, without) and caches the token.
func (l *Login) Authenticate(ctx context.Context) error {
	return l.AuthenticateVia(ctx, l.Out, l.ReadCode)
}

// talk is how a login talks to the user.
type talk struct {
	out      io.Writer
	readCode func(prompt string) (string, error)
}

// AuthenticateVia is Authenticate talking to the user through out and
// readCode rather than Out and ReadCode (the REPL's line editor).
func (l *Login) AuthenticateVia(ctx context.Context, out io.Writer, readCode func(prompt string) (string, error)) error {
	if out == nil {
		out = io.Discard
	}
	u := talk{out: out, readCode: readCode}
	ctx, cancel := context.WithTimeout(ctx, loginTimeout)
	defer cancel()
	var (
		t   *Token
		err error
	)
	switch l.Provider.Flow {
	case FlowPKCE:
		if l.Provider.RedirectURI != "" {
			t, err = l.pasteBack(ctx, u)
		} else {
			t, err = l.callback(ctx, u)
		}
	case FlowDeviceCode:
		t, err = l.deviceCode(ctx, u)
	case FlowClientCredentials:
		t, err = l.clientCredentials(ctx)
	default:
		err = l.Provider.check()
	}
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("log in client %q: no answer within %s", l.Client, loginTimeout)
		}
		return fmt.Errorf("log in client %q: %w", l.Client, err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.save(t); err != nil {
		return err
	}
	l.tok = t
	return nil
}

// load reads the cached token; a missing file, or a token of another
// endpoint or client id (the config changed), is no token.
func (l *Login) load() (*Token, error) {
	data, err := os.ReadFile(l.Path())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("client %q: read its login: %w", l.Client, err)
	}
	var t Token
	if err := json.Unmarshal(data, &t); err != nil || t.AccessToken == "" {
		return nil, fmt.Errorf("client %q: its login in %s is damaged; log in again with coyote --authenticate %s", l.Client, l.Path(), l.Client)
	}
	if t.TokenURL != l.Provider.TokenURL || t.ClientID != l.Provider.ClientID {
		return nil, nil
	}
	return &t, nil
}

// save writes the token file, 0600, atomically.
func (l *Login) save(t *Token) error {
	if err := fsx.PrivateDir(l.Dir); err != nil {
		return fmt.Errorf("client %q: save its login: %w", l.Client, err)
	}
	data, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return fmt.Errorf("client %q: save its login: %w", l.Client, err)
	}
	if err := fsx.WritePrivate(l.Path(), append(data, '\n')); err != nil {
		return fmt.Errorf("client %q: save its login: %w", l.Client, err)
	}
	return nil
}

func (l *Login) refresh(ctx context.Context, old *Token) (*Token, error) {
	params := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {old.RefreshToken}}
	return l.requestToken(ctx, params, old)
}

func (l *Login) clientCredentials(ctx context.Context) (*Token, error) {
	params := url.Values{"grant_type": {"client_credentials"}}
	if len(l.Provider.Scopes) > 0 {
		params.Set("scope", strings.Join(l.Provider.Scopes, " "))
	}
	return l.requestToken(ctx, params, nil)
}

// pkce is a code verifier and its S256 challenge, with a state.
type pkce struct {
	verifier, challenge, state string
}

func newPKCE() pkce {
	v := randomString(32)
	sum := sha256.Sum256([]byte(v))
	return pkce{verifier: v, challenge: base64.RawURLEncoding.EncodeToString(sum[:]), state: randomString(16)}
}

func randomString(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// authorizeURL is the URL the user opens.
func (l *Login) authorizeURL(pk pkce, redirect string) (string, error) {
	u, err := url.Parse(l.Provider.AuthorizeURL)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("authorize_url %q is not a URL", l.Provider.AuthorizeURL)
	}
	q := u.Query()
	for k, v := range l.Provider.ExtraAuthorizeParams {
		q.Set(k, v)
	}
	q.Set("response_type", "code")
	q.Set("client_id", l.Provider.ClientID)
	q.Set("redirect_uri", redirect)
	if len(l.Provider.Scopes) > 0 {
		q.Set("scope", strings.Join(l.Provider.Scopes, " "))
	}
	q.Set("state", pk.state)
	q.Set("code_challenge", pk.challenge)
	q.Set("code_challenge_method", "S256")
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// show opens a URL for the user, and prints it for them to open by hand.
func (l *Login) show(u talk, what, link string) {
	opened := l.Open != nil && l.Open(link)
	if opened {
		fmt.Fprintf(u.out, "%s (your browser was opened; if it was not, open this URL):\n%s\n", what, link)
	} else {
		fmt.Fprintf(u.out, "%s: open this URL in a browser:\n%s\n", what, link)
	}
}

// exchange trades an authorization code for a token.
func (l *Login) exchange(ctx context.Context, code, redirect string, pk pkce) (*Token, error) {
	params := url.Values{
		"grant_type":    {"authorization_code"},
		"code":          {code},
		"redirect_uri":  {redirect},
		"code_verifier": {pk.verifier},
	}
	if l.Provider.StateInTokenRequest {
		params.Set("state", pk.state)
	}
	return l.requestToken(ctx, params, nil)
}

// callback is the PKCE flow with the browser coming back to a localhost
// server.
func (l *Login) callback(ctx context.Context, u talk) (*Token, error) {
	path := l.Provider.RedirectPath
	if path == "" {
		path = "/callback"
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(l.Provider.RedirectPort)))
	if err != nil {
		return nil, fmt.Errorf("listen for the browser's return on port %d (is another login running?): %v", l.Provider.RedirectPort, err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	redirect := fmt.Sprintf("http://localhost:%d%s", port, path)
	pk := newPKCE()
	link, err := l.authorizeURL(pk, redirect)
	if err != nil {
		_ = ln.Close()
		return nil, err
	}
	type result struct {
		code string
		err  error
	}
	done := make(chan result, 1)
	var once sync.Once
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != path {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		res := result{code: q.Get("code")}
		switch {
		case q.Get("state") != pk.state:
			// Not the answer to this login (an old tab, another site).
			http.Error(w, "This is not the login Coyote is waiting for; start again from the terminal.", http.StatusBadRequest)
			return
		case q.Get("error") != "":
			res.err = fmt.Errorf("the provider refused the login: %s", oneLine(strings.TrimSpace(q.Get("error")+" "+q.Get("error_description"))))
		case res.code == "":
			res.err = errors.New("the provider came back without a code")
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if res.err != nil {
			_, _ = fmt.Fprintf(w, "<!doctype html><title>Coyote</title><p>Login failed: %s</p>", html.EscapeString(res.err.Error()))
		} else {
			_, _ = io.WriteString(w, "<!doctype html><title>Coyote</title><p>You are logged in. You may close this window and go back to Coyote.</p>")
		}
		once.Do(func() { done <- res })
	})}
	go func() { _ = srv.Serve(ln) }()
	defer func() { _ = srv.Close() }()
	l.show(u, "Log in", link)
	select {
	case res := <-done:
		if res.err != nil {
			return nil, res.err
		}
		return l.exchange(ctx, res.code, redirect, pk)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// pasteBack is the PKCE flow where the provider's page shows a code
// ("code#state") that the user pastes into the terminal.
func (l *Login) pasteBack(ctx context.Context, u talk) (*Token, error) {
	if u.readCode == nil {
		return nil, errors.New("this login needs the code the provider shows to be pasted in a terminal; run it in one")
	}
	pk := newPKCE()
	link, err := l.authorizeURL(pk, l.Provider.RedirectURI)
	if err != nil {
		return nil, err
	}
	l.show(u, "Log in", link)
	input, err := u.readCode("Paste the code shown after you log in: ")
	if err != nil {
		return nil, err
	}
	code, state := parsePasted(input)
	if code == "" {
		return nil, errors.New("no code was pasted")
	}
	if state != "" && state != pk.state {
		return nil, errors.New("the pasted code belongs to another login; start again")
	}
	return l.exchange(ctx, code, l.Provider.RedirectURI, pk)
}

// parsePasted reads "code#state", "code", or the whole URL the browser
// ended on.
func parsePasted(s string) (code, state string) {
	s = strings.TrimSpace(s)
	if u, err := url.Parse(s); err == nil && u.Scheme != "" && u.Host != "" {
		q := u.Query()
		return q.Get("code"), q.Get("state")
	}
	code, state, _ = strings.Cut(s, "#")
	return strings.TrimSpace(code), strings.TrimSpace(state)
}

// deviceAnswer is the device authorization endpoint's answer (RFC 8628
// §3.2).
type deviceAnswer struct {
	DeviceCode              string  `json:"device_code"`
	UserCode                string  `json:"user_code"`
	VerificationURI         string  `json:"verification_uri"`
	VerificationURIComplete string  `json:"verification_uri_complete"`
	ExpiresIn               seconds `json:"expires_in"`
	Interval                seconds `json:"interval"`
}

// deviceCode is the device authorization grant: the user approves on
// another device while this one polls the token endpoint.
func (l *Login) deviceCode(ctx context.Context, u talk) (*Token, error) {
	params := url.Values{}
	if len(l.Provider.Scopes) > 0 {
		params.Set("scope", strings.Join(l.Provider.Scopes, " "))
	}
	var pk pkce
	if l.Provider.UsePKCEInDeviceFlow {
		pk = newPKCE()
		params.Set("code_challenge", pk.challenge)
		params.Set("code_challenge_method", "S256")
	}
	var d deviceAnswer
	if err := l.post(ctx, l.Provider.DeviceAuthorizationURL, params, &d); err != nil {
		return nil, fmt.Errorf("device authorization: %w", err)
	}
	if d.DeviceCode == "" || d.VerificationURI == "" && d.VerificationURIComplete == "" {
		return nil, fmt.Errorf("%s answered without a device code or verification URL", hostOf(l.Provider.DeviceAuthorizationURL))
	}
	link := d.VerificationURIComplete
	if link == "" {
		link = d.VerificationURI
	}
	fmt.Fprintf(u.out, "Your code is %s\n", d.UserCode)
	l.show(u, "Approve the login with it", link)
	interval := time.Duration(d.Interval) * time.Second
	if interval <= 0 {
		interval = 5 * time.Second
	}
	if d.ExpiresIn > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(d.ExpiresIn)*time.Second)
		defer cancel()
	}
	poll := url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:device_code"}, "device_code": {d.DeviceCode}}
	if pk.verifier != "" {
		poll.Set("code_verifier", pk.verifier)
	}
	for {
		t, err := l.requestToken(ctx, poll, nil)
		var te *TokenError
		switch {
		case err == nil:
			return t, nil
		case errors.As(err, &te) && te.Code == "authorization_pending":
		case errors.As(err, &te) && te.Code == "slow_down":
			interval += 5 * time.Second
		case errors.As(err, &te) && te.Code == "expired_token":
			return nil, errors.New("the code expired before the login was approved; start again")
		case errors.As(err, &te) && te.Code == "access_denied":
			return nil, errors.New("the login was declined")
		default:
			return nil, err
		}
		if err := l.wait(ctx, interval); err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				return nil, errors.New("the code expired before the login was approved; start again")
			}
			return nil, err
		}
	}
}

func (l *Login) now() time.Time {
	if l.Now != nil {
		return l.Now()
	}
	return time.Now()
}

func (l *Login) wait(ctx context.Context, d time.Duration) error {
	if l.Wait != nil {
		return l.Wait(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

var defaultHTTP = &http.Client{Timeout: 30 * time.Second}

func (l *Login) httpClient() *http.Client {
	if l.HTTP != nil {
		return l.HTTP
	}
	return defaultHTTP
}
