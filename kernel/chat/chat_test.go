package chat

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// script is a provider that sends fixed events, then returns err.
type script struct {
	events []*provider.ChatEvent
	err    error
}

func (s *script) Configure(context.Context, *provider.ConfigureRequest) (*provider.ConfigureResponse, error) {
	return &provider.ConfigureResponse{}, nil
}

func (s *script) ListModels(context.Context, *provider.ListModelsRequest) (*provider.ListModelsResponse, error) {
	return &provider.ListModelsResponse{}, nil
}

func (s *script) Chat(_ context.Context, _ *provider.ChatRequest, send func(*provider.ChatEvent) error) error {
	for _, ev := range s.events {
		if err := send(ev); err != nil {
			return err
		}
	}
	return s.err
}

func text(s string) *provider.ChatEvent { return &provider.ChatEvent{Text: s} }
func think(s string) *provider.ChatEvent {
	return &provider.ChatEvent{Reasoning: &provider.Reasoning{Text: s}}
}

func TestStreamRendersTheReply(t *testing.T) {
	tests := []struct {
		name   string
		events []*provider.ChatEvent
		out    string
	}{
		{"text gets a final newline", []*provider.ChatEvent{text("Hello"), text(", world")}, "Hello, world\n"},
		{"no double newline", []*provider.ChatEvent{text("line\n")}, "line\n"},
		{"nothing at all", nil, ""},
		{"reasoning in think tags", []*provider.ChatEvent{think("hmm"), think(" ok"), text("Answer")}, "<think>\nhmm ok\n</think>\n\nAnswer\n"},
		{"reasoning ending in newline", []*provider.ChatEvent{think("hmm\n"), text("A")}, "<think>\nhmm\n</think>\n\nA\n"},
		{"reasoning only", []*provider.ChatEvent{think("hmm")}, "<think>\nhmm\n</think>\n\n"},
		{"a signature alone shows nothing", []*provider.ChatEvent{{Reasoning: &provider.Reasoning{Signature: "enc"}}, text("A")}, "A\n"},
		{"usage and finish print nothing", []*provider.ChatEvent{text("a"), {Usage: &provider.Usage{InputTokens: 1}}, {FinishReason: "stop"}}, "a\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			if _, err := Stream(context.Background(), &script{events: tt.events}, &provider.ChatRequest{}, &out); err != nil {
				t.Fatal(err)
			}
			if out.String() != tt.out {
				t.Fatalf("output %q, want %q", out.String(), tt.out)
			}
		})
	}
}

func TestStreamReturnsWhatArrivedWithTheError(t *testing.T) {
	call := &provider.ToolCall{ID: "1", Name: "f", Arguments: "{}"}
	p := &script{
		events: []*provider.ChatEvent{think("t"), text("partial"), {ToolCall: call}, {Usage: &provider.Usage{OutputTokens: 3}}, {FinishReason: "tool_calls"}},
		err:    sdk.ErrUnavailable,
	}
	var out strings.Builder
	reply, err := Stream(context.Background(), p, &provider.ChatRequest{}, &out)
	if !errors.Is(err, sdk.ErrUnavailable) {
		t.Fatalf("err = %v", err)
	}
	if reply.Text != "partial" || reply.Reasoning != "t" || len(reply.ToolCalls) != 1 || reply.ToolCalls[0] != *call ||
		reply.Usage.OutputTokens != 3 || reply.FinishReason != "tool_calls" {
		t.Fatalf("reply = %+v", reply)
	}
	if out.String() != "<think>\nt\n</think>\n\npartial\n" {
		t.Fatalf("output %q", out.String())
	}
}

type brokenWriter struct{}

func (brokenWriter) Write([]byte) (int, error) { return 0, errors.New("stdout closed") }

func TestStreamStopsWhenOutputFails(t *testing.T) {
	p := &script{events: []*provider.ChatEvent{text("a"), text("b")}}
	if _, err := Stream(context.Background(), p, &provider.ChatRequest{}, brokenWriter{}); err == nil || err.Error() != "stdout closed" {
		t.Fatalf("err = %v", err)
	}
}

func TestReplyKeepsThinkingBlocksForReplay(t *testing.T) {
	call := provider.ToolCall{ID: "t1", Name: "f", Arguments: "{}", Signature: "call-sig"}
	p := &script{events: []*provider.ChatEvent{
		think("first "), think("thought"), {Reasoning: &provider.Reasoning{Signature: "sig-1"}},
		{Reasoning: &provider.Reasoning{Redacted: "opaque"}},
		think("second"), {Reasoning: &provider.Reasoning{Signature: "sig-2"}},
		text("answer"), {ToolCall: &call},
	}}
	var out strings.Builder
	reply, err := Stream(context.Background(), p, &provider.ChatRequest{}, &out)
	if err != nil {
		t.Fatal(err)
	}
	want := []provider.Reasoning{{Text: "first thought", Signature: "sig-1"}, {Redacted: "opaque"}, {Text: "second", Signature: "sig-2"}}
	if !reflect.DeepEqual(reply.Thinking, want) {
		t.Fatalf("thinking = %+v", reply.Thinking)
	}
	m := reply.Message()
	if m.Role != provider.RoleAssistant || len(m.Parts) != 5 || m.Parts[3].Text != "answer" || *m.Parts[4].ToolCall != call || m.Parts[1].Reasoning.Redacted != "opaque" {
		t.Fatalf("message = %+v", m)
	}
	if out.String() != "<think>\nfirst thoughtsecond\n</think>\n\nanswer\n" {
		t.Fatalf("output %q", out.String())
	}
}

func TestAppendExchangeKeepsEveryEntry(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache", "messages.md")
	at := time.Date(2026, 11, 29, 10, 4, 5, 0, time.UTC)
	if err := AppendExchange(path, at, "", "hello\n", &Reply{Text: "hi there\n"}); err != nil {
		t.Fatal(err)
	}
	if err := AppendExchange(path, at, "role:shell", "list files", &Reply{Text: "ls", Reasoning: "simple"}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	want := "# CHAT: 2026-11-29 10:04:05\nhello\n--------\nhi there\n--------\n\n" +
		"# CHAT: 2026-11-29 10:04:05 [role:shell]\nlist files\n--------\n<think>\nsimple\n</think>\n\nls\n--------\n\n"
	if string(b) != want {
		t.Fatalf("messages.md =\n%s\nwant\n%s", b, want)
	}
}
