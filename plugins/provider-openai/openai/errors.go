package openai

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/httpkit"
)

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
			return httpkit.KindForStatus(n)
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
	// own is set when it was OpenAI's own shape, {"error": {...}}.
	own bool
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
				info = errorInfo{message: rawText(detail.Message), typ: rawText(detail.Type), code: rawText(detail.Code), own: true}
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
			info.message = httpkit.OneLine(info.message, 300)
			info.structured = true
			return info
		}
	}
	if len(trimmed) == 0 || trimmed[0] == '<' {
		return errorInfo{}
	}
	return errorInfo{message: httpkit.OneLine(string(trimmed), 200)}
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

// statusError turns a non-2xx answer into an error. model is the model of
// the request, if any; endpoint is the path of an optional endpoint
// ("/embeddings", "/rerank") that a server may lack, empty for chat and the
// model list. A Retry-After header is passed on to the kernel.
func (c *client) statusError(x *httpkit.Exchange, model, endpoint string) error {
	data, _ := io.ReadAll(io.LimitReader(x, 1<<20))
	return c.statusErrorFrom(x.Resp, data, model, endpoint)
}

// statusErrorFrom is statusError with the body already read.
func (c *client) statusErrorFrom(resp *http.Response, data []byte, model, endpoint string) error {
	info := parseErrorBody(data)
	status := resp.StatusCode
	var b strings.Builder
	b.WriteString(httpkit.StatusText(resp))
	if status == http.StatusNotFound && model != "" && c.azure {
		b.WriteString(`: deployment "` + model + `" not found (an azure-openai client's models are the names of your deployments)`)
	} else if status == http.StatusNotFound && model != "" {
		b.WriteString(`: model "` + model + `" not found`)
		if endpoint != "" {
			b.WriteString(" (or " + c.http.BaseForHumans + " has no " + endpoint + " endpoint)")
		}
	}
	if status >= 500 && !info.own {
		info.message = httpkit.ServerLine(data, resp, info.message)
	}
	if info.message != "" {
		b.WriteString(": " + info.message)
	}
	if status == http.StatusNotFound && !info.structured && endpoint == "" {
		b.WriteString(" (is api_base " + c.http.BaseForHumans + " right?)")
	}
	retry := httpkit.RetryAfter(resp.Header, time.Now())
	b.WriteString(httpkit.RetryNote(retry))
	err := c.fail(httpkit.KindForStatus(status), "%s", b.String())
	return sdk.WithRetryAfter(err, retry)
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
	return c.fail(kind, "error from %s: %s", c.http.BaseForHumans, msg)
}
