package oauth

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Token endpoint client authentication methods (RFC 7591 §2).
const (
	authNone   = "none"
	authBasic  = "client_secret_basic"
	authSecret = "client_secret_post"
)

// tokenClient is who asks the token endpoint, and how.
type tokenClient struct {
	endpoint     string
	clientID     string
	clientSecret string
	authMethod   string
}

// tokenResponse is a successful token endpoint answer (RFC 6749 §5.1).
type tokenResponse struct {
	AccessToken  string
	TokenType    string
	RefreshToken string
	ExpiresIn    time.Duration // 0: not stated
	Scope        string
}

// tokenError is a refusal by the token endpoint: an HTTP answer that is
// not a success. Refusals with a 4xx status are final (the grant or the
// client is no longer valid); others may pass.
type tokenError struct {
	Status      int
	Code        string // the OAuth "error", when the body had one
	Description string
}

func (e *tokenError) Error() string {
	msg := fmt.Sprintf("token endpoint answered %d %s", e.Status, http.StatusText(e.Status))
	if e.Code != "" {
		msg += ": " + oneLine(e.Code)
	}
	if e.Description != "" {
		msg += " (" + oneLine(e.Description) + ")"
	}
	return msg
}

// final reports whether asking again with the same grant cannot succeed.
func (e *tokenError) final() bool { return e.Status >= 400 && e.Status < 500 }

// maxTokenBytes bounds a token endpoint answer.
const maxTokenBytes = 1 << 20

// requestToken posts form (plus the client's credentials) to the token
// endpoint and reads the answer, JSON or (as some servers still send)
// form-encoded.
func requestToken(ctx context.Context, hc *http.Client, tc tokenClient, form url.Values) (*tokenResponse, error) {
	form = cloneValues(form)
	switch tc.authMethod {
	case authBasic:
	case authSecret:
		form.Set("client_id", tc.clientID)
		form.Set("client_secret", tc.clientSecret)
	default:
		form.Set("client_id", tc.clientID)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, tc.endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if tc.authMethod == authBasic {
		// RFC 6749 §2.3.1: both parts form-encoded before Basic.
		req.SetBasicAuth(url.QueryEscape(tc.clientID), url.QueryEscape(tc.clientSecret))
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxTokenBytes))
	if err != nil {
		return nil, fmt.Errorf("read token endpoint answer: %w", err)
	}
	fields, err := decodeFields(resp.Header.Get("Content-Type"), body)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		te := &tokenError{Status: resp.StatusCode}
		if err == nil {
			te.Code, te.Description = fields["error"], fields["error_description"]
		}
		return nil, te
	}
	if err != nil {
		return nil, fmt.Errorf("token endpoint answer: %w", err)
	}
	if fields["error"] != "" {
		return nil, &tokenError{Status: http.StatusBadRequest, Code: fields["error"], Description: fields["error_description"]}
	}
	tr := &tokenResponse{
		AccessToken:  fields["access_token"],
		TokenType:    fields["token_type"],
		RefreshToken: fields["refresh_token"],
		Scope:        fields["scope"],
	}
	if tr.AccessToken == "" {
		return nil, fmt.Errorf("token endpoint answer has no access_token")
	}
	if s := fields["expires_in"]; s != "" {
		secs, err := strconv.ParseFloat(s, 64)
		if err == nil && secs > 0 {
			tr.ExpiresIn = time.Duration(secs * float64(time.Second))
		}
	}
	return tr, nil
}

// decodeFields reads a flat JSON object or a form-encoded body into
// strings (numbers keep their text).
func decodeFields(contentType string, body []byte) (map[string]string, error) {
	mt, _, _ := mime.ParseMediaType(contentType)
	if mt == "application/x-www-form-urlencoded" || mt == "text/plain" && !looksJSON(body) {
		v, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, err
		}
		out := map[string]string{}
		for k := range v {
			out[k] = v.Get(k)
		}
		return out, nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	out := make(map[string]string, len(raw))
	for k, v := range raw {
		var s string
		if json.Unmarshal(v, &s) == nil {
			out[k] = s
			continue
		}
		var n json.Number
		if json.Unmarshal(v, &n) == nil {
			out[k] = n.String()
		}
	}
	return out, nil
}

func looksJSON(b []byte) bool {
	s := strings.TrimSpace(string(b))
	return strings.HasPrefix(s, "{")
}

// secretMethod picks how a client with a secret authenticates, from the
// methods the server supports (RFC 8414: client_secret_basic when it
// lists none).
func secretMethod(supported []string) string {
	if len(supported) == 0 || slices.Contains(supported, authBasic) {
		return authBasic
	}
	if slices.Contains(supported, authSecret) {
		return authSecret
	}
	return authBasic
}

func cloneValues(v url.Values) url.Values {
	out := make(url.Values, len(v))
	for k, vs := range v {
		out[k] = slices.Clone(vs)
	}
	return out
}

// maxShown bounds, in characters, a text from a server shown to the
// user.
const maxShown = 200

// oneLine keeps the first line of s (a server's error code or
// error_description), shortened to maxShown characters, and as valid
// UTF-8: it may travel in a protobuf string (a server's entry of
// ToolsResponse), which must be. What a terminal would act on rather than
// show is the kernel's to remove: every path to the terminal strips it
// there (termtext.Strip at the error line, and for --auth-mcp's lines).
func oneLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	s = strings.TrimSpace(strings.ToValidUTF8(s, "\uFFFD"))
	n := 0
	for i := range s {
		if n == maxShown {
			return s[:i] + "…"
		}
		n++
	}
	return s
}
