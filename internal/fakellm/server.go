package fakellm

// This file holds the mechanics the three fakes share: serving on a
// loopback port, recording requests, reading and writing JSON bodies, the
// events of a streamed reply and the vectors of embeddings.

import (
	"cmp"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// start serves h on a loopback port until the test ends and returns its
// URL followed by suffix. Replies still being streamed when the test ends
// are cut off.
func start(t testing.TB, h http.Handler, suffix string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("fakellm: listen: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	srv := httptest.NewUnstartedServer(h)
	_ = srv.Listener.Close()
	srv.Listener = ln
	srv.Config.BaseContext = func(net.Listener) context.Context { return ctx }
	srv.Start()
	t.Cleanup(func() {
		cancel()
		srv.Close()
	})
	return srv.URL + suffix
}

// trimVersion removes from path the first of prefixes (each ending in a
// slash) that it starts with, keeping the slash.
func trimVersion(path string, prefixes ...string) string {
	for _, p := range prefixes {
		if strings.HasPrefix(path, p) {
			return path[len(p)-1:]
		}
	}
	return path
}

// orDefault returns list, or defaults when list is empty.
func orDefault(list []string, defaults ...string) []string {
	if len(list) > 0 {
		return list
	}
	return defaults
}

// recorder keeps what a fake received, in order. It is safe for concurrent
// use and its zero value is ready to use.
type recorder[T any] struct {
	mu   sync.Mutex
	list []T
}

// add records v and returns how many values are recorded now, which
// numbers the ids of replies.
func (r *recorder[T]) add(v T) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.list = append(r.list, v)
	return len(r.list)
}

// all returns a copy of what was recorded.
func (r *recorder[T]) all() []T {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]T{}, r.list...)
}

// ask returns what respond answers to a copy of v, so that it cannot
// change the request being served, or a zero Reply when respond is nil.
func ask[T any](respond func(*T) Reply, v T) Reply {
	if respond == nil {
		return Reply{}
	}
	return respond(&v)
}

// maxBody bounds the bytes read of a request body.
const maxBody = 64 << 20

// readBody reads and decodes a JSON request body; raw is nil when it is
// not a JSON object.
func readBody(r *http.Request) (raw map[string]any, ok bool) {
	data, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil || json.Unmarshal(data, &raw) != nil || raw == nil {
		return nil, false
	}
	return raw, true
}

// objects returns the JSON objects of the array v.
func objects(v any) []map[string]any {
	list, ok := v.([]any)
	if !ok {
		return nil
	}
	out := make([]map[string]any, 0, len(list))
	for _, x := range list {
		if m, ok := x.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// optionalNumber returns m[key] when it is a number, else nil.
func optionalNumber(m map[string]any, key string) *float64 {
	if v, ok := m[key].(float64); ok {
		return &v
	}
	return nil
}

// withIDs returns calls, or a copy of them where every empty ID is filled
// with prefix and the call's index.
func withIDs(calls []ToolCall, prefix string) []ToolCall {
	var out []ToolCall
	for i, tc := range calls {
		if tc.ID != "" {
			continue
		}
		if out == nil {
			out = append([]ToolCall(nil), calls...)
		}
		out[i].ID = prefix + strconv.Itoa(i)
	}
	if out == nil {
		return calls
	}
	return out
}

// statusText is the standard text of status, or "Error <status>".
func statusText(status int) string {
	return cmp.Or(http.StatusText(status), "Error "+strconv.Itoa(status))
}

// retryAfter sets the Retry-After header a failing Reply asks for.
func retryAfter(w http.ResponseWriter, reply *Reply) {
	if reply.RetryAfter != "" {
		w.Header().Set("Retry-After", reply.RetryAfter)
	}
}

// writeJSON answers with v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	writeBody(w, status, "application/json", append(data, '\n'))
}

// writeBody answers with body, declaring its length.
func writeBody(w http.ResponseWriter, status int, contentType string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// writeReply answers a request without stream with body or, when the reply
// asks for Truncate, with its first half as if it were all.
func writeReply(w http.ResponseWriter, contentType string, body []byte, reply *Reply) {
	if reply.Truncate {
		body = body[:len(body)/2]
	}
	writeBody(w, http.StatusOK, contentType, body)
}

// writeMalformed answers a request without stream with the start of a JSON
// body, as a reply with Malformed asks.
func writeMalformed(w http.ResponseWriter, start string) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(start))
}

// wait sleeps for d unless ctx ends first, and reports whether it slept.
func wait(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// emitter writes the server-sent events of one streamed reply. Each event
// is built in buf, one reused buffer, and flushed as it is made, as real
// servers stream tokens: clients (and the benchmarks, which measure their
// own cost per event against these servers) see one small read per event.
type emitter struct {
	w       http.ResponseWriter
	flusher http.Flusher
	ctx     context.Context
	delay   time.Duration
	buf     []byte
	sent    int
	failed  bool
	// stall (Reply.Stall) makes the stream send nothing after its first
	// content event until the client goes away.
	stall bool
	// preamble is set while the events sent are not content yet (the
	// Anthropic stream's message_start and block starts).
	preamble   bool
	gotContent bool
}

// startStream answers 200 with an event stream of contentType and returns
// the emitter of its events, which acts out reply's pace: Delay before
// each event but the first, and Stall.
func startStream(w http.ResponseWriter, r *http.Request, contentType string, reply *Reply) emitter {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	return emitter{w: w, flusher: flusher, ctx: r.Context(), delay: reply.Delay, stall: reply.Stall, buf: make([]byte, 0, 512)}
}

// emit writes buf as one event, after the delay unless it is the first. It
// reports false once the client has gone.
func (e *emitter) emit() bool {
	if e.failed {
		return false
	}
	if e.stall && e.gotContent {
		<-e.ctx.Done()
		e.failed = true
		return false
	}
	if !e.preamble {
		e.gotContent = true
	}
	if e.sent > 0 && e.delay > 0 && !wait(e.ctx, e.delay) {
		e.failed = true
		return false
	}
	e.sent++
	return e.write(e.buf)
}

// raw sends text as is, without the delay.
func (e *emitter) raw(text string) {
	if !e.failed {
		e.write([]byte(text))
	}
}

func (e *emitter) write(b []byte) bool {
	if _, err := e.w.Write(b); err != nil {
		e.failed = true
		return false
	}
	if e.flusher != nil {
		e.flusher.Flush()
	}
	return true
}

// breaks sends what a broken reply sends instead of the second half of its
// text, as is: malformed for Malformed, failure for StreamError, nothing
// for Truncate. It reports whether the reply breaks.
func (e *emitter) breaks(reply *Reply, malformed, failure string) bool {
	switch {
	case reply.Malformed:
		e.raw(malformed)
	case reply.StreamError != "":
		e.raw(failure)
	case !reply.Truncate:
		return false
	}
	return true
}

// vectorCache keeps the JSON of recent vectors: benchmarks embed the same
// texts again and again, and encoding the numbers is most of a server's
// work. It starts over when it holds maxVectorCache bytes. The zero value
// is ready to use.
type vectorCache struct {
	mu    sync.Mutex
	m     map[vectorKey][]byte
	bytes int
}

// vectorKey names a vector and its encoding: base64 is OpenAI's
// encoding_format "base64".
type vectorKey struct {
	text   string
	dims   int
	base64 bool
}

const maxVectorCache = 32 << 20

// get returns encode(nil, FakeVector(key.text, key.dims)), which must
// depend on nothing but the key.
func (c *vectorCache) get(key vectorKey, encode func([]byte, []float32) []byte) []byte {
	c.mu.Lock()
	enc, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return enc
	}
	enc = encode(nil, FakeVector(key.text, key.dims))
	c.mu.Lock()
	if c.m == nil || c.bytes+len(enc) > maxVectorCache {
		c.m, c.bytes = map[vectorKey][]byte{}, 0
	}
	c.m[key] = enc
	c.bytes += len(enc) + len(key.text)
	c.mu.Unlock()
	return enc
}
