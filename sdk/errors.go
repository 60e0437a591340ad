package sdk

import (
	"context"
	"errors"

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
}

func (e *Error) Error() string { return e.Message }

// Unwrap returns the sentinel of the error's class, or nil.
func (e *Error) Unwrap() error {
	for _, row := range errorTable {
		if row.name == e.Code {
			return row.sentinel
		}
	}
	return nil
}

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
	if withInfo, derr := st.WithDetails(&errdetails.ErrorInfo{Reason: name, Domain: errorDomain}); derr == nil {
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
			return &Error{Code: info.GetReason(), Message: st.Message()}
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

// IsPluginError reports whether err was reported by a plugin (as opposed to a
// failure of the connection to it).
func IsPluginError(err error) bool {
	var e *Error
	return errors.As(err, &e)
}
