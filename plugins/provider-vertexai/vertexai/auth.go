package vertexai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/httpkit"
)

// scope is the OAuth scope of Vertex AI's API.
const scope = "https://www.googleapis.com/auth/cloud-platform"

// tokenTimeout bounds one token request.
const tokenTimeout = 30 * time.Second

// tokens hands out the access token of one client: from its adc_file (an
// authorized_user file written by `gcloud auth application-default login`,
// a service account's key, or any other credentials file Google's
// libraries read), or, without one, from Application Default Credentials
// (the well-known gcloud file, then the metadata server of a Google
// Cloud machine). A token is fetched on first use, reused until a minute
// before it expires, and fetched anew when Vertex refuses it.
type tokens struct {
	label string
	// file is the adc_file path, empty for the default credentials; data
	// its contents, read at Configure.
	file string
	data []byte
	// hc sends the token requests, through the client's proxy.
	hc *http.Client

	mu  sync.Mutex
	src oauth2.TokenSource
	tok *oauth2.Token
}

// newTokens reads adc_file (when set) and checks that it is a credentials
// file, so that a wrong path fails at start-up with one clear line.
func newTokens(label, file string, proxy func(*http.Request) (*neturl.URL, error), connect time.Duration) (*tokens, error) {
	t := &tokens{label: label, hc: tokenClient(proxy, connect)}
	if file == "" {
		return t, nil
	}
	t.file = expandHome(file)
	data, err := os.ReadFile(t.file)
	if err != nil {
		return nil, fmt.Errorf("adc_file: %v (run `gcloud auth application-default login`, or point adc_file at a service account's key)", pathError(err))
	}
	var probe struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(data, &probe); err != nil || probe.Type == "" {
		return nil, fmt.Errorf("adc_file %s is not a Google credentials file (JSON with a \"type\")", t.file)
	}
	t.data = data
	return t, nil
}

// pathError drops the "open " of an *os.PathError, which names the file.
func pathError(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Path + ": " + pe.Err.Error()
	}
	return err.Error()
}

// expandHome expands a leading ~/ to the home directory.
func expandHome(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return p
}

func tokenClient(proxy func(*http.Request) (*neturl.URL, error), connect time.Duration) *http.Client {
	dialer := &net.Dialer{Timeout: connect, KeepAlive: 30 * time.Second}
	return &http.Client{
		Timeout: tokenTimeout,
		Transport: &http.Transport{
			Proxy:               proxy,
			DialContext:         dialer.DialContext,
			ForceAttemptHTTP2:   true,
			TLSHandshakeTimeout: connect,
			IdleConnTimeout:     90 * time.Second,
		},
	}
}

// source builds the token source of the credentials. Its context carries
// the HTTP client of the token requests and outlives any one request.
func (t *tokens) source() (oauth2.TokenSource, error) {
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, t.hc)
	params := google.CredentialsParams{Scopes: []string{scope}}
	var creds *google.Credentials
	var err error
	if t.data != nil {
		creds, err = google.CredentialsFromJSONWithParams(ctx, t.data, params)
		if err != nil {
			return nil, &httpkit.Error{Msg: fmt.Sprintf("%s: adc_file %s: %v", t.label, t.file, err), Kind: sdk.ErrFailedPrecondition}
		}
	} else {
		creds, err = google.FindDefaultCredentialsWithParams(ctx, params)
		if err != nil {
			return nil, &httpkit.Error{Msg: t.label + ": no Google credentials (" + httpkit.OneLine(err.Error(), 300) + "): set adc_file, or run `gcloud auth application-default login`", Kind: sdk.ErrUnauthenticated}
		}
	}
	return creds.TokenSource, nil
}

// prefetch fetches the token in the background. The kernel configures a
// client just before its first request, so the token endpoint's round
// trip (and the JWT's signature) overlaps the kernel's preparing of that
// request; the request waits for the fetch under way instead of starting
// another. A failure is left for the request to meet and report.
func (t *tokens) prefetch() {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), tokenTimeout)
		defer cancel()
		_, _ = t.token(ctx, false)
	}()
}

// authorize sets the Authorization header of a request to Vertex AI.
func (t *tokens) authorize(ctx context.Context, h http.Header, refresh bool) error {
	tok, err := t.token(ctx, refresh)
	if err != nil {
		return err
	}
	h.Set("Authorization", "Bearer "+tok)
	return nil
}

// token returns a valid access token; refresh drops the one held (Vertex
// refused it) and fetches another.
func (t *tokens) token(ctx context.Context, refresh bool) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !refresh && t.tok != nil && t.tok.AccessToken != "" && (t.tok.Expiry.IsZero() || time.Until(t.tok.Expiry) > time.Minute) {
		return t.tok.AccessToken, nil
	}
	if refresh || t.src == nil {
		// A source of Google's library reuses its token until it expires;
		// a fresh one fetches a new one.
		src, err := t.source()
		if err != nil {
			return "", err
		}
		t.src = src
	}
	type result struct {
		tok *oauth2.Token
		err error
	}
	done := make(chan result, 1)
	go func() {
		tok, err := t.src.Token()
		done <- result{tok, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-ctx.Done():
		return "", fmt.Errorf("%s: fetch an access token: %w", t.label, ctx.Err())
	}
	if r.err != nil {
		return "", t.tokenError(r.err)
	}
	if r.tok == nil || r.tok.AccessToken == "" {
		return "", &httpkit.Error{Msg: t.label + ": the token endpoint answered without an access token", Kind: sdk.ErrBadResponse}
	}
	t.tok = r.tok
	return r.tok.AccessToken, nil
}

// tokenError turns a failed token request into one line saying what to do.
func (t *tokens) tokenError(err error) error {
	from := "the default credentials"
	if t.file != "" {
		from = "adc_file " + t.file
	}
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && re.Response != nil {
		status := re.Response.StatusCode
		what := re.ErrorCode
		if re.ErrorDescription != "" {
			what += ": " + re.ErrorDescription
		}
		if what == "" {
			what = httpkit.OneLine(string(re.Body), 200)
		}
		kind := httpkit.KindForStatus(status)
		if status == http.StatusBadRequest || status == http.StatusUnauthorized || status == http.StatusForbidden {
			// invalid_grant, invalid_client, unauthorized_client: the
			// credentials themselves are refused.
			kind = sdk.ErrUnauthenticated
		}
		msg := fmt.Sprintf("%s: Google refused the credentials of %s (%d %s)", t.label, from, status, httpkit.OneLine(what, 200))
		if kind == sdk.ErrUnauthenticated {
			msg += "; run `gcloud auth application-default login` or check the service account's key"
		}
		retry := httpkit.RetryAfter(re.Response.Header, time.Now())
		return sdk.WithRetryAfter(&httpkit.Error{Msg: msg + httpkit.RetryNote(retry), Kind: kind}, retry)
	}
	return &httpkit.Error{Msg: fmt.Sprintf("%s: fetch an access token for %s: %s", t.label, from, httpkit.OneLine(err.Error(), 300)), Kind: sdk.ErrUnavailable}
}
