package bedrock

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/coyote-cli/coyote/sdk/provider"
)

// errIdle ends the read of a reply the server left silent for longer than
// the client's read timeout.
var errIdle = errors.New("the server sent nothing for longer than the read timeout")

// idleTimeout is a transport whose response bodies fail with errIdle when
// no byte arrives for d (0: never).
type idleTimeout struct {
	base http.RoundTripper
	d    time.Duration
}

func (t idleTimeout) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil || t.d <= 0 {
		return resp, err
	}
	b := &idleBody{rc: resp.Body}
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
}

func (b *idleBody) expire() {
	b.mu.Lock()
	b.idle = true
	b.mu.Unlock()
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
// patch rules to the serialized HTTP request, before it is signed (so the
// signature covers what is sent).
func withPatches(patches []provider.RequestPatch) func(*middleware.Stack) error {
	return func(stack *middleware.Stack) error {
		return stack.Build.Add(middleware.BuildMiddlewareFunc("CoyotePatches", func(ctx context.Context, in middleware.BuildInput, next middleware.BuildHandler) (middleware.BuildOutput, middleware.Metadata, error) {
			req, ok := in.Request.(*smithyhttp.Request)
			if !ok || len(patches) == 0 {
				return next.HandleBuild(ctx, in)
			}
			var body []byte
			if s := req.GetStream(); s != nil {
				var err error
				if body, err = io.ReadAll(s); err != nil {
					return middleware.BuildOutput{}, middleware.Metadata{}, err
				}
			}
			u, body, err := provider.ApplyPatches(patches, req.URL.String(), body, req.Header)
			if err != nil {
				return middleware.BuildOutput{}, middleware.Metadata{}, &patchError{err}
			}
			if u != req.URL.String() {
				pu, err := url.Parse(u)
				if err != nil || pu.Host == "" {
					return middleware.BuildOutput{}, middleware.Metadata{}, &patchError{errors.New("patch url " + u + " is not a URL")}
				}
				req.URL = pu
				req.Host = ""
			}
			req.ContentLength = int64(len(body))
			r, err := req.SetStream(bytes.NewReader(body))
			if err != nil {
				return middleware.BuildOutput{}, middleware.Metadata{}, err
			}
			in.Request = r
			return next.HandleBuild(ctx, in)
		}), middleware.Before)
	}
}

// patchError is a patch rule that cannot be applied.
type patchError struct{ err error }

func (e *patchError) Error() string { return e.err.Error() }
func (e *patchError) Unwrap() error { return e.err }
