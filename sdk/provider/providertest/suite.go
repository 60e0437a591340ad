package providertest

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/plugintest"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// Scenario is what the fake upstream must do for the requests of one test:
// the reply its model gives, or the error its service answers with.
type Scenario struct {
	// Text is the model's answer. A streamed reply must bring it in
	// several pieces (one a word, say), so that streaming shows.
	Text string
	// ToolCalls, when set, are the calls the model makes instead of (or
	// after) Text; the reply then finishes with the reason "tool_calls".
	ToolCalls []provider.ToolCall
	// Usage, when set, is the token count the service reports.
	Usage *provider.Usage
	// Status, when 400 or more, makes the service answer every request
	// (chat, embeddings, rerank) with this HTTP status, or with what your
	// service does instead, and its usual error body.
	Status int
	// RetryAfter goes with Status: the service asks to wait this long
	// (an HTTP Retry-After header, or the service's own way of saying it).
	RetryAfter time.Duration
	// Hang makes the service send the first piece of a streamed reply and
	// then send nothing more until the request is cancelled.
	Hang bool
}

// Suite is the conformance suite of a provider plugin: the behaviour the
// kernel relies on, checked over real gRPC (sdk/plugintest) as the kernel
// sees it. Coyote's own provider plugins pass it; a third party's plugin
// runs it from its own tests:
//
//	func TestConformance(t *testing.T) {
//		providertest.Suite{
//			Info:     sdk.Info{Name: "mine", Version: "0.1.0"},
//			New:      func() provider.Provider { return newProvider() },
//			Upstream: startFakeService, // your fake of your service
//			Model:    "my-model",
//		}.Run(t)
//	}
//
// Upstream starts a fake of the service the plugin talks to (an
// httptest server speaking the service's wire format, say), answering as
// each Scenario says, and returns the client configuration that reaches
// it; the suite never needs to know the service's format.
type Suite struct {
	// Info is what the plugin passes to sdk.Serve.
	Info sdk.Info
	// New returns a fresh implementation.
	New func() provider.Provider
	// Upstream starts a fake of the plugin's service for one test (stopped
	// when t ends) that acts out scenario, and returns the configuration
	// of a client that talks to it: APIBase pointing at it, the APIKey it
	// accepts, any Options. Name and Type may be left empty.
	Upstream func(t *testing.T, scenario Scenario) provider.ClientConfig
	// Type is the client type of the configuration (default: Info.Name).
	Type string
	// Model is the chat model asked for.
	Model string
	// EmbeddingModel is the model embeddings are asked of; required when
	// the plugin implements provider.Embedder.
	EmbeddingModel string
	// RerankModel is the model reranking is asked of; required when the
	// plugin implements provider.Reranker.
	RerankModel string
}

// Run runs every check of the suite as a subtest of t.
func (s Suite) Run(t *testing.T) {
	t.Helper()
	if s.New == nil || s.Upstream == nil || s.Model == "" {
		t.Fatal("providertest.Suite needs New, Upstream and Model")
	}
	t.Run("Describe", s.testDescribe)
	t.Run("ChatStreamsTheAnswer", s.testChatStreams)
	t.Run("ChatWithoutStreaming", s.testChatNoStream)
	t.Run("ToolCallRoundTrip", s.testToolCallRoundTrip)
	t.Run("UsageIsReported", s.testUsage)
	t.Run("CancelStopsTheChat", s.testCancel)
	t.Run("ErrorsMapToSDKSentinels", s.testErrors)
	t.Run("UnconfiguredClientIsAFailedPrecondition", s.testUnconfigured)
	impl := s.New()
	if _, ok := impl.(provider.Embedder); ok {
		t.Run("Embeddings", s.testEmbeddings)
	}
	if _, ok := impl.(provider.Reranker); ok {
		t.Run("Rerank", s.testRerank)
	}
}

// conformanceKey is the API key of a scenario's client when Upstream
// sets none; no error message may contain it.
const conformanceKey = "sk-conformance-0123456789"

// serve starts the upstream for scenario, serves a fresh implementation
// over gRPC and configures client "conformance" on it.
func (s Suite) serve(t *testing.T, scenario Scenario) (provider.Provider, provider.ClientConfig) {
	t.Helper()
	cfg := s.Upstream(t, scenario)
	cfg.Name = "conformance"
	cfg.APIKey = cmp.Or(cfg.APIKey, conformanceKey)
	cfg.Type = cmp.Or(cfg.Type, s.Type, s.Info.Name)
	p := plugintest.Provider(t, s.Info, s.New())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := p.Configure(ctx, &provider.ConfigureRequest{Client: cfg}); err != nil {
		t.Fatalf("Configure(%v): %v", cfg, err)
	}
	return p, cfg
}

func (s Suite) chat(t *testing.T, p provider.Provider, req provider.ChatRequest) (*Reply, error) {
	t.Helper()
	req.Client = "conformance"
	req.Model = cmp.Or(req.Model, s.Model)
	if req.Messages == nil {
		req.Messages = []provider.Message{provider.TextMessage(provider.RoleUser, "Say something.")}
	}
	return Plugin{}.Chat(t, p, req)
}

func (s Suite) testDescribe(t *testing.T) {
	d := plugintest.Serve(t, s.Info, provider.Plugin(s.New())).Describe(t)
	if !slices.Contains(d.Kinds, sdk.KindProvider) {
		t.Errorf("kinds %v lack %q", d.Kinds, sdk.KindProvider)
	}
	for _, c := range []string{provider.CapChat, provider.CapStreaming} {
		if !d.Has(c) {
			t.Errorf("capabilities %v lack %q", d.Capabilities, c)
		}
	}
	impl := s.New()
	if _, ok := impl.(provider.Embedder); ok != d.Has(provider.CapEmbeddings) {
		t.Errorf("implements Embedder: %v, announces %q: %v", ok, provider.CapEmbeddings, d.Has(provider.CapEmbeddings))
	}
	if _, ok := impl.(provider.Reranker); ok != d.Has(provider.CapRerank) {
		t.Errorf("implements Reranker: %v, announces %q: %v", ok, provider.CapRerank, d.Has(provider.CapRerank))
	}
	if d.Name != s.Info.Name || d.ProtocolVersion != sdk.ProtocolVersion {
		t.Errorf("describes itself as %q protocol %d, want %q protocol %d", d.Name, d.ProtocolVersion, s.Info.Name, sdk.ProtocolVersion)
	}
}

const streamedText = "The quick brown fox jumps over the lazy dog, twice."

func (s Suite) testChatStreams(t *testing.T) {
	p, _ := s.serve(t, Scenario{Text: streamedText})
	r, err := s.chat(t, p, provider.ChatRequest{Stream: true})
	if err != nil {
		t.Fatalf("Chat: %v", err)
	}
	if r.Text != streamedText {
		t.Errorf("text %q, want %q", r.Text, streamedText)
	}
	if r.Texts < 2 {
		t.Errorf("the answer came in %d text event(s): a streamed reply must reach the kernel as it arrives", r.Texts)
	}
	if r.Finish != "stop" {
		t.Errorf("finish reason %q, want %q", r.Finish, "stop")
	}
	if !strings.HasSuffix(r.Kinds, "finish") {
		t.Errorf("events %s: the finish reason must come last", r.Kinds)
	}
}

func (s Suite) testChatNoStream(t *testing.T) {
	p, _ := s.serve(t, Scenario{Text: streamedText})
	r, err := s.chat(t, p, provider.ChatRequest{Stream: false})
	if err != nil {
		t.Fatalf("Chat: %v", err)
	}
	if r.Text != streamedText || r.Finish != "stop" {
		t.Errorf("text %q finish %q, want %q and stop", r.Text, r.Finish, streamedText)
	}
}

var weatherTool = provider.Tool{
	Name:        "get_weather",
	Description: "The weather in a city.",
	Parameters:  []byte(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
}

func (s Suite) testToolCallRoundTrip(t *testing.T) {
	call := provider.ToolCall{ID: "call_conformance_1", Name: weatherTool.Name, Arguments: `{"city":"Paris"}`}
	p, _ := s.serve(t, Scenario{ToolCalls: []provider.ToolCall{call}})
	question := provider.TextMessage(provider.RoleUser, "What is the weather in Paris?")
	r, err := s.chat(t, p, provider.ChatRequest{Stream: true, Tools: []provider.Tool{weatherTool}, Messages: []provider.Message{question}})
	if err != nil {
		t.Fatalf("Chat: %v", err)
	}
	if len(r.Tools) != 1 {
		t.Fatalf("%d tool calls (events %s), want 1", len(r.Tools), r.Kinds)
	}
	got := r.Tools[0]
	if got.Name != call.Name || got.ID == "" || !sameJSON(got.Arguments, call.Arguments) {
		t.Errorf("tool call %+v, want %s(%s) with an id", got, call.Name, call.Arguments)
	}
	if r.Finish != "tool_calls" {
		t.Errorf("finish reason %q, want tool_calls", r.Finish)
	}
	// The kernel runs the tool and sends the exchange back: the
	// assistant's call (as the plugin reported it) and the result.
	p2, _ := s.serve(t, Scenario{Text: "It is sunny in Paris."})
	history := []provider.Message{
		question,
		{Role: provider.RoleAssistant, Parts: []provider.Part{{ToolCall: &got}}},
		{Role: provider.RoleTool, Parts: []provider.Part{{ToolResult: &provider.ToolResult{CallID: got.ID, Name: got.Name, Content: `{"sky":"clear"}`}}}},
	}
	r, err = s.chat(t, p2, provider.ChatRequest{Stream: true, Tools: []provider.Tool{weatherTool}, Messages: history})
	if err != nil {
		t.Fatalf("Chat with the tool's result: %v", err)
	}
	if r.Text != "It is sunny in Paris." || r.Finish != "stop" {
		t.Errorf("after the tool: text %q finish %q", r.Text, r.Finish)
	}
}

func (s Suite) testUsage(t *testing.T) {
	want := provider.Usage{InputTokens: 17, OutputTokens: 5}
	p, _ := s.serve(t, Scenario{Text: "Counted.", Usage: &want})
	for _, stream := range []bool{true, false} {
		r, err := s.chat(t, p, provider.ChatRequest{Stream: stream})
		if err != nil {
			t.Fatalf("Chat (stream %v): %v", stream, err)
		}
		if r.Usage == nil || *r.Usage != want {
			t.Errorf("stream %v: usage %+v, want %+v", stream, r.Usage, want)
		}
	}
}

func (s Suite) testCancel(t *testing.T) {
	p, _ := s.serve(t, Scenario{Text: streamedText, Hang: true})
	// The cancel comes from the first event; the timeout only ends a
	// plugin that never sends one.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var cancelled time.Time
	err := p.Chat(ctx, &provider.ChatRequest{Client: "conformance", Model: s.Model, Stream: true,
		Messages: []provider.Message{provider.TextMessage(provider.RoleUser, "Go on.")}},
		func(*provider.ChatEvent) error {
			if cancelled.IsZero() {
				cancelled = time.Now()
				cancel()
			}
			return nil
		})
	switch {
	case cancelled.IsZero() && errors.Is(err, context.DeadlineExceeded):
		t.Fatal("no event arrived in 20s")
	case cancelled.IsZero():
		t.Fatalf("Chat ended before the cancel, with %v: a Hang scenario sends its first piece and then waits", err)
	}
	if d := time.Since(cancelled); d > 10*time.Second {
		t.Errorf("Chat returned %v after the cancel: stop the upstream request when ctx is done", d)
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func (s Suite) testErrors(t *testing.T) {
	tests := []struct {
		status int
		retry  time.Duration
		want   error
	}{
		{401, 0, sdk.ErrUnauthenticated},
		{403, 0, sdk.ErrPermissionDenied},
		{429, 3 * time.Second, sdk.ErrRateLimited},
		{503, 0, sdk.ErrUnavailable},
	}
	for _, tt := range tests {
		t.Run(strings.ReplaceAll(tt.want.Error(), " ", "_"), func(t *testing.T) {
			p, cfg := s.serve(t, Scenario{Status: tt.status, RetryAfter: tt.retry})
			for _, stream := range []bool{true, false} {
				_, err := s.chat(t, p, provider.ChatRequest{Stream: stream})
				if !errors.Is(err, tt.want) {
					t.Fatalf("stream %v: err = %v, want one matching %v", stream, err, tt.want)
				}
				if d, ok := sdk.RetryAfter(err); ok != (tt.retry > 0) || d != tt.retry {
					t.Errorf("stream %v: retry after %v (%v), want %v: pass the service's delay on with sdk.WithRetryAfter", stream, d, ok, tt.retry)
				}
				key := cfg.APIKey
				if len(key) >= 8 && strings.Contains(err.Error(), key) {
					t.Errorf("the error shows the API key: %v", err)
				}
				if strings.Contains(err.Error(), "\n") {
					t.Errorf("the error is not one line: %q", err)
				}
			}
		})
	}
}

func (s Suite) testUnconfigured(t *testing.T) {
	p := plugintest.Provider(t, s.Info, s.New())
	err := p.Chat(context.Background(), &provider.ChatRequest{Client: "never-configured", Model: s.Model,
		Messages: []provider.Message{provider.TextMessage(provider.RoleUser, "hi")}}, func(*provider.ChatEvent) error { return nil })
	if !errors.Is(err, sdk.ErrFailedPrecondition) {
		t.Errorf("err = %v, want sdk.ErrFailedPrecondition", err)
	}
}

func (s Suite) testEmbeddings(t *testing.T) {
	if s.EmbeddingModel == "" {
		t.Fatal("the plugin embeds: set Suite.EmbeddingModel")
	}
	p, _ := s.serve(t, Scenario{})
	e := p.(provider.Embedder)
	inputs := []string{"red apples", "green pears", "red apples"}
	for _, inputType := range []string{provider.InputDocument, provider.InputQuery} {
		resp, err := e.Embed(context.Background(), &provider.EmbedRequest{Client: "conformance", Model: s.EmbeddingModel, Inputs: inputs, InputType: inputType})
		if err != nil {
			t.Fatalf("Embed (%s): %v", inputType, err)
		}
		if len(resp.Vectors) != len(inputs) {
			t.Fatalf("%d vectors for %d inputs", len(resp.Vectors), len(inputs))
		}
		dim := len(resp.Vectors[0])
		for i, v := range resp.Vectors {
			if len(v) == 0 || len(v) != dim {
				t.Fatalf("vector %d has %d dimensions, vector 0 %d", i, len(v), dim)
			}
		}
		if !reflect.DeepEqual(resp.Vectors[0], resp.Vectors[2]) {
			t.Errorf("the same text gave two vectors: are they in input order?")
		}
	}
	bad, _ := s.serve(t, Scenario{Status: 429, RetryAfter: 2 * time.Second})
	_, err := bad.(provider.Embedder).Embed(context.Background(), &provider.EmbedRequest{Client: "conformance", Model: s.EmbeddingModel, Inputs: inputs})
	if !errors.Is(err, sdk.ErrRateLimited) {
		t.Errorf("err = %v, want sdk.ErrRateLimited", err)
	}
}

func (s Suite) testRerank(t *testing.T) {
	if s.RerankModel == "" {
		t.Fatal("the plugin reranks: set Suite.RerankModel")
	}
	p, _ := s.serve(t, Scenario{})
	docs := []string{"pears are green", "apples are red", "the sky is blue"}
	resp, err := p.(provider.Reranker).Rerank(context.Background(), &provider.RerankRequest{Client: "conformance", Model: s.RerankModel, Query: "red apples", Documents: docs, TopN: 2})
	if err != nil {
		t.Fatalf("Rerank: %v", err)
	}
	if len(resp.Results) == 0 || len(resp.Results) > 2 {
		t.Fatalf("%d results for top 2", len(resp.Results))
	}
	seen := map[int]bool{}
	for i, r := range resp.Results {
		if r.Index < 0 || r.Index >= len(docs) || seen[r.Index] {
			t.Errorf("result %d: index %d out of range or repeated", i, r.Index)
		}
		seen[r.Index] = true
		if i > 0 && r.Score > resp.Results[i-1].Score {
			t.Errorf("results not best first: %+v", resp.Results)
		}
	}
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
