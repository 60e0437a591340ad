package httpx

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/coyote-cli/coyote/sdk"
)

// Error is an error with a one-line message of its own that matches an sdk
// sentinel with errors.Is, without the sentinel's text in the message.
type Error struct {
	Msg  string
	Kind error
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Kind }

// Fail builds an error of class kind about the client: "<label>: <message>",
// with the API key masked wherever a server may have echoed it.
func (c *Client) Fail(kind error, format string, args ...any) error {
	msg := c.Label + ": " + fmt.Sprintf(format, args...)
	return &Error{Msg: c.Scrub(msg), Kind: kind}
}

// Scrub masks the client's API key in s.
func (c *Client) Scrub(s string) string {
	if len(c.key) >= 4 {
		s = strings.ReplaceAll(s, c.key, "[redacted]")
	}
	return s
}

// KindForStatus maps an HTTP status to an sdk sentinel.
func KindForStatus(status int) error {
	switch {
	case status == http.StatusBadRequest, status == http.StatusRequestEntityTooLarge, status == http.StatusUnprocessableEntity:
		return sdk.ErrInvalidArgument
	case status == http.StatusUnauthorized:
		return sdk.ErrUnauthenticated
	case status == http.StatusForbidden:
		return sdk.ErrPermissionDenied
	case status == http.StatusNotFound:
		return sdk.ErrNotFound
	case status == http.StatusTooManyRequests:
		return sdk.ErrRateLimited
	case status == http.StatusRequestTimeout, status >= 500:
		return sdk.ErrUnavailable
	case status >= 400:
		return sdk.ErrInvalidArgument
	}
	return sdk.ErrBadResponse
}

// StatusText is "<code> <reason>", e.g. "429 Too Many Requests".
func StatusText(resp *http.Response) string {
	text := http.StatusText(resp.StatusCode)
	if text == "" {
		text = strings.TrimSpace(strings.TrimPrefix(resp.Status, strconv.Itoa(resp.StatusCode)))
	}
	if text == "" {
		return strconv.Itoa(resp.StatusCode)
	}
	return strconv.Itoa(resp.StatusCode) + " " + text
}

// OneLine collapses whitespace to single spaces and cuts s to about max
// bytes, on a rune boundary.
func OneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Quote shows at most about 200 bytes of a bad line or body.
func Quote(b []byte) string {
	const limit = 200
	if len(b) <= limit {
		return strconv.Quote(string(b))
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return strconv.Quote(string(b[:cut])) + "…"
}
