package openai_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coyote-cli/coyote/internal/fakellm"
	"github.com/coyote-cli/coyote/plugins/provider-openai/openai"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/plugintest"
	"github.com/coyote-cli/coyote/sdk/provider"
	"github.com/coyote-cli/coyote/sdk/provider/providertest"
)

// kernelSide is the kernel's client of the plugin, with the optional
// interfaces.
type kernelSide interface {
	provider.Provider
	provider.Embedder
	provider.Reranker
}

// servedFull is served, as a kernelSide.
func servedFull(t testing.TB, base string, cfg provider.ClientConfig) kernelSide {
	t.Helper()
	return plugin.Serve(t, base, cfg).(kernelSide)
}

// bounded is a context that fails the test instead of hanging it.
func bounded(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestDescribeAnnouncesEmbeddingsAndRerank(t *testing.T) {
	d := plugintest.Serve(t, plugin.Info, provider.Plugin(openai.New())).Describe(t)
	for _, want := range []string{provider.CapEmbeddings, provider.CapRerank} {
		if !slices.Contains(d.Capabilities, want) {
			t.Fatalf("capabilities %v lack %s", d.Capabilities, want)
		}
	}
}

func TestEmbed(t *testing.T) {
	inputs := []string{"first text", "second", "Grüße 🙂", ""}
	tests := []struct {
		name      string
		cfg       provider.ClientConfig
		embedDims int
		req       provider.EmbedRequest
		dims      int
		// body is the request body without "input".
		body string
	}{
		{"openai", provider.ClientConfig{Type: openai.TypeOpenAI}, 0,
			provider.EmbedRequest{Model: "text-embedding-3-small"}, 384,
			`{"model":"text-embedding-3-small","encoding_format":"float"}`},
		{"dimensions", provider.ClientConfig{}, 0,
			provider.EmbedRequest{Model: "e", Dimensions: 256, InputType: provider.InputQuery}, 256,
			`{"model":"e","encoding_format":"float","dimensions":256}`},
		{"server's size", provider.ClientConfig{}, 1024,
			provider.EmbedRequest{Model: "e"}, 1024,
			`{"model":"e","encoding_format":"float"}`},
		{"jina query", provider.ClientConfig{Name: "jina"}, 0,
			provider.EmbedRequest{Model: "jina-embeddings-v3", InputType: provider.InputQuery, Dimensions: 64}, 64,
			`{"model":"jina-embeddings-v3","dimensions":64,"task":"retrieval.query"}`},
		{"jina document", provider.ClientConfig{Name: "jina"}, 0,
			provider.EmbedRequest{Model: "jina-embeddings-v3", InputType: provider.InputDocument}, 384,
			`{"model":"jina-embeddings-v3","task":"retrieval.passage"}`},
		{"jina without input type", provider.ClientConfig{Name: "jina"}, 0,
			provider.EmbedRequest{Model: "jina-embeddings-v3"}, 384,
			`{"model":"jina-embeddings-v3"}`},
		{"voyage document", provider.ClientConfig{Name: "voyageai"}, 0,
			provider.EmbedRequest{Model: "voyage-3", InputType: provider.InputDocument, Dimensions: 512}, 512,
			`{"model":"voyage-3","input_type":"document","output_dimension":512}`},
		{"voyage query", provider.ClientConfig{Name: "voyageai"}, 0,
			provider.EmbedRequest{Model: "voyage-3", InputType: provider.InputQuery}, 384,
			`{"model":"voyage-3","input_type":"query"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakellm.OpenAI{APIKey: testKey, EmbedDims: tt.embedDims}
			tt.cfg.APIKey = testKey
			p := servedFull(t, fakellm.StartOpenAI(t, f), tt.cfg)
			tt.req.Client = tt.cfg.Name
			if tt.req.Client == "" {
				tt.req.Client = "test"
			}
			tt.req.Inputs = inputs
			resp, err := p.Embed(bounded(t), &tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Vectors) != len(inputs) {
				t.Fatalf("%d vectors", len(resp.Vectors))
			}
			for i, in := range inputs {
				if !slices.Equal(resp.Vectors[i], fakellm.FakeVector(in, tt.dims)) {
					t.Fatalf("vector %d (%d values) is not FakeVector(%q, %d)", i, len(resp.Vectors[i]), in, tt.dims)
				}
			}
			if resp.Usage == nil || resp.Usage.InputTokens != 8 {
				t.Fatalf("usage %+v", resp.Usage)
			}
			calls := f.EmbedRequests()
			if len(calls) != 1 || !slices.Equal(calls[0].Inputs, inputs) {
				t.Fatalf("calls %+v", calls)
			}
			if got := calls[0].Header.Get("Authorization"); got != "Bearer "+testKey {
				t.Fatalf("Authorization %q", got)
			}
			raw := calls[0].Raw
			delete(raw, "input")
			providertest.JSONEqual(t, raw, tt.body)
		})
	}
}

func TestEmbedOrdersByIndexAndReadsBase64(t *testing.T) {
	// A server free to answer in any order and in base64.
	body := `{"object":"list","data":[` +
		`{"object":"embedding","index":2,"embedding":"AAAAPwAAgL8="},` +
		`{"object":"embedding","index":0,"embedding":[0.25,-0.5]},` +
		`{"object":"embedding","index":1,"embedding":[1e-3,2E2]}],` +
		`"model":"m","usage":{"prompt_tokens":9,"total_tokens":9}}`
	p := servedFull(t, providertest.RawServer(t, 200, "application/json", body)+"/v1", provider.ClientConfig{})
	resp, err := p.Embed(bounded(t), &provider.EmbedRequest{Client: "test", Model: "m", Inputs: []string{"a", "b", "c"}})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float32{{0.25, -0.5}, {0.001, 200}, {0.5, -1}}
	for i := range want {
		if !slices.Equal(resp.Vectors[i], want[i]) {
			t.Fatalf("vectors %v, want %v", resp.Vectors, want)
		}
	}
	if resp.Usage.InputTokens != 9 {
		t.Fatalf("usage %+v", resp.Usage)
	}
}

func TestEmbedWithoutInputsSendsNothing(t *testing.T) {
	f := &fakellm.OpenAI{}
	p := servedFull(t, fakellm.StartOpenAI(t, f), provider.ClientConfig{})
	resp, err := p.Embed(bounded(t), &provider.EmbedRequest{Client: "test", Model: "m"})
	if err != nil || len(resp.Vectors) != 0 {
		t.Fatalf("%+v %v", resp, err)
	}
	rr, err := p.Rerank(bounded(t), &provider.RerankRequest{Client: "test", Model: "m", Query: "q"})
	if err != nil || len(rr.Results) != 0 {
		t.Fatalf("%+v %v", rr, err)
	}
	if len(f.EmbedRequests())+len(f.RerankRequests()) != 0 {
		t.Fatal("an empty request reached the server")
	}
}

func TestEmbedAndRerankErrors(t *testing.T) {
	tests := []struct {
		name  string
		reply fakellm.Reply
		want  error
		// message is the end of the error text, after the client label.
		embedMsg, rerankMsg string
	}{
		{"unknown model", fakellm.Reply{Status: 404, ErrorMessage: "model x is unknown"}, sdk.ErrNotFound,
			`404 Not Found: model "x" not found (or http://127.0.0.1:PORT/v1 has no /embeddings endpoint): model x is unknown`,
			`404 Not Found: model "x" not found (or http://127.0.0.1:PORT/v1 has no /rerank endpoint): model x is unknown`},
		{"key echoed", fakellm.Reply{Status: 401, ErrorMessage: "bad key " + testKey}, sdk.ErrUnauthenticated,
			"401 Unauthorized: bad key [redacted]", "401 Unauthorized: bad key [redacted]"},
		{"forbidden", fakellm.Reply{Status: 403}, sdk.ErrPermissionDenied,
			"403 Forbidden: You are not allowed to use this model.", "403 Forbidden: You are not allowed to use this model."},
		{"too long", fakellm.Reply{Status: 400, ErrorMessage: "input too long"}, sdk.ErrInvalidArgument,
			"400 Bad Request: input too long", "400 Bad Request: input too long"},
		{"rate limited", fakellm.Reply{Status: 429, RetryAfter: "3"}, sdk.ErrRateLimited,
			"429 Too Many Requests: Rate limit reached for requests. Please try again later. (retry after 3s)",
			"429 Too Many Requests: Rate limit reached for requests. Please try again later. (retry after 3s)"},
		{"server error", fakellm.Reply{StreamError: "kaput"}, sdk.ErrUnavailable,
			"500 Internal Server Error: kaput", "500 Internal Server Error: kaput"},
		{"malformed", fakellm.Reply{Malformed: true}, sdk.ErrBadResponse,
			`malformed embeddings from http://127.0.0.1:PORT/v1 (the JSON ends where a string should be): "{\"data\":[{\"index\":0,\n"`,
			`malformed rerank reply from http://127.0.0.1:PORT/v1 (unexpected end of JSON input): "{\"data\":[{\"index\":0,\n"`},
		{"truncated", fakellm.Reply{Truncate: true}, sdk.ErrBadResponse,
			"the reply from http://127.0.0.1:PORT/v1 ended early", "the reply from http://127.0.0.1:PORT/v1 ended early"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakellm.OpenAI{
				RespondEmbed:  func(*fakellm.EmbedCall) fakellm.Reply { return tt.reply },
				RespondRerank: func(*fakellm.RerankCall) fakellm.Reply { return tt.reply },
			}
			base := fakellm.StartOpenAI(t, f)
			port := strings.TrimSuffix(strings.TrimPrefix(base, "http://127.0.0.1:"), "/v1")
			p := servedFull(t, base, provider.ClientConfig{Name: "work", APIKey: testKey})
			_, err := p.Embed(bounded(t), &provider.EmbedRequest{Client: "work", Model: "x", Inputs: []string{"a", "b"}})
			check := func(err error, msg string) {
				t.Helper()
				want := `openai-compatible client "work": ` + strings.ReplaceAll(msg, "PORT", port)
				if !errors.Is(err, tt.want) || err.Error() != want {
					t.Fatalf("err = %v\nwant %v: %s", err, tt.want, want)
				}
			}
			check(err, tt.embedMsg)
			_, err = p.Rerank(bounded(t), &provider.RerankRequest{Client: "work", Model: "x", Query: "q", Documents: []string{"a", "b"}})
			check(err, tt.rerankMsg)
		})
	}
}

func TestEmbedAndRerankInvalidRequests(t *testing.T) {
	f := &fakellm.OpenAI{}
	base := fakellm.StartOpenAI(t, f)
	p := servedFull(t, base, provider.ClientConfig{})
	plugin.Configure(t, p, base, provider.ClientConfig{Name: "real", Type: openai.TypeOpenAI})
	ctx := bounded(t)
	tests := []struct {
		name string
		call func() error
		want error
		msg  string
	}{
		{"embed without a model", func() error {
			_, err := p.Embed(ctx, &provider.EmbedRequest{Client: "test", Inputs: []string{"a"}})
			return err
		}, sdk.ErrInvalidArgument, "no model"},
		{"unknown input type", func() error {
			_, err := p.Embed(ctx, &provider.EmbedRequest{Client: "test", Model: "m", Inputs: []string{"a"}, InputType: "passage"})
			return err
		}, sdk.ErrInvalidArgument, `input type "passage"`},
		{"negative dimensions", func() error {
			_, err := p.Embed(ctx, &provider.EmbedRequest{Client: "test", Model: "m", Inputs: []string{"a"}, Dimensions: -1})
			return err
		}, sdk.ErrInvalidArgument, "dimensions"},
		{"embed for an unknown client", func() error {
			_, err := p.Embed(ctx, &provider.EmbedRequest{Client: "nope", Model: "m", Inputs: []string{"a"}})
			return err
		}, sdk.ErrFailedPrecondition, `client "nope" is not configured`},
		{"rerank without a model", func() error {
			_, err := p.Rerank(ctx, &provider.RerankRequest{Client: "test", Query: "q", Documents: []string{"a"}})
			return err
		}, sdk.ErrInvalidArgument, "no model"},
		{"negative top n", func() error {
			_, err := p.Rerank(ctx, &provider.RerankRequest{Client: "test", Model: "m", Query: "q", Documents: []string{"a"}, TopN: -2})
			return err
		}, sdk.ErrInvalidArgument, "top -2"},
		{"rerank at OpenAI", func() error {
			_, err := p.Rerank(ctx, &provider.RerankRequest{Client: "real", Model: "m", Query: "q", Documents: []string{"a"}})
			return err
		}, sdk.ErrUnsupported, `openai client "real": the OpenAI API cannot rerank`},
		{"rerank for an unknown client", func() error {
			_, err := p.Rerank(ctx, &provider.RerankRequest{Client: "nope", Model: "m", Query: "q", Documents: []string{"a"}})
			return err
		}, sdk.ErrFailedPrecondition, `client "nope" is not configured`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			providertest.WantError(t, tt.call(), tt.want, tt.msg)
		})
	}
	if n := len(f.EmbedRequests()) + len(f.RerankRequests()); n != 0 {
		t.Fatalf("%d invalid requests reached the server", n)
	}
}

func TestRerank(t *testing.T) {
	docs := []string{"the cat sat on the mat", "dogs bark", "a cat naps", "stock prices fell", "kittens", "cat food"}
	tests := []struct {
		name string
		cfg  provider.ClientConfig
		topN int
		body string
	}{
		{"all", provider.ClientConfig{}, 0, `{"model":"rr","query":"cats"}`},
		{"top 2", provider.ClientConfig{}, 2, `{"model":"rr","query":"cats","top_n":2}`},
		{"jina", provider.ClientConfig{Name: "jina"}, 3, `{"model":"rr","query":"cats","top_n":3,"return_documents":false}`},
		{"voyage", provider.ClientConfig{Name: "voyageai"}, 4, `{"model":"rr","query":"cats","top_k":4}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakellm.OpenAI{APIKey: testKey}
			tt.cfg.APIKey = testKey
			p := servedFull(t, fakellm.StartOpenAI(t, f), tt.cfg)
			client := tt.cfg.Name
			if client == "" {
				client = "test"
			}
			resp, err := p.Rerank(bounded(t), &provider.RerankRequest{Client: client, Model: "rr", Query: "cats", Documents: docs, TopN: tt.topN})
			if err != nil {
				t.Fatal(err)
			}
			want := make([]provider.RerankResult, len(docs))
			for i, d := range docs {
				want[i] = provider.RerankResult{Index: i, Score: fakellm.FakeScore("cats", d, fakellm.DefaultEmbedDims)}
			}
			slices.SortStableFunc(want, func(a, b provider.RerankResult) int {
				switch {
				case a.Score > b.Score:
					return -1
				case a.Score < b.Score:
					return 1
				}
				return 0
			})
			if tt.topN > 0 {
				want = want[:tt.topN]
			}
			if !slices.Equal(resp.Results, want) {
				t.Fatalf("results %v\nwant %v", resp.Results, want)
			}
			calls := f.RerankRequests()
			if len(calls) != 1 || !slices.Equal(calls[0].Documents, docs) || calls[0].Header.Get("Authorization") != "Bearer "+testKey {
				t.Fatalf("calls %+v", calls)
			}
			raw := calls[0].Raw
			delete(raw, "documents")
			providertest.JSONEqual(t, raw, tt.body)
		})
	}
}

func TestRerankSortsAndCutsWhatTheServerSends(t *testing.T) {
	tests := []struct {
		name string
		body string
		topN int
		want []provider.RerankResult
	}{
		{"unsorted results with documents", `{"results":[{"index":0,"relevance_score":0.1,"document":{"text":"a"}},{"index":2,"relevance_score":0.7},{"index":1,"relevance_score":0.7}]}`, 0,
			[]provider.RerankResult{{Index: 1, Score: 0.7}, {Index: 2, Score: 0.7}, {Index: 0, Score: 0.1}}},
		{"more than top n", `{"results":[{"index":0,"relevance_score":0.1},{"index":1,"relevance_score":0.9},{"index":2,"relevance_score":0.5}]}`, 2,
			[]provider.RerankResult{{Index: 1, Score: 0.9}, {Index: 2, Score: 0.5}}},
		{"Voyage's data", `{"object":"list","data":[{"relevance_score":0.3,"index":1},{"relevance_score":0.6,"index":0}],"model":"rerank-2"}`, 0,
			[]provider.RerankResult{{Index: 0, Score: 0.6}, {Index: 1, Score: 0.3}}},
		{"text-embeddings-inference", `[{"index":2,"score":-1.5},{"index":0,"score":4.25}]`, 0,
			[]provider.RerankResult{{Index: 0, Score: 4.25}, {Index: 2, Score: -1.5}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := servedFull(t, providertest.RawServer(t, 200, "application/json", tt.body)+"/v1", provider.ClientConfig{})
			resp, err := p.Rerank(bounded(t), &provider.RerankRequest{Client: "test", Model: "m", Query: "q", Documents: []string{"a", "b", "c"}, TopN: tt.topN})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(resp.Results, tt.want) {
				t.Fatalf("results %v, want %v", resp.Results, tt.want)
			}
		})
	}
}

func TestReplyErrorWithStatus200(t *testing.T) {
	body := `{"error":{"message":"You exceeded your current quota","type":"insufficient_quota"}}`
	p := servedFull(t, providertest.RawServer(t, 200, "application/json", body)+"/v1", provider.ClientConfig{})
	_, err := p.Embed(bounded(t), &provider.EmbedRequest{Client: "test", Model: "m", Inputs: []string{"a"}})
	if !errors.Is(err, sdk.ErrRateLimited) || !strings.Contains(err.Error(), "You exceeded your current quota") {
		t.Fatalf("embed: %v", err)
	}
	_, err = p.Rerank(bounded(t), &provider.RerankRequest{Client: "test", Model: "m", Query: "q", Documents: []string{"a"}})
	if !errors.Is(err, sdk.ErrRateLimited) || !strings.Contains(err.Error(), "You exceeded your current quota") {
		t.Fatalf("rerank: %v", err)
	}
}

func TestMaxTokensField(t *testing.T) {
	tests := []struct {
		typ, field, absent string
	}{
		{openai.TypeOpenAI, "max_completion_tokens", "max_tokens"},
		{openai.TypeOpenAICompatible, "max_tokens", "max_completion_tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			f, base := fake(t, fakellm.Reply{Text: "ok"})
			p := plugin.Serve(t, base, provider.ClientConfig{Type: tt.typ})
			if _, err := plugin.Chat(t, p, provider.ChatRequest{MaxOutputTokens: 77}); err != nil {
				t.Fatal(err)
			}
			if _, err := plugin.Chat(t, p, provider.ChatRequest{}); err != nil {
				t.Fatal(err)
			}
			reqs := f.Requests()
			raw := reqs[0].Raw
			if raw[tt.field] != 77.0 || raw[tt.absent] != nil {
				t.Fatalf("body %v", raw)
			}
			if raw := reqs[1].Raw; raw[tt.field] != nil || raw[tt.absent] != nil {
				t.Fatalf("a limit without MaxOutputTokens: %v", raw)
			}
		})
	}
}

// switchboard serves the fake under /v1 and records requests to /other.
type switchboard struct {
	f     *fakellm.OpenAI
	mu    sync.Mutex
	other []string
}

func (s *switchboard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if rest, ok := strings.CutPrefix(r.URL.Path, "/other"); ok {
		s.mu.Lock()
		s.other = append(s.other, r.Method+" "+rest+"?"+r.URL.RawQuery)
		s.mu.Unlock()
		r.URL.Path = "/v1" + rest
	}
	s.f.Handler().ServeHTTP(w, r)
}

func TestPatches(t *testing.T) {
	f := &fakellm.OpenAI{Respond: func(*fakellm.ChatRequest) fakellm.Reply { return fakellm.Reply{Text: "patched"} }}
	sb := &switchboard{f: f}
	srv := httptest.NewServer(sb)
	t.Cleanup(srv.Close)
	p := servedFull(t, srv.URL+"/v1", provider.ClientConfig{APIKey: testKey, Options: map[string]any{"organization_id": "org-1"}})
	patches := func(path string) []provider.RequestPatch {
		return []provider.RequestPatch{
			{Body: []byte(`{"temperature":0.5,"extra_body":{"a":1},"model":"first"}`), SetHeaders: map[string]string{"X-One": "1"}},
			{
				URL:           srv.URL + "/other" + path + "?api-version=2024",
				Body:          []byte(`{"model":"patched-model","extra_body":{"b":2},"encoding_format":null,"top_n":null,"stream_options":null}`),
				SetHeaders:    map[string]string{"X-Two": "2", "User-Agent": "patched"},
				DeleteHeaders: []string{"OpenAI-Organization"},
			},
		}
	}
	ctx := bounded(t)

	r, err := plugin.Chat(t, p, provider.ChatRequest{Model: "m", Stream: true, Patches: patches("/chat/completions"),
		Messages: []provider.Message{provider.TextMessage(provider.RoleUser, "hi")}})
	if err != nil || r.Text != "patched" {
		t.Fatalf("chat: %q %v", r.Text, err)
	}
	chatReq := f.Requests()[0]
	_, err = p.Embed(ctx, &provider.EmbedRequest{Client: "test", Model: "m", Inputs: []string{"x"}, Patches: patches("/embeddings")})
	if err != nil {
		t.Fatalf("embed: %v", err)
	}
	embedReq := f.EmbedRequests()[0]
	_, err = p.Rerank(ctx, &provider.RerankRequest{Client: "test", Model: "m", Query: "q", Documents: []string{"x"}, TopN: 1, Patches: patches("/rerank")})
	if err != nil {
		t.Fatalf("rerank: %v", err)
	}
	rerankReq := f.RerankRequests()[0]

	sb.mu.Lock()
	other := strings.Join(sb.other, " | ")
	sb.mu.Unlock()
	if other != "POST /chat/completions?api-version=2024 | POST /embeddings?api-version=2024 | POST /rerank?api-version=2024" {
		t.Fatalf("patched URLs: %s", other)
	}
	for name, h := range map[string]http.Header{"chat": chatReq.Header, "embed": embedReq.Header, "rerank": rerankReq.Header} {
		if h.Get("X-One") != "1" || h.Get("X-Two") != "2" || h.Get("User-Agent") != "patched" ||
			h.Get("OpenAI-Organization") != "" || h.Get("Authorization") != "Bearer "+testKey {
			t.Fatalf("%s headers %v", name, h)
		}
	}
	raw := chatReq.Raw
	delete(raw, "messages")
	providertest.JSONEqual(t, raw, `{"model":"patched-model","stream":true,"temperature":0.5,"extra_body":{"a":1,"b":2}}`)
	providertest.JSONEqual(t, embedReq.Raw, `{"model":"patched-model","input":["x"],"temperature":0.5,"extra_body":{"a":1,"b":2}}`)
	providertest.JSONEqual(t, rerankReq.Raw, `{"model":"patched-model","query":"q","documents":["x"],"temperature":0.5,"extra_body":{"a":1,"b":2}}`)
}

func TestBadPatch(t *testing.T) {
	f := &fakellm.OpenAI{}
	p := servedFull(t, fakellm.StartOpenAI(t, f), provider.ClientConfig{})
	bad := []provider.RequestPatch{{Body: []byte(`{nope`)}}
	ctx := bounded(t)
	errs := []error{
		p.Chat(ctx, &provider.ChatRequest{Client: "test", Model: "m", Patches: bad, Messages: []provider.Message{provider.TextMessage(provider.RoleUser, "hi")}},
			func(*provider.ChatEvent) error { return nil }),
	}
	_, err := p.Embed(ctx, &provider.EmbedRequest{Client: "test", Model: "m", Inputs: []string{"x"}, Patches: bad})
	errs = append(errs, err)
	_, err = p.Rerank(ctx, &provider.RerankRequest{Client: "test", Model: "m", Query: "q", Documents: []string{"x"}, Patches: bad})
	errs = append(errs, err)
	for _, err := range errs {
		if !errors.Is(err, sdk.ErrInvalidArgument) || !strings.HasPrefix(err.Error(), `openai-compatible client "test": patch 1: body is not JSON`) {
			t.Fatalf("err = %v", err)
		}
	}
	if len(f.Requests())+len(f.EmbedRequests())+len(f.RerankRequests()) != 0 {
		t.Fatal("a request with a bad patch was sent")
	}
}

func TestRetryAfterReachesTheKernel(t *testing.T) {
	date := time.Now().Add(90 * time.Second).UTC().Format(http.TimeFormat)
	tests := []struct {
		name       string
		status     int
		retryAfter string
		want       error
		// min and max bound the delay the kernel sees; 0 means none.
		min, max time.Duration
	}{
		{"429 seconds", 429, "20", sdk.ErrRateLimited, 20 * time.Second, 20 * time.Second},
		{"503 seconds", 503, "5", sdk.ErrUnavailable, 5 * time.Second, 5 * time.Second},
		{"429 fraction", 429, "1.5", sdk.ErrRateLimited, 1500 * time.Millisecond, 1500 * time.Millisecond},
		{"503 HTTP date", 503, date, sdk.ErrUnavailable, 80 * time.Second, 91 * time.Second},
		{"429 without header", 429, "", sdk.ErrRateLimited, 0, 0},
		{"429 unreadable header", 429, "soon", sdk.ErrRateLimited, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reply := fakellm.Reply{Status: tt.status, RetryAfter: tt.retryAfter}
			f := &fakellm.OpenAI{
				Respond:       func(*fakellm.ChatRequest) fakellm.Reply { return reply },
				RespondEmbed:  func(*fakellm.EmbedCall) fakellm.Reply { return reply },
				RespondRerank: func(*fakellm.RerankCall) fakellm.Reply { return reply },
			}
			p := servedFull(t, fakellm.StartOpenAI(t, f), provider.ClientConfig{})
			ctx := bounded(t)
			errs := map[string]error{}
			for _, stream := range []bool{true, false} {
				_, errs["chat stream="+strconv.FormatBool(stream)] = plugin.Chat(t, p, provider.ChatRequest{Stream: stream})
			}
			_, errs["embed"] = p.Embed(ctx, &provider.EmbedRequest{Client: "test", Model: "m", Inputs: []string{"x"}})
			_, errs["rerank"] = p.Rerank(ctx, &provider.RerankRequest{Client: "test", Model: "m", Query: "q", Documents: []string{"x"}})
			for call, err := range errs {
				if !errors.Is(err, tt.want) || !sdk.IsPluginError(err) {
					t.Fatalf("%s: err = %v, want %v", call, err, tt.want)
				}
				providertest.RetryAfter(t, err, tt.min, tt.max)
			}
		})
	}
}

func TestEmbedAndRerankCancel(t *testing.T) {
	for _, call := range []string{"embed", "rerank"} {
		t.Run(call, func(t *testing.T) {
			arrived := make(chan struct{}, 1)
			f := &fakellm.OpenAI{
				RespondEmbed: func(*fakellm.EmbedCall) fakellm.Reply {
					arrived <- struct{}{}
					return fakellm.Reply{Delay: time.Hour}
				},
				RespondRerank: func(*fakellm.RerankCall) fakellm.Reply {
					arrived <- struct{}{}
					return fakellm.Reply{Delay: time.Hour}
				},
			}
			p := servedFull(t, fakellm.StartOpenAI(t, f), provider.ClientConfig{})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() {
				var err error
				if call == "embed" {
					_, err = p.Embed(ctx, &provider.EmbedRequest{Client: "test", Model: "m", Inputs: []string{"x"}})
				} else {
					_, err = p.Rerank(ctx, &provider.RerankRequest{Client: "test", Model: "m", Query: "q", Documents: []string{"x"}})
				}
				done <- err
			}()
			<-arrived
			cancelled := time.Now()
			cancel()
			providertest.WaitCancelled(t, cancelled, done)
		})
	}
}

func TestPresetsByName(t *testing.T) {
	// The proxy refuses to tunnel, so nothing leaves the machine; the
	// error names the address the preset chose.
	proxy, seen := providertest.RefusingProxy(t)
	tests := []struct {
		name    string
		options map[string]any
		base    string
		host    string
	}{
		{"groq", nil, "https://api.groq.com/openai/v1", "api.groq.com:443"},
		{"deepseek", nil, "https://api.deepseek.com", "api.deepseek.com:443"},
		{"cloudflare", map[string]any{"account_id": "acc42"}, "https://api.cloudflare.com/client/v4/accounts/acc42/ai/v1", "api.cloudflare.com:443"},
		{"voyageai", nil, "https://api.voyageai.com/v1", "api.voyageai.com:443"},
	}
	p := plugintest.Provider(t, plugin.Info, openai.New())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := map[string]any{"extra": map[string]any{"proxy": proxy}}
			for k, v := range tt.options {
				opts[k] = v
			}
			cfg := provider.ClientConfig{Name: tt.name, Type: openai.TypeOpenAICompatible, APIKey: testKey, Options: opts}
			if _, err := p.Configure(bounded(t), &provider.ConfigureRequest{Client: cfg}); err != nil {
				t.Fatal(err)
			}
			before := len(seen())
			_, err := plugin.Chat(t, p, provider.ChatRequest{Client: tt.name})
			if !errors.Is(err, sdk.ErrUnavailable) || !strings.Contains(err.Error(), "cannot reach "+tt.base+":") {
				t.Fatalf("err = %v", err)
			}
			if hosts := seen()[before:]; len(hosts) != 1 || hosts[0] != "CONNECT "+tt.host {
				t.Fatalf("proxy saw %v", hosts)
			}
		})
	}
	_, err := p.Configure(bounded(t), &provider.ConfigureRequest{Client: provider.ClientConfig{Name: "cloudflare", Type: openai.TypeOpenAICompatible}})
	if !errors.Is(err, sdk.ErrInvalidArgument) || !strings.Contains(err.Error(), "account_id") {
		t.Fatalf("cloudflare without account_id: %v", err)
	}
}

// BenchmarkEmbed64x384OverGRPC measures embeddings through the plugin as
// the kernel calls it: 64 inputs of 384 values per call, over gRPC, from
// the fake server on loopback. The target is 20,000 inputs/s.
func BenchmarkEmbed64x384OverGRPC(b *testing.B) {
	base := fakellm.StartOpenAI(b, &fakellm.OpenAI{EmbedDims: 384})
	inputs := make([]string, 64)
	for i := range inputs {
		inputs[i] = "passage " + strconv.Itoa(i) + " of the benchmark corpus, about a sentence long"
	}
	req := &provider.EmbedRequest{Client: "test", Model: "text-embedding-3-small", Inputs: inputs}
	providertest.BenchEmbed(b, servedFull(b, base, provider.ClientConfig{}), req, 384)
}
