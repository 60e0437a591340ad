// Package providertest tests provider plugins. Its Suite is the
// conformance suite: what the kernel relies on a provider to do (stream a
// chat, report tool calls and usage, stop when cancelled, map errors to the
// SDK's sentinels with Retry-After, embed and rerank when it announces
// them), checked over real gRPC. Coyote's own providers pass it, and a
// third party's runs it from a test with a fake of its own service:
//
//	func TestConformance(t *testing.T) {
//		providertest.Suite{
//			Info:     sdk.Info{Name: "mine", Version: "0.1.0"},
//			New:      func() provider.Provider { return &mine{} },
//			Model:    "my-model",
//			Upstream: func(t *testing.T, sc providertest.Scenario) provider.ClientConfig {
//				srv := httptest.NewServer(myFakeAPI(sc)) // answers as sc says
//				t.Cleanup(srv.Close)
//				return provider.ClientConfig{APIBase: srv.URL}
//			},
//		}.Run(t)
//	}
//
// The rest of the package is scaffolding for a provider's own tests: Plugin
// serves an implementation and configures a client, Reply collects a chat
// as the kernel receives it, and small servers (RawServer,
// CountingServer, RefusingProxy, Unreachable) stand in for the cases a
// fake does not cover.
package providertest

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/plugintest"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// Plugin is a provider plugin under test, with the defaults its tests
// leave out.
type Plugin struct {
	Info sdk.Info
	// New returns a fresh implementation.
	New func() provider.Provider
	// Type is the type of a client whose config names none.
	Type string
	// Model is the model of a chat request that names none.
	Model string
}

// Serve serves a fresh implementation over gRPC and returns the kernel's
// view of it, with one client configured as by Configure.
func (pl Plugin) Serve(t testing.TB, base string, cfg provider.ClientConfig) provider.Provider {
	t.Helper()
	p := plugintest.Provider(t, pl.Info, pl.New())
	pl.Configure(t, p, base, cfg)
	return p
}

// Configure configures one client of p: cfg, named "test", of pl.Type and
// pointed at base unless cfg says otherwise.
func (pl Plugin) Configure(t testing.TB, p provider.Provider, base string, cfg provider.ClientConfig) {
	t.Helper()
	cfg.Name = cmp.Or(cfg.Name, "test")
	cfg.Type = cmp.Or(cfg.Type, pl.Type)
	cfg.APIBase = cmp.Or(cfg.APIBase, base)
	if _, err := p.Configure(context.Background(), &provider.ConfigureRequest{Client: cfg}); err != nil {
		t.Fatalf("configure: %v", err)
	}
}

// Chat sends req to p and collects the reply; unless req says otherwise it
// asks client "test" for pl.Model with one user message, "hello". A chat
// still running after 20s fails the test instead of hanging the run.
func (pl Plugin) Chat(t testing.TB, p provider.Provider, req provider.ChatRequest) (*Reply, error) {
	t.Helper()
	req.Client = cmp.Or(req.Client, "test")
	req.Model = cmp.Or(req.Model, pl.Model)
	if req.Messages == nil {
		req.Messages = []provider.Message{provider.TextMessage(provider.RoleUser, "hello")}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r := &Reply{}
	err := p.Chat(ctx, &req, func(ev *provider.ChatEvent) error {
		r.add(ev)
		return nil
	})
	if errors.Is(err, context.DeadlineExceeded) {
		t.Fatal("the chat hung")
	}
	return r, err
}

// Reply is a chat reply as the kernel received it.
type Reply struct {
	Text       string
	Texts      int // text events
	Reasoning  string
	Reasonings int // reasoning events neither signed nor redacted
	Signatures []string
	Redacted   []string
	Tools      []provider.ToolCall
	Usage      *provider.Usage
	Finish     string
	// Kinds lists the kinds of the events in order, repeats collapsed:
	// "reasoning,text,tool,usage,finish". A reasoning event is "redacted",
	// "signature" or, with text as well, "signature+text".
	Kinds string
}

func (r *Reply) add(ev *provider.ChatEvent) {
	var kind string
	switch {
	case ev.Reasoning != nil && ev.Reasoning.Redacted != "":
		kind = "redacted"
		r.Redacted = append(r.Redacted, ev.Reasoning.Redacted)
	case ev.Reasoning != nil && ev.Reasoning.Signature != "":
		kind = "signature"
		if ev.Reasoning.Text != "" {
			kind = "signature+text"
		}
		r.Signatures = append(r.Signatures, ev.Reasoning.Signature)
	case ev.Reasoning != nil:
		kind = "reasoning"
		r.Reasoning += ev.Reasoning.Text
		r.Reasonings++
	case ev.ToolCall != nil:
		kind = "tool"
		r.Tools = append(r.Tools, *ev.ToolCall)
	case ev.Usage != nil:
		kind = "usage"
		r.Usage = ev.Usage
	case ev.FinishReason != "":
		kind = "finish"
		r.Finish = ev.FinishReason
	case ev.Error != nil:
		kind = "error"
	default:
		kind = "text"
		r.Text += ev.Text
		r.Texts++
	}
	if last := r.Kinds[strings.LastIndex(r.Kinds, ",")+1:]; last != kind {
		if r.Kinds != "" {
			r.Kinds += ","
		}
		r.Kinds += kind
	}
}

// JSONEqual fails the test unless got (any value, or JSON text as []byte)
// is the JSON text want.
func JSONEqual(t testing.TB, got any, want string) {
	t.Helper()
	var g, w any
	switch x := got.(type) {
	case []byte:
		if err := json.Unmarshal(x, &g); err != nil {
			t.Fatalf("got is not JSON: %v: %s", err, x)
		}
	default:
		b, _ := json.Marshal(x)
		_ = json.Unmarshal(b, &g)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad expectation: %v", err)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	if string(gb) != string(wb) {
		t.Fatalf("got  %s\nwant %s", gb, wb)
	}
}

// WantError fails the test unless err is want and its text holds each of
// texts.
func WantError(t testing.TB, err, want error, texts ...string) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("err = %v, want %v", err, want)
	}
	for _, s := range texts {
		if !strings.Contains(err.Error(), s) {
			t.Fatalf("err = %v, want %v containing %q", err, want, s)
		}
	}
}

// RetryAfter fails the test unless err asks for a retry after a delay from
// lo to hi, or asks for none if hi is 0.
func RetryAfter(t testing.TB, err error, lo, hi time.Duration) {
	t.Helper()
	if d, ok := sdk.RetryAfter(err); ok != (hi > 0) || d < lo || d > hi {
		t.Fatalf("%v: retry after %v (%v), want %v to %v", err, d, ok, lo, hi)
	}
}

// RawServer starts a server that answers every request with status (200
// if 0), content type (text/event-stream if empty), the header name and
// value pairs and body, for replies the fakes do not produce. It returns
// the server's URL.
func RawServer(t testing.TB, status int, contentType, body string, header ...string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Type", cmp.Or(contentType, "text/event-stream"))
		w.WriteHeader(cmp.Or(status, http.StatusOK))
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// CountingServer starts a server for h and returns its URL and a function
// counting the connections clients have opened to it.
func CountingServer(t testing.TB, h http.Handler) (string, func() int) {
	url, conns, _ := WatchedServer(t, h)
	return url, conns
}

// WatchedServer is CountingServer that also returns a channel closed when
// the first connection is opened, for a test that waits for a connection
// a client opens ahead of its first request.
func WatchedServer(t testing.TB, h http.Handler) (url string, conns func() int, first <-chan struct{}) {
	var n atomic.Int64
	opened := make(chan struct{})
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew && n.Add(1) == 1 {
			close(opened)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL, func() int { return int(n.Load()) }, opened
}

// RefusingProxy starts an HTTP proxy that refuses every request, so that
// nothing leaves the machine, and returns its URL and a function listing
// the requests it saw as "METHOD host".
func RefusingProxy(t testing.TB) (string, func() []string) {
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.Host)
		mu.Unlock()
		http.Error(w, "no tunnels here", http.StatusForbidden)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(seen)
	}
}

// Unreachable returns the URL of a local port nobody listens on.
func Unreachable(t testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return "http://" + ln.Addr().String()
}

// Watched is a provider whose Chat, as it returns, also sends its error
// on Returned: the plugin's side of a call, seen from inside the plugin.
type Watched struct {
	provider.Provider
	Returned chan error
}

// Watch returns p, watched.
func Watch(p provider.Provider) *Watched {
	return &Watched{Provider: p, Returned: make(chan error, 1)}
}

func (w *Watched) Chat(ctx context.Context, req *provider.ChatRequest, send func(*provider.ChatEvent) error) error {
	err := w.Provider.Chat(ctx, req, send)
	w.Returned <- err
	return err
}

// CancelAtFirstEvent sends req to p and cancels the chat as its first event
// arrives. It fails the test unless Chat then returns context.Canceled
// within 200ms, and returns the first event and the moment of the cancel.
func CancelAtFirstEvent(t testing.TB, p provider.Provider, req provider.ChatRequest) (provider.ChatEvent, time.Time) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var first *provider.ChatEvent
	var cancelled time.Time
	err := p.Chat(ctx, &req, func(ev *provider.ChatEvent) error {
		if first == nil {
			e := *ev
			first = &e
			cancelled = time.Now()
			cancel()
		}
		return nil
	})
	if first == nil {
		t.Fatalf("no event arrived: %v", err)
	}
	if d := time.Since(cancelled); d > 200*time.Millisecond {
		t.Fatalf("Chat returned %v after the cancel", d)
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	return *first, cancelled
}

// WaitCancelled waits for the error of a call cancelled at the moment
// cancelled, and fails the test unless it is context.Canceled and comes
// within 200ms.
func WaitCancelled(t testing.TB, cancelled time.Time, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		if d := time.Since(cancelled); d > 200*time.Millisecond {
			t.Fatalf("returned %v after the cancel", d)
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		return err
	case <-time.After(5 * time.Second):
		t.Fatal("no return after the cancel")
		return nil
	}
}

// BenchChat measures streamed chats of p's client "test", each of which
// must bring texts text events.
func BenchChat(b *testing.B, p provider.Provider, texts int) {
	ctx := context.Background()
	req := &provider.ChatRequest{Client: "test", Model: "m", Stream: true,
		Messages: []provider.Message{provider.TextMessage(provider.RoleUser, "go")}}
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		if err := p.Chat(ctx, req, func(ev *provider.ChatEvent) error {
			if ev.Text != "" {
				n++
			}
			return nil
		}); err != nil {
			b.Fatal(err)
		}
		if n != texts {
			b.Fatalf("%d text events", n)
		}
	}
}

// BenchEmbed measures e embedding req, whose every input must come back
// as a vector of dims values, and reports inputs a second.
func BenchEmbed(b *testing.B, e provider.Embedder, req *provider.EmbedRequest, dims int) {
	ctx := context.Background()
	n := len(req.Inputs)
	b.ReportAllocs()
	calls := 0
	for b.Loop() {
		resp, err := e.Embed(ctx, req)
		if err != nil {
			b.Fatal(err)
		}
		if len(resp.Vectors) != n || len(resp.Vectors[n-1]) != dims {
			b.Fatalf("%d vectors", len(resp.Vectors))
		}
		calls++
	}
	b.ReportMetric(float64(calls*n)/b.Elapsed().Seconds(), "inputs/s")
}
