package gemini

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/httpkit"
)

// googleError is what an error body says: Google's
// {"error":{"code":..,"message":..,"status":..,"details":[..]}}.
type googleError struct {
	code    int
	message string
	// status is Google's status name, such as "RESOURCE_EXHAUSTED".
	status string
	// reason is the ErrorInfo reason among the details, such as
	// "API_KEY_INVALID".
	reason string
	// retry is the RetryInfo delay among the details.
	retry time.Duration
	// structured is set when the body was Google's JSON rather than some
	// text (an HTML page from a proxy, "404 page not found", ...).
	structured bool
}

type wireError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Status  string `json:"status"`
	Details []struct {
		Type       string `json:"@type"`
		Reason     string `json:"reason"`
		RetryDelay string `json:"retryDelay"`
	} `json:"details"`
}

// parseError reads an error body. Google sends it as an object, and as an
// array holding that object when a stream request fails.
func parseError(data []byte) googleError {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var list []json.RawMessage
		if json.Unmarshal(trimmed, &list) == nil && len(list) > 0 {
			trimmed = bytes.TrimSpace(list[0])
		}
	}
	if len(trimmed) > 0 && trimmed[0] == '{' {
		var body struct {
			Error json.RawMessage `json:"error"`
		}
		if json.Unmarshal(trimmed, &body) == nil && len(body.Error) > 0 {
			if e, ok := errorObject(body.Error); ok {
				return e
			}
		}
	}
	if len(trimmed) == 0 || trimmed[0] == '<' {
		return googleError{}
	}
	return googleError{message: httpkit.OneLine(string(trimmed), 200)}
}

// errorObject reads the value of an "error" member.
func errorObject(raw json.RawMessage) (googleError, bool) {
	var w wireError
	if raw[0] == '"' {
		var msg string
		if json.Unmarshal(raw, &msg) != nil || msg == "" {
			return googleError{}, false
		}
		return googleError{message: httpkit.OneLine(msg, 300), structured: true}, true
	}
	if json.Unmarshal(raw, &w) != nil || (w.Message == "" && w.Status == "" && w.Code == 0) {
		return googleError{}, false
	}
	e := googleError{code: w.Code, message: httpkit.OneLine(w.Message, 300), status: w.Status, structured: true}
	for _, d := range w.Details {
		if d.Reason != "" && e.reason == "" {
			e.reason = d.Reason
		}
		if d.RetryDelay != "" {
			if r, err := time.ParseDuration(d.RetryDelay); err == nil && r > 0 {
				e.retry = r
			}
		}
	}
	return e, true
}

// kindForStatusName classifies a Google status name, or returns nil.
func kindForStatusName(status string) error {
	switch status {
	case "INVALID_ARGUMENT", "OUT_OF_RANGE":
		return sdk.ErrInvalidArgument
	case "FAILED_PRECONDITION":
		return sdk.ErrFailedPrecondition
	case "UNAUTHENTICATED":
		return sdk.ErrUnauthenticated
	case "PERMISSION_DENIED":
		return sdk.ErrPermissionDenied
	case "NOT_FOUND":
		return sdk.ErrNotFound
	case "RESOURCE_EXHAUSTED":
		return sdk.ErrRateLimited
	case "UNAVAILABLE", "INTERNAL", "DEADLINE_EXCEEDED", "ABORTED", "UNKNOWN":
		return sdk.ErrUnavailable
	case "UNIMPLEMENTED":
		return sdk.ErrUnsupported
	}
	return nil
}

// badKey reports whether an error says the API key itself is wrong:
// Google answers a bad key with 400 INVALID_ARGUMENT, which would
// otherwise read as a bad request.
func (e *googleError) badKey() bool {
	switch e.reason {
	case "API_KEY_INVALID", "API_KEY_EXPIRED":
		return true
	}
	return strings.Contains(e.message, "API key not valid") || strings.Contains(e.message, "API key expired")
}

// StatusError turns a non-2xx answer into an error; model is the model of
// the request, empty for the model list. Google's error object, its
// RetryInfo and a Retry-After header are read.
func (c *Client) StatusError(x *httpkit.Exchange, model string) error {
	resp := x.Resp
	data, _ := io.ReadAll(io.LimitReader(x, 1<<20))
	info := parseError(data)
	kind := httpkit.KindForStatus(resp.StatusCode)
	if info.badKey() {
		kind = sdk.ErrUnauthenticated
	}
	var b strings.Builder
	b.WriteString(httpkit.StatusText(resp))
	if resp.StatusCode == http.StatusNotFound && model != "" {
		b.WriteString(`: model "` + model + `" not found`)
	}
	if resp.StatusCode >= 500 && info.code == 0 && info.status == "" {
		// Not Google's error object ({"error": {"code", "message", "status"}}):
		// a proxy's page, another server's text or JSON.
		info.message = httpkit.ServerLine(data, resp, info.message)
	}
	if info.message != "" {
		b.WriteString(": " + info.message)
	}
	if resp.StatusCode == http.StatusNotFound && !info.structured {
		b.WriteString(" (is api_base " + c.http.BaseForHumans + " right?)")
	}
	retry := httpkit.RetryAfter(resp.Header, time.Now())
	if retry <= 0 {
		retry = info.retry
	}
	b.WriteString(httpkit.RetryNote(retry))
	return sdk.WithRetryAfter(c.http.Fail(kind, "%s", b.String()), retry)
}

// replyError turns the error object found in a reply (a stream chunk or a
// whole body) into an error.
func (c *Client) replyError(raw json.RawMessage) error {
	info, ok := errorObject(raw)
	if !ok {
		return c.http.Fail(sdk.ErrUnavailable, "error from %s: %s", c.http.BaseForHumans, httpkit.Quote(raw))
	}
	var kind error
	if info.code >= 400 && info.code < 600 {
		kind = httpkit.KindForStatus(info.code)
	}
	if kind == nil || kind == sdk.ErrBadResponse {
		kind = kindForStatusName(info.status)
	}
	if info.badKey() {
		kind = sdk.ErrUnauthenticated
	}
	if kind == nil {
		kind = sdk.ErrUnavailable
	}
	msg := info.message
	if msg == "" {
		msg = "the server reported an error"
	}
	if info.status != "" {
		msg += " (" + info.status + ")"
	}
	msg += httpkit.RetryNote(info.retry)
	return sdk.WithRetryAfter(c.http.Fail(kind, "error from %s: %s", c.http.BaseForHumans, msg), info.retry)
}
