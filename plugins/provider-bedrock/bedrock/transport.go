package bedrock

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/coyote-cli/coyote/sdk/provider"
)

// errIdle ends the read of a reply the server left silent for longer than
// the client's read timeout.
var errIdle = errors.New("the server sent nothing for longer than the read timeout")

// idleTimeout is the client's transport: it sends a copy of each request
// body, and its response bodies fail with errIdle when no byte arrives
// for d (0: never).
type idleTimeout struct {
	base http.RoundTripper
	d    time.Duration
}

func (t idleTimeout) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil && req.Body != http.NoBody {
		// The AWS client's request body is a reader over a stream it goes
		// on using once the reply's headers are in (and may rewind), while
		// the transport can still be finishing the write: a write that
		// then fails closes the connection under the streamed reply. A
		// copy of its own is the transport's alone.
		data, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, err
		}
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(data))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
		req.ContentLength = int64(len(data))
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil || t.d <= 0 {
		return resp, err
	}
	b := &idleBody{rc: resp.Body, flag: idleFlagOf(req.Context())}
	b.timer = time.AfterFunc(t.d, b.expire)
	b.d = t.d
	resp.Body = b
	return resp, nil
}

// idleBody closes the body under a blocked Read when its timer fires.
type idleBody struct {
	rc    io.ReadCloser
	d     time.Duration
	timer *time.Timer
	mu    sync.Mutex
	idle  bool
	// flag, when the request's context has one, is set too: the AWS
	// client does not always keep errIdle in the chain of the error it
	// returns.
	flag *atomic.Bool
}

type idleFlagKey struct{}

// withIdleFlag returns a context whose requests set flag when their reply
// goes silent for too long.
func withIdleFlag(ctx context.Context, flag *atomic.Bool) context.Context {
	return context.WithValue(ctx, idleFlagKey{}, flag)
}

func idleFlagOf(ctx context.Context) *atomic.Bool {
	f, _ := ctx.Value(idleFlagKey{}).(*atomic.Bool)
	return f
}

func (b *idleBody) expire() {
	b.mu.Lock()
	b.idle = true
	b.mu.Unlock()
	if b.flag != nil {
		b.flag.Store(true)
	}
	_ = b.rc.Close()
}

func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.mu.Lock()
	idle := b.idle
	b.mu.Unlock()
	if idle {
		return n, errIdle
	}
	if n > 0 {
		b.timer.Reset(b.d)
	}
	return n, err
}

func (b *idleBody) Close() error {
	b.timer.Stop()
	return b.rc.Close()
}

// withPatches returns the per-call option that applies the request's
// patch rules to the serialized HTTP request once its endpoint is
// resolved and before it is signed (so the signature covers what is
// sent, where it is sent).
func withPatches(patches []provider.RequestPatch) func(*middleware.Stack) error {
	return func(stack *middleware.Stack) error {
		if len(patches) == 0 {
			return nil
		}
		return stack.Finalize.Insert(middleware.FinalizeMiddlewareFunc("CoyotePatches", func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
			req, ok := in.Request.(*smithyhttp.Request)
			if !ok {
				return next.HandleFinalize(ctx, in)
			}
			var body []byte
			if s := req.GetStream(); s != nil {
				var err error
				if body, err = io.ReadAll(s); err != nil {
					return middleware.FinalizeOutput{}, middleware.Metadata{}, err
				}
			}
			u, body, err := provider.ApplyPatches(patches, req.URL.String(), body, req.Header)
			if err != nil {
				return middleware.FinalizeOutput{}, middleware.Metadata{}, &patchError{err}
			}
			if u != req.URL.String() {
				pu, err := url.Parse(u)
				if err != nil || pu.Host == "" {
					return middleware.FinalizeOutput{}, middleware.Metadata{}, &patchError{errors.New("patch url " + u + " is not a URL")}
				}
				req.URL = pu
				req.Host = ""
			}
			req.ContentLength = int64(len(body))
			r, err := req.SetStream(bytes.NewReader(body))
			if err != nil {
				return middleware.FinalizeOutput{}, middleware.Metadata{}, err
			}
			in.Request = r
			return next.HandleFinalize(ctx, in)
		}), "ComputePayloadHash", middleware.Before)
	}
}

// patchError is a patch rule that cannot be applied.
type patchError struct{ err error }

func (e *patchError) Error() string { return e.err.Error() }
func (e *patchError) Unwrap() error { return e.err }
