package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coyote-cli/coyote/kernel/config"
	"github.com/coyote-cli/coyote/kernel/models"
	"github.com/coyote-cli/coyote/kernel/plugins"
	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// fakeBackend answers from scripts and records what it was sent.
type fakeBackend struct {
	mu         sync.Mutex
	chatErrs   []error // one per attempt; nil = succeed
	sendFirst  bool    // send an event before failing
	chats      []*provider.ChatRequest
	embeds     []*provider.EmbedRequest
	embedErrs  []error
	reranks    []*provider.RerankRequest
	rerankErrs []error
}

func (f *fakeBackend) Configure(context.Context, *provider.ConfigureRequest) (*provider.ConfigureResponse, error) {
	return &provider.ConfigureResponse{}, nil
}
func (f *fakeBackend) ListModels(context.Context, *provider.ListModelsRequest) (*provider.ListModelsResponse, error) {
	return &provider.ListModelsResponse{Models: []provider.Model{{Name: "live", Type: provider.ModelChat}, {Name: "emb", Type: provider.ModelEmbedding}}}, nil
}
func (f *fakeBackend) Prepare(context.Context, string) error { return nil }

func (f *fakeBackend) Chat(_ context.Context, req *provider.ChatRequest, send func(*provider.ChatEvent) error) error {
	f.chats = append(f.chats, req)
	var err error
	if n := len(f.chats) - 1; n < len(f.chatErrs) {
		err = f.chatErrs[n]
	}
	if err != nil {
		if f.sendFirst {
			_ = send(&provider.ChatEvent{Text: "partial"})
		}
		return err
	}
	return send(&provider.ChatEvent{Text: "ok"})
}

func (f *fakeBackend) Embed(_ context.Context, req *provider.EmbedRequest) (*provider.EmbedResponse, error) {
	f.mu.Lock()
	f.embeds = append(f.embeds, req)
	n := len(f.embeds) - 1
	f.mu.Unlock()
	if n < len(f.embedErrs) && f.embedErrs[n] != nil {
		return nil, f.embedErrs[n]
	}
	out := &provider.EmbedResponse{}
	for _, in := range req.Inputs {
		out.Vectors = append(out.Vectors, []float32{float32(len(in))})
	}
	return out, nil
}

func (f *fakeBackend) Rerank(_ context.Context, req *provider.RerankRequest) (*provider.RerankResponse, error) {
	f.reranks = append(f.reranks, req)
	if n := len(f.reranks) - 1; n < len(f.rerankErrs) && f.rerankErrs[n] != nil {
		return nil, f.rerankErrs[n]
	}
	return &provider.RerankResponse{Results: []provider.RerankResult{{Index: 1, Score: 1}}}, nil
}

// testConn returns a Conn on a fake backend that records its waits instead
// of sleeping.
func testConn(c *config.Client, b *fakeBackend) (*Conn, *[]time.Duration) {
	var waits []time.Duration
	return &Conn{Client: c, provider: b, EmbedRetries: 2, sleep: func(_ context.Context, d time.Duration) error {
		waits = append(waits, d)
		return nil
	}}, &waits
}

func chatOnce(c *Conn, m models.Model, req *provider.ChatRequest) (string, error) {
	var out string
	err := c.Chat(context.Background(), m, req, func(ev *provider.ChatEvent) error { out += ev.Text; return nil })
	return out, err
}

func TestChatRetriesTransientErrorsBeforeAnyOutput(t *testing.T) {
	rate := fmt.Errorf("429: %w", sdk.ErrRateLimited)
	tests := []struct {
		name      string
		errs      []error
		sendFirst bool
		attempts  int
		waits     []time.Duration
		wantErr   error
	}{
		{"success", nil, false, 1, nil, nil},
		{"rate limited once", []error{rate}, false, 2, []time.Duration{time.Second}, nil},
		{"honours Retry-After", []error{sdk.WithRetryAfter(rate, 7*time.Second)}, false, 2, []time.Duration{7 * time.Second}, nil},
		{"server error twice", []error{sdk.ErrUnavailable, sdk.ErrUnavailable}, false, 3, []time.Duration{time.Second, 2 * time.Second}, nil},
		{"gives up", []error{rate, rate, rate, rate}, false, 3, []time.Duration{time.Second, 2 * time.Second}, sdk.ErrRateLimited},
		{"Retry-After too long", []error{sdk.WithRetryAfter(rate, 5*time.Minute)}, false, 1, nil, sdk.ErrRateLimited},
		{"no retry after output", []error{sdk.ErrUnavailable}, true, 1, nil, sdk.ErrUnavailable},
		{"no retry of a bad key", []error{sdk.ErrUnauthenticated}, false, 1, nil, sdk.ErrUnauthenticated},
		{"no retry of a crash", []error{&plugins.CrashError{Binary: "x", Exit: "exit status 2"}}, false, 1, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &fakeBackend{chatErrs: tt.errs, sendFirst: tt.sendFirst}
			c, waits := testConn(&config.Client{Name: "c", Type: "t"}, b)
			var told []time.Duration
			c.OnRetry = func(wait time.Duration, next, of int, _ error) {
				if next != len(told)+2 || of != 3 {
					t.Errorf("OnRetry: try %d of %d, want %d of 3", next, of, len(told)+2)
				}
				told = append(told, wait)
			}
			_, err := chatOnce(c, models.Model{Name: "m"}, &provider.ChatRequest{})
			if len(b.chats) != tt.attempts || !reflect.DeepEqual(*waits, tt.waits) {
				t.Fatalf("%d attempts, waits %v", len(b.chats), *waits)
			}
			if !reflect.DeepEqual(told, tt.waits) {
				t.Fatalf("OnRetry was told of waits %v, want %v", told, tt.waits)
			}
			switch {
			case tt.wantErr == nil && tt.name == "no retry of a crash":
				if !errors.As(err, new(*plugins.CrashError)) {
					t.Fatalf("err = %v", err)
				}
			case tt.wantErr == nil && err != nil:
				t.Fatalf("err = %v", err)
			case tt.wantErr != nil && !errors.Is(err, tt.wantErr):
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

func TestChatAppliesWhatTheModelNeeds(t *testing.T) {
	c, _ := testConn(&config.Client{Name: "c", Type: "t", Patches: map[string][]config.PatchRule{
		config.APIChat: {
			{Pattern: "other", Body: map[string]any{"no": true}},
			{Pattern: "o4-.*", Body: map[string]any{"client": 1}},
			{Pattern: ".*", Body: map[string]any{"never": true}},
		},
	}}, &fakeBackend{})
	m := models.Model{
		Name: "o4-mini-high", RealName: "o4-mini", MaxOutputTokens: 100000, RequireMaxTokens: true, NoStream: true,
		SystemPromptPrefix: "Formatting re-enabled", Patch: map[string]any{"body": map[string]any{"reasoning_effort": "high", "max_tokens": nil}},
	}
	req := &provider.ChatRequest{Stream: true, Messages: []provider.Message{
		provider.TextMessage(provider.RoleSystem, "Be brief."), provider.TextMessage(provider.RoleUser, "hi"),
	}}
	if _, err := chatOnce(c, m, req); err != nil {
		t.Fatal(err)
	}
	got := c.provider.(*fakeBackend).chats[0]
	if got.Client != "c" || got.Model != "o4-mini" || got.MaxOutputTokens != 100000 || got.Stream {
		t.Fatalf("request = %+v", got)
	}
	if got.Messages[0].Text() != "Formatting re-enabled\nBe brief." || len(got.Messages) != 2 {
		t.Fatalf("messages = %+v", got.Messages)
	}
	if len(got.Patches) != 2 || string(got.Patches[0].Body) != `{"max_tokens":null,"reasoning_effort":"high"}` || string(got.Patches[1].Body) != `{"client":1}` {
		t.Fatalf("patches = %+v", got.Patches)
	}
	if req.Model != "" || !req.Stream {
		t.Fatal("the caller's request was modified")
	}
}

func TestNoSystemMessageFoldsIntoTheFirstUserMessage(t *testing.T) {
	msgs := adaptSystem([]provider.Message{
		provider.TextMessage(provider.RoleSystem, "rules"), provider.TextMessage(provider.RoleUser, "q"),
	}, models.Model{NoSystemMessage: true})
	if len(msgs) != 1 || msgs[0].Role != provider.RoleUser || msgs[0].Text() != "rules\n\nq" {
		t.Fatalf("messages = %+v", msgs)
	}
	in := []provider.Message{provider.TextMessage(provider.RoleUser, "q")}
	if out := adaptSystem(in, models.Model{}); !reflect.DeepEqual(out, in) {
		t.Fatal("a model without quirks changed the messages")
	}
}

func TestEmbedBatchesAndRetries(t *testing.T) {
	b := &fakeBackend{}
	c, _ := testConn(&config.Client{Name: "c", Patches: map[string][]config.PatchRule{
		config.APIEmbeddings: {{Pattern: "e", Headers: map[string]*string{"X": nil}}},
	}}, b)
	var inputs []string
	for i := 1; i <= 23; i++ {
		inputs = append(inputs, strings.Repeat("x", i))
	}
	vecs, err := c.Embed(context.Background(), models.Model{Name: "e", MaxBatchSize: 2}, inputs, provider.InputDocument)
	if err != nil {
		t.Fatal(err)
	}
	// Batches run concurrently; the vectors still come back in input order.
	for i, v := range vecs {
		if v[0] != float32(i+1) {
			t.Fatalf("vector %d = %v", i, v)
		}
	}
	if len(b.embeds) != 12 || b.embeds[0].InputType != provider.InputDocument || len(b.embeds[0].Patches) != 1 || b.embeds[0].Patches[0].DeleteHeaders[0] != "X" {
		t.Fatalf("%d calls; first %+v", len(b.embeds), b.embeds[0])
	}

	// A failing batch is retried, then the error ends the whole call.
	b2 := &fakeBackend{embedErrs: []error{sdk.ErrUnavailable, nil}}
	c2, waits := testConn(&config.Client{Name: "c"}, b2)
	if _, err := c2.Embed(context.Background(), models.Model{Name: "e"}, []string{"x"}, ""); err != nil || len(b2.embeds) != 2 || len(*waits) != 1 {
		t.Fatalf("err %v after %d calls, waits %v", err, len(b2.embeds), *waits)
	}
	b3 := &fakeBackend{embedErrs: []error{sdk.ErrUnavailable, sdk.ErrUnavailable, sdk.ErrUnavailable}}
	c3, _ := testConn(&config.Client{Name: "c"}, b3)
	if _, err := c3.Embed(context.Background(), models.Model{Name: "e"}, []string{"x"}, ""); !errors.Is(err, sdk.ErrUnavailable) || len(b3.embeds) != 3 {
		t.Fatalf("err = %v after %d calls", err, len(b3.embeds))
	}
}

func TestRerankAndLiveModels(t *testing.T) {
	b := &fakeBackend{rerankErrs: []error{sdk.ErrRateLimited}}
	c, _ := testConn(&config.Client{Name: "c"}, b)
	res, err := c.Rerank(context.Background(), models.Model{Name: "r"}, "q", []string{"a", "b"}, 1)
	if err != nil || len(res) != 1 || res[0].Index != 1 || len(b.reranks) != 2 || b.reranks[1].TopN != 1 {
		t.Fatalf("results %v, err %v, calls %d", res, err, len(b.reranks))
	}
	live, err := c.LiveModels(context.Background())
	if err != nil || len(live) != 2 || !live[0].IsChat() || live[1].Type != models.TypeEmbedding {
		t.Fatalf("live = %+v, %v", live, err)
	}
}

func TestPatchesFromTheEnvironmentShape(t *testing.T) {
	p, err := rulePatch(config.PatchRule{URL: "u", Body: map[string]any{"a": []any{1, "x"}}, Headers: map[string]*string{"K": strPtr("v")}})
	if err != nil {
		t.Fatal(err)
	}
	var body any
	_ = json.Unmarshal(p.Body, &body)
	if p.URL != "u" || p.SetHeaders["K"] != "v" || !reflect.DeepEqual(body, map[string]any{"a": []any{1.0, "x"}}) {
		t.Fatalf("patch = %+v", p)
	}
}

func strPtr(s string) *string { return &s }

func TestEmbedRetriesFromEnv(t *testing.T) {
	for _, tt := range []struct {
		value string
		want  int
	}{
		{"", 1}, {"2", 1}, {"1", 0}, {"5", 4}, {"0", 1}, {"-3", 1}, {"many", 1}, {" 3 ", 2},
	} {
		got := EmbedRetriesFromEnv(func(k string) string {
			if k == "COYOTE_EMBEDDINGS_RETRY_LIMIT" {
				return tt.value
			}
			return ""
		})
		if got != tt.want {
			t.Errorf("COYOTE_EMBEDDINGS_RETRY_LIMIT=%q: %d retries, want %d", tt.value, got, tt.want)
		}
	}
}
