package httpkit

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/provider/providertest"
)

func TestParseExtra(t *testing.T) {
	tests := []struct {
		name          string
		raw           any
		connect, read time.Duration
		// proxy is the proxy chosen for https://api.example.com; empty
		// means the *_PROXY variables decide.
		proxy   string
		wantErr string
	}{
		{name: "absent", raw: nil, connect: DefaultConnectTimeout, read: DefaultReadTimeout},
		{name: "empty", raw: map[string]any{}, connect: DefaultConnectTimeout, read: DefaultReadTimeout},
		{name: "numbers", raw: map[string]any{"connect_timeout": 2, "read_timeout": 0.5}, connect: 2 * time.Second, read: 500 * time.Millisecond},
		{name: "durations", raw: map[string]any{"connect_timeout": "1m", "read_timeout": "90"}, connect: time.Minute, read: 90 * time.Second},
		{name: "http proxy", raw: map[string]any{"proxy": " http://proxy:3128 "}, connect: DefaultConnectTimeout, read: DefaultReadTimeout, proxy: "http://proxy:3128"},
		{name: "socks proxy", raw: map[string]any{"proxy": "socks5://127.0.0.1:1080"}, connect: DefaultConnectTimeout, read: DefaultReadTimeout, proxy: "socks5://127.0.0.1:1080"},
		{name: "blank proxy", raw: map[string]any{"proxy": ""}, connect: DefaultConnectTimeout, read: DefaultReadTimeout},
		{name: "not a mapping", raw: []any{1}, wantErr: "extra must be a mapping"},
		{name: "bad read timeout", raw: map[string]any{"read_timeout": "soon"}, wantErr: "extra.read_timeout"},
		{name: "negative connect timeout", raw: map[string]any{"connect_timeout": -1}, wantErr: "extra.connect_timeout"},
		{name: "proxy not a string", raw: map[string]any{"proxy": 8080}, wantErr: "extra.proxy must be a URL string"},
		{name: "proxy not a URL", raw: map[string]any{"proxy": "proxy"}, wantErr: "extra.proxy is not a URL"},
		{name: "proxy scheme", raw: map[string]any{"proxy": "gopher://x:70"}, wantErr: `scheme "gopher"`},
	}
	req, _ := http.NewRequest(http.MethodGet, "https://api.example.com/v1", nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := ParseExtra(tt.raw)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if o.ConnectTimeout != tt.connect || o.ReadTimeout != tt.read {
				t.Fatalf("timeouts %v %v", o.ConnectTimeout, o.ReadTimeout)
			}
			if o.Proxy == nil {
				t.Fatal("no proxy function")
			}
			if tt.proxy == "" {
				return
			}
			u, err := o.Proxy(req)
			if err != nil || u == nil || u.String() != tt.proxy {
				t.Fatalf("proxy %v %v, want %s", u, err, tt.proxy)
			}
		})
	}
}

func TestSeconds(t *testing.T) {
	tests := []struct {
		in      any
		want    time.Duration
		wantErr bool
	}{
		{nil, 7 * time.Second, false},
		{0.0, 7 * time.Second, false},
		{10.0, 10 * time.Second, false},
		{float32(0.5), 500 * time.Millisecond, false},
		{0.25, 250 * time.Millisecond, false},
		{30, 30 * time.Second, false},
		{int64(3), 3 * time.Second, false},
		{"45", 45 * time.Second, false},
		{" 1m30s ", 90 * time.Second, false},
		{"0", 7 * time.Second, false},
		{"soon", 0, true},
		{-1.0, 0, true},
		{1e8, 0, true},
		{true, 0, true},
	}
	for _, tt := range tests {
		got, err := Seconds(tt.in, 7*time.Second)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("Seconds(%v) = %v, %v", tt.in, got, err)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		header string
		want   time.Duration
	}{
		{"", 0},
		{"20", 20 * time.Second},
		{" 3 ", 3 * time.Second},
		{"1.5", 1500 * time.Millisecond},
		{"0", 0},
		{"-5", 0},
		{"9999999", 0},
		{"soon", 0},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0},
		{"Sat, 01 Mar 2025 12:00:30 GMT", 30 * time.Second},
	}
	for _, tt := range tests {
		h := http.Header{}
		if tt.header != "" {
			h.Set("Retry-After", tt.header)
		}
		if got := RetryAfter(h, now); got != tt.want {
			t.Errorf("RetryAfter(%q) = %v, want %v", tt.header, got, tt.want)
		}
	}
}

func TestKindForStatus(t *testing.T) {
	tests := []struct {
		status int
		want   error
	}{
		{400, sdk.ErrInvalidArgument},
		{401, sdk.ErrUnauthenticated},
		{402, sdk.ErrInvalidArgument},
		{403, sdk.ErrPermissionDenied},
		{404, sdk.ErrNotFound},
		{408, sdk.ErrUnavailable},
		{413, sdk.ErrInvalidArgument},
		{422, sdk.ErrInvalidArgument},
		{429, sdk.ErrRateLimited},
		{500, sdk.ErrUnavailable},
		{502, sdk.ErrUnavailable},
		{503, sdk.ErrUnavailable},
		{529, sdk.ErrUnavailable},
		{200, sdk.ErrBadResponse},
		{302, sdk.ErrBadResponse},
	}
	for _, tt := range tests {
		if got := KindForStatus(tt.status); got != tt.want {
			t.Errorf("KindForStatus(%d) = %v, want %v", tt.status, got, tt.want)
		}
	}
}

func TestStatusText(t *testing.T) {
	tests := []struct {
		code   int
		status string
		want   string
	}{
		{429, "429 Too Many Requests", "429 Too Many Requests"},
		{529, "529 Overloaded", "529 Overloaded"},
		{599, "599", "599"},
	}
	for _, tt := range tests {
		if got := StatusText(&http.Response{StatusCode: tt.code, Status: tt.status}); got != tt.want {
			t.Errorf("StatusText(%d) = %q, want %q", tt.code, got, tt.want)
		}
	}
}

func TestOneLineAndQuote(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"a\n  b\tc ", 100, "a b c"},
		{"héllo wörld", 2, "h…"},
		{"héllo wörld", 3, "hé…"},
		{"short", 5, "short"},
	}
	for _, tt := range tests {
		if got := OneLine(tt.in, tt.max); got != tt.want {
			t.Errorf("OneLine(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
	}
	if got := Quote([]byte("a\"b\n")); got != `"a\"b\n"` {
		t.Errorf("Quote = %s", got)
	}
	long := strings.Repeat("x", 199) + "é" + strings.Repeat("y", 50)
	if got := Quote([]byte(long)); got != `"`+strings.Repeat("x", 199)+`"…` {
		t.Errorf("Quote(long) = %s", got)
	}
}

func TestLineReader(t *testing.T) {
	big := strings.Repeat("z", 100<<10)
	tests := []struct {
		name  string
		in    string
		lines []string
		err   error
	}{
		{"LF", "a\nb\n", []string{"a", "b", ""}, io.EOF},
		{"CRLF", "a\r\n\r\nb\r\n", []string{"a", "", "b", ""}, io.EOF},
		{"last line unterminated", "a\nlast", []string{"a", "last"}, io.EOF},
		{"empty", "", []string{""}, io.EOF},
		{"a line longer than the buffer", "x\n" + big + "\ny", []string{"x", big, "y"}, io.EOF},
		{"a line too long", strings.Repeat("q", 16<<20+1) + "\n", nil, ErrLineTooLong},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lr := NewLineReader(strings.NewReader(tt.in))
			var got []string
			for {
				line, err := lr.Next()
				if err != nil && !errors.Is(err, io.EOF) {
					if !errors.Is(err, tt.err) {
						t.Fatalf("err = %v, want %v", err, tt.err)
					}
					return
				}
				got = append(got, string(line))
				if err != nil {
					break
				}
			}
			if tt.err != io.EOF || len(got) != len(tt.lines) {
				t.Fatalf("%d lines, want %d (err %v)", len(got), len(tt.lines), tt.err)
			}
			for i := range got {
				if got[i] != tt.lines[i] {
					t.Fatalf("line %d = %.40q, want %.40q", i, got[i], tt.lines[i])
				}
			}
		})
	}
}

const key = "sk-test-SECRET-0123456789"

func TestNewRejectsBadBases(t *testing.T) {
	tests := []struct {
		base string
		want string
	}{
		{"localhost:11434", `work: api_base "localhost:11434" is not an http:// or https:// URL`},
		{"ftp://u:hunter2@host/v1", `work: api_base "ftp://u:xxxxx@host/v1" is not an http:// or https:// URL`},
		{"http://", `work: api_base "http:" is not an http:// or https:// URL`},
		{"http://h/%zz", `work: api_base "http://h/%zz" is not an http:// or https:// URL`},
	}
	for _, tt := range tests {
		_, err := New("work", tt.base, key, Options{})
		if !errors.Is(err, sdk.ErrInvalidArgument) || err.Error() != tt.want {
			t.Errorf("New(%q) = %v, want %s", tt.base, err, tt.want)
		}
	}
	c, err := New("work", " https://u:pw@api.example.com/v1/ ", key, Options{})
	if err != nil || c.Base != "https://u:pw@api.example.com/v1" || c.BaseForHumans != "https://u:xxxxx@api.example.com/v1" {
		t.Fatalf("%+v %v", c, err)
	}
}

func TestFailScrubsTheKey(t *testing.T) {
	tests := []struct {
		key, msg, want string
	}{
		{key, "bad key " + key + " (twice: " + key + ")", "work: bad key [redacted] (twice: [redacted])"},
		{"abc", "abc is too short to mask", "work: abc is too short to mask"},
		{"k/ey+1", "GET /v1?key=k%2Fey%2B1 and /v1/k%2Fey+1 failed", "work: GET /v1?key=[redacted] and /v1/[redacted] failed"},
		{"", "no key", "work: no key"},
	}
	for _, tt := range tests {
		c, err := New("work", "http://127.0.0.1:1", tt.key, Options{})
		if err != nil {
			t.Fatal(err)
		}
		err = c.Fail(sdk.ErrUnauthenticated, "%s", tt.msg)
		if !errors.Is(err, sdk.ErrUnauthenticated) || err.Error() != tt.want {
			t.Errorf("Fail = %v, want %s", err, tt.want)
		}
		if got := c.Scrub(tt.msg); got != strings.TrimPrefix(tt.want, "work: ") {
			t.Errorf("Scrub = %s", got)
		}
	}
}

// stallServer sends the headers and first if headers is set, then stays
// silent until the client goes or the test ends. arrived receives a value
// once it has answered what it will.
func stallServer(t *testing.T, first string, headers bool) (base string, arrived <-chan struct{}) {
	release := make(chan struct{})
	ch := make(chan struct{}, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if headers {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(200)
			_, _ = io.WriteString(w, first)
			w.(http.Flusher).Flush()
		}
		ch <- struct{}{}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	return srv.URL, ch
}

func TestReadTimeout(t *testing.T) {
	for _, headers := range []bool{true, false} {
		base, _ := stallServer(t, "data: first\n\n", headers)
		c, err := New(`test client "x"`, base, key, Options{ReadTimeout: 200 * time.Millisecond, ConnectTimeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		x, err := c.Do(context.Background(), http.MethodGet, base, nil, http.Header{})
		if err == nil {
			var data []byte
			data, err = x.ReadAll(1 << 20)
			x.Close()
			if string(data) != "" {
				t.Fatalf("data %q", data)
			}
		}
		want := `test client "x": no data from ` + base + ` for 200ms (extra.read_timeout)`
		if !errors.Is(err, sdk.ErrUnavailable) || err.Error() != want {
			t.Fatalf("headers %v: err = %v, want %s", headers, err, want)
		}
		if d := time.Since(start); d < 200*time.Millisecond || d > 5*time.Second {
			t.Fatalf("gave up after %v", d)
		}
	}
}

func TestReadsReArmTheWatchdog(t *testing.T) {
	// A reply that trickles in for longer than the read timeout, but never
	// stays silent that long, is read whole.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for i := range 6 {
			_, _ = io.WriteString(w, "tick\n")
			w.(http.Flusher).Flush()
			if i < 5 {
				time.Sleep(100 * time.Millisecond) // slow, not silent
			}
		}
	}))
	t.Cleanup(srv.Close)
	c, err := New("c", srv.URL, "", Options{ReadTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	x, err := c.Do(context.Background(), http.MethodGet, srv.URL, nil, http.Header{})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	data, err := x.ReadAll(1 << 20)
	if err != nil || string(data) != strings.Repeat("tick\n", 6) {
		t.Fatalf("%q %v", data, err)
	}
}

func TestCancel(t *testing.T) {
	for _, headers := range []bool{true, false} {
		base, arrived := stallServer(t, "partial", headers)
		c, err := New(`c "x"`, base, key, Options{ReadTimeout: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			x, err := c.Do(ctx, http.MethodPost, base, []byte(`{}`), http.Header{})
			if err == nil {
				_, err = x.ReadAll(1 << 20)
				x.Close()
			}
			done <- err
		}()
		<-arrived
		cancelled := time.Now()
		cancel()
		if err := providertest.WaitCancelled(t, cancelled, done); !strings.HasPrefix(err.Error(), `c "x": `) {
			t.Fatalf("err = %v", err)
		}
	}
}

func TestBodyEndedEarly(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100")
		_, _ = io.WriteString(w, `{"partial":`)
	}))
	t.Cleanup(srv.Close)
	c, _ := New("c", srv.URL, "", Options{ReadTimeout: 5 * time.Second})
	x, err := c.Do(context.Background(), http.MethodGet, srv.URL, nil, http.Header{})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	_, err = x.ReadAll(1 << 20)
	if !errors.Is(err, sdk.ErrBadResponse) || err.Error() != "c: the reply from "+srv.URL+" ended early" {
		t.Fatalf("err = %v", err)
	}
}

func TestReadAllToAppends(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, strings.Repeat("b", 3000))
	}))
	t.Cleanup(srv.Close)
	c, _ := New("c", srv.URL, "", Options{ReadTimeout: 5 * time.Second})
	for _, limit := range []int64{1 << 20, 1000} {
		x, err := c.Do(context.Background(), http.MethodGet, srv.URL, nil, http.Header{})
		if err != nil {
			t.Fatal(err)
		}
		data, err := x.ReadAllTo([]byte("aa"), limit)
		x.Close()
		want := "aa" + strings.Repeat("b", int(min(limit, 3000)))
		if err != nil || string(data) != want {
			t.Fatalf("limit %d: %d bytes, %v", limit, len(data), err)
		}
	}
}

func TestUnreachable(t *testing.T) {
	base := providertest.Unreachable(t) + "/v1"
	c, _ := New(`c "x"`, base, key, Options{ConnectTimeout: time.Second, ReadTimeout: time.Second})
	_, err := c.Do(context.Background(), http.MethodGet, base+"/models?key="+key, nil, http.Header{})
	if !errors.Is(err, sdk.ErrUnavailable) || !strings.HasPrefix(err.Error(), `c "x": cannot reach `+base+": ") ||
		strings.Contains(err.Error(), key) {
		t.Fatalf("err = %v", err)
	}
}

func TestProxyAndConnectionReuse(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	proxy, conns := providertest.CountingServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.String()+" "+r.Header.Get("X-Test"))
		mu.Unlock()
		_, _ = io.WriteString(w, "ok")
	}))
	o, err := ParseExtra(map[string]any{"proxy": proxy})
	if err != nil {
		t.Fatal(err)
	}
	c, err := New("c", "http://upstream.invalid/v1", "", o)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		x, err := c.Do(context.Background(), http.MethodGet, c.Base+"/models", nil, http.Header{"X-Test": {"1"}})
		if err != nil {
			t.Fatal(err)
		}
		x.Drain()
		x.Close()
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 3 || seen[0] != "GET http://upstream.invalid/v1/models 1" || conns() != 1 {
		t.Fatalf("proxy saw %v over %d connections", seen, conns())
	}
}

type closer struct{ closed int }

func (c *closer) Close() { c.closed++ }

func TestClientsReplaceAndClose(t *testing.T) {
	cs := Clients[*closer]{Label: func(n string) string { return "x client " + strconv.Quote(n) }}
	if _, err := cs.Get("a"); !errors.Is(err, sdk.ErrFailedPrecondition) || err.Error() != `x client "a" is not configured` {
		t.Fatalf("err = %v", err)
	}
	first, second := &closer{}, &closer{}
	cs.Put("a", first)
	cs.Put("a", second)
	got, err := cs.Get("a")
	if err != nil || got != second || first.closed != 1 || second.closed != 0 {
		t.Fatalf("got %p (want %p), closed %d/%d, err %v", got, second, first.closed, second.closed, err)
	}
}

func TestStatusError(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		header []string
		kind   error
		msg    string
		retry  time.Duration
	}{
		{"openai-style body", 401, `{"error":{"message":"Incorrect API key sk-secret1234"}}`, nil, sdk.ErrUnauthenticated, `c "x": 401 Unauthorized: Incorrect API key [redacted]`, 0},
		{"error string", 404, `{"error":"no such model"}`, nil, sdk.ErrNotFound, `c "x": 404 Not Found: no such model`, 0},
		{"message", 400, `{"message":"bad field"}`, nil, sdk.ErrInvalidArgument, `c "x": 400 Bad Request: bad field`, 0},
		{"detail", 422, `{"detail":[{"msg":"x"}]}`, nil, sdk.ErrInvalidArgument, `c "x": 422 Unprocessable Entity: [{"msg":"x"}]`, 0},
		{"text body", 503, "  upstream\n down  ", nil, sdk.ErrUnavailable, `c "x": 503 Service Unavailable: upstream down`, 0},
		{"html body", 502, "<html>bad gateway</html>", nil, sdk.ErrUnavailable, `c "x": 502 Bad Gateway`, 0},
		{"rate limited with Retry-After", 429, `{"error":{"message":"slow down"}}`, []string{"Retry-After", "7"}, sdk.ErrRateLimited, `c "x": 429 Too Many Requests: slow down (retry after 7s)`, 7 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := providertest.RawServer(t, tt.status, "application/json", tt.body, tt.header...)
			c, err := New(`c "x"`, base, "sk-secret1234", Options{ConnectTimeout: time.Second, ReadTimeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			x, err := c.Do(context.Background(), http.MethodGet, c.Base+"/v1", nil, http.Header{})
			if err != nil {
				t.Fatal(err)
			}
			defer x.Close()
			err = c.StatusError(x, 0)
			providertest.WantError(t, err, tt.kind)
			if err.Error() != tt.msg {
				t.Errorf("message %q, want %q", err.Error(), tt.msg)
			}
			providertest.RetryAfter(t, err, tt.retry, tt.retry)
		})
	}
}

func TestSSE(t *testing.T) {
	stream := ": comment\n" +
		"event: message_start\ndata: {\"a\":1}\n\n" +
		"data: first\r\ndata: second\r\nid: 7\r\n\r\n" +
		"event: ping\n\n" + // no data: not an event
		"data: [DONE]\n\n" +
		"data: unterminated"
	sse := NewSSE(strings.NewReader(stream))
	type ev struct{ name, data, id string }
	var got []ev
	for {
		e, err := sse.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ev{e.Name, string(e.Data), e.ID})
	}
	want := []ev{{"message_start", `{"a":1}`, ""}, {"", "first\nsecond", "7"}, {"", "[DONE]", ""}, {"", "unterminated", ""}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// readEvents reads every event of r, and the error that ended them.
func readEvents(r io.Reader) ([][2]string, error) {
	sse := NewSSE(r)
	var got [][2]string
	for {
		e, err := sse.Next()
		if err != nil {
			return got, err
		}
		got = append(got, [2]string{e.Name, string(e.Data)})
	}
}

func TestSSEBareJSONLineIsAnEventOfItsOwn(t *testing.T) {
	tests := []struct {
		name, stream string
		want         [][2]string
	}{
		{"between events", "event: a\ndata: 1\n\n{\"error\":\"x\"}\n\nevent: b\ndata: 2\n\n",
			[][2]string{{"a", "1"}, {"", `{"error":"x"}`}, {"b", "2"}}},
		{"ends a pending event", "event: a\ndata: 1\n{\"error\":\"x\"}\ndata: 2\n\n",
			[][2]string{{"a", "1"}, {"", `{"error":"x"}`}, {"", "2"}}},
		{"drops the name before it", "event: error\n{\"error\":\"x\"}\ndata: 2\n\n",
			[][2]string{{"", `{"error":"x"}`}, {"", "2"}}},
		{"the whole body", `{"type":"error"}`,
			[][2]string{{"", `{"type":"error"}`}}},
		{"after an unterminated event", "data: 1\n{\"e\":1}",
			[][2]string{{"", "1"}, {"", `{"e":1}`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readEvents(strings.NewReader(tt.stream))
			if err != io.EOF {
				t.Fatalf("err = %v, want io.EOF", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestSSEBodyCutShortReturnsItsLastEventThenTheError(t *testing.T) {
	body := io.MultiReader(strings.NewReader("data: 1\n\ndata: 2\n"), iotest.ErrReader(io.ErrUnexpectedEOF))
	got, err := readEvents(body)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err = %v, want io.ErrUnexpectedEOF", err)
	}
	if want := [][2]string{{"", "1"}, {"", "2"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	// Another failure loses the event being read: it may be incomplete.
	broken := errors.New("connection reset")
	got, err = readEvents(io.MultiReader(strings.NewReader("data: 1\n\ndata: 2\n"), iotest.ErrReader(broken)))
	if !errors.Is(err, broken) || !reflect.DeepEqual(got, [][2]string{{"", "1"}}) {
		t.Errorf("got %q, %v", got, err)
	}
}

// BenchmarkSSE reads a stream of 2000 small events, as a provider's reply
// of 2000 chunks: the per-event cost every streamed token pays.
func BenchmarkSSE(b *testing.B) {
	var sb strings.Builder
	for range 2000 {
		sb.WriteString("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"token \"}}\n\n")
	}
	stream := sb.String()
	b.ReportAllocs()
	for b.Loop() {
		sse := NewSSE(strings.NewReader(stream))
		n := 0
		for {
			if _, err := sse.Next(); err != nil {
				break
			}
			n++
		}
		if n != 2000 {
			b.Fatalf("%d events", n)
		}
	}
}

func TestBodyLine(t *testing.T) {
	tests := []struct{ body, want string }{
		{"", ""},
		{"<html><head><title>x</title></head><body><h1>502 Bad Gateway</h1><hr><center>nginx</center></body></html>", "502 Bad Gateway"},
		{"\n\nupstream connect error\nreset reason: overflow\n", "upstream connect error"},
		{`{"error":"TypeError","stack":"at foo"}`, `{"error":"TypeError","stack":"at foo"}`},
		{"<p>Tom &amp; Jerry</p>", "Tom & Jerry"},
	}
	for _, tt := range tests {
		if got := bodyLine([]byte(tt.body), 200, nil); got != tt.want {
			t.Errorf("bodyLine(%q) = %q, want %q", tt.body, got, tt.want)
		}
	}
}
