package qdrantstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/qdrant/go-client/qdrant"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/coyote-cli/coyote/sdk"
)

// qdrantError turns an error from a call to Qdrant into one line a user can
// act on, classed by an SDK sentinel so the kernel can tell an unreachable
// server from a wrong collection. what says what was being done ("search
// collection \"docs\""), host where.
//
// Qdrant reports its own errors in the gRPC status ("Wrong input: Vector
// dimension error: expected dim: 384, got 3"); that message is kept as it
// is, without the client's "Query() failed: rpc error: code = ... desc ="
// wrapping.
func qdrantError(err error, what, host string) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s on Qdrant at %s: %w", what, host, err)
	}
	var exhausted *qdrant.QdrantResourceExhaustedError
	if errors.As(err, &exhausted) {
		e := fmt.Errorf("%s on Qdrant at %s: rate limited: %s: %w", what, host, exhausted.Reason, sdk.ErrRateLimited)
		return sdk.WithRetryAfter(e, time.Duration(exhausted.RetryAfterS)*time.Second)
	}
	var withStatus interface{ GRPCStatus() *status.Status }
	if !errors.As(err, &withStatus) {
		return fmt.Errorf("%s on Qdrant at %s: %v: %w", what, host, err, sdk.ErrUnavailable)
	}
	st := withStatus.GRPCStatus()
	msg := strings.TrimSpace(st.Message())
	switch st.Code() {
	case codes.Unavailable:
		return fmt.Errorf("cannot reach Qdrant at %s (%s): %s; check that Qdrant runs there and that its gRPC port is open (this driver speaks gRPC: port %d unless driver_config.host or driver_config.grpc_port names another): %w",
			host, what, unavailableReason(msg), grpcPort, sdk.ErrUnavailable)
	case codes.DeadlineExceeded:
		return fmt.Errorf("%s on Qdrant at %s: timed out: %s: %w", what, host, msg, context.DeadlineExceeded)
	case codes.Canceled:
		return fmt.Errorf("%s on Qdrant at %s: %s: %w", what, host, msg, context.Canceled)
	case codes.Unauthenticated:
		return fmt.Errorf("%s on Qdrant at %s: the server refused the request (%s); check the API key in the RAG's driver_config.api_key: %w", what, host, msg, sdk.ErrUnauthenticated)
	case codes.PermissionDenied:
		return fmt.Errorf("%s on Qdrant at %s: %s; the API key in the RAG's driver_config.api_key does not allow this: %w", what, host, msg, sdk.ErrPermissionDenied)
	case codes.NotFound:
		return fmt.Errorf("%s on Qdrant at %s: %s: %w", what, host, msg, sdk.ErrNotFound)
	case codes.InvalidArgument, codes.OutOfRange:
		return fmt.Errorf("%s on Qdrant at %s: %s: %w", what, host, msg, sdk.ErrInvalidArgument)
	case codes.FailedPrecondition, codes.AlreadyExists:
		return fmt.Errorf("%s on Qdrant at %s: %s: %w", what, host, msg, sdk.ErrFailedPrecondition)
	case codes.ResourceExhausted:
		return fmt.Errorf("%s on Qdrant at %s: %s: %w", what, host, msg, sdk.ErrRateLimited)
	case codes.Unimplemented:
		return fmt.Errorf("%s on Qdrant at %s: the server does not offer this (%s); it may be older than this driver supports: %w", what, host, msg, sdk.ErrUnsupported)
	}
	return fmt.Errorf("%s on Qdrant at %s: %s (%s)", what, host, msg, strings.ToLower(st.Code().String()))
}

// unavailableReason shortens gRPC's dial errors ("connection error: desc =
// \"transport: Error while dialing: dial tcp 127.0.0.1:6334: connect:
// connection refused\"") to their cause.
func unavailableReason(msg string) string {
	if i := strings.LastIndex(msg, "dial tcp "); i >= 0 {
		rest := msg[i+len("dial tcp "):]
		if j := strings.Index(rest, ": "); j >= 0 {
			rest = rest[j+2:]
		}
		return strings.TrimRight(rest, "\"")
	}
	if i := strings.Index(msg, `desc = "`); i >= 0 {
		rest := strings.TrimSuffix(msg[i+len(`desc = "`):], `"`)
		return strings.TrimPrefix(rest, "transport: ")
	}
	if msg == "" {
		return "no answer"
	}
	return msg
}

// isUnimplemented reports whether Qdrant does not know an RPC (a server
// older than the call).
func isUnimplemented(err error) bool { return statusCode(err) == codes.Unimplemented }

// statusCode is the gRPC code of a failed call, or codes.Unknown.
func statusCode(err error) codes.Code {
	var withStatus interface{ GRPCStatus() *status.Status }
	if errors.As(err, &withStatus) {
		return withStatus.GRPCStatus().Code()
	}
	return codes.Unknown
}
