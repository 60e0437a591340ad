package sdk

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestSentinelsSurviveTheWire(t *testing.T) {
	tests := []struct {
		sentinel error
		code     codes.Code
		name     string
	}{
		{ErrInvalidArgument, codes.InvalidArgument, "invalid_argument"},
		{ErrNotFound, codes.NotFound, "not_found"},
		{ErrUnauthenticated, codes.Unauthenticated, "unauthenticated"},
		{ErrPermissionDenied, codes.PermissionDenied, "permission_denied"},
		{ErrRateLimited, codes.ResourceExhausted, "rate_limited"},
		{ErrUnavailable, codes.Unavailable, "unavailable"},
		{ErrUnsupported, codes.Unimplemented, "unsupported"},
		{ErrFailedPrecondition, codes.FailedPrecondition, "failed_precondition"},
		{ErrBadResponse, codes.DataLoss, "bad_response"},
		{context.Canceled, codes.Canceled, "canceled"},
		{context.DeadlineExceeded, codes.DeadlineExceeded, "deadline_exceeded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sent := fmt.Errorf("model %q: %w", "gpt-x", tt.sentinel)
			wire := ToStatus(sent)
			if got := status.Code(wire); got != tt.code {
				t.Fatalf("status code %v, want %v", got, tt.code)
			}
			back := FromStatus(wire)
			if !errors.Is(back, tt.sentinel) {
				t.Fatalf("errors.Is(%v, %v) is false after the round trip", back, tt.sentinel)
			}
			if back.Error() != sent.Error() || ErrorCode(back) != tt.name || !IsPluginError(back) {
				t.Fatalf("back = %q code %q plugin %v", back, ErrorCode(back), IsPluginError(back))
			}
			for _, other := range tests {
				if other.sentinel != tt.sentinel && errors.Is(back, other.sentinel) {
					t.Fatalf("%v also matches %v", back, other.sentinel)
				}
			}
		})
	}
}

func TestUnclassifiedPluginErrorKeepsItsMessage(t *testing.T) {
	back := FromStatus(ToStatus(errors.New("disk on fire")))
	if back.Error() != "disk on fire" || ErrorCode(back) != "unknown" || !IsPluginError(back) {
		t.Fatalf("back = %v (%s)", back, ErrorCode(back))
	}
}

func TestTransportErrorsAreNotPluginErrors(t *testing.T) {
	raw := status.Error(codes.Unavailable, "error reading from server: EOF")
	back := FromStatus(raw)
	if back != raw || IsPluginError(back) || errors.Is(back, ErrUnavailable) {
		t.Fatalf("a broken connection was taken for a plugin error: %v", back)
	}
	// A cancellation made by the caller's own context is still recognised.
	if c := FromStatus(status.Error(codes.Canceled, "context canceled")); !errors.Is(c, context.Canceled) {
		t.Fatalf("cancel = %v", c)
	}
	if FromStatus(nil) != nil || ToStatus(nil) != nil {
		t.Fatal("nil must stay nil")
	}
}

func TestNewErrorMatchesItsSentinel(t *testing.T) {
	if err := NewError("rate_limited", "slow down"); !errors.Is(err, ErrRateLimited) || err.Error() != "slow down" {
		t.Fatalf("err = %v", err)
	}
	if err := NewError("made_up", "x"); errors.Unwrap(err) != nil {
		t.Fatal("an unknown code matched a sentinel")
	}
}

func TestRetryAfterSurvivesTheWire(t *testing.T) {
	sent := WithRetryAfter(fmt.Errorf("slow down: %w", ErrRateLimited), 7*time.Second)
	back := FromStatus(ToStatus(sent))
	d, ok := RetryAfter(back)
	if !ok || d != 7*time.Second || !errors.Is(back, ErrRateLimited) || back.Error() != "slow down: rate limited" {
		t.Fatalf("back = %v, retry after %v %v", back, d, ok)
	}
	if _, ok := RetryAfter(FromStatus(ToStatus(ErrRateLimited))); ok {
		t.Fatal("a retry delay appeared from nowhere")
	}
}

func TestIsTransportError(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{nil, false},
		{errors.New("local mistake"), false},
		{FromStatus(ToStatus(ErrNotFound)), false},
		{status.Error(codes.Unavailable, "error reading from server: EOF"), true},
		{fmt.Errorf("plugin x: %w", status.Error(codes.Unavailable, "connection reset")), true},
	}
	for _, tt := range tests {
		if got := IsTransportError(tt.err); got != tt.want {
			t.Errorf("IsTransportError(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}
