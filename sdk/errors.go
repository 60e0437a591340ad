package sdk

import (
	"context"
	"errors"
	"strconv"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Sentinel errors shared by the kernel and every plugin. A plugin returns
// one of them (usually wrapped: fmt.Errorf("model %q: %w", m, ErrNotFound))
// and the kernel, on the other side of the wire, finds it with errors.Is.
var (
	ErrInvalidArgument    = errors.New("invalid argument")
	ErrNotFound           = errors.New("not found")
	ErrUnauthenticated    = errors.New("unauthenticated")
	ErrPermissionDenied   = errors.New("permission denied")
	ErrRateLimited        = errors.New("rate limited")
	ErrUnavailable        = errors.New("unavailable")
	ErrUnsupported        = errors.New("not supported")
	ErrFailedPrecondition = errors.New("failed precondition")
	// ErrBadResponse means an upstream service answered with something the
	// plugin could not understand, such as a malformed or truncated stream.
	ErrBadResponse = errors.New("bad response")
)

// errorDomain marks statuses created by this SDK, so the kernel can tell an
// error a plugin reported from a broken connection to a plugin.
const errorDomain = "coyote.sdk"

// The wire name, gRPC code and sentinel of each error class. The names also
// appear in provider stream error events.
var errorTable = []struct {
	name     string
	code     codes.Code
	sentinel error
}{
	{"invalid_argument", codes.InvalidArgument, ErrInvalidArgument},
	{"not_found", codes.NotFound, ErrNotFound},
	{"unauthenticated", codes.Unauthenticated, ErrUnauthenticated},
	{"permission_denied", codes.PermissionDenied, ErrPermissionDenied},
	{"rate_limited", codes.ResourceExhausted, ErrRateLimited},
	{"unavailable", codes.Unavailable, ErrUnavailable},
	{"unsupported", codes.Unimplemented, ErrUnsupported},
	{"failed_precondition", codes.FailedPrecondition, ErrFailedPrecondition},
	{"bad_response", codes.DataLoss, ErrBadResponse},
	{"canceled", codes.Canceled, context.Canceled},
	{"deadline_exceeded", codes.DeadlineExceeded, context.DeadlineExceeded},
}

// Error is an error reported by a plugin, as the kernel receives it.
// errors.Is matches it against the sentinel of its Code.
type Error struct {
	// Code is the wire name of the error class, such as "not_found", or
	// "unknown" when the plugin returned an error of no known class.
	Code string
	// Message is the plugin's error text.
	Message string
	// Retry is how long the upstream service asked to wait before trying
	// again (HTTP Retry-After), or 0.
	Retry time.Duration
}

func (e *Error) Error() string { return e.Message }

// RetryAfter is how long the upstream asked to wait before a retry.
func (e *Error) RetryAfter() time.Duration { return e.Retry }

// Unwrap returns the sentinel of the error's class, or nil.
func (e *Error) Unwrap() error {
	for _, row := range errorTable {
		if row.name == e.Code {
			return row.sentinel
		}
	}
	return nil
}

// WithRetryAfter records on err how long the upstream service asked to
// wait before a retry (an HTTP Retry-After header). The kernel honours it
// when it retries.
func WithRetryAfter(err error, d time.Duration) error {
	if err == nil || d <= 0 {
		return err
	}
	return &retryAfterError{err: err, d: d}
}

type retryAfterError struct {
	err error
	d   time.Duration
}

func (e *retryAfterError) Error() string             { return e.err.Error() }
func (e *retryAfterError) Unwrap() error             { return e.err }
func (e *retryAfterError) RetryAfter() time.Duration { return e.d }

// RetryAfter reports how long err asks to wait before a retry, if it says.
func RetryAfter(err error) (time.Duration, bool) {
	var r interface{ RetryAfter() time.Duration }
	if errors.As(err, &r) && r.RetryAfter() > 0 {
		return r.RetryAfter(), true
	}
	return 0, false
}

// retryAfterKey carries RetryAfter in the status's ErrorInfo metadata.
const retryAfterKey = "retry_after_ms"

// ErrorCode returns the wire name of err's class ("not_found", ...), or
// "unknown".
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	for _, row := range errorTable {
		if errors.Is(err, row.sentinel) {
			return row.name
		}
	}
	return "unknown"
}

// ToStatus turns an error returned by a plugin implementation into a gRPC
// status error that keeps its class. Plugin shims call it; plugin authors
// rarely need to.
func ToStatus(err error) error {
	if err == nil {
		return nil
	}
	name, code := "unknown", codes.Unknown
	for _, row := range errorTable {
		if errors.Is(err, row.sentinel) {
			name, code = row.name, row.code
			break
		}
	}
	st := status.New(code, err.Error())
	info := &errdetails.ErrorInfo{Reason: name, Domain: errorDomain}
	if d, ok := RetryAfter(err); ok {
		info.Metadata = map[string]string{retryAfterKey: strconv.FormatInt(d.Milliseconds(), 10)}
	}
	if withInfo, derr := st.WithDetails(info); derr == nil {
		st = withInfo
	}
	return st.Err()
}

// FromStatus turns an error from a gRPC call to a plugin back into an error
// that matches the SDK sentinels. Errors the plugin reported become *Error.
// Cancellation and deadlines match context.Canceled and
// context.DeadlineExceeded. Anything else (a broken connection, most often a
// plugin that died) is returned unchanged; see IsPluginError.
func FromStatus(err error) error {
	if err == nil {
		return nil
	}
	st, ok := status.FromError(err)
	if !ok {
		return err
	}
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.GetDomain() == errorDomain {
			e := &Error{Code: info.GetReason(), Message: st.Message()}
			if ms, err := strconv.ParseInt(info.GetMetadata()[retryAfterKey], 10, 64); err == nil && ms > 0 {
				e.Retry = time.Duration(ms) * time.Millisecond
			}
			return e
		}
	}
	switch st.Code() {
	case codes.Canceled:
		return &Error{Code: "canceled", Message: st.Message()}
	case codes.DeadlineExceeded:
		return &Error{Code: "deadline_exceeded", Message: st.Message()}
	}
	return err
}

// NewError builds the error a plugin reported with a wire code, for example
// from a provider stream's error event.
func NewError(code, message string) error {
	return &Error{Code: code, Message: message}
}

// IsTransportError reports whether err is a failed gRPC call that the
// plugin did not report: the connection broke, most often because the
// plugin process died.
func IsTransportError(err error) bool {
	if err == nil || IsPluginError(err) {
		return false
	}
	_, ok := status.FromError(err)
	return ok
}

// IsPluginError reports whether err was reported by a plugin (as opposed to a
// failure of the connection to it).
func IsPluginError(err error) bool {
	var e *Error
	return errors.As(err, &e)
}
