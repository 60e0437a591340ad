package claude

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/httpkit"
)

// statusOverloaded is the status Anthropic answers with when its servers
// are overloaded.
const statusOverloaded = 529

// wireError is the error object of Anthropic's error bodies and error
// events: {"type":"error","error":{"type":"overloaded_error","message":...}}.
type wireError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// kindForType maps an Anthropic error type to an sdk sentinel; nil when the
// type is unknown.
func kindForType(typ string) error {
	switch typ {
	case "invalid_request_error", "request_too_large":
		return sdk.ErrInvalidArgument
	case "authentication_error":
		return sdk.ErrUnauthenticated
	case "permission_error", "billing_error":
		return sdk.ErrPermissionDenied
	case "not_found_error":
		return sdk.ErrNotFound
	case "rate_limit_error":
		return sdk.ErrRateLimited
	case "api_error", "overloaded_error", "timeout_error":
		return sdk.ErrUnavailable
	}
	return nil
}

// parseErrorBody reads Anthropic's error body. It returns the error and
// whether the body was one; otherwise msg holds a line of the body's text
// (empty for an HTML page).
func parseErrorBody(data []byte) (e wireError, structured bool) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		var body struct {
			Error   json.RawMessage `json:"error"`
			Message string          `json:"message"`
		}
		if json.Unmarshal(trimmed, &body) == nil {
			if len(body.Error) > 0 && body.Error[0] == '{' && json.Unmarshal(body.Error, &e) == nil && (e.Message != "" || e.Type != "") {
				e.Message = httpkit.OneLine(e.Message, 300)
				return e, true
			}
			var s string
			if len(body.Error) > 0 && json.Unmarshal(body.Error, &s) == nil && s != "" {
				return wireError{Message: httpkit.OneLine(s, 300)}, true
			}
			if body.Message != "" {
				return wireError{Message: httpkit.OneLine(body.Message, 300)}, true
			}
		}
	}
	if len(trimmed) == 0 || trimmed[0] == '<' {
		return wireError{}, false
	}
	return wireError{Message: httpkit.OneLine(string(trimmed), 200)}, false
}

// statusError turns a non-2xx answer into an error; model is the model of a
// chat request, empty otherwise. A Retry-After header rides along for the
// kernel.
func (c *Client) statusError(x *httpkit.Exchange, model string) error {
	resp := x.Resp
	data, _ := x.ReadAll(1 << 20)
	e, structured := parseErrorBody(data)
	status := resp.StatusCode
	var b strings.Builder
	if status == statusOverloaded {
		b.WriteString("529 Overloaded")
	} else {
		b.WriteString(httpkit.StatusText(resp))
	}
	if status == http.StatusNotFound && model != "" {
		b.WriteString(": model " + strconv.Quote(model) + " not found")
	}
	if status >= 500 && e.Type == "" {
		// Not Anthropic's error shape: a proxy's page, a server's own text.
		e.Message = httpkit.ServerLine(data, resp, e.Message)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if status == http.StatusNotFound && !structured {
		b.WriteString(" (is api_base " + c.http.BaseForHumans + " right?)")
	}
	retry := httpkit.RetryAfter(resp.Header, time.Now())
	b.WriteString(httpkit.RetryNote(retry))
	kind := httpkit.KindForStatus(status)
	if k := kindForType(e.Type); k != nil && !wellKnown(status) {
		// Such as 402 with billing_error.
		kind = k
	}
	err := c.http.Fail(kind, "%s", b.String())
	return sdk.WithRetryAfter(err, retry)
}

// wellKnown reports whether status says by itself what kind of error it
// is.
func wellKnown(status int) bool {
	switch status {
	case http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound,
		http.StatusRequestTimeout, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity,
		http.StatusTooManyRequests:
		return true
	}
	return status >= 500
}

// replyError turns an error reported inside a reply (an error event, or an
// error body with a success status) into an error.
func (c *Client) replyError(e *wireError) error {
	kind := kindForType(e.Type)
	if kind == nil {
		kind = sdk.ErrUnavailable
	}
	msg := httpkit.OneLine(e.Message, 300)
	if msg == "" {
		msg = "the server reported an error"
	}
	if e.Type != "" {
		msg += " (" + e.Type + ")"
	}
	return c.http.Fail(kind, "error from %s: %s", c.http.BaseForHumans, msg)
}
