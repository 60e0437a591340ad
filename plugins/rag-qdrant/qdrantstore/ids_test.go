package qdrantstore

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/qdrant/go-client/qdrant"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/coyote-cli/coyote/sdk"
)

func TestPointIDsRoundTripThroughTheirText(t *testing.T) {
	for _, id := range []*qdrant.PointId{
		qdrant.NewIDNum(0),
		qdrant.NewIDNum(7),
		qdrant.NewIDNum(1 << 63), // the original's tag bit: an ordinary id here
		qdrant.NewIDNum(^uint64(0)),
		qdrant.NewIDUUID("3f1b0c2e-1111-4000-8000-000000000001"),
	} {
		s := pointIDString(id)
		back, ok := parsePointID(s)
		if !ok || pointKey(back) != pointKey(id) {
			t.Errorf("%v -> %q -> %v", id, s, back)
		}
		// Sent back as the kind Qdrant issued: never the integer as a
		// string or the reverse.
		if _, isNum := id.GetPointIdOptions().(*qdrant.PointId_Num); isNum != (back.GetUuid() == "") {
			t.Errorf("%v came back as %v", id, back)
		}
	}
}

func TestTextThatNoPointCanHaveIsRefused(t *testing.T) {
	for _, s := range []string{"", "1-0", "-1", "18446744073709551616", "3f1b0c2e-1111-4000-8000-00000000000", "3f1b0c2e_1111_4000_8000_000000000001", "zz1b0c2e-1111-4000-8000-000000000001", " 7"} {
		if id, ok := parsePointID(s); ok {
			t.Errorf("%q parsed as %v", s, id)
		}
	}
	for _, s := range []string{"3F1B0C2E-1111-4000-8000-000000000001", "3f1b0c2e111140008000000000000001", "{3f1b0c2e-1111-4000-8000-000000000001}", "urn:uuid:3f1b0c2e-1111-4000-8000-000000000001"} {
		id, ok := parsePointID(s)
		if !ok || pointKey(id) != pointKey(qdrant.NewIDUUID("3f1b0c2e-1111-4000-8000-000000000001")) {
			t.Errorf("%q: %v %v", s, id, ok)
		}
	}
}

func TestUUID5MatchesTheStandard(t *testing.T) {
	// RFC 9562's namespace for DNS names, and the value every UUID library
	// gives for python.org in it.
	dns := [16]byte{0x6b, 0xa7, 0xb8, 0x10, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8}
	if got := uuid5(dns, "python.org"); got != "886313e1-3b8a-5372-9b90-0c9aee199e5d" {
		t.Fatalf("uuid5 = %s", got)
	}
}

func TestChunkPointIDsAreStableAndDistinct(t *testing.T) {
	a, b := chunkPointID("1-0"), chunkPointID("1-0")
	if a.GetUuid() != b.GetUuid() || a.GetUuid() == chunkPointID("1-1").GetUuid() || a.GetUuid() == chunkPointID("10").GetUuid() {
		t.Fatalf("ids %s %s %s", a.GetUuid(), b.GetUuid(), chunkPointID("1-1").GetUuid())
	}
	if !isUUID(a.GetUuid()) || a.GetUuid()[14] != '5' {
		t.Fatalf("%s is not a version 5 UUID", a.GetUuid())
	}
}

func TestErrorsKeepQdrantsSentenceAndAClass(t *testing.T) {
	for _, tt := range []struct {
		err      error
		sentinel error
		text     string
	}{
		{status.Error(codes.NotFound, "Not found: Collection `x` doesn't exist!"), sdk.ErrNotFound, "read collection \"x\" on Qdrant at h: Not found: Collection `x` doesn't exist!"},
		{&qdrant.QdrantError{}, sdk.ErrUnavailable, ""},
		{status.Error(codes.InvalidArgument, "Wrong input: Vector dimension error: expected dim: 3, got 2"), sdk.ErrInvalidArgument, "Wrong input: Vector dimension error"},
		{status.Error(codes.Unavailable, `connection error: desc = "transport: Error while dialing: dial tcp 10.0.0.1:6334: connect: no route to host"`), sdk.ErrUnavailable, "cannot reach Qdrant at h (read collection \"x\"): connect: no route to host; check that Qdrant runs there and that its gRPC port is open (this driver speaks gRPC: port 6334 unless"},
		{status.Error(codes.Unauthenticated, "Invalid api-key"), sdk.ErrUnauthenticated, "Invalid api-key"},
		{status.Error(codes.PermissionDenied, "Forbidden: read-only key"), sdk.ErrPermissionDenied, "read-only key; the API key in the RAG's driver_config.api_key does not allow this"},
		{status.Error(codes.Unimplemented, "unknown method Facet"), sdk.ErrUnsupported, "older than this driver"},
		{status.Error(codes.DeadlineExceeded, "Timeout"), context.DeadlineExceeded, "timed out"},
		{context.Canceled, context.Canceled, ""},
		{status.Error(codes.Internal, "Service internal error: disk full"), nil, "disk full (internal)"},
	} {
		got := qdrantError(tt.err, `read collection "x"`, "h")
		if tt.sentinel != nil && !errors.Is(got, tt.sentinel) {
			t.Errorf("%v: %v is not %v", tt.err, got, tt.sentinel)
		}
		if !strings.Contains(got.Error(), tt.text) || strings.Contains(got.Error(), "rpc error") {
			t.Errorf("%v: %q does not say %q", tt.err, got, tt.text)
		}
	}
	if qdrantError(nil, "x", "h") != nil {
		t.Fatal("nil became an error")
	}
}

func TestRateLimitsCarryQdrantsRetryAfter(t *testing.T) {
	err := qdrantError(&qdrant.QdrantResourceExhaustedError{Reason: "too many requests", RetryAfterS: 7}, "search", "h")
	d, ok := sdk.RetryAfter(err)
	if !errors.Is(err, sdk.ErrRateLimited) || !ok || d != 7*time.Second {
		t.Fatalf("err %v, retry %v %v", err, d, ok)
	}
}
