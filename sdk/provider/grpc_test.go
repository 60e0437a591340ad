package provider_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/plugintest"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// recorder keeps what reached the plugin side and replies with a script.
type recorder struct {
	configured provider.ClientConfig
	request    *provider.ChatRequest
	events     []*provider.ChatEvent
	err        error
	ctxErr     chan error
}

func (r *recorder) Configure(_ context.Context, req *provider.ConfigureRequest) (*provider.ConfigureResponse, error) {
	r.configured = req.Client
	return &provider.ConfigureResponse{}, nil
}

func (r *recorder) ListModels(_ context.Context, req *provider.ListModelsRequest) (*provider.ListModelsResponse, error) {
	return &provider.ListModelsResponse{Models: r.configured.Models}, nil
}

func (r *recorder) Chat(ctx context.Context, req *provider.ChatRequest, send func(*provider.ChatEvent) error) error {
	r.request = req
	for _, ev := range r.events {
		if err := send(ev); err != nil {
			return err
		}
	}
	if r.ctxErr != nil {
		<-ctx.Done()
		r.ctxErr <- ctx.Err()
		return ctx.Err()
	}
	return r.err
}

func ptr[T any](v T) *T { return &v }

func TestConfigureAndListModelsRoundTrip(t *testing.T) {
	rec := &recorder{}
	p := plugintest.Provider(t, sdk.Info{Name: "rec"}, rec)
	cfg := provider.ClientConfig{
		Name: "groq", Type: "openai-compatible", APIBase: "https://x/v1", APIKey: "gsk-1",
		Options: map[string]any{"extra": map[string]any{"proxy": "socks5://h:1", "read_timeout": 300.0}, "organization_id": "org"},
		Models:  []provider.Model{{Name: "llama", Type: provider.ModelChat, MaxInputTokens: 128000, MaxOutputTokens: 8000, SupportsVision: true, SupportsFunctionCalling: true, ReasoningLevels: []string{"low", "high"}}},
	}
	ctx := context.Background()
	if _, err := p.Configure(ctx, &provider.ConfigureRequest{Client: cfg}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rec.configured, cfg) {
		t.Fatalf("plugin got\n%#v\nwant\n%#v", rec.configured, cfg)
	}
	resp, err := p.ListModels(ctx, &provider.ListModelsRequest{Client: "groq"})
	if err != nil || !reflect.DeepEqual(resp.Models, cfg.Models) {
		t.Fatalf("models = %+v, %v", resp, err)
	}
}

func TestClientConfigNeverPrintsTheKey(t *testing.T) {
	c := provider.ClientConfig{Name: "openai", APIKey: "sk-secret-value"}
	for _, s := range []string{fmt.Sprint(c), fmt.Sprintf("%v %+v %#v %s", c, c, c, c), fmt.Sprint(&c)} {
		if strings.Contains(s, "sk-secret-value") {
			t.Fatalf("key printed: %s", s)
		}
	}
}

func TestChatRequestAndEventsRoundTrip(t *testing.T) {
	events := []*provider.ChatEvent{
		{Reasoning: &provider.Reasoning{Text: "thinking", Signature: "sig"}},
		{Text: "Hello"},
		{Text: " world"},
		{ToolCall: &provider.ToolCall{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Oslo"}`, Signature: "ts"}},
		{Usage: &provider.Usage{InputTokens: 12, OutputTokens: 34, CachedTokens: 8, ReasoningTokens: 20}},
		{FinishReason: "tool_calls"},
	}
	rec := &recorder{events: events}
	p := plugintest.Provider(t, sdk.Info{Name: "rec"}, rec)
	req := &provider.ChatRequest{
		Client: "c", Model: "m", Temperature: ptr(0.2), TopP: ptr(0.9), MaxOutputTokens: 1000,
		Stream: true, ReasoningEffort: "high",
		Patches: []provider.RequestPatch{{Body: []byte(`{"a":null}`), SetHeaders: map[string]string{"x": "y"}}},
		Tools:   []provider.Tool{{Name: "get_weather", Description: "weather", Parameters: []byte(`{"type":"object"}`)}},
		Messages: []provider.Message{
			provider.TextMessage(provider.RoleSystem, "be brief"),
			{Role: provider.RoleUser, Parts: []provider.Part{{Text: "look:"}, {ImageURL: "data:image/png;base64,AAAA"}}},
			{Role: provider.RoleAssistant, Parts: []provider.Part{
				{Reasoning: &provider.Reasoning{Text: "t", Signature: "s", Redacted: "r"}},
				{ToolCall: &provider.ToolCall{ID: "1", Name: "f", Arguments: "{}"}},
			}},
			{Role: provider.RoleTool, Parts: []provider.Part{{ToolResult: &provider.ToolResult{CallID: "1", Name: "f", Content: "42", IsError: true}}}},
		},
	}
	var got []*provider.ChatEvent
	if err := p.Chat(context.Background(), req, func(ev *provider.ChatEvent) error {
		got = append(got, ev)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rec.request, req) {
		t.Fatalf("plugin got\n%#v\nwant\n%#v", rec.request, req)
	}
	if !reflect.DeepEqual(got, events) {
		t.Fatalf("kernel got %d events %+v, want %+v", len(got), got, events)
	}
}

func TestChatErrorsAreClassified(t *testing.T) {
	tests := []struct {
		name string
		rec  *recorder
		want error
	}{
		{"returned error", &recorder{events: []*provider.ChatEvent{{Text: "partial"}}, err: fmt.Errorf("upstream said no: %w", sdk.ErrRateLimited)}, sdk.ErrRateLimited},
		{"error event", &recorder{events: []*provider.ChatEvent{{Text: "partial"}, {Error: &provider.StreamError{Code: "unavailable", Message: "overloaded"}}, {Text: "never delivered"}}}, sdk.ErrUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := plugintest.Provider(t, sdk.Info{Name: "rec"}, tt.rec)
			var texts []string
			err := p.Chat(context.Background(), &provider.ChatRequest{}, func(ev *provider.ChatEvent) error {
				texts = append(texts, ev.Text)
				return nil
			})
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if !reflect.DeepEqual(texts, []string{"partial"}) {
				t.Fatalf("delivered %q", texts)
			}
		})
	}
}

func TestCancellingTheKernelSideCancelsThePlugin(t *testing.T) {
	rec := &recorder{events: []*provider.ChatEvent{{Text: "first"}}, ctxErr: make(chan error, 1)}
	p := plugintest.Provider(t, sdk.Info{Name: "rec"}, rec)
	ctx, cancel := context.WithCancel(context.Background())
	err := p.Chat(ctx, &provider.ChatRequest{}, func(*provider.ChatEvent) error {
		cancel()
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("kernel err = %v", err)
	}
	if perr := <-rec.ctxErr; !errors.Is(perr, context.Canceled) {
		t.Fatalf("plugin ctx err = %v", perr)
	}
}

func TestStoppingInSendEndsTheCall(t *testing.T) {
	stop := errors.New("renderer gone")
	rec := &recorder{events: []*provider.ChatEvent{{Text: "a"}, {Text: "b"}}, ctxErr: make(chan error, 1)}
	p := plugintest.Provider(t, sdk.Info{Name: "rec"}, rec)
	err := p.Chat(context.Background(), &provider.ChatRequest{}, func(*provider.ChatEvent) error { return stop })
	if !errors.Is(err, stop) {
		t.Fatalf("err = %v, want the send error", err)
	}
	if perr := <-rec.ctxErr; perr == nil {
		t.Fatal("the plugin was not told to stop")
	}
}

func TestDescribeReportsKindsAndCapabilities(t *testing.T) {
	conn := plugintest.Serve(t, sdk.Info{Name: "rec", Version: "2.0.0", Description: "records", Capabilities: []string{provider.CapTools}},
		provider.Plugin(&recorder{}))
	d := conn.Describe(t)
	want := &sdk.Description{
		Name: "rec", Kinds: []string{"provider"}, Version: "2.0.0", SDKVersion: sdk.Version,
		ProtocolVersion: sdk.ProtocolVersion, Capabilities: []string{"chat", "streaming", "tools"}, Description: "records",
	}
	if !reflect.DeepEqual(d, want) {
		t.Fatalf("describe = %+v, want %+v", d, want)
	}
}

// full is a provider with every optional interface.
type full struct {
	recorder
	embedReq  *provider.EmbedRequest
	rerankReq *provider.RerankRequest
}

func (f *full) Embed(_ context.Context, req *provider.EmbedRequest) (*provider.EmbedResponse, error) {
	f.embedReq = req
	out := &provider.EmbedResponse{Usage: &provider.Usage{InputTokens: 9}}
	for i := range req.Inputs {
		out.Vectors = append(out.Vectors, []float32{float32(i), 0.5, -1})
	}
	return out, nil
}

func (f *full) Rerank(_ context.Context, req *provider.RerankRequest) (*provider.RerankResponse, error) {
	f.rerankReq = req
	return &provider.RerankResponse{Results: []provider.RerankResult{{Index: 1, Score: 0.9}, {Index: 0, Score: 0.1}}}, nil
}

func TestEmbedAndRerankRoundTrip(t *testing.T) {
	impl := &full{}
	conn := plugintest.Serve(t, sdk.Info{Name: "full"}, provider.Plugin(impl))
	if d := conn.Describe(t); !d.Has(provider.CapEmbeddings) || !d.Has(provider.CapRerank) {
		t.Fatalf("capabilities %v", d.Capabilities)
	}
	p := conn.Dispense(t, sdk.KindProvider)
	patches := []provider.RequestPatch{{URL: "u", Body: []byte(`{"x":1}`), SetHeaders: map[string]string{"A": "b"}, DeleteHeaders: []string{"C"}}}
	ereq := &provider.EmbedRequest{Client: "c", Model: "e", Inputs: []string{"a", "b"}, InputType: provider.InputQuery, Dimensions: 256, Patches: patches}
	resp, err := p.(provider.Embedder).Embed(context.Background(), ereq)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(impl.embedReq, ereq) || !reflect.DeepEqual(resp.Vectors, [][]float32{{0, 0.5, -1}, {1, 0.5, -1}}) || resp.Usage.InputTokens != 9 {
		t.Fatalf("plugin got %+v; kernel got %+v", impl.embedReq, resp)
	}
	rreq := &provider.RerankRequest{Client: "c", Model: "r", Query: "q", Documents: []string{"x", "y"}, TopN: 1, Patches: patches}
	rr, err := p.(provider.Reranker).Rerank(context.Background(), rreq)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(impl.rerankReq, rreq) || !reflect.DeepEqual(rr.Results, []provider.RerankResult{{Index: 1, Score: 0.9}, {Index: 0, Score: 0.1}}) {
		t.Fatalf("plugin got %+v; kernel got %+v", impl.rerankReq, rr)
	}
}

func TestMissingOptionalMethodsAreUnsupported(t *testing.T) {
	conn := plugintest.Serve(t, sdk.Info{Name: "rec"}, provider.Plugin(&recorder{}))
	if d := conn.Describe(t); d.Has(provider.CapEmbeddings) || d.Has(provider.CapRerank) {
		t.Fatalf("capabilities %v", d.Capabilities)
	}
	p := conn.Dispense(t, sdk.KindProvider)
	if _, err := p.(provider.Embedder).Embed(context.Background(), &provider.EmbedRequest{}); !errors.Is(err, sdk.ErrUnsupported) {
		t.Fatalf("embed err = %v", err)
	}
	if _, err := p.(provider.Reranker).Rerank(context.Background(), &provider.RerankRequest{}); !errors.Is(err, sdk.ErrUnsupported) {
		t.Fatalf("rerank err = %v", err)
	}
}
