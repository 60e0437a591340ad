package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Token is a client's cached login.
type Token struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type,omitempty"`
	RefreshToken string `json:"refresh_token,omitempty"`
	// ExpiresAt is zero when the provider gave no lifetime.
	ExpiresAt time.Time `json:"expires_at,omitzero"`
	Scope     string    `json:"scope,omitempty"`
	// IDToken is the OpenID Connect identity token, when one came (the
	// ChatGPT login's names the account).
	IDToken string `json:"id_token,omitempty"`
	// TokenURL is where the token was obtained; a refresh goes there, and
	// a token from another endpoint (the config changed) is not used.
	TokenURL string `json:"token_url"`
	ClientID string `json:"client_id"`
}

// String never shows the secrets.
func (t Token) String() string {
	return fmt.Sprintf("oauth token for client %s from %s (expires %s)", t.ClientID, t.TokenURL, t.ExpiresAt.Format(time.RFC3339))
}

// GoString is String.
func (t Token) GoString() string { return t.String() }

// TokenError is a refusal by an OAuth endpoint.
type TokenError struct {
	Status      int
	Code        string // the OAuth "error"
	Description string
}

func (e *TokenError) Error() string {
	msg := fmt.Sprintf("%d %s", e.Status, http.StatusText(e.Status))
	if e.Code != "" {
		msg += ": " + oneLine(e.Code)
	}
	if e.Description != "" {
		msg += " (" + oneLine(e.Description) + ")"
	}
	return msg
}

// final reports whether asking again with the same grant cannot succeed
// (the refresh token was revoked, the client is unknown).
func (e *TokenError) final() bool { return e.Status >= 400 && e.Status < 500 }

// maxBody bounds an endpoint's answer.
const maxBody = 1 << 20

// post sends params to an endpoint, form-encoded or as JSON, with the
// client's credentials, and decodes the JSON (or form) answer into out.
func (l *Login) post(ctx context.Context, endpoint string, params url.Values, out any) error {
	p := l.Provider
	params.Set("client_id", p.ClientID)
	if p.ClientSecret != "" {
		params.Set("client_secret", p.ClientSecret)
	}
	var body []byte
	contentType := "application/x-www-form-urlencoded"
	if p.TokenRequestFormat == FormatJSON {
		m := make(map[string]string, len(params))
		for k := range params {
			m[k] = params.Get(k)
		}
		body, _ = json.Marshal(m)
		contentType = "application/json"
	} else {
		body = []byte(params.Encode())
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%s is not a URL: %v", endpoint, err)
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Accept", "application/json")
	resp, err := l.httpClient().Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("cannot reach %s: %v", hostOf(endpoint), errors.Unwrap(err))
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return fmt.Errorf("read the answer of %s: %v", hostOf(endpoint), err)
	}
	fields := map[string]any{}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt == "application/x-www-form-urlencoded" || mt == "text/plain" {
		if vals, perr := url.ParseQuery(string(data)); perr == nil {
			for k := range vals {
				fields[k] = vals.Get(k)
			}
		}
	} else {
		_ = json.Unmarshal(data, &fields)
	}
	if resp.StatusCode/100 != 2 {
		e := &TokenError{Status: resp.StatusCode}
		e.Code, _ = fields["error"].(string)
		e.Description, _ = fields["error_description"].(string)
		return e
	}
	if len(fields) == 0 {
		return fmt.Errorf("%s answered %d with no JSON", hostOf(endpoint), resp.StatusCode)
	}
	norm, _ := json.Marshal(fields)
	return json.Unmarshal(norm, out)
}

// tokenAnswer is a token endpoint's success (RFC 6749 §5.1).
type tokenAnswer struct {
	AccessToken  string  `json:"access_token"`
	TokenType    string  `json:"token_type"`
	RefreshToken string  `json:"refresh_token"`
	ExpiresIn    seconds `json:"expires_in"`
	Scope        string  `json:"scope"`
	IDToken      string  `json:"id_token"`
}

// seconds reads a number of seconds given as a JSON number or string.
type seconds int64

func (s *seconds) UnmarshalJSON(b []byte) error {
	str := strings.Trim(string(b), `"`)
	if str == "" || str == "null" {
		return nil
	}
	f, err := strconv.ParseFloat(str, 64)
	if err != nil {
		return fmt.Errorf("expires_in %s is not a number", b)
	}
	*s = seconds(f)
	return nil
}

// requestToken asks the token endpoint for a token with params (the grant)
// and returns it; old is the token refreshed, whose refresh token is kept
// when the answer brings none.
func (l *Login) requestToken(ctx context.Context, params url.Values, old *Token) (*Token, error) {
	var a tokenAnswer
	if err := l.post(ctx, l.Provider.TokenURL, params, &a); err != nil {
		return nil, err
	}
	if a.AccessToken == "" {
		return nil, fmt.Errorf("%s answered without an access token", hostOf(l.Provider.TokenURL))
	}
	t := &Token{AccessToken: a.AccessToken, TokenType: a.TokenType, RefreshToken: a.RefreshToken, Scope: a.Scope, IDToken: a.IDToken,
		TokenURL: l.Provider.TokenURL, ClientID: l.Provider.ClientID}
	if a.ExpiresIn > 0 {
		t.ExpiresAt = l.now().Add(time.Duration(a.ExpiresIn) * time.Second)
	}
	if old != nil {
		if t.RefreshToken == "" {
			t.RefreshToken = old.RefreshToken
		}
		if t.IDToken == "" {
			t.IDToken = old.IDToken
		}
	}
	return t, nil
}

func hostOf(endpoint string) string {
	if u, err := url.Parse(endpoint); err == nil && u.Host != "" {
		return u.Host
	}
	return endpoint
}

// oneLine keeps what a server said on one printable line of bounded
// length.
func oneLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return strings.TrimSpace(s)
}
