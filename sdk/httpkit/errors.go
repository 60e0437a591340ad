package httpkit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
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

// Scrub masks the client's API key in s, also query- or path-escaped (as
// a URL would quote it). A key shorter than redact.MinLen is not masked.
func (c *Client) Scrub(s string) string { return c.secrets.String(s) }

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

// bodyLine is the first line of text of an error body that is not in the
// API's own error shape (a proxy's HTML page, another server's JSON) and
// that keep accepts (every line when keep is nil): the tags of an HTML
// page are dropped, so "<h1>502 Bad Gateway</h1>" reads "502 Bad
// Gateway"; one line, about max bytes; "" for an empty body. A user told
// only "500 Internal Server Error" cannot tell a crashed server from a
// misrouted request; this line usually can.
func bodyLine(data []byte, max int, keep func(string) bool) string {
	text := string(bytes.TrimSpace(data))
	if strings.HasPrefix(text, "<") {
		text = stripTags(text)
	}
	for line := range strings.Lines(text) {
		if l := strings.TrimSpace(line); l != "" && (keep == nil || keep(l)) {
			return OneLine(l, max)
		}
	}
	return ""
}

// ServerLine is what a 5xx answer whose body is not in the API's own error
// shape says: the body's first line of text that does not only repeat the
// status ("<h1>502 Bad Gateway</h1>" says nothing more), unless what the
// caller already found in the body (found) holds it, in which case found
// is returned.
func ServerLine(data []byte, resp *http.Response, found string) string {
	line := bodyLine(data, 200, func(l string) bool {
		return !strings.EqualFold(l, StatusText(resp)) && !strings.EqualFold(l, http.StatusText(resp.StatusCode))
	})
	if line == "" || found != "" && strings.Contains(found, line) {
		return found
	}
	return line
}

// stripTags drops HTML tags (and the contents of head, script and style)
// and puts a line break where a block ends.
func stripTags(s string) string {
	var b strings.Builder
	lower := strings.ToLower(s)
	for i := 0; i < len(s); {
		if s[i] != '<' {
			j := strings.IndexByte(s[i:], '<')
			if j < 0 {
				j = len(s) - i
			}
			b.WriteString(s[i : i+j])
			i += j
			continue
		}
		for _, skip := range []string{"head", "script", "style", "title"} {
			if strings.HasPrefix(lower[i:], "<"+skip) {
				if end := strings.Index(lower[i:], "</"+skip+">"); end >= 0 {
					i += end
				}
				break
			}
		}
		end := strings.IndexByte(s[i:], '>')
		if end < 0 {
			break
		}
		b.WriteByte('\n')
		i += end + 1
	}
	return html.UnescapeString(b.String())
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

// StatusError is the error of a non-2xx answer, for an API whose error
// bodies need nothing special: "<label>: <status>: <message>", where the
// message is the API's own (the "message" of a JSON error body such as
// {"error": {"message": …}}, or the start of a text body), of the class
// KindForStatus gives the status, carrying the Retry-After delay. It reads
// at most limit bytes of the body (64 KiB when limit is 0).
func (c *Client) StatusError(x *Exchange, limit int64) error {
	if limit <= 0 {
		limit = 64 << 10
	}
	data, _ := io.ReadAll(io.LimitReader(x, limit))
	var b strings.Builder
	b.WriteString(StatusText(x.Resp))
	msg := errorMessage(data)
	if x.Resp.StatusCode >= 500 && msg == "" {
		msg = ServerLine(data, x.Resp, "") // a proxy's page: its text says which proxy and why
	}
	if msg != "" {
		b.WriteString(": " + msg)
	}
	retry := RetryAfter(x.Resp.Header, time.Now())
	b.WriteString(RetryNote(retry))
	return sdk.WithRetryAfter(c.Fail(KindForStatus(x.Resp.StatusCode), "%s", b.String()), retry)
}

// RetryNote is " (retry after 20s)" for a delay, or "" for none: the part
// of an error message that tells the user how long the server asked to
// wait.
func RetryNote(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return " (retry after " + d.Round(time.Millisecond).String() + ")"
}

// errorMessage finds the message of an error body: error.message,
// message, error (a string) or detail of a JSON object, else the body's
// text when it is not HTML; one line, at most 300 bytes.
func errorMessage(data []byte) string {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] == '<' {
		return ""
	}
	var body struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  any             `json:"detail"`
	}
	if json.Unmarshal(data, &body) != nil {
		return OneLine(string(data), 300)
	}
	var nested struct {
		Message string `json:"message"`
	}
	var s string
	switch {
	case json.Unmarshal(body.Error, &nested) == nil && nested.Message != "":
		s = nested.Message
	case json.Unmarshal(body.Error, &s) == nil && s != "":
	case body.Message != "":
		s = body.Message
	case body.Detail != nil:
		d, _ := json.Marshal(body.Detail)
		if json.Unmarshal(d, &s) != nil {
			s = string(d)
		}
	}
	return OneLine(s, 300)
}
