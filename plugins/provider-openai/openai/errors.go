package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/coyote-cli/coyote/sdk"
)

// apiError is an error with a one-line message of its own that matches an
// sdk sentinel with errors.Is, without the sentinel's text in the message.
type apiError struct {
	msg  string
	kind error
}

func (e *apiError) Error() string { return e.msg }
func (e *apiError) Unwrap() error { return e.kind }

// fail builds an error of class kind about the client. The API key is
// masked wherever a server may have echoed it.
func (c *client) fail(kind error, format string, args ...any) error {
	msg := fmt.Sprintf("openai client %q: ", c.name) + fmt.Sprintf(format, args...)
	return &apiError{msg: c.scrub(msg), kind: kind}
}

func (c *client) scrub(s string) string {
	if len(c.key) >= 4 {
		s = strings.ReplaceAll(s, c.key, "[redacted]")
	}
	return s
}

// kindForStatus maps an HTTP status to an sdk sentinel.
func kindForStatus(status int) error {
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

// kindForCode classifies an error reported inside a reply from its type or
// code, as OpenAI and its imitators spell them. It returns nil when neither
// says anything known.
func kindForCode(typ, code string) error {
	for _, s := range []string{code, typ} {
		s = strings.ToLower(s)
		if s == "" {
			continue
		}
		if n, err := strconv.Atoi(s); err == nil && n >= 400 && n < 600 {
			return kindForStatus(n)
		}
		switch {
		case strings.Contains(s, "rate_limit"), strings.Contains(s, "insufficient_quota"),
			s == "tokens", s == "requests":
			return sdk.ErrRateLimited
		case strings.Contains(s, "api_key"), strings.Contains(s, "authentication"), strings.Contains(s, "unauthorized"):
			return sdk.ErrUnauthenticated
		case strings.Contains(s, "permission"), strings.Contains(s, "forbidden"):
			return sdk.ErrPermissionDenied
		case strings.Contains(s, "not_found"):
			return sdk.ErrNotFound
		case strings.Contains(s, "context_length"), strings.Contains(s, "invalid_request"),
			strings.Contains(s, "invalid_argument"), strings.Contains(s, "bad_request"):
			return sdk.ErrInvalidArgument
		case strings.Contains(s, "server_error"), strings.Contains(s, "unavailable"), strings.Contains(s, "overloaded"):
			return sdk.ErrUnavailable
		}
	}
	return nil
}

// errorInfo is what an error body says.
type errorInfo struct {
	message, typ, code string
	// structured is set when the body was a JSON error object rather than
	// some text (an HTML page from a proxy, "404 page not found", ...).
	structured bool
}

// parseErrorBody reads OpenAI's {"error":{...}} and the shapes other
// servers use: {"error":"..."}, {"message":...} and {"detail":...}.
func parseErrorBody(data []byte) errorInfo {
	var body struct {
		Error   json.RawMessage `json:"error"`
		Message json.RawMessage `json:"message"`
		Type    json.RawMessage `json:"type"`
		Code    json.RawMessage `json:"code"`
		Detail  json.RawMessage `json:"detail"`
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '{' && json.Unmarshal(trimmed, &body) == nil {
		var info errorInfo
		if len(body.Error) > 0 && string(body.Error) != "null" {
			var detail struct {
				Message json.RawMessage `json:"message"`
				Type    json.RawMessage `json:"type"`
				Code    json.RawMessage `json:"code"`
			}
			if body.Error[0] == '{' && json.Unmarshal(body.Error, &detail) == nil {
				info = errorInfo{message: rawText(detail.Message), typ: rawText(detail.Type), code: rawText(detail.Code)}
			} else {
				info.message = rawText(body.Error)
			}
		} else {
			info = errorInfo{message: rawText(body.Message), typ: rawText(body.Type), code: rawText(body.Code)}
			if info.message == "" {
				info.message = rawText(body.Detail)
			}
		}
		if info.message != "" || info.typ != "" || info.code != "" {
			info.message = oneLine(info.message, 300)
			info.structured = true
			return info
		}
	}
	if len(trimmed) == 0 || trimmed[0] == '<' {
		return errorInfo{}
	}
	return errorInfo{message: oneLine(string(trimmed), 200)}
}

// rawText renders a JSON value as text: strings unquoted, null as "",
// anything else as its JSON.
func rawText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// oneLine collapses whitespace to single spaces and cuts s to about max
// bytes, on a rune boundary.
func oneLine(s string, max int) string {
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

// quote shows at most about 200 bytes of a bad line or body.
func quote(b []byte) string {
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

// statusError turns a non-2xx answer into an error; model is the model of a
// chat request, empty otherwise.
func (c *client) statusError(x *exchange, model string) error {
	resp := x.resp
	data, _ := io.ReadAll(io.LimitReader(x, 1<<20))
	info := parseErrorBody(data)
	status := resp.StatusCode
	text := http.StatusText(status)
	if text == "" {
		text = strings.TrimSpace(strings.TrimPrefix(resp.Status, strconv.Itoa(status)))
	}
	var b strings.Builder
	b.WriteString(strconv.Itoa(status))
	if text != "" {
		b.WriteString(" " + text)
	}
	if status == http.StatusNotFound {
		if model != "" {
			b.WriteString(`: model "` + model + `" not found`)
		}
	}
	if info.message != "" {
		b.WriteString(": " + info.message)
	}
	if status == http.StatusNotFound && !info.structured {
		b.WriteString(" (is api_base " + c.baseForHumans + " right?)")
	}
	if status == http.StatusTooManyRequests {
		if ra := strings.TrimSpace(resp.Header.Get("Retry-After")); ra != "" {
			if _, err := strconv.Atoi(ra); err == nil {
				ra += "s"
			}
			b.WriteString(" (retry after " + ra + ")")
		}
	}
	return c.fail(kindForStatus(status), "%s", b.String())
}

// replyError turns an error object found in a reply into an error.
func (c *client) replyError(raw json.RawMessage) error {
	info := parseErrorBody(append(append([]byte(`{"error":`), raw...), '}'))
	kind := kindForCode(info.typ, info.code)
	if kind == nil {
		kind = sdk.ErrUnavailable
	}
	msg := info.message
	if msg == "" {
		msg = "the server reported an error"
	}
	if info.typ != "" {
		msg += " (" + info.typ + ")"
	}
	return c.fail(kind, "error from %s: %s", c.baseForHumans, msg)
}
